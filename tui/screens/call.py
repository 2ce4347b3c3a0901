"""The Call dialog: send ``tool_search`` / ``tool_describe`` / ``tool_call`` by hand.

The dialog builds the bridge arguments and hands them to a dispatcher (the app's), which runs
them through the session's bridge (live servers execute for real), logs the activity and
returns the reply; the exact result object the model would receive is shown here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual import events, on
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from toolsearch.bridge import BridgeReply
from toolsearch.cli_safety import parse_args_json
from toolsearch.textsafe import shown
from toolsearch.tooldefs import thaw

from ..activity import outcome_label
from ..widgets.bounded_input import BoundedInput
from ..widgets.footer import KeyFooter
from ..widgets.search import QUERY_MAX

Dispatcher = Callable[[str, dict[str, Any]], Awaitable[BridgeReply]]
FORGET_DELAY = 0.5
"""Seconds after the dialog closes before what Textual keeps of it is dropped."""
BRIDGES = ("tool_search", "tool_describe", "tool_call")


def build_args(bridge: str, name: str, arguments: str, limit: str) -> dict[str, Any]:
    """The bridge's argument object from the dialog's fields (ValueError if malformed)."""
    if bridge == "tool_search":
        args: dict[str, Any] = {"query": name}
        if limit.strip():
            if not limit.strip().isdigit() or len(limit.strip()) > 6:
                raise ValueError("limit must be a whole number (the bridge clamps it)")
            args["limit"] = int(limit)
        return args
    if bridge == "tool_describe":
        return {"name": name}
    args = {"name": name}
    if arguments.strip():
        parsed = parse_args_json(arguments)  # deep nesting, NaN, huge numbers: one line
        if not isinstance(parsed, dict):
            raise ValueError("arguments must be a JSON object")
        args["arguments"] = parsed
    return args


def forget_closed_watchers(app: App[Any]) -> None:
    """Drop the app's watchers that belong to closed widgets, and Textual's cache of style
    pairs, which holds the styles cache (every line drawn) of each widget it met.

    Each ``TextArea`` watches the app's theme, and Textual forgets a closed watcher only at
    the next theme change: every Ctrl+T then Esc kept the dialog's two text areas and every
    line they drew (~1,000 objects). The pair cache is bounded (1,024 entries) but held the
    lines of dialogs long closed. 200 Ctrl+T/Esc took the app from 90 to 142 MB, growing;
    with both dropped it stays at 111 MB.
    Textual 8.2.8 internals (``reactive._watch``, ``StylesCache.get_inner_outer``): re-check on
    an upgrade."""
    watchers = getattr(app, "__watchers", {})
    for pairs in watchers.values():
        kept = [(node, callback) for node, callback in pairs
                if not getattr(node, "_closing", False)]
        if len(kept) != len(pairs):
            pairs[:] = kept
    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:  # a Textual whose internals moved: nothing dropped, nothing broken
        clear()


@dataclass(frozen=True)
class CallDraft:
    """What the dialog held when it closed, reopened by the next Ctrl+T while the same tool
    is highlighted (Esc threw the typed arguments away)."""

    opened_for: str
    bridge: str
    name: str
    arguments: str
    limit: str


_UNSAFE_IN_JSON = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_escaped(text: str) -> str:
    """*text* with each control character (but tab and newlines), line separator and bidi
    override written as its JSON escape ``\\uXXXX``: inside a JSON string the value is the
    same, and the arguments field never hands ESC[2J or U+202E to the terminal."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


class ArgumentsArea(TextArea):
    """The arguments field: a paste holding control characters or bidi overrides lands with
    each written as its JSON escape (drawn raw, a pasted ESC[2J cleared the terminal)."""

    async def _on_paste(self, event: events.Paste) -> None:
        text = json_escaped(event.text)
        if text == event.text:
            return  # TextArea's own handler pastes it
        event.prevent_default()
        event.stop()
        if not self.read_only:
            start, end = self.selection
            result = self.replace(text, start, end)
            self.move_cursor(result.end_location)


class CallScreen(ModalScreen[None]):
    AUTO_FOCUS = "#call-name"  # focused as the screen opens: keys typed at once land there
    DEFAULT_CSS = """
    CallScreen { align: center middle; }
    CallScreen #call-box { width: 90%; max-width: 110; height: 90%; padding: 0 1;
                           border: thick $primary; background: $surface; }
    CallScreen .call-row { height: auto; }
    CallScreen .call-label { width: 12; padding: 0 1 0 0; }
    CallScreen #call-bridge { width: 20; }
    CallScreen #call-name { width: 1fr; }
    CallScreen #call-limit { width: 8; }
    CallScreen #call-args { height: 5; }
    CallScreen #call-result { height: 1fr; }
    CallScreen #call-status { height: auto; }
    CallScreen #call-buttons { height: auto; }
    CallScreen #call-buttons Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_dialog", "Close", id="call.close"),
        # the key line shows Ctrl+J: the one that reaches the dialog from any field
        Binding("ctrl+enter,ctrl+j", "send", "Send", key_display="^j", id="call.send"),
    ]

    def __init__(self, dispatch: Dispatcher, *, bridge: str = "tool_describe",
                 name: str = "", arguments: str = "", limit: str = "",
                 keep: Callable[[CallDraft], None] | None = None, note: str = "") -> None:
        super().__init__()
        self._note = note
        self._dispatch = dispatch
        self._bridge = bridge if bridge in BRIDGES else "tool_describe"
        self._tool_name = name
        self._arguments = arguments
        self._limit = limit
        self._keep = keep
        self._opened_for = name
        self.last_reply: BridgeReply | None = None

    @classmethod
    def reopened(cls, dispatch: Dispatcher, draft: CallDraft | None, name: str,
                 keep: Callable[[CallDraft], None], refused: str = "") -> CallScreen:
        """The dialog for the highlighted tool *name*: as it was left (*draft*) when it was
        opened for that same tool, else fresh, describing it. *refused*: why the bridge would
        refuse *name* (a visible tool: the model calls it directly); the name field is then
        left empty and the status line says why, rather than pre-fill a call that can only
        fail with ``not_deferrable``."""
        if draft is not None and draft.opened_for == name:
            screen = cls(dispatch, bridge=draft.bridge, name=draft.name,
                         arguments=draft.arguments, limit=draft.limit, keep=keep)
        elif refused:
            screen = cls(dispatch, bridge="tool_describe", keep=keep, note=refused)
        else:
            screen = cls(dispatch, bridge="tool_describe", name=name, keep=keep)
        screen._opened_for = name
        return screen

    def on_unmount(self) -> None:
        app = self.app
        app.set_timer(FORGET_DELAY, lambda: forget_closed_watchers(app))

    def close(self) -> None:
        """Close, handing what the fields hold to *keep* first."""
        if self._keep is not None:
            self._keep(CallDraft(
                self._opened_for, str(self.query_one("#call-bridge", Select).value),
                self.query_one("#call-name", Input).value,
                self.query_one("#call-args", TextArea).text,
                self.query_one("#call-limit", Input).value))
        self.dismiss(None)

    def compose(self) -> ComposeResult:
        with Vertical(id="call-box"):
            # most terminals send Enter for Ctrl+Enter (a new line in the arguments): Ctrl+J
            # is the key that reaches the app from any field
            yield Static("Call a bridge tool by hand \u00b7 Esc closes \u00b7 Ctrl+J (or "
                         "Ctrl+Enter) sends",
                         markup=False)
            with Horizontal(classes="call-row"):
                yield Label("bridge", classes="call-label")
                yield Select([(b, b) for b in BRIDGES], value=self._bridge, allow_blank=False,
                             id="call-bridge", compact=True)
                yield Label(" limit", classes="call-label")
                yield Input(self._limit, id="call-limit", type="integer", compact=True)
            with Horizontal(classes="call-row"):
                yield Label("name/query", classes="call-label")
                # no control character drawn raw (a pasted query held ESC[2J)
                yield BoundedInput(self._tool_name, id="call-name", compact=True,
                                   limit=QUERY_MAX,
                                   placeholder="tool name (describe/call) or query (search)")
            yield Label("arguments (JSON object, tool_call only)")
            yield ArgumentsArea(json_escaped(self._arguments), id="call-args", language=None)
            with Horizontal(id="call-buttons"):
                yield Button("Send", id="call-send", variant="primary", compact=True)
                yield Button("Close", id="call-close", compact=True)
            yield Static(self._note, id="call-status", markup=False)
            yield TextArea("", id="call-result", read_only=True, language=None)
        yield KeyFooter(id="dialog-keys")

    @on(Button.Pressed, "#call-send")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_send()

    @on(Button.Pressed, "#call-close")
    def _close_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.close()

    @on(Input.Submitted, "#call-name")
    def _name_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def action_dismiss_dialog(self) -> None:
        self.close()

    def fill(self, bridge: str, name: str, arguments: str) -> None:
        """Set the dialog's bridge, tool name and arguments at once."""
        self.query_one("#call-bridge", Select).value = bridge
        self.query_one("#call-name", Input).value = name
        self.query_one("#call-args", TextArea).load_text(json_escaped(arguments))

    def action_send(self) -> None:
        bridge = str(self.query_one("#call-bridge", Select).value)
        name = self.query_one("#call-name", Input).value.strip()
        arguments = self.query_one("#call-args", TextArea).text
        limit = self.query_one("#call-limit", Input).value
        status = self.query_one("#call-status", Static)
        try:
            args = build_args(bridge, name, arguments, limit)
        except ValueError as exc:
            status.update(f"\u2716 not sent: {exc}")
            return
        status.update(f"\u2026 sending {bridge}")
        self.run_worker(partial(self._send, bridge, args), group="call", exclusive=True,
                        exit_on_error=False, description=f"call {bridge}")

    async def _send(self, bridge: str, args: dict[str, Any]) -> None:
        try:
            reply = await self._dispatch(bridge, args)
        except Exception as exc:  # shown, never fatal
            self.query_one("#call-status", Static).update(
                shown(f"\u2716 failed: {exc}", one_line=True))
            return
        self.last_reply = reply
        event = reply.activity
        self.query_one("#call-status", Static).update(shown(
            f"{outcome_label(event.outcome)[0]} \u00b7 {event.headline()} \u00b7 {event.ms:.1f} ms "
            "\u00b7 the model receives:", one_line=True))
        # escapes and bidi overrides in the reply (a tool's description, a live tool's
        # output) shown as text, never sent to the terminal
        text = shown(json.dumps(thaw(reply.result), indent=2, ensure_ascii=False, default=str))
        self.query_one("#call-result", TextArea).load_text(text)
