"""Retrieval benchmarks: recall of a query set, and the reach of every deferred tool.

**Query files** (JSON lines; blank lines and ``#`` comments skipped), any of:

* ``{"query": "...", "gold": ["<exposed tool name>", ...]}`` (our own sets);
* ``{"query": "...", "gold_tools": ["<server's tool name>", ...], "server": "<server>"}``
  (the shared azure set: each gold tool maps to ``mcp__<server>__<tool>``);
* ``{"query": "...", "gold_qualified_any_of": [["Server Name/tool", ...], ...]}``
  (livemcpbench: each inner list is one gold tool, any of whose spellings counts).

Each query thus carries *gold slots*; a slot is one tool the task needs, given as one or more
acceptable exposed names.

**Metrics** (the search returns its top 5, the default limit):

* ``hit@k``: a query is a hit at k when **any** gold slot has a tool among the first k
  results; ``recall_at_1`` / ``recall_at_5`` are the mean hit@1 / hit@5 over the queries;
* ``mrr`` (MRR@5): mean of 1 / rank of the first gold tool in the top 5 (0 when none);
* ``gold_found_at_5``: mean fraction of a query's gold slots found in the top 5 (equals
  ``recall_at_5`` for one-gold queries; stricter for multi-tool tasks).

Queries may carry a ``kind`` tag; the report then also gives the figures per kind.

Gold names that match no searchable (deferred) tool are reported in ``unresolved``, never
fatal; a query left with no resolvable gold is excluded from ``n``.

**Reach**: for every deferred tool, two queries: its own name words (the part after
``mcp__<server>__``, separators as spaces) and its description's first sentence. A tool that
neither query finds in the top 5 is listed with the reasons: duplicate-looking name (other
tools with the same name words), thin description (empty or fewer than 4 words), shadowed
by N tools that score higher, or not admitted at all (the ``latest`` gate / floor).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bm25 import rank_of, search_catalog
from .catalog import Catalog, build_catalog
from .classify import as_registry, classify_tools
from .config import ToolSearchConfig
from .profile import ProfileLike, as_profile
from .resources import data_dir
from .sources.filesafe import read_bounded
from .tooldefs import mcp_tool_name

TOP_K = 5
THIN_WORDS = 4
_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_WORD = re.compile(r"[A-Za-z0-9]+")


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class Query:
    """One benchmark query: its text and gold slots (each a tuple of acceptable names)."""

    text: str
    gold: tuple[tuple[str, ...], ...]
    line: int = 0
    kind: str = ""
    """Optional tag from the file's ``kind`` key (ours: ``keywords`` or ``plain``)."""

    @property
    def gold_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for slot in self.gold for n in slot))


def _qualified(entry: str) -> str:
    server, sep, tool = entry.rpartition("/")
    return mcp_tool_name(server, tool) if sep else entry


def _tool_names(value: Any, key: str) -> list[str]:
    """*value* (a name or a list of names) as names; a ValueError naming *key* when it is
    empty or holds something other than non-empty strings (``[1, null]`` was read as the
    tools '1' and 'None', which no catalog has, and the query was skipped without a word)."""
    names = [value] if isinstance(value, str) else value
    if not names:
        raise ValueError(f"{key!r} is empty; expected tool names")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{key!r} holds {_clip(json.dumps(name), 40)}; expected tool names "
                             "(strings)")
    return names


