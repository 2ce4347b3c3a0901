"""The ``toolsearch`` command line. Imports the app lazily, only for ``tui`` and ``demo``."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import importlib
import json
import math
import os
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .cli_help import JSON_HELP, SOURCE_HELP, THEME_HELP, TIMEOUT_HELP
from .cli_help import add_command as _command
from .cli_safety import (
    SCRUB,
    SIGTERM_STATUS,
    OneLineParser,
    bounded_assignment,
    finite_seconds,
    handle_sigterm,
    harden_streams,
    log_to_stderr,
    parse_args_json,
    positive_int,
    sigterm_line,
    took_sigterm,
    warn,
)
from .config import CONFIG_KEYS, CONFIG_TABLE, block_notes, parse_assignment, read_as_note
from .profiles import PROFILE_NAMES, get_profile
from .progress import Progress, progress
from .session import SessionState
from .toolsets import Workspace

DEFAULT_SAMPLE = "seed-demo"
BRIDGES = ("tool_search", "tool_describe", "tool_call")


class CliError(Exception):
    """A user-facing error: printed as one line on stderr, exit status 1."""


# --------------------------------------------------------------------------- helpers


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False))


def load_workspace(specs: Sequence[str], *, timeout: float = 15.0) -> Workspace:
    """Load and merge SOURCE arguments (files, sample names, configs, live servers). On a
    terminal, a progress line on stderr as each live server is listed."""
    from .sources import load_sources

    shown = progress("")
    if shown.enabled:
        _starting_line(shown, specs, timeout)
    workspace = load_sources(list(specs), timeout=timeout,
                             listed=_listed_line(shown) if shown.enabled else None)
    for warning in workspace.warnings:
        warn(warning)
    for toolset in workspace.toolsets:
        if toolset.error and toolset.status.value == "error":
            warn(f"{toolset.name}: failed: {toolset.error}")
    return workspace


def _starting_line(shown: Progress, specs: Sequence[str], timeout: float) -> None:
    """How many live servers start, and how many at once (the first is listed only when it
    answers, which may take the whole timeout)."""
    from .sources import server_configs
    from .sources.errors import SourceError
    from .sources.live import MAX_PARALLEL

    try:  # the parse is cached: loading the SOURCEs reuses it (and says what is wrong)
        count = len(server_configs(specs))
    except SourceError:
        return
    if count:
        at_once = f", {MAX_PARALLEL} at a time" if count > MAX_PARALLEL else ""
        shown(f"starting {count} live server{'s' if count > 1 else ''}{at_once}, each given "
              f"up to {timeout:g} s (--timeout) to list its tools")


def _listed_line(shown: Progress) -> Callable[[Any, int, int], None]:
    from .sources.live import MAX_PARALLEL

    def listed(listing: Any, done: int, total: int) -> None:
        toolset = listing.toolset
        what = "failed" if toolset.error else f"{len(toolset.tools)} tools"
        waiting = total - done - MAX_PARALLEL  # started as others finish, MAX_PARALLEL at once
        queued = f", {waiting} waiting to start" if waiting > 0 else ""
        shown.say(f"server {toolset.name}: {what} ({done} of {total} servers listed{queued})")

    return listed


def _overrides(assignments: Sequence[str] | None) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for text in assignments or ():
        _check_utf8("--set", text)  # a byte read as '\udcff' was saved or printed as is
        _refuse_alias_bomb(text)
        try:
            key, value = parse_assignment(bounded_assignment(text))
        except ValueError as exc:
            raise CliError(str(exc)) from None
        changes[key] = value
    return changes


def _refuse_alias_bomb(text: str) -> None:
    """A ``--set`` value is read as YAML: one whose aliases expand past the bounds a file has
    (``defer=[&a [x,x,...], &b [*a,*a,...], ...]``) is refused, never expanded in memory."""
    key, _, value = text.partition("=")
    if "&" not in value or "*" not in value:
        return
    from .sources.safe_yaml import YamlRefused, load_yaml

    try:
        load_yaml(value)
    except YamlRefused as exc:
        raise CliError(f"--set {key.strip()}: {exc}") from None
    except Exception:  # noqa: BLE001 - not valid YAML, or too deep: parse_assignment decides
        return


def _redacted(text: str) -> str:
    """*text* with any secret in it redacted (a SOURCE or an argument echoed in an error)."""
    from .sources.redact import redact_text

    return redact_text(text)


def _empty(path: str) -> str:
    """What a path that names nothing is, in words (it is quoted beside them)."""
    return "an empty path" if not path else "a path of only blanks"


def _split_csv(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _warn_read_as(changes: Mapping[str, Any] | None, config: Any) -> None:
    """A warning for each ``--set`` Hermes does not read as given (defaulted, clamped)."""
    for key, value in (changes or {}).items():
        if key == "defer" and not config.profile.has_defer_list:
            readers = [n for n in PROFILE_NAMES if get_profile(n).has_defer_list]
            warn(f"--set defer: the {config.profile.name} profile has no defer list and does "
                  f"not read it (no effect; --profile {' or '.join(readers)} reads it)")
            continue
        note = read_as_note(key, value, config)
        if note:
            warn(f"--set {note}")


def _warn_block_values(specs: Sequence[str], workspace: Workspace, profile: str,
                       replaced: Collection[str]) -> None:
    """A warning for each value of the SOURCEs' ``tool_search`` block that Hermes does not
    read as written (it clamps or defaults it silently, and so does the engine), beside the
    other warnings about the file; keys ``--set`` replaces are not the file's to answer for."""
    block = workspace.tool_search
    if not block:
        return
    # A value that looks like a secret is shown as ***: Hermes reads *** as it reads any other
    # word where it wants a number or auto/on/off (the note names what it was read as).
    shown = {key: value if isinstance(value, int | float) or _redacted(repr(value)) ==
             repr(value) else "***" for key, value in block.items()}
    notes = block_notes(shown, profile, skip=replaced)
    if notes:
        where = _redacted(_tool_search_origin(specs))
        for note in notes:
            warn(f"{where}: {note}")


