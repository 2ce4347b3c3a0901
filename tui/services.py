"""Blocking or I/O work the app runs in workers: loading sources, executors, saving.

Thin adapters over ``toolsearch.sources``; nothing here touches a widget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsearch.bridge import DryRunExecutor, ExecutionResult, Executor
from toolsearch.toolsets import Workspace

DEFAULT_SOURCE = "seed-demo"


async def load_workspace(specs: Sequence[str], *, timeout: float | None = None) -> Workspace:
    """Every SOURCE merged (live servers listed in parallel, each within *timeout* seconds,
    default 15, or its own shorter ``connect_timeout``)."""
    from toolsearch.sources import DEFAULT_TIMEOUT, load_sources_async

    return await load_sources_async(list(specs) or [DEFAULT_SOURCE],
                                    timeout=DEFAULT_TIMEOUT if timeout is None else timeout)


def hermes_target(specs: Sequence[str]) -> Path | None:
    """The Hermes ``config.yaml`` among the SOURCEs (where save writes), if any."""
    try:
        from toolsearch.sources import hermes_config_path
    except ImportError:
        return None
    try:
        return hermes_config_path(list(specs))
    except Exception:
        return None


@dataclass
class RoutingExecutor:
    """Live servers execute for real; tools of snapshot sources are recorded (dry run)."""

    live: Any
    dry: DryRunExecutor

    async def execute(self, tool_name: str, arguments: Mapping[str, Any]) -> ExecutionResult:
        if self.live is not None and self.live.can_execute(tool_name):
            return await self.live.execute(tool_name, arguments)  # type: ignore[no-any-return]
        return await self.dry.execute(tool_name, arguments)


def make_executor(specs: Sequence[str], workspace: Workspace, *,
                  timeout: float | None = None) -> Executor:
    """A routing executor when any SOURCE declares live servers, else the dry run."""
    dry = DryRunExecutor()
    try:
        from toolsearch.sources.executor import live_executor
    except ImportError:
        return dry
    try:
        live = live_executor(list(specs), workspace, timeout=timeout)
    except Exception:
        return dry
    if not getattr(live, "server_names", ()):
        return dry
    return RoutingExecutor(live, dry)


@dataclass(frozen=True)
class SaveOutcome:
    path: Path
    backup: Path | None
    changed: tuple[str, ...]

    def message(self) -> str:
        if not self.changed:
            return f"Nothing to change: {self.path} already holds these tools.tool_search values."
        backup = (f"backup of the file before this save: {self.backup} (each save "
                  "replaces it)") if self.backup else \
            "new file (no previous file to back up)"
        return (f"Saved tools.tool_search to {self.path} (changed: {', '.join(self.changed)}); "
                f"{backup}")


def save_refusal(path: Path) -> str | None:
    """Why the app will not save into *path*; None for a Hermes ``config.yaml``, a file that
    holds no YAML yet, or a new ``.yaml`` in an existing folder. What ``tune --save`` refuses
    (a client config, JSON, any other file) is refused; a catalog too, whose block is another
    (``toolsearch tune CATALOG --save`` writes it)."""
    from toolsearch.sources.errors import SourceError
    from toolsearch.sources.filesafe import read_bounded
    from toolsearch.sources.safe_yaml import load_yaml
    from toolsearch.sources.save_target import APP_WORDS, YAML_SUFFIXES, save_kind

    if not (path.exists() or path.is_symlink()):
        if not path.parent.is_dir():
            return f"{path.parent}: no such folder"
        if path.suffix.lower() not in YAML_SUFFIXES:
            return f"{path}: a new config file must end in .yaml or .yml"
        return None
    try:
        kind = save_kind(path, APP_WORDS)
    except SourceError as exc:
        try:  # an empty or comment-only YAML file: as good as a new one
            if path.suffix.lower() in YAML_SUFFIXES and \
                    load_yaml(read_bounded(path, "config file").decode("utf-8")) is None:
                return None
        except Exception:
            pass
        return str(exc)
    if kind != "hermes":
        return (f"{path}: is a catalog; the app saves only into a Hermes config.yaml (a "
                "catalog's own tool_search block is saved from the command line: "
                "toolsearch tune)")
    return None


def save_block(path: Path, values: Mapping[str, Any]) -> SaveOutcome:
    """Write the block through the engine's safe save (raises SourceError with a reason)."""
    from toolsearch.sources.errors import SourceError
    from toolsearch.sources.save import save_tool_search_block

    refusal = save_refusal(path)
    if refusal:
        raise SourceError(refusal)
    result = save_tool_search_block(path, values)
    return SaveOutcome(result.path, result.backup_path, tuple(result.changed_keys))