def _gold_of(raw: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    if isinstance(raw.get("gold"), list | str):
        return tuple((g,) for g in _tool_names(raw["gold"], "gold"))
    if isinstance(raw.get("gold_qualified_any_of"), list):
        slots = []
        for slot in raw["gold_qualified_any_of"]:
            names = [slot] if isinstance(slot, str) else slot
            if isinstance(names, list):
                slots.append(tuple(_qualified(str(n)) for n in names))
        return tuple(slots)
    tools = raw.get("gold_tools")
    server = raw.get("server")
    if isinstance(tools, str):
        tools = [tools]
    if not isinstance(tools, list):
        raise ValueError("no 'gold', 'gold_tools' or 'gold_qualified_any_of'")
    servers = [server] if isinstance(server, str) else server if isinstance(server, list) \
        else []
    tools = _tool_names(tools, "gold_tools")
    if not servers:
        return tuple((str(t),) for t in tools)
    return tuple(tuple(mcp_tool_name(str(s), str(t)) for s in servers) for t in tools)


def parse_queries(lines: Iterable[str], origin: str = "<queries>") -> tuple[Query, ...]:
    queries: list[Query] = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            raw = json.loads(text)
            if not isinstance(raw, Mapping):
                raise ValueError("not a JSON object")
            query = raw.get("query")
            if query is not None and not isinstance(query, str):  # 5 or ["..."] was str()'d
                raise ValueError(f"'query' is {_clip(json.dumps(query), 40)}; expected a string")
            query = (query or "").strip()
            if not query:
                raise ValueError("no 'query'")
            kind = raw.get("kind")
            queries.append(Query(query, _gold_of(raw), number,
                                 kind if isinstance(kind, str) else ""))
        except ValueError as exc:  # JSONDecodeError is a ValueError
            raise ValueError(f"{origin}:{number}: {exc}") from None
    return tuple(queries)


QUERY_SUFFIX = ".jsonl"


def bundled_query_sets() -> tuple[str, ...]:
    """Names of the query sets installed with the package (``seed-demo``, ``models-web``, ...)."""
    try:
        folder = data_dir("queries")
    except FileNotFoundError:
        return ()
    return tuple(sorted(p.name.removesuffix(QUERY_SUFFIX)
                        for p in folder.glob(f"*{QUERY_SUFFIX}") if p.is_file()))


def query_file(name: Path | str) -> Path:
    """*name* when it exists, else the bundled set it names (``seed-demo``,
    ``seed-demo.jsonl`` or ``queries/seed-demo.jsonl``, as the README writes it: a wheel
    install has no ``queries/`` folder in the working directory), else *name* unchanged."""
    path = Path(name)
    stem = path.name.removesuffix(QUERY_SUFFIX)
    bundled = not path.is_absolute() and str(path.parent) in (".", "queries") and \
        stem in bundled_query_sets()
    # Path.exists raises for a name too long to be a file's; a folder is never a query file,
    # so a folder named like a bundled set (``queries/seed-demo.jsonl/``) does not hide it
    if not bundled or os.path.lexists(path) and not os.path.isdir(path):
        return path
    return data_dir("queries") / f"{stem}{QUERY_SUFFIX}"


def load_queries(path: Path | str) -> tuple[Query, ...]:
    """Read a query file (see the module docstring for the accepted line formats)."""
    path = Path(path)  # read bounded: a FIFO or /dev/zero is refused, not read
    try:
        text = read_bounded(path, "query file").decode("utf-8-sig")  # Notepad's BOM too
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_queries(text.splitlines(), str(path))


# --------------------------------------------------------------------------- sources


def _defs_and_registry(source: Any) -> tuple[Sequence[Mapping[str, Any]], Any, Any]:
    """(defs, registry, config-or-None) from a SessionState, a Workspace or (defs, registry)."""
    if hasattr(source, "session_defs") and hasattr(source, "registry"):
        return source.session_defs, source.registry, getattr(source, "config", None)
    if hasattr(source, "tool_defs") and callable(source.tool_defs):
        return source.tool_defs(), source.registry(), None
    defs, registry = source
    return defs, registry, None


def search_catalog_for(source: Any, profile: ProfileLike) -> Catalog:
    """The catalog ``tool_search`` would search: the deferred defs under ``profile``."""
    rules = as_profile(profile)
    defs, registry, config = _defs_and_registry(source)
    config = (config.with_profile(rules) if config is not None
              else ToolSearchConfig.from_raw({}, profile=rules))
    reg = as_registry(registry)
    split = classify_tools(defs, reg, config.effective_defer_tools, profile=rules)
    return build_catalog(split.deferrable, reg, rules)


# --------------------------------------------------------------------------- recall


@dataclass(frozen=True)
class Miss:
    query: str
    gold: tuple[str, ...]
    returned: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"query": self.query, "gold": list(self.gold), "returned": list(self.returned)}


@dataclass(frozen=True)
class RecallFigures:
    n: int
    recall_at_1: float
    recall_at_5: float
    mrr: float
    gold_found_at_5: float

    def as_json(self) -> dict[str, Any]:
        return {"n": self.n, "recall_at_1": round(self.recall_at_1, 4),
                "recall_at_5": round(self.recall_at_5, 4), "mrr": round(self.mrr, 4),
                "gold_found_at_5": round(self.gold_found_at_5, 4)}


class _Tally:
    def __init__(self) -> None:
        self.n = self.hits1 = self.hits5 = 0
        self.rr = self.found = 0.0

    def add(self, rank: int, found: float) -> None:
        self.n += 1
        self.hits1 += rank == 1
        self.hits5 += rank > 0
        self.rr += 1.0 / rank if rank else 0.0
        self.found += found

    def figures(self) -> RecallFigures:
        d = max(self.n, 1)
        return RecallFigures(self.n, self.hits1 / d, self.hits5 / d, self.rr / d,
                             self.found / d)


