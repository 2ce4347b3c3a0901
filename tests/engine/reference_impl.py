"""Slow, obviously-correct implementations written straight from REFERENCE §2, §3, §4–§6.

Nothing here is clever: corpus statistics are recomputed for every query, every document is
scored by a plain loop over the query tokens, the listing is rebuilt from scratch for every
candidate form. The engine's optimised code must agree with these byte for byte (and float
for float). Also holds the small builders and sample catalogs the engine tests share.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

REAL_CATALOGS = Path("/work/shared/catalogs/real")

# --------------------------------------------------------------------------- builders


def fdef(name: str | None, description: Any = "", properties: dict[str, Any] | None = None,
         required: list[Any] | None = None) -> dict[str, Any]:
    """A plain (mutable) OpenAI function def; ``name=None`` leaves the name out."""
    params: dict[str, Any] = {"type": "object", "properties": dict(properties or {})}
    if required is not None:
        params["required"] = list(required)
    fn: dict[str, Any] = {"description": description, "parameters": params}
    if name is not None:
        fn = {"name": name, **fn}
    return {"type": "function", "function": fn}


def names(defs: Any) -> list[str]:
    """Function names of defs, "" for a nameless one."""
    out = []
    for d in defs:
        fn = d.get("function") if isinstance(d, dict) else None
        out.append(fn.get("name", "") if isinstance(fn, dict) else "")
    return out


GITHUB_CREATE = fdef(
    "mcp__github__create_issue",
    "Create a new issue in a GitHub repository with a title and an optional body.",
    {"owner": {"type": "string"}, "repo": {"type": "string"}, "title": {"type": "string"},
     "body": {"type": "string"}},
    ["owner", "repo", "title"],
)
GITHUB_LIST = fdef(
    "mcp__github__list_issues",
    "List issues of a GitHub repository.",
    {"owner": {"type": "string"}, "repo": {"type": "string"}},
    ["owner", "repo"],
)
CALENDAR_CREATE = fdef(
    "mcp__calendar__create_event",
    "Create a calendar event.",
    {"title": {"type": "string"}, "start": {"type": "string"}},
    ["title", "start"],
)
#: The REFERENCE §5 worked-example catalog: two github tools and a (shorter) calendar tool.
WORKED_DEFS = [GITHUB_CREATE, GITHUB_LIST, CALENDAR_CREATE]
WORKED_REGISTRY = {
    "mcp__github__create_issue": "mcp-github",
    "mcp__github__list_issues": "mcp-github",
    "mcp__calendar__create_event": "mcp-calendar",
}


def load_real_catalogs() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """A tiny loader for /work/shared/catalogs/real/*.json (one server's tools/list each).

    Returns the defs (``mcp__<server>__<tool>``, file then tool order) and the registry.
    Skips the calling test with a clear reason when the shared folder is absent.
    """
    if not REAL_CATALOGS.is_dir():
        pytest.skip(f"{REAL_CATALOGS} is absent (the shared real catalogs are not mounted)")
    defs: list[dict[str, Any]] = []
    registry: dict[str, str] = {}
    for path in sorted(REAL_CATALOGS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        server = str(data.get("server") or path.stem)
        for tool in data.get("tools") or []:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            name = f"mcp__{server}__{tool['name']}"
            if name in registry:
                continue
            schema = tool.get("inputSchema")
            if not isinstance(schema, dict):
                schema = {"type": "object", "properties": {}}
            defs.append({"type": "function", "function": {
                "name": name, "description": tool.get("description") or "",
                "parameters": schema}})
            registry[name] = f"mcp-{server}"
    if not defs:
        pytest.skip(f"no tools found under {REAL_CATALOGS}")
    return defs, registry


# --------------------------------------------------------------------------- small readers


def _function(tool_def: Any) -> dict[str, Any]:
    if isinstance(tool_def, dict) and isinstance(tool_def.get("function"), dict):
        return tool_def["function"]
    return {}


def ref_name(tool_def: Any) -> str:
    name = _function(tool_def).get("name")
    return name if isinstance(name, str) else ""


def ref_description(tool_def: Any) -> str:
    desc = _function(tool_def).get("description")
    return desc if isinstance(desc, str) else ""


def ref_toolset(registry: dict[str, Any], name: str) -> str | None:
    value = registry.get(name)
    return value if isinstance(value, str) and value else None


# --------------------------------------------------------------------------- §2 config


def ref_int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def ref_float(value: Any, default: float) -> float:
    try:
        result = float(value)
    except (TypeError, ValueError):
        return default
    return default if result != result else result  # NaN -> default


def ref_tristate(value: Any) -> str:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return "on"
    if text in ("false", "0", "no"):
        return "off"
    if text in ("auto", "on", "off"):
        return text
    return "auto"


def ref_config(raw: Any) -> dict[str, Any]:
    """The G1 (seed) parse of a ``tools.tool_search`` value, as a plain dict."""
    defaults = {"enabled": "auto", "threshold_pct": 5.0, "search_default_limit": 5,
                "max_search_limit": 20, "listing": "auto", "listing_max_tokens": 4000}
    if not isinstance(raw, dict):
        return {**defaults, "enabled": "off" if raw is False else "auto"}
    out = dict(defaults)
    out["enabled"] = ref_tristate(raw.get("enabled", "auto"))
    out["listing"] = ref_tristate(raw.get("listing", "auto"))
    out["threshold_pct"] = max(0.0, min(100.0, ref_float(raw.get("threshold_pct", 5), 5.0)))
    out["max_search_limit"] = max(1, min(50, ref_int(raw.get("max_search_limit", 20), 20)))
    out["search_default_limit"] = max(
        1, min(out["max_search_limit"], ref_int(raw.get("search_default_limit", 5), 5)))
    out["listing_max_tokens"] = max(
        200, min(60000, ref_int(raw.get("listing_max_tokens", 4000), 4000)))
    return out


# --------------------------------------------------------------------------- §3 estimate


def ref_estimate(defs: list[Any]) -> int:
    chars = 0
    for d in defs:
        try:
            chars += len(json.dumps(d, ensure_ascii=False, separators=(",", ":")))
        except (TypeError, ValueError):
            chars += len(str(d))
    return math.ceil(chars / 4.0)


def ref_budget(threshold_pct: float, listing_max_tokens: int, context_length: Any) -> int:
    if context_length and context_length > 0:
        pct_leg = int(context_length * threshold_pct / 100)
    else:
        pct_leg = 10000
    return max(0, min(listing_max_tokens, pct_leg))


# --------------------------------------------------------------------------- §4 catalog


def ref_tokenize(text: str | None) -> list[str]:
    return [word.lower() for word in re.findall(r"[A-Za-z0-9]+", text or "")]


def ref_search_text(tool_def: Any) -> str:
    name = ref_name(tool_def)
    for sep in ("_", ".", "-", ":"):
        name = name.replace(sep, " ")
    params: list[str] = []
    parameters = _function(tool_def).get("parameters")
    if isinstance(parameters, dict) and isinstance(parameters.get("properties"), dict):
        params = [str(key) for key in parameters["properties"]]
    return name + " " + ref_description(tool_def) + " " + " ".join(params)


# --------------------------------------------------------------------------- §5 BM25


def ref_documents(defs: list[Any]) -> list[list[str]]:
    """The token list of every named def (what ``ref_search`` indexes), in order."""
    return [ref_tokenize(ref_search_text(d)) for d in defs if ref_name(d)]


def ref_search(defs: list[Any], query: str, limit: int = 5,
               docs: list[list[str]] | None = None) -> list[tuple[str, float, bool]]:
    """(name, score, fallback) per hit, straight from REFERENCE §5, stats recomputed here.

    ``docs`` may pass ``ref_documents(defs)`` in to skip re-tokenising a big catalog.
    """
    entries = [d for d in defs if ref_name(d)]
    if not entries or limit <= 0:
        return []
    query_tokens = ref_tokenize(query)
    if not query_tokens:
        return []
    if docs is None:
        docs = ref_documents(defs)
    n_docs = len(docs)
    avgdl = sum(len(doc) for doc in docs) / max(n_docs, 1)
    doc_sets = [set(doc) for doc in docs]
    df_of = {token: sum(1 for s in doc_sets if token in s) for token in query_tokens}
    k1, b = 1.5, 0.75
    scored: list[tuple[str, float, bool]] = []
    for entry, doc in zip(entries, docs, strict=True):
        score = 0.0
        for token in query_tokens:
            df = df_of[token]
            tf = doc.count(token)
            if df == 0 or tf == 0:
                continue
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / max(avgdl, 1.0)))
        if score > 0:
            scored.append((ref_name(entry), score, False))
    if not scored:
        needle = query.lower()
        scored = [(ref_name(e), 0.1, True) for e in entries if needle in ref_name(e).lower()]
    scored.sort(key=lambda hit: hit[1], reverse=True)
    return scored[:limit]


# --------------------------------------------------------------------------- §6 listing

REF_HEADER = "Deferred tool catalog (call schemas via `tool_describe`, invoke via `tool_call`):"


def ref_short_description(text: str | None) -> str:
    collapsed = " ".join((text or "").split())
    if not collapsed:
        return ""
    for i, char in enumerate(collapsed):
        if char == ".":
            collapsed = collapsed[: i + 1]
            break
        if char in "!?\n":
            collapsed = collapsed[:i]
            break
    if len(collapsed) <= 60:
        return collapsed
    cut = collapsed[:60]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    while cut and cut[-1] in ",;: ":
        cut = cut[:-1]
    return cut + "\u2026"


def ref_groups(defs: list[Any], registry: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for d in defs:
        name = ref_name(d)
        if not name:
            continue
        toolset = ref_toolset(registry, name)
        if toolset is None:
            label = "other"
        elif toolset.startswith("mcp-"):
            label = toolset[len("mcp-"):]
        else:
            label = toolset
        groups.setdefault(label, []).append((name, ref_short_description(ref_description(d))))
    return {label: sorted(groups[label]) for label in sorted(groups)}


def ref_render(label: str, tools: list[tuple[str, str]], form: str) -> str:
    if form == "summary":
        return (f"{label} ({len(tools)} tools \u2014 names not listed; "
                "discover via `tool_search`)")
    header = f"{label} tools ({len(tools)}):"
    if form == "names":
        return header + "\n" + ", ".join(name for name, _ in tools)
    lines = [header]
    for name, desc in tools:
        lines.append(f"- {name}: {desc}" if desc else f"- {name}")
    return "\n".join(lines)


def ref_listing(defs: list[Any], registry: dict[str, Any],
                max_tokens: int) -> tuple[str | None, str]:
    groups = ref_groups(defs, registry)
    if not groups:
        return None, "none"

    def text(forms: dict[str, str]) -> str:
        return "\n".join([REF_HEADER] + [ref_render(lb, groups[lb], forms[lb]) for lb in groups])

    def fits(candidate: str) -> bool:
        return math.ceil(len(candidate) / 4.0) <= max_tokens

    for form in ("full", "names"):
        candidate = text({label: form for label in groups})
        if fits(candidate):
            return candidate, form
    forms = {label: "names" for label in groups}
    order = sorted(groups, key=lambda lb: (-len(ref_render(lb, groups[lb], "names")), lb))
    for label in order:
        forms[label] = "summary"
        candidate = text(forms)
        if fits(candidate):
            all_summary = all(f == "summary" for f in forms.values())
            return candidate, "groups" if all_summary else "mixed"
    return None, "none"
