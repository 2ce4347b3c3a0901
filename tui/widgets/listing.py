"""Listing tabs: Full, Names, Summary and Sent, each with its token count and budget fit.

Full/Names/Summary show every deferred server in one form whether or not it fits; Sent is
the exact ``tool_search`` description the model receives (with the chosen listing framed in
it). Only the active tab's text is laid out; the others are filled when they are shown.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static, TabbedContent

from toolsearch.classify import def_name
from toolsearch.listing import LISTING_HEADER, ListingGroup, group_defs
from toolsearch.session import SessionState
from toolsearch.textsafe import shown
from toolsearch.tokens import estimate_text_tokens
from toolsearch.tooldefs import def_description

from ..key_order import focus_now
from ..keys import ClickedTabs, QuietTabPane
from ..prepare import HiddenTabs, last_input_of
from ..view import fmt, listing_fit
from .textview import TextView
from .visibility import CatchUpWhenShown

FORMS: tuple[tuple[str, str], ...] = (
    ("full", "Full"), ("names", "Names"), ("summary", "Summary"), ("sent", "Sent"),
)
_FORM_OF_TAB = {"full": "full", "names": "names", "summary": "summary"}


_uniform_cache: dict[tuple[int, str], tuple[tuple[ListingGroup, ...], str]] = {}


def uniform_text(groups: tuple[ListingGroup, ...], form: str) -> str | None:
    """Every group in one form; the same string object for the same (cached) groups."""
    if not groups:
        return None
    cached = _uniform_cache.get((id(groups), form))
    if cached is not None and cached[0] is groups:
        return cached[1]
    text = "\n".join([LISTING_HEADER, *(g.render(form) for g in groups)])
    if len(_uniform_cache) > 24:
        _uniform_cache.clear()
    _uniform_cache[(id(groups), form)] = (groups, text)
    return text


def export_text(folder: Path, stem: str, text: str) -> Path:
    """Write *text* to a new ``stem.txt`` in *folder* (``stem-2.txt``… when taken): an
    existing file is never overwritten."""
    for n in range(1, 1000):
        path = folder / (f"{stem}.txt" if n == 1 else f"{stem}-{n}.txt")
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(text if text.endswith("\n") else text + "\n")
        except FileExistsError:
            continue
        return path
    raise OSError(f"too many {stem}-N.txt files in {folder}")


def sent_description(session: SessionState) -> str | None:
    for d in session.assembly.bridge_defs:
        if def_name(d) == "tool_search":
            return def_description(d)
    return None


class ListingPane(CatchUpWhenShown, Vertical):
    """Four tabs over the session's deferred tools."""

    DEFAULT_CSS = """
    ListingPane { height: 1fr; }
    ListingPane .listing-head { height: auto; padding: 0 1; }
    """

    BINDINGS = [
        Binding("left_square_bracket", "step_form(-1)", "Prev form", id="listing.prev"),
        Binding("right_square_bracket", "step_form(1)", "Next form", id="listing.next"),
        Binding("c,y", "copy", "Copy", id="listing.copy"),
        Binding("e", "export", "Export Sent", id="listing.export"),
    ]

    # repaint=False: a container draws nothing itself, its children repaint what changed
    # (repainting the whole pane on every change cost 2-4 ms of the frame at 4,900 tools)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._texts: dict[str, str] = {}
        self._shown: dict[str, int] = {}
        self._ahead: HiddenTabs | None = None
        self._tabs_held: TabbedContent | None = None

    def compose(self) -> ComposeResult:
        with ClickedTabs(id="listing-tabs"):
            for key, title in FORMS:
                with QuietTabPane(title, id=f"listing-{key}"):  # the form shown stays put
                    yield Static("", id=f"listing-head-{key}", classes="listing-head")
                    yield TextView(id=f"listing-text-{key}")

    def watch_session(self, session: SessionState | None) -> None:
        # hidden: catch up when shown (or when a text is asked for); the first texts are
        # filled even while hidden (a pane mounted after the first frame)
        if session is None or not self.is_mounted or (self._texts and self.hidden_now()):
            return
        self._compute(session)
        self._fill_active()

    def on_mount(self) -> None:
        if self.session is not None:
            self._compute(self.session)
            self._fill_active()

    def catch_up(self) -> None:
        if self.session is not None:
            self._compute(self.session)
            self._fill_active()

    def on_show(self) -> None:  # Textual also runs CatchUpWhenShown.on_show (every class's)
        self._prepare_forms()

    def _prepare_forms(self) -> None:
        """The hidden forms filled and laid out while the operator is idle (tui/prepare.py):
        ``]`` then shows a form whose text is wrapped and whose layout is done."""
        tabs = self.query("#listing-tabs")
        if not tabs:
            return
        if self._ahead is None:
            self._ahead = HiddenTabs(tabs.first(TabbedContent), last_input_of(self.app),
                                     before=lambda pane: self._fill(
                                         (pane.id or "").removeprefix("listing-")))
            self._ahead.start()
        else:
            self._ahead.again()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        self._fill_active()
        focused = self.app.focused
        if focused is not None and self in focused.ancestors and isinstance(focused, TextView):
            focus_now(self.query_one(f"#listing-text-{self.active_form}", TextView))

    def action_step_form(self, step: int) -> None:
        keys = [key for key, _ in FORMS]
        self.show_form(keys[(keys.index(self.active_form) + step) % len(keys)])

    def action_copy(self) -> None:
        """Copy the shown form's text (Sent: the exact description) to the clipboard."""
        self.action_copy_form(self.active_form)

    def action_copy_form(self, form: str) -> None:
        text = self.text_of(form)
        if not text:
            self.notify("Nothing to copy: this form is empty.", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"{dict(FORMS)[form]} listing copied ({len(text):,} characters).",
                    timeout=3)

    def action_export(self) -> None:
        """Write the Sent listing to a new file in the current folder (never overwriting)."""
        text = self.text_of("sent")
        if not text:
            self.notify("Nothing to export: tool search is not active.", timeout=4)
            return
        try:
            path = export_text(Path.cwd(), "tool_search-description", text)
        except OSError as exc:  # said in words ("[Errno 13] Permission denied: '/x'" was
            # Python's message), with a way out: the file goes to the folder the app started in
            where = shown(str(exc.filename), one_line=True) if exc.filename else \
                "a file in the folder the app started in"
            why = exc.strerror.lower() if exc.strerror else str(exc)
            self.notify(f"Could not write {where}: {why}. Start the app in a folder you can "
                        "write to, or press c to copy the listing instead.",
                        title="Not exported", severity="error", timeout=8, markup=False)
            return
        self.notify(f"Sent listing written to {path}", title="Exported", timeout=8)

    @property
    def active_form(self) -> str:
        tabs = self._tabs()
        if tabs is None:  # still composing (the pane mounts after the first frame)
            return "full"
        return tabs.active.removeprefix("listing-") or "full"

    def _tabs(self) -> TabbedContent | None:
        """The forms' tabs, once composed (remembered: a query walks the pane's ~30 widgets,
        ~1.5 ms at every change)."""
        tabs = self._tabs_held
        if tabs is None or not tabs.is_attached:
            found = self.query("#listing-tabs")
            tabs = self._tabs_held = found.first(TabbedContent) if found else None
        return tabs

    def show_form(self, form: str) -> None:
        tabs = self.query("#listing-tabs")
        if not tabs:  # still composing: shown once it is
            self.call_after_refresh(self.show_form, form)
            return
        self._fill(form)  # its text is in place before it is shown: one layout pass, one frame
        tabs.first(TabbedContent).active = f"listing-{form}"

    def text_of(self, form: str) -> str:
        if self._dirty and self.session is not None:
            self._compute(self.session)
        return self._texts.get(form, "")

    # -- internals -------------------------------------------------------------------

    def _compute(self, session: SessionState) -> None:
        self._dirty = False
        a = session.assembly
        split = a.classification
        deferrable = split.deferrable if split else ()
        groups = group_defs(deferrable, session.registry, session.config.profile)
        budget = a.budget.budget if a.budget else 0
        chosen = a.listing_form if a.activated else "none"
        inactive = not a.activated
        for form, title in FORMS:
            if form == "sent":
                text = sent_description(session)
                head = self._sent_head(session, text, budget, chosen)
            else:
                text = uniform_text(groups, form)
                head = self._form_head(title, form, text, budget, chosen, inactive)
            self._texts[form] = text or ""
            self.query_one(f"#listing-head-{form}", Static).update(head)
        if self._ahead is not None:
            self._ahead.again()  # the hidden forms are filled again while idle

    def _form_head(self, title: str, form: str, text: str | None, budget: int,
                   chosen: str, inactive: bool) -> Content:
        if text is None:
            return Content("No deferred tools in this session: nothing to list.")
        tokens = estimate_text_tokens(text)
        fit, style = listing_fit(tokens, budget)
        parts: list[Content | str | tuple[str, str]] = [
            (f"{title} form", "bold"), f" \u00b7 {fmt(tokens)} tokens of budget {fmt(budget)} ",
            (fit, style),
        ]
        if chosen == form or (form == "summary" and chosen == "groups"):
            parts.append((" \u00b7 \u25c0 the chosen form", "bold"))
        elif chosen == "mixed" and form in ("names", "summary"):
            parts.append(" \u00b7 part of the chosen mixed form")
        if inactive:
            parts.append(" \u00b7 tool search inactive: nothing is deferred")
        return Content.assemble(*parts)

    def _sent_head(self, session: SessionState, text: str | None, budget: int,
                   chosen: str) -> Content:
        if text is None:
            return Content("Tool search is not active (tier 0): the model gets no "
                           "tool_search bridge, so there is no description to send.")
        listing = session.assembly.listing
        listing_tokens = listing.tokens if listing is not None else 0
        fit, style = listing_fit(listing_tokens, budget)
        return Content.assemble(
            ("tool_search description as sent", "bold"),
            f" \u00b7 {fmt(estimate_text_tokens(text))} tokens \u00b7 listing {chosen}, "
            f"{fmt(listing_tokens)} of budget {fmt(budget)} ",
            (fit, style),
        )

    def _fill_active(self) -> None:
        self._fill(self.active_form)

    def _fill(self, form: str) -> None:
        text = self._texts.get(form, "")
        view = self.query_one(f"#listing-text-{form}", TextView)
        if view.text != text:
            if not view.scrollable_content_region.width:  # never shown: wrap as the shown one
                shown = self.query_one(f"#listing-text-{self.active_form}", TextView)
                view.width_hint = shown.scrollable_content_region.width
            view.text = text