@dataclass(frozen=True)
class RecallReport:
    profile: str
    n: int
    recall_at_1: float
    recall_at_5: float
    mrr: float
    gold_found_at_5: float
    misses: tuple[Miss, ...] = ()
    unresolved: tuple[tuple[str, str], ...] = ()
    """(query, gold name) pairs naming no searchable tool."""
    skipped: int = 0
    """Queries with no resolvable gold at all (not counted in ``n``)."""
    catalog_size: int = 0
    seconds: float = 0.0
    by_kind: tuple[tuple[str, RecallFigures], ...] = ()
    """Figures per query ``kind`` tag (empty when no query is tagged)."""

    @property
    def figures(self) -> RecallFigures:
        return RecallFigures(self.n, self.recall_at_1, self.recall_at_5, self.mrr,
                             self.gold_found_at_5)

    def as_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile, "n": self.n,
            "recall_at_1": round(self.recall_at_1, 4), "recall_at_5": round(self.recall_at_5, 4),
            "mrr": round(self.mrr, 4), "gold_found_at_5": round(self.gold_found_at_5, 4),
            "catalog_size": self.catalog_size, "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
            "misses": [m.as_json() for m in self.misses],
            "unresolved": [{"query": q, "gold": g} for q, g in self.unresolved],
            "by_kind": {kind: f.as_json() for kind, f in self.by_kind},
        }


def run_recall(source: Any, queries: Sequence[Query], profile: ProfileLike = "seed",
               k: int = TOP_K, tick: Callable[[int], bool] | None = None) -> RecallReport:
    """Search every query once (limit ``k``) and score it against its gold slots. *tick*, if
    given, is called with the number of queries done after each one; when it returns False
    the run stops there and reports the queries done (an app quitting mid-run, or showing
    progress within a profile: 10,000 queries take seconds)."""
    start = time.perf_counter()
    catalog = search_catalog_for(source, profile)
    known = {e.name for e in catalog.entries}
    unresolved: list[tuple[str, str]] = []
    misses: list[Miss] = []
    total = _Tally()
    kinds: dict[str, _Tally] = {}
    skipped = 0
    for done, query in enumerate(queries):
        if tick is not None and done and not tick(done):
            break
        slots = []
        for slot in query.gold:
            present = tuple(g for g in slot if g in known)
            if present:
                slots.append(frozenset(present))
            else:
                unresolved.extend((query.text, g) for g in slot[:1])
        if not slots:
            skipped += 1
            continue
        returned = tuple(h.name for h in search_catalog(catalog, query.text, k))
        gold_all = frozenset().union(*slots)
        rank = next((i for i, name in enumerate(returned, 1) if name in gold_all), 0)
        found = sum(1 for s in slots if s & set(returned)) / len(slots)
        total.add(rank, found)
        if query.kind:
            kinds.setdefault(query.kind, _Tally()).add(rank, found)
        if not rank:
            misses.append(Miss(query.text, tuple(sorted(gold_all)), returned))
    f = total.figures()
    return RecallReport(catalog.profile.name, f.n, f.recall_at_1, f.recall_at_5, f.mrr, f.gold_found_at_5,
                        tuple(misses), tuple(unresolved), skipped, len(catalog),
                        time.perf_counter() - start,
                        tuple((kind, t.figures()) for kind, t in sorted(kinds.items())))


def format_recall(report: RecallReport, max_misses: int = 10) -> str:
    lines = [
        f"recall ({report.profile}): {report.n} queries over {report.catalog_size} deferred "
        f"tools in {report.seconds:.2f}s",
        f"  recall@1        {report.recall_at_1:.3f}",
        f"  recall@5        {report.recall_at_5:.3f}",
        f"  MRR@5           {report.mrr:.3f}",
        f"  gold found @5   {report.gold_found_at_5:.3f}  (mean fraction of gold tools)",
    ]
    for kind, fig in report.by_kind:
        lines.append(f"  [{kind}] n={fig.n}  recall@1 {fig.recall_at_1:.3f}  recall@5 "
                     f"{fig.recall_at_5:.3f}  MRR@5 {fig.mrr:.3f}")
    if report.skipped or report.unresolved:
        lines.append(f"  {len(report.unresolved)} gold name(s) match no searchable tool; "
                     f"{report.skipped} quer(ies) skipped")
        for query, gold in report.unresolved[:max_misses]:
            lines.append(f"    ? {gold}  ({_clip(query)})")
    if report.misses:
        lines.append(f"  misses ({len(report.misses)}):")
        for miss in report.misses[:max_misses]:
            got = ", ".join(miss.returned) or "(nothing)"
            lines.append(f"    - {_clip(miss.query)}\n        gold: {', '.join(miss.gold)}"
                         f"\n        got:  {got}")
        if len(report.misses) > max_misses:
            lines.append(f"    ... {len(report.misses) - max_misses} more (use --json)")
    return "\n".join(lines)