def _tool_search_origin(specs: Sequence[str]) -> str:
    """Where the merged ``tool_search`` block came from, as the file's own warnings name it:
    ``config.yaml: tools.tool_search`` (the first SOURCE that has one wins the merge)."""
    from .sources.detect import CATALOG, HERMES, resolve_source
    from .sources.errors import SourceError
    from .sources.hermes_config import tool_search_block

    for spec in specs:
        try:  # parsed once already (cached): this only looks again
            source = resolve_source(spec)
        except SourceError:
            continue
        if source.path is None or not isinstance(source.data, Mapping):
            continue
        if source.kind == HERMES and tool_search_block(source.data)[0] is not None:
            return f"{source.path.name}: tools.tool_search"
        if source.kind == CATALOG and source.data.get("tool_search") is not None:
            return f"{source.path.name}: tool_search"
    return "tool_search"


def build_state(args: argparse.Namespace, specs: Sequence[str], *,
                apply_set: bool = True) -> SessionState:
    workspace = load_workspace(specs, timeout=args.timeout)
    changes = _overrides(getattr(args, "set", None))
    _warn_block_values(specs, workspace, args.profile, replaced=changes)
    overrides = changes if apply_set else None
    state = SessionState.from_workspace(
        workspace, profile=args.profile, context_length=args.context, overrides=overrides,
    )
    _warn_read_as(overrides, state.config)
    for name in _toolsets(workspace, "--detach", getattr(args, "detach", None)) or ():
        state = state.toggled(name)
    scope = _toolsets(workspace, "--scope", getattr(args, "scope", None))
    if scope is not None:
        state = state.with_scope(scope)
    return state


def _toolsets(workspace: Workspace, option: str, value: str | None) -> list[str] | None:
    """Toolsets named by registry name (``mcp-docs``) or bare server name (``docs``)."""
    names = _split_csv(value)
    if names is None:
        return None
    if not names:  # `--scope ""` (an unset shell variable) would silently scope out everything
        raise CliError(f"{option}: names no toolset (give TOOLSET,...; have: "
                       f"{', '.join(workspace.toolset_ids())})")
    found = []
    for name in names:
        toolset = workspace.resolve_toolset(name)
        if toolset is None:
            raise CliError(f"{option}: no toolset named {name!r} "
                           f"(have: {', '.join(workspace.toolset_ids())})")
        found.append(toolset.name)
    return found


def _score(value: float) -> float | None:
    return None if math.isinf(value) else round(value, 6)


# --------------------------------------------------------------------------- commands


def assemble_json(state: SessionState) -> dict[str, Any]:
    from .tooldefs import thaw

    result = state.assembly
    budget = result.budget
    return {
        "activated": result.activated,
        "tier": result.tier,
        "tier_meaning": result.tier_meaning,
        "listing_form": result.listing_form,
        "budget": budget.budget if budget else None,
        "budget_binding": budget.binding if budget else None,
        "context_length": state.context_length,
        "profile": state.config.profile.name,
        "config": state.config.to_raw(),
        "deferred_count": result.deferred_count,
        "deferred_tokens": result.deferred_tokens,
        "deferred_tokens_exact": state.deferred_tokens_exact(),
        "visible": list(result.visible_names),
        "deferred": list(result.deferred_names),
        "listing": result.listing_text,
        "listing_tokens": result.listing.tokens if result.listing else 0,
        "log_line": result.log_line,
        "toolsets": [
            {"name": row.toolset_id, "kind": row.toolset.kind, "status": row.toolset.status.value,
             "error": row.toolset.error or None, "tools": row.tool_count,
             "schema_tokens": row.tokens, "listing_form": row.listing_form,
             "attached": row.attached, "in_scope": row.in_scope}
            for row in state.rows()
        ],
        "tool_defs": [thaw(d) for d in result.tool_defs],
    }


