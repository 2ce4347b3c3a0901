"""Command palette: every action as "Area: verb phrase", offered only when it makes sense."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

from toolsearch.profiles import PROFILE_NAMES, get_profile
from toolsearch.textsafe import shown

if TYPE_CHECKING:
    from .app import ToolSearchApp

TABS: tuple[tuple[str, str], ...] = (
    ("servers", "Servers"), ("tools", "Tools"), ("listing", "Listing"), ("search", "Search"),
    ("activity", "Activity"), ("tuning", "Tuning"), ("recall", "Recall"),
)


def _words(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def palette_entries(app: ToolSearchApp) -> list[tuple[str, str, str]]:
    """(title, action, help) for the current state."""
    entries: list[tuple[str, str, str]] = [  # the tab's digit in the title: Ctrl+P then `2`
        # offers the Tools tab first (it offered "switch profile to bm25f", Enter ran it)
        (f"View: show {n} {title}", f"show_tab('{key}')", f"Switch to the {title} tab (key {n})")
        for n, (key, title) in enumerate(TABS, start=1)
    ]
    entries += [
        ("Listing: show Full", "show_listing('full')", "Every server, one line per tool"),
        ("Listing: show Names", "show_listing('names')", "Every server, names only"),
        ("Listing: show Summary", "show_listing('summary')", "One summary line per server"),
        ("Listing: show Sent", "show_listing('sent')",
         "The exact tool_search description the model receives"),
        ("Search: focus query", "focus_search", "Type a tool_search query"),
        # every profile is compared, and the command turns compare off again ("compare seed
        # and latest" named two of three, and read as on only)
        ("Search: compare every profile (on/off)", "compare_profiles",
         f"{_words(PROFILE_NAMES)}: each profile's hits side by side"),
        ("Tools: filter", "focus_tool_filter", "Filter the tools table"),
        ("Feed: call a bridge tool", "call", "Send tool_search/tool_describe/tool_call by hand"),
        ("Feed: clear", "clear_feed", "Forget the activity shown so far"),
        ("Feed: open the newest call in full", "activity_detail",
         "Request and reply as JSON; left/right walk the calls"),
        ("Feed: copy the newest call", "copy_activity", "Its request and reply as JSON"),
        ("Listing: copy the Sent description", "copy_sent",
         "The exact tool_search description, to the clipboard"),
        ("Listing: export the Sent description to a file", "export_sent",
         "A new tool_search-description.txt in the current folder"),
        ("Help: show every key", "help", "Every binding, grouped by tab (? or F1)"),
        ("Tuning: save to Hermes config", "save", "Write tools.tool_search (with a backup)"),
        ("Tuning: reset to loaded values", "reset_tuning", "Back to the loaded config"),
    ]
    if not app.recall_running:
        entries += [
            ("Recall: run a query file", "run_recall",
             "recall@1/@5, MRR@5 and the misses, per profile"),
            ("Recall: check the reach of every deferred tool", "run_reach",
             "Tools that their own name or first sentence cannot find"),
        ]
    if not app.demo_running:
        entries.append(("Demo: play scripted session", "demo",
                        "search, describe, blind call, scope, recursion, success"))
    else:
        entries.append(("Demo: pause or resume", "demo_pause", "Space on the Activity tab"))
        entries.append(("Demo: play the next call", "demo_step", "n on the Activity tab"))
    session = app.session
    if session is not None:
        for other in PROFILE_NAMES:
            if other != session.config.profile.name:
                entries.append((f"Tuning: switch profile to {other}", f"set_profile('{other}')",
                                get_profile(other).summary))
        enabled = session.config.enabled
        entries.append(("Tuning: turn tool search off" if enabled != "off" else
                        "Tuning: turn tool search on",
                        f"set_enabled('{'off' if enabled != 'off' else 'on'}')",
                        "tools.tool_search.enabled"))
        for ts in session.workspace.toolsets:
            verb = "re-attach" if ts.name in session.detached else "detach"
            name = shown(ts.name, one_line=True)  # the source's name: an ESC or U+202E escaped
            entries.append((f"Servers: {verb} {name}", f"toggle_attached({ts.name!r})",
                            f"{shown(ts.kind, one_line=True)} toolset, {len(ts.tools)} tools"))
            scope = "bring into scope" if not session.in_scope(ts.name) else "take out of scope"
            entries.append((f"Servers: {scope} {name}", f"toggle_scope({ts.name!r})",
                            "Session scope: the bridge never reaches outside it"))
        if session.scope is not None:
            entries.append(("Servers: reset scope to every server", "reset_scope",
                            "Every attached toolset is in scope"))
    return entries


def _highlighted(matcher: Matcher, title: str) -> Content:
    """*title* as plain text with the query's letters marked. ``Matcher.highlight`` reads
    the title as markup: a server named ``[bold red]x`` showed as a bold red ``x``."""
    content = Content(title)
    score, offsets = matcher.fuzzy_search.match(matcher.query, title)
    if score:
        for offset in offsets:
            if not title[offset].isspace():
                content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ToolSearchCommands(Provider):
    """The app's own commands (the system commands stay: ``App.COMMANDS | {this}``)."""

    def _runner(self, action: str) -> Callable[[], object]:
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for title, action, help_text in palette_entries(self.app):  # type: ignore[arg-type]
            # title and help as text, never markup (the palette reads a str as markup)
            yield DiscoveryHit(Content(title), self._runner(action), text=title,
                               help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, action, help_text in palette_entries(self.app):  # type: ignore[arg-type]
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, _highlighted(matcher, title), self._runner(action), text=title,
                          help=escape(help_text))