def _clip(text: str, width: int = 90) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= width else text[: width - 1] + "\u2026"


# --------------------------------------------------------------------------- reach


def own_name_words(name: str) -> str:
    """``mcp__github__create_issue`` -> ``create issue``; a plain name -> its words."""
    if name.startswith("mcp__"):
        _server, sep, tool = name[5:].partition("__")
        name = tool if sep and tool else name[5:]
    return " ".join(_WORD.findall(name)).lower()


def first_sentence(text: str) -> str:
    collapsed = _WS.sub(" ", text or "").strip()
    match = _SENTENCE_END.search(collapsed)
    return collapsed[: match.end()] if match else collapsed


@dataclass(frozen=True)
class Unreached:
    name: str
    name_query: str
    description_query: str
    reasons: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "name_query": self.name_query,
                "description_query": self.description_query, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class ReachReport:
    profile: str
    n: int
    by_name: int
    by_description: int
    by_either: int
    unreached: tuple[Unreached, ...] = field(default=())
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "n": self.n, "by_name": self.by_name,
                "by_description": self.by_description, "by_either": self.by_either,
                "seconds": round(self.seconds, 3),
                "unreached": [u.as_json() for u in self.unreached]}


def _rank_of(catalog: Catalog, query: str, name: str, k: int) -> tuple[int, int | None]:
    """(rank in the top k or 0, number of tools ranked above it; None if not returned at all)."""
    if not query.strip():
        return 0, None
    position = rank_of(catalog, query, name)
    if position is None:
        return 0, None
    return (position if position <= k else 0), position - 1


def run_reach(source: Any, profile: ProfileLike = "seed", k: int = TOP_K,
              tick: Callable[[int, int], object] | None = None) -> ReachReport:
    """Does each deferred tool's own name / first sentence find it in the top ``k``? *tick*,
    if given, is called with (tools done, all tools) after each tool (progress)."""
    start = time.perf_counter()
    catalog = search_catalog_for(source, profile)
    rules = catalog.profile
    words_of = {e.name: own_name_words(e.name) for e in catalog.entries}
    same_words: dict[str, list[str]] = {}
    for name, words in words_of.items():
        same_words.setdefault(words, []).append(name)
    by_name = by_desc = either = 0
    unreached: list[Unreached] = []
    total = len(catalog.entries)
    for done, entry in enumerate(catalog.entries, 1):
        if tick is not None:
            tick(done, total)
        name_q = words_of[entry.name]
        desc_q = first_sentence(entry.description)
        rank_n, above_n = _rank_of(catalog, name_q, entry.name, k)
        rank_d, above_d = _rank_of(catalog, desc_q, entry.name, k)
        by_name += rank_n > 0
        by_desc += rank_d > 0
        if rank_n or rank_d:
            either += 1
            continue
        reasons = []
        twins = [n for n in same_words.get(name_q, ()) if n != entry.name]
        if twins:
            shown = ", ".join(twins[:3]) + (", ..." if len(twins) > 3 else "")
            reasons.append(f"duplicate-looking name: {len(twins)} other tool(s) named "
                           f"'{name_q}' ({shown})")
        if len(_WORD.findall(entry.description)) < THIN_WORDS:
            reasons.append("thin description: "
                           + ("empty" if not entry.description.strip() else
                              f"{len(_WORD.findall(entry.description))} word(s)"))
        for label, above in (("name", above_n), ("description", above_d)):
            if above is None:
                reasons.append(f"{label} query not admitted"
                               + rules.retrieval.not_admitted_note)
            else:
                reasons.append(f"{label} query: shadowed by {above} tool(s) with a higher score")
        unreached.append(Unreached(entry.name, name_q, desc_q, tuple(reasons)))
    return ReachReport(rules.name, len(catalog), by_name, by_desc, either, tuple(unreached),
                       time.perf_counter() - start)


def format_reach(report: ReachReport, max_rows: int = 20) -> str:
    n = max(report.n, 1)
    lines = [
        f"reach ({report.profile}): {report.n} deferred tools, top {TOP_K}, "
        f"{report.seconds:.2f}s",
        f"  by own name words      {report.by_name:5d}  ({report.by_name / n:.1%})",
        f"  by first sentence      {report.by_description:5d}  ({report.by_description / n:.1%})",
        f"  by either              {report.by_either:5d}  ({report.by_either / n:.1%})",
        f"  unreached              {len(report.unreached):5d}",
    ]
    for row in report.unreached[:max_rows]:
        lines.append(f"    - {row.name}")
        lines.extend(f"        {reason}" for reason in row.reasons)
    if len(report.unreached) > max_rows:
        lines.append(f"    ... {len(report.unreached) - max_rows} more (use --json)")
    return "\n".join(lines)