def cmd_assemble(args: argparse.Namespace) -> int:
    state = build_state(args, args.sources)
    if args.json:
        _print_json(assemble_json(state))
        return 0
    result = state.assembly
    for row in state.rows():
        status = row.toolset.status.value + (f" ({row.toolset.error})" if row.toolset.error else "")
        print(f"{row.toolset_id:<24} {row.toolset.kind:<12} {status:<12} {row.tool_count:>5} tools "
              f"{row.tokens:>8} tokens  listing {row.listing_form}")
    print()
    if result.log_line:
        print(result.log_line)
    else:
        print(f"tool_search not activated (tier 0): {len(result.tool_defs)} tools sent eagerly"
              + (", enabled: off" if state.config.enabled == "off" else ""))
    if result.budget:
        b = result.budget
        context = b.context_length or state.context_length
        leg = (f"{state.config.threshold_pct:g}% of {context:,} = {b.percent_leg:,}" if context
               else f"{state.config.threshold_pct:g}% leg {b.percent_leg:,}")
        print(f"budget {b.budget:,} = min(listing_max_tokens {b.cap:,}, {leg}); "
              f"binds: {b.binding}")
    if result.listing_text:
        print()
        print(result.listing_text)
    return 0


def search_json(state: SessionState, query: str, limit: int) -> dict[str, Any]:
    bridge = state.bridge()
    hits, total = bridge.search_hits(query, limit)
    return {
        "query": query,
        "profile": state.config.profile.name,
        "total_available": total,
        "matches": [
            {"name": h.entry.name, "score": _score(h.score), "exact": h.exact,
             "source": h.entry.source, "source_name": h.entry.source_name,
             "fallback": h.fallback,
             "terms": {tok: round(value, 6) for tok, value in h.terms},
             **({"fields": [[f, t, round(v, 6)] for f, t, v in h.fields]} if h.fields else {})}
            for h in hits
        ],
    }


