"""Recall and reach runs as the Recall pane shows them.

Pure: reads a query file, runs the engine's ``run_recall`` / ``run_reach`` once per profile
and reports each step through a callback, so a thread worker can post progress without
touching a widget (STYLE §5). Errors come back as one line, never as an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolsearch.profiles import PROFILE_NAMES
from toolsearch.resources import data_dir
from toolsearch.session import SessionState
from toolsearch.sources.samples import bundled_sample

if TYPE_CHECKING:  # the engine's recall module loads when a run starts, not at start-up
    from toolsearch.recall import ReachReport, RecallReport

PROFILE_CHOICES: tuple[tuple[str, str], ...] = (
    *((name, name) for name in PROFILE_NAMES), (" | ".join(PROFILE_NAMES), "both"),
)
QUERIES_FOLDER = "queries"
QUERY_SUFFIX = ".jsonl"


def recall_basis(session: SessionState | None) -> tuple[object, ...]:
    """What a run's figures depend on: the tools loaded, detached and in scope, and the
    ``defer`` list (a threshold or a limit changes nothing the run searched)."""
    if session is None:
        return ()
    defer = session.config.defer
    return (id(session.workspace), session.detached, session.scope,
            tuple(defer) if defer is not None else None)


def profiles_for(choice: str) -> tuple[str, ...]:
    """``both`` -> every profile side by side; otherwise the one profile."""
    return PROFILE_NAMES if choice == "both" else (choice,)



def default_query_file(sources: Sequence[str]) -> Path | None:
    """The bundled query set of the loaded sample (``queries/<sample>.jsonl``), if any.

    ``None`` when no sample is loaded or the query sets were not installed (a wheel install
    may ship without them).
    """
    names = [name for name in map(bundled_sample, sources) if name is not None]
    if not names:
        return None
    try:
        folder = data_dir(QUERIES_FOLDER)
    except FileNotFoundError:
        return None
    path = folder / f"{names[0]}{QUERY_SUFFIX}"
    return path if path.is_file() else None


@dataclass(frozen=True)
class RecallStep:
    """Progress of a run: *done* of *total* profiles, and what runs now."""

    done: int
    total: int
    label: str
    part: float = 0.0
    """How much of the profile now running is done (0 to 1)."""


@dataclass(frozen=True)
class RecallView:
    """The outcome of one run: recall reports, reach reports, or one line of error."""

    kind: str
    """``recall`` or ``reach``."""
    source: str = ""
    """The query file (recall) or ``""`` (reach)."""
    queries: int = 0
    recall: tuple[RecallReport, ...] = ()
    reach: tuple[ReachReport, ...] = ()
    error: str = ""
    session_key: int = 0
    basis: tuple[object, ...] = ()
    """:func:`recall_basis` of the session it ran on."""

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(r.profile for r in (self.recall or self.reach))


Progress = Callable[[RecallStep], None]
Cancelled = Callable[[], bool]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "\u2026"


PROGRESS_STEPS = 50
"""Progress messages per profile, at most."""


def recall_run(session: SessionState, path: str, profiles: Sequence[str],
               progress: Progress = lambda step: None, cancelled: Cancelled = lambda: False,
               session_key: int = 0) -> RecallView:
    """Read *path* and run every query under each profile; an error is one line."""
    source = path.strip()
    if not source:
        return RecallView("recall", error="No query file given: type the path of a JSON "
                          "lines file (one {\"query\", \"gold\"} object per line).")
    file = Path(source).expanduser()
    from toolsearch.recall import load_queries, run_recall
    from toolsearch.sources.errors import SourceError

    try:
        queries = load_queries(file)
    except (OSError, ValueError, SourceError) as exc:
        return RecallView("recall", source, error=f"Could not read the query file: "
                          f"{_one_line(exc)}")
    if not queries:
        return RecallView("recall", source, error=f"No queries in {source} (blank lines and "
                          "# comments are skipped).")
    reports: list[RecallReport] = []
    every = max(1, len(queries) // PROGRESS_STEPS)
    for done, profile in enumerate(profiles):
        if cancelled():
            break
        label = f"{profile}: {len(queries)} queries"
        progress(RecallStep(done, len(profiles), label))

        def tick(n: int, done: int = done, label: str = label) -> bool:
            """Checked after each query: a quit mid-profile stops the run (it waited for the
            profile's end, 3 s at 10,000 queries), and the bar moves within a profile."""
            if n % every == 0:
                progress(RecallStep(done, len(profiles), label, n / len(queries)))
            return not cancelled()

        try:
            report = run_recall(session, queries, profile, tick=tick)
        except Exception as exc:  # the engine failing on odd data: say so, do not crash
            return RecallView("recall", source, len(queries), tuple(reports),
                              error=f"Recall failed under {profile}: {_one_line(exc)}")
        if cancelled():  # stopped mid-profile: its figures cover part of the file
            break
        reports.append(report)
    progress(RecallStep(len(profiles), len(profiles), "done"))
    return RecallView("recall", source, len(queries), tuple(reports), session_key=session_key)


def reach_run(session: SessionState, profiles: Sequence[str],
              progress: Progress = lambda step: None, cancelled: Cancelled = lambda: False,
              session_key: int = 0) -> RecallView:
    """Run the reach linter under each profile."""
    from toolsearch.recall import run_reach

    reports: list[ReachReport] = []
    for done, profile in enumerate(profiles):
        if cancelled():
            break
        progress(RecallStep(done, len(profiles), f"{profile}: every deferred tool"))
        try:
            reports.append(run_reach(session, profile))
        except Exception as exc:
            return RecallView("reach", reach=tuple(reports),
                              error=f"Reach failed under {profile}: {_one_line(exc)}")
    progress(RecallStep(len(profiles), len(profiles), "done"))
    return RecallView("reach", reach=tuple(reports), session_key=session_key)