def cmd_search(args: argparse.Namespace) -> int:
    _check_utf8("--query", args.query)  # --json printed it as "\udcff", invalid JSON
    if not args.query.strip():
        raise CliError("--query is empty: give the words to search for (as a model would: "
                       "--query \"scrape a web page\")")
    state = build_state(args, args.sources)
    limit = args.limit if args.limit is not None else state.config.search_default_limit
    payload = search_json(state, args.query, limit)
    if args.json:
        _print_json(payload)
        return 0
    matches = payload["matches"]
    print(f"{len(matches)} of {payload['total_available']} deferred tools match "
          f"{args.query!r} ({payload['profile']} profile)")
    for m in matches:
        score = "exact" if m["score"] is None else f"{m['score']:.3f}"
        terms = "  ".join(f"{t}={v:.3f}" for t, v in m["terms"].items())
        mark = "  [substring fallback]" if m["fallback"] else ""
        print(f"  {score:>8}  {m['name']}{mark}")
        if terms and not m["fallback"]:
            print(f"            {terms}")
        if m.get("fields"):
            print("            by field: " + "  ".join(f"{f}:{t}={v:.3f}"
                                                     for f, t, v in m["fields"]))
    if not matches:
        print(f"  {state.config.profile.retrieval.no_match_note}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    *specs, tool = args.sources_and_tool
    if not specs or not tool.strip():
        raise CliError("explain needs at least one SOURCE and a TOOL name")
    _check_utf8("TOOL", tool)
    state = build_state(args, specs)
    explanation = state.explain(tool)
    if explanation.status == "unknown" and _looks_like_source(tool):
        warn(f"{tool!r} is a SOURCE, read here as the TOOL name: the TOOL comes last "
              "(toolsearch explain SOURCE... TOOL)")
    if args.json:
        _print_json(explanation.as_json())
        return 0 if explanation.status != "unknown" else 1
    e = explanation
    print(f"{e.name}: {e.status} (rule {e.rule})")
    print(f"  {e.reason}")
    print(f"  toolset: {e.toolset or '-'}")
    if e.schema_tokens is not None:
        print(f"  schema tokens: ~{e.schema_tokens} estimated, {e.schema_tokens_exact} exact")
    print(f"  listing line: {e.listing_line if e.listing_line else '-'}")
    for line in e.advice.sentences() if e.advice else ():
        print(f"  {line}")
    return 0 if e.status != "unknown" else 1


def _executor_for(specs: Sequence[str], workspace: Workspace, timeout: float) -> Any:
    """A live executor when the SOURCEs declare live servers; None (dry run) otherwise."""
    from .sources import server_configs
    from .sources.executor import live_executor

    if not server_configs(specs):
        return None
    return live_executor(specs, workspace, timeout=timeout)


def _stdin_text() -> str:
    """ARGS_JSON ``-``: the JSON read from stdin (bounded as a file is), for arguments too
    long or too quoted for a shell word."""
    from .sources.filesafe import MAX_FILE_BYTES

    if _stream_is_terminal(sys.stdin):  # typed by hand: it waited without a word
        print("toolsearch call: reading ARGS_JSON from the terminal; type the JSON object, "
              "then Ctrl+D on a line of its own", file=sys.stderr)
    try:
        raw = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    except (AttributeError, OSError) as exc:  # stdin closed (None) or unreadable
        why = getattr(exc, "strerror", None) or "it is closed"
        raise CliError(f"ARGS_JSON -: cannot read stdin: {why}") from None
    if not raw.strip():
        raise CliError("ARGS_JSON -: stdin is empty (pipe the JSON object in)")
    if len(raw) > MAX_FILE_BYTES:
        raise CliError(f"ARGS_JSON -: stdin holds over {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"ARGS_JSON -: stdin is not UTF-8 (byte {exc.start})") from None


def cmd_call(args: argparse.Namespace) -> int:
    if len(args.sources_call) < 3:
        raise CliError("call needs SOURCE... BRIDGE_TOOL ARGS_JSON")
    *specs, bridge_name, raw_args = args.sources_call
    if bridge_name not in BRIDGES:
        raise CliError(f"unknown bridge tool {bridge_name!r} (one of {', '.join(BRIDGES)})")
    _check_utf8("ARGS_JSON", raw_args)  # its names and queries came back as "\udcff"
    try:
        call_args = parse_args_json(_stdin_text() if raw_args == "-" else raw_args)
    except ValueError as exc:
        raise CliError(f"ARGS_JSON: {exc}") from None
    if not isinstance(call_args, dict):
        raise CliError("ARGS_JSON must be a JSON object")
    state = build_state(args, specs)
    bridge = state.bridge(_executor_for(specs, state.workspace, args.timeout))
    reply = asyncio.run(bridge.dispatch(bridge_name, call_args))
    note = reply.activity.summary if bridge_name == "tool_call" else ""
    if args.json:
        _print_json({"result": reply.result, "activity": {**reply.activity.as_json(),
                                                          **({"note": note} if note else {})}})
        return 0
    a = reply.activity
    print(f"{a.headline()}  [{a.outcome}, {a.ms:.1f} ms]" + (f"\n  {note}" if note else ""))
    print(json.dumps(reply.result, ensure_ascii=False, indent=2))
    return 0


def cmd_snapshot(args: argparse.Namespace) -> int:
    from .sources.snapshot import replaced_tool_search, write_catalog_file

    if not args.output.strip():  # Path("") is ".", which the refusal would name instead
        raise CliError(f"-o {args.output!r}: {_empty(args.output)}; give the catalog file "
                       "to write (.yaml or .json)")
    if _is_bundled_sample(args.output) and os.path.exists(args.output):
        raise CliError(f"{args.output} is the bundled sample that ships with toolsearch, not "
                       "written over: copy it first (cp it to my.yaml) or give another -o file")
    _check_utf8("--name", args.name)  # before any server starts
    workspace = load_workspace(args.sources, timeout=args.timeout)
    out = Path(args.output)
    failed = [t.name for t in workspace.toolsets if t.error]
    if failed and len(failed) == len(workspace.toolsets):  # a catalog of failures only: it
        # replaced a good catalog (every server down, offline) with none of its tools
        raise CliError(f"nothing written: every server failed ({', '.join(failed)}); "
                       f"{out} is left as it was")
    tuned = replaced_tool_search(out, workspace)
    # a server that failed this time is recorded without its tools: the catalog it replaces
    # may hold them, and is kept as FILE.bak (it was replaced outright)
    backup = write_catalog_file(workspace, out, name=args.name, sources=args.sources,
                                force=args.force, keep_tuned=True, keep_previous=bool(failed))
    if backup is not None and tuned:
        now = "the SOURCEs' block" if workspace.tool_search is not None else "none"
        warn(f"{out}: its tuned tool_search block ({_redacted(tuned)}) was replaced by {now}; "
             f"the previous file is in {backup}")
    elif backup is not None and failed:
        warn(f"{out} replaced while {', '.join(failed)} failed (recorded without tools); its "
             f"previous content is in {backup}")
    elif backup is not None:
        warn(f"{out} replaced (--force); its previous content is in {backup}")
    tools = sum(len(t.tools) for t in workspace.toolsets)
    errors = [t for t in workspace.toolsets if t.error]
    print(f"wrote {out}: {len(workspace.toolsets) - len(errors)} toolsets, {tools} tools"
          + (f" ({len(errors)} failed: {', '.join(t.name for t in errors)})" if errors else ""))
    return 0


def _check_utf8(option: str, value: str | None) -> None:
    """Refuse a value that is not UTF-8 text (a byte the shell passed as is, read as a lone
    surrogate): written into a file, it failed late, as ``UnicodeEncodeError: 'utf-8' codec
    can't encode character '\\udcff' ...``."""
    bad = next((ch for ch in value or "" if 0xDC80 <= ord(ch) <= 0xDCFF), None)
    if bad is not None:
        raise CliError(f"{option}: not UTF-8 text (it holds the byte 0x{ord(bad) - 0xDC00:02x}); "
                       "give it in UTF-8")


def _check_tune_target(args: argparse.Namespace) -> None:
    """Refuse, before any server starts, a ``--save`` that has nowhere it may write."""
    # `--config "$UNSET"` read as no --config, and --save wrote into SOURCE instead
    if args.config is not None and not args.config.strip():
        raise CliError(f"--config {args.config!r}: {_empty(args.config)}; name the Hermes "
                       "config.yaml to save into")
    if args.save and not args.config and "://" in args.source:  # before any server starts
        raise CliError("--save writes a Hermes config.yaml or a YAML catalog, and SOURCE is "
                       "a URL: name the file with --config PATH")
    if args.save and not args.config and _is_bundled_sample(args.source):
        raise CliError(f"{args.source} is a bundled sample, not saved in place: copy it with "
                       f"`toolsearch snapshot {args.source} -o my.yaml` and tune my.yaml, or "
                       "save into a Hermes config.yaml with --config PATH")


def cmd_tune(args: argparse.Namespace) -> int:
    changes = _overrides(args.set)
    if not changes:
        raise CliError("tune needs at least one --set KEY=VALUE")
    _check_tune_target(args)
    before = build_state(args, [args.source], apply_set=False)
    after = before.with_config(**changes)
    _warn_read_as(changes, after.config)
    rows: list[dict[str, Any]] = []
    for label, state in (("before", before), ("after", after)):
        r = state.assembly
        rows.append({"tier": r.tier, "listing_form": r.listing_form,
                     "budget": r.budget.budget if r.budget else None,
                     "binding": r.budget.binding if r.budget else None,
                     "listing_tokens": r.listing.tokens if r.listing else 0,
                     "config": state.config.to_raw(), "which": label})
    saved = _tune_save(args, changes, after) if args.save else None
    if args.json:
        _print_json({"before": rows[0], "after": rows[1], "saved": saved})
        return 0
    for row in rows:
        print(f"{row['which']:<7} tier {row['tier']}  listing {row['listing_form']:<6} "
              f"{row['listing_tokens']:>6} / {row['budget']} tokens (binds: {row['binding']})")
    for key in CONFIG_KEYS:
        old, new = rows[0]["config"].get(key), rows[1]["config"].get(key)
        if old != new:
            print(f"  {key}: {old} -> {new}")
    print(_saved_line(args, saved, any(k in rows[1]["config"] for k in changes)))
    return 0


def _saved_line(args: argparse.Namespace, saved: Mapping[str, Any] | None,
                writable: bool) -> str:
    """What ``tune`` did with the file, in one line (*writable*: a --set key can be saved)."""
    if saved and not saved["changed_keys"] and not writable:
        return f"nothing saved: no --set value can be written (not written: {saved['path']})"
    if saved and not saved["changed_keys"]:
        return f"nothing changed: {saved['path']} already holds these values (not written)"
    if saved:
        kept = (f"backup of the file before this save: {saved['backup']}, replaced by each "
                "save") if saved["backup"] else "a new file: no backup"
        return f"saved {saved['block']} to {saved['path']} ({kept})"
    if not args.config and _is_bundled_sample(args.source):
        return ("(not saved; a bundled sample is not written: add --save --config PATH to "
                "save into a Hermes config.yaml)")
    return "(not saved; add --save to write the Hermes config)"


def _tune_save(args: argparse.Namespace, changes: Mapping[str, Any],
               after: SessionState) -> dict[str, Any]:
    from .sources import hermes_config_path
    from .sources.save_target import save_into

    target = Path(args.config) if args.config else (hermes_config_path([args.source])
                                                    or Path(args.source))
    clamped = after.config.to_raw()
    values = {k: clamped[k] for k in changes if k in clamped}
    for key in changes.keys() - values.keys():  # defer: unread, or read as unset
        warn(f"--set {key}: not saved (" + (
            "this profile does not read it" if not after.config.profile.has_defer_list
            else "it reads as unset, the curated default") + ")")
    result, block = save_into(target, values)
    return {"path": str(result.path), "backup": str(result.backup_path) if
            result.backup_path else None, "changed_keys": list(result.changed_keys),
            "block": block}


def cmd_samples(args: argparse.Namespace) -> int:
    from .sources.samples import list_samples, sample_path

    for name in list_samples():
        print(f"{name:<20} {sample_path(name)}")
    return 0


def app_entry(name: str) -> Any:
    """An entry point of the app package, loaded only when a command opens the app (the engine
    itself never imports it)."""
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _check_sources(specs: Sequence[str]) -> None:
    """Refuse a SOURCE that cannot be read before the app opens (one line, exit 1)."""
    from .sources.detect import resolve_source

    for spec in specs:
        resolve_source(spec)


def _check_theme(name: str | None) -> None:
    """Refuse a theme the app does not have before it opens (one line, exit 1): it opened
    anyway, with a toast that was easy to miss."""
    if name is None:
        return
    names = app_entry("tui.themes.theme_names")()
    if name not in names:
        near = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise CliError(f"--theme: no theme {name!r} ({hint}themes: {', '.join(names)})")


def _stream_is_terminal(stream: Any) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (OSError, ValueError, AttributeError):  # closed, detached, or no isatty at all
        return False


def _check_terminal() -> None:
    """Refuse to open the app when it would have no terminal (one line, exit 1): it opened
    anyway, reading no keys from /dev/null or drawing escape codes into a pipe, with no way
    out but Ctrl-C or kill. Textual reads keys from stdin and draws on stderr (so stdout
    may be redirected); a driver of one's own (``TEXTUAL_DRIVER``, as ``textual serve``
    sets) needs neither."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    for name, stream in (("standard input", sys.__stdin__), ("standard error", sys.__stderr__)):
        if not _stream_is_terminal(stream):
            raise CliError(f"the app needs a terminal, and {name} is not one; for text "
                           "output use assemble, search, explain or call (--json for JSON)")


def _app_loader(args: argparse.Namespace) -> Callable[[str], Any]:
    """:func:`app_entry`, after :func:`_check_terminal` when the command line is the
    process's own (``main()``; a program calling ``main(argv)`` runs the app its own way)."""
    def load(name: str) -> Any:
        if getattr(args, "own_terminal", False):
            _check_terminal()
        return app_entry(name)

    return load


def cmd_tui(args: argparse.Namespace) -> int:
    from .gateway.cli import tui_gateway

    _check_sources(args.sources)
    _check_theme(args.theme)
    wanted = {"follow": "name the events file to follow",
              "serve": "give [HOST:]PORT (0: any free port)",
              "events": "name the events file, or leave --events out for the default"}
    for option, hint in wanted.items():  # `--follow "$UNSET"` opened the plain app
        value = getattr(args, option, None)
        if value is not None and not value.strip():
            raise CliError(f"--{option} {value!r}: empty; {hint}")
    _check_app_mode(args)
    load = _app_loader(args)
    if tui_gateway(args, load):  # --follow EVENTS or --serve [HOST:]PORT
        return 0
    run_app = load("tui.app.run_app")
    run_app(args.sources or [DEFAULT_SAMPLE], context=args.context, profile=args.profile,
            theme=args.theme, timeout=args.timeout)
    return 0


def _check_app_mode(args: argparse.Namespace) -> None:
    """Refuse options the app's mode would silently drop: ``--follow`` opened the follow
    view and ignored ``--serve`` and every SOURCE; ``--events`` and ``--token-env`` without
    ``--serve`` did nothing."""
    if args.follow is not None and args.serve is not None:
        raise CliError("--follow and --serve: give one (--follow watches a gateway that runs "
                       "elsewhere, through its events file; --serve hosts one in the app)")
    if args.follow is not None and args.sources:
        raise CliError("--follow: the servers come from the gateway's events file; leave "
                       f"out the SOURCEs ({_redacted(' '.join(args.sources))})")
    for option in ("events", "token_env"):
        if getattr(args, option) is not None and args.serve is None:
            raise CliError(f"--{option.replace('_', '-')}: only with --serve [HOST:]PORT "
                           "(the gateway the app hosts)")


def cmd_demo(args: argparse.Namespace) -> int:
    _check_sources(args.sources)
    _check_theme(args.theme)
    run_demo = _app_loader(args)("tui.app.run_demo")
    run_demo(args.sources or [DEFAULT_SAMPLE], context=args.context, profile=args.profile,
             theme=args.theme, timeout=args.timeout)
    return 0


# --------------------------------------------------------------------------- parser


def _common(p: argparse.ArgumentParser, *, tuning: bool = True, json_out: bool = False,
            set_help: str = "override a tools.tool_search key, e.g. threshold_pct=10 "
                            "(repeatable; default: the SOURCE's values, else Hermes' defaults)",
            ) -> None:
    p.add_argument("--profile", choices=PROFILE_NAMES, default=PROFILE_NAMES[0],
                   help="which Hermes to model (default: %(default)s): "
                   + "; ".join(f"{n}: {get_profile(n).summary}" for n in PROFILE_NAMES))
    p.add_argument("--context", type=positive_int, default=None, metavar="N",
                   help="context length in tokens (default: the catalog's, else 200000)")
    p.add_argument("--timeout", type=finite_seconds, default=15.0, metavar="S",
                   help=TIMEOUT_HELP)
    if tuning:
        p.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help=set_help + "; keys: "
                            + " | ".join(f"{k.name}: {k.help}" for k in CONFIG_TABLE).replace("%", "%%"))
        p.add_argument("--scope", metavar="TOOLSET,...",
                       help="restrict the session scope to these toolsets (registry names "
                            "such as mcp-docs; a bare server name is an alias; default: every "
                            "toolset)")
        p.add_argument("--detach", metavar="TOOLSET,...",
                       help="detach these toolsets (same names as --scope; default: none)")
    if json_out:
        p.add_argument("--json", action="store_true", help=JSON_HELP)


def build_parser() -> argparse.ArgumentParser:
    if _redacted not in SCRUB:
        SCRUB.append(_redacted)
    parser = OneLineParser(
        prog="toolsearch",
        description="Operator's workbench for progressive tool disclosure (Hermes tool search). "
                    "A SOURCE is a catalog file, a sample name (see `toolsearch samples`), a "
                    "Hermes config.yaml, a Claude Desktop / Cursor / VS Code MCP config, or a "
                    "folder of tool dumps. With no command, opens the app on seed-demo; "
                    "`toolsearch SOURCE...` opens it on those sources.",
    )
    parser.add_argument("--version", action="version", version=f"toolsearch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                help="what to do (toolsearch COMMAND --help for its options; "
                                     "default: tui)")

    p = _command(sub, "tui", "open the app on the SOURCEs: servers, tools, listing, tuning "
                             "and search")
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help=SOURCE_HELP + f" (default: the sample {DEFAULT_SAMPLE})")
    _common(p, tuning=False)
    p.add_argument("--theme", default=None, help=THEME_HELP)
    from .gateway.cli import add_tui_gateway_args

    add_tui_gateway_args(p)
    p.set_defaults(func=cmd_tui)

    p = _command(sub, "demo", "open the app and play the scripted demo session")
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help=SOURCE_HELP + f" (default: the sample {DEFAULT_SAMPLE})")
    _common(p, tuning=False)
    p.add_argument("--theme", default=None, help=THEME_HELP)
    p.set_defaults(func=cmd_demo)

    p = _command(sub, "assemble", "show what the model is sent: tier, budget, listing")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=SOURCE_HELP)
    _common(p, json_out=True)
    p.set_defaults(func=cmd_assemble)

    p = _command(sub, "search", "run tool_search over the deferred tools, as the model would "
                                "(with each hit's score)")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=SOURCE_HELP)
    p.add_argument("--query", "-q", required=True,
                   help="the words to search for, as the model sends them (required)")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="most hits to show (default: search_default_limit, 5)")
    _common(p, json_out=True)
    p.set_defaults(func=cmd_search)

    p = _command(sub, "explain", "say why a tool is visible, deferred or dropped",
                 usage="toolsearch explain SOURCE... TOOL [options]")
    p.add_argument("sources_and_tool", nargs="+", metavar="SOURCE... TOOL",
                   help="one or more SOURCEs, then the tool's name as the model sees it "
                        "(mcp__github__create_issue) or as its server names it; a SOURCE is "
                        + SOURCE_HELP)
    _common(p, json_out=True)
    p.set_defaults(func=cmd_explain)

    p = _command(sub, "call", "send one bridge call (tool_search, tool_describe or tool_call) "
                              "and print what the model gets back",
                 usage="toolsearch call SOURCE... BRIDGE_TOOL ARGS_JSON [options]")
    p.add_argument("sources_call", nargs="+", metavar="SOURCE... BRIDGE_TOOL ARGS_JSON",
                   help="one or more SOURCEs, then tool_search, tool_describe or tool_call, "
                        "then its arguments as a JSON object ('{\"query\": \"issue\"}', "
                        "or - to read it from stdin); "
                        "tool_call runs the tool only when a SOURCE names live servers (else "
                        "a dry run)")
    _common(p, json_out=True)
    p.set_defaults(func=cmd_call)

    p = _command(sub, "snapshot", "read the SOURCEs (starting their live servers) and write "
                                  "what they offer to a catalog file")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=SOURCE_HELP)
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the catalog file to write, .yaml or .json (required; an existing "
                        "catalog is replaced, kept as FILE.bak when the new one changes its "
                        "tool_search block or a server failed; nothing is written when every "
                        "server failed)")
    p.add_argument("--name", default=None,
                   help="catalog name to record (default: the SOURCE's name, else FILE's)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing non-catalog FILE or a SOURCE (a .bak copy is "
                        "kept; default: refuse)")
    p.add_argument("--timeout", type=finite_seconds, default=15.0, metavar="S",
                   help=TIMEOUT_HELP)
    p.set_defaults(func=cmd_snapshot)

    p = _command(sub, "tune", "preview a tools.tool_search change before and after (and "
                              "--save it)")
    p.add_argument("source", metavar="SOURCE", help=SOURCE_HELP.removesuffix(
        "; several are merged") + " (one)")
    _common(p, set_help="the tools.tool_search key to change, e.g. threshold_pct=10 (at "
                        "least one is required, repeatable; unset keys keep the SOURCE's "
                        "values, else Hermes' defaults)")
    p.add_argument("--save", action="store_true",
                   help="write the clamped values into SOURCE, a Hermes config.yaml or a "
                        "YAML catalog (backup kept; default: preview only)")
    p.add_argument("--config", metavar="PATH",
                   help="with --save: the Hermes config.yaml or YAML catalog to save into "
                        "instead (default: SOURCE)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_tune)

    p = _command(sub, "samples", "list the bundled sample catalogs")
    p.set_defaults(func=cmd_samples)

    from .bench_cli import add_bench_parser

    add_bench_parser(sub, _common)
    from .gateway.cli import add_serve_parser

    add_serve_parser(sub, _common)
    return parser


def _command_parser(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser of the command *args* ran: ``bench recall``'s, ``tune``'s, or the top."""
    found = parser
    for dest in ("command", "bench"):
        actions = [a for a in found._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, dest, None)
        if not actions or name is None or name not in actions[0].choices:
            break
        found = actions[0].choices[name]
    return found


def _is_bundled_sample(word: str) -> bool:
    """True when *word* reads the bundled sample catalog (by name, or by a path to the file)."""
    from .sources.samples import bundled_sample

    return bundled_sample(word) is not None


def _looks_like_source(word: str) -> bool:
    from .sources.samples import is_sample_name

    # os.path.exists: Path.exists raises for a word longer than a file name may be
    return os.path.exists(word) or is_sample_name(word) or "://" in word


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:  # started with stdout closed (`>&-`): every print would fail
        if sys.stderr is not None:
            sys.stderr.write("toolsearch: error: standard output is closed\n")
        return 1
    handle_sigterm()
    restore = harden_streams(escape_stdout="--json" not in (sys.argv[1:] if argv is None
                                                             else argv))
    try:
        return _main(argv)
    except KeyboardInterrupt:  # before _main's own handler (building the parser, ...)
        return _stopped("")
    finally:
        restore()


def _stopped(command: str) -> int:
    """*command* (``snapshot``, ``bench gateway``) was stopped: by Ctrl-C, ``toolsearch:
    interrupted`` and status 130; by SIGTERM, ``toolsearch snapshot: stopped (SIGTERM)`` and
    status 143 (it read as a Ctrl-C the user never pressed). Either way the servers it
    started are gone and no output file is half written."""
    if took_sigterm():
        print(sigterm_line(command), file=sys.stderr)
        return SIGTERM_STATUS
    print("toolsearch: interrupted", file=sys.stderr)
    return 130


def _run_command(args: argparse.Namespace) -> Any:
    """The command's function. An interrupt that reached a task of a task group (servers
    being started) comes out wrapped in an exception group: it is the KeyboardInterrupt it
    holds (it printed a traceback of the group, status 1: SIGTERM to a command started in
    the background, where SIGINT is ignored and SIGTERM interrupts at once)."""
    try:
        return args.func(args)
    except BaseExceptionGroup as group:
        if group.subgroup(KeyboardInterrupt) is None:
            raise
        raise KeyboardInterrupt from None


def _command_name(args: argparse.Namespace) -> str:
    """The command *args* ran, as its lines name it: ``snapshot``, ``bench gateway``."""
    return " ".join(word for word in (getattr(args, "command", None),
                                      getattr(args, "bench", None)) if word)


def _is_app_option(parser: argparse.ArgumentParser, word: str) -> bool:
    """True for an option of `toolsearch tui` (--theme, --profile, --follow, ...) other than -h."""
    tui = _command_parser(parser, argparse.Namespace(command="tui"))
    return word.split("=", 1)[0] in set(tui._option_string_actions) - {"-h", "--help"}


def _main(argv: Sequence[str] | None = None) -> int:
    log_to_stderr()
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    commands = {"tui", "demo", "assemble", "search", "explain", "call", "snapshot", "tune",
                "samples", "bench", "serve"}
    if words and words[0] not in commands and (words[0] == "-" or not words[0].startswith("-")):
        if not (words[0] == "-" or _looks_like_source(words[0])
                or any(c in words[0] for c in "./\\")):
            from .sources.samples import list_samples

            close = difflib.get_close_matches(words[0], [*sorted(commands), *list_samples()],
                                              n=1, cutoff=0.75)
            hint = f"did you mean {close[0]!r}? " if close else ""
            print(f"toolsearch: error: {_redacted(repr(words[0]))} is not a command, a file "
                  "or a sample "
                  f"catalog ({hint}commands: {', '.join(sorted(commands))}; see toolsearch "
                  "--help)", file=sys.stderr)
            return 1
        words = ["tui", *words]  # `toolsearch SOURCE...`: the app on those sources (a missing
        # file gets tui's one-line error; `-`, that a SOURCE is not read from stdin)
    elif words and _is_app_option(parser, words[0]):
        words = ["tui", *words]  # `toolsearch --theme T`: the app's options, no command needed
    args, unknown = parser.parse_known_args(words)
    if unknown:  # named by the subcommand's parser, so the hint is its --help
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        args = parser.parse_args(["tui", *words])
    args.own_terminal = argv is None  # the app is opened on this process's terminal
    try:
        status = int(_run_command(args) or 0)
    except KeyboardInterrupt:
        return _stopped(_command_name(args))
    except BrokenPipeError:
        return 0
    except Exception as exc:  # one clear line, never a traceback
        from .sources.errors import SourceError

        message = str(exc) if isinstance(exc, CliError | SourceError) else \
            f"{type(exc).__name__}: {exc}"
        if isinstance(exc, OSError) and exc.strerror:  # "PATH: Permission denied", as the
            message = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
            # shell says it, not "PermissionError: [Errno 13] ..."
        # A SOURCE echoed back may be a URL with credentials that is no http(s) URL (a typo,
        # "HTTPS://", "ws://"): redacted as every other printed form is.
        sys.stderr.write(f"toolsearch: error: {_redacted(' '.join(message.split()))}\n")
        return 1
    if args.command != "serve" and took_sigterm():  # the app quits on SIGTERM as on its quit
        print(sigterm_line(_command_name(args)), file=sys.stderr)  # key: it returned, as if
        return SIGTERM_STATUS  # the user had quit (in silence, status 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
