"""Tuning: every ``tools.tool_search`` key, the context length and the profile.

Each change is posted at once and the app recomputes the whole session; values the engine
clamps are shown beside the field. Save writes the block through the engine's safe save.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.reactive import Reactive, reactive
from textual.widgets import Button, Input, Label, Select, Static

from toolsearch.config import CONFIG_TABLE
from toolsearch.profiles import PROFILE_NAMES, get_profile
from toolsearch.session import SessionState

from ..key_order import focus_now
from ..messages import PaneMessage
from ..view import fmt
from .visibility import CatchUpWhenShown

if TYPE_CHECKING:
    from ..app import ToolSearchApp

CONTEXT_PRESETS: tuple[tuple[str, int], ...] = (
    ("8K \u00b7 small local models", 8_192),
    ("32K \u00b7 Mistral, Qwen", 32_768),
    ("128K \u00b7 GPT-4o, Llama 3.1", 128_000),
    ("200K \u00b7 Claude", 200_000),
    ("400K \u00b7 GPT-5", 400_000),
    ("1M \u00b7 Gemini, GPT-4.1", 1_000_000),
    ("none \u00b7 fixed 10,000 leg", 0),
)
TRI = (("auto", "auto"), ("on", "on"), ("off", "off"))
BUDGET_LEGS = ("threshold_pct", "listing_max_tokens")
"""The two legs of the listing budget come first in the pane, then the table's order."""
NUMBER_KEYS: dict[str, str] = {
    k.name: "number" if k.type == "float" else "integer"
    for k in sorted(CONFIG_TABLE, key=lambda k: k.name not in BUDGET_LEGS)
    if k.type in ("float", "int")
}
HELP: dict[str, str] = {
    **{k.name: k.help for k in CONFIG_TABLE},
    "context": "context length: preset or any number",
    "profile": " \u00b7 ".join(f"{n}: {get_profile(n).plain}" for n in PROFILE_NAMES),
}


def _value_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _show(static: Static, content: Content | str) -> None:
    """Update *static* only when its text changes (each update lays the screen out again)."""
    old = static.content
    same = old.markup == content.markup if isinstance(old, Content) and \
        isinstance(content, Content) else old == content
    if not same:
        # Lay the screen out again only when the wrapped height changes (as the gauges do):
        # the effective block changes on every digit typed, its height almost never.
        width, height = static.content_region.width, static.content_region.height
        layout = not isinstance(content, Content) or width <= 0 or \
            len(content.wrap(width)) != height
        static.update(content, layout=layout)


class NumberField(Input):
    """A number field whose edits never lay the screen out again: Textual's ``Input`` sets
    its ``virtual_size`` (the text's width) on every change, a reactive that asks for a
    layout of the whole screen, though this field's box is fixed (one line, a set width)
    and the text scrolls inside it."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


class SaveButton(Button):
    """Save, as Ctrl+S is: pressed (a click, Enter, Space), it runs the app's save action at
    once, behind the same check as the key. A Pressed message reached the app behind the keys
    typed right after the click: one of them opened its dialog first, and the save was dropped
    without a word. The click itself reaches the button in the order it was made, ahead of
    those keys (:mod:`tui.key_order`)."""

    def press(self) -> Self:
        if self.disabled or not self.display:
            return self
        self._start_active_affect()
        app = cast("ToolSearchApp", self.app)
        if app.check_action("save", ()):
            app.action_save()
        return self


class TuningPane(CatchUpWhenShown, VerticalScroll):
    DEFAULT_CSS = """
    TuningPane { height: 1fr; }
    TuningPane .tune-row { height: auto; }
    TuningPane .tune-label { width: 22; padding: 0 1; }
    TuningPane .tune-field { width: 24; }
    TuningPane .tune-note { width: 1fr; padding: 0 1; }
    TuningPane #tune-context-row Input { width: 12; }
    TuningPane #tune-context-preset { width: 30; }
    TuningPane #tune-buttons { height: auto; padding: 1 1 0 1; }
    TuningPane #tune-buttons Button { margin-right: 2; }
    TuningPane #tune-effective { height: auto; padding: 0 1; }
    """
    BINDINGS = [Binding("tab", "next_after_left", show=False),
                Binding("shift+tab", "previous_before_left", show=False)]
    # repaint=False: a container draws nothing itself, its children repaint what changed
    # (repainting the whole pane on every change cost 2-4 ms of the frame at 4,900 tools)
    session: reactive[SessionState | None] = reactive(None, init=False, repaint=False)
    save_target: reactive[str] = reactive("", init=False, repaint=False)

    @dataclass
    class ValueChanged(PaneMessage):
        key: str
        value: Any

    @dataclass
    class ContextChanged(PaneMessage):
        context_length: int | None

    @dataclass
    class ProfileChanged(PaneMessage):
        profile: str

    @dataclass
    class ResetRequested(PaneMessage):
        """Carries only the pane."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._raw: dict[str, str] = {}
        self._left: Input | None = None
        """The field Enter just left (the pane has the cursor): Tab moves on from it."""
        self._force = False  # after a reset: overwrite even the field under the cursor
        self._filled = False  # the fields show a session (not yet when first mounted)
        self._shown: dict[str, object] = {"tune-enabled": "auto", "tune-listing": "auto",
                                          "tune-profile": PROFILE_NAMES[0]}
        """The value each Select was given by the pane (not by the operator)."""

    def compose(self) -> ComposeResult:
        # Built with the session's values when there is one: a Select announces the value it
        # is built with once mounted, and that must not read as the operator's choice.
        session = self.session or getattr(self.app, "session", None)
        raw = session.config.to_raw() if session is not None else {}
        self._shown.update({"tune-enabled": raw.get("enabled", "auto"),
                            "tune-listing": raw.get("listing", "auto"),
                            "tune-profile": session.config.profile.name if session else PROFILE_NAMES[0]})
        for key, options in (("enabled", TRI), ("listing", TRI)):
            with Horizontal(classes="tune-row"):
                yield Label(key, classes="tune-label")
                yield Select(options, allow_blank=False, value=self._shown[f"tune-{key}"],
                             id=f"tune-{key}", classes="tune-field", compact=True)
                yield Static(HELP[key], classes="tune-note", id=f"tune-note-{key}")
        for key, kind in NUMBER_KEYS.items():
            with Horizontal(classes="tune-row"):
                yield Label(key, classes="tune-label")
                yield NumberField(id=f"tune-{key}", type=kind,  # type: ignore[arg-type]
                                  classes="tune-field", compact=True)
                yield Static(HELP[key], classes="tune-note", id=f"tune-note-{key}")
        with Horizontal(classes="tune-row", id="tune-context-row"):
            yield Label("context length", classes="tune-label")
            yield Select([(label, value) for label, value in CONTEXT_PRESETS], prompt="custom",
                         id="tune-context-preset", compact=True)
            yield NumberField(id="tune-context", type="integer", compact=True)
            yield Static("", classes="tune-note", id="tune-note-context")
        with Horizontal(classes="tune-row"):
            yield Label("profile", classes="tune-label")
            yield Select(((n, n) for n in PROFILE_NAMES), allow_blank=False,
                         value=self._shown["tune-profile"], id="tune-profile",
                         classes="tune-field", compact=True)
            yield Static(HELP["profile"], classes="tune-note")
        with Horizontal(id="tune-buttons"):
            yield SaveButton("Save (ctrl+s)", id="tune-save", variant="primary", compact=True)
            yield Button("Reset (ctrl+r)", id="tune-reset", compact=True)
        yield Static("", id="tune-effective")

    def on_mount(self) -> None:
        # filled even while hidden: a Tab typed in the same burst as `6` can reach a field
        # before the pane is first drawn (and its catch-up runs), and found it blank
        self._sync(hidden_too=True)

    def watch_has_focus(self, _has_focus: bool) -> None:
        # Only the pane's own look depends on its focus: restyling its ~60 children on every
        # focus move (Textual's default) cost tens of milliseconds per tab switch.
        self.app.stylesheet.update_nodes([self], animate=True)

    def watch_session(self) -> None:
        # The first values are filled even while hidden: the session is bound after
        # ``on_mount`` ran, and filling 14 fields restyles them (~12 ms), which a first show
        # of the tab then paid for.
        self._sync(hidden_too=not self._filled)

    def watch_save_target(self) -> None:
        self._sync()

    def catch_up(self) -> None:
        self._sync()

    # -- from the session into the fields -----------------------------------------------

    def _sync(self, hidden_too: bool = False) -> None:
        if not self.is_mounted or self.session is None or \
                (not hidden_too and self.hidden_now()):
            return
        self._filled = True
        config = self.session.config
        raw = config.to_raw()
        focused = None if self._force else self.app.focused
        self._force = False
        for key in ("enabled", "listing"):
            select = self.query_one(f"#tune-{key}", Select)
            self._shown[f"tune-{key}"] = raw[key]
            if select.value != raw[key]:
                with select.prevent(Select.Changed):
                    select.value = raw[key]
        for key in NUMBER_KEYS:
            field = self.query_one(f"#tune-{key}", Input)
            effective = _value_text(raw[key])
            typed = self._raw.get(key)
            if field.value != effective and (field is not focused or key not in self._raw):
                # the field under the cursor keeps what the operator typed; one they only
                # tabbed into (keys typed in a burst can get there first) is filled
                with field.prevent(Input.Changed):
                    field.value = effective
            note = self.query_one(f"#tune-note-{key}", Static)
            if typed is not None and typed.strip() and typed.strip() != effective:
                _show(note, Content.assemble(("\u21e5 clamped to ", "$outcome-warn"),
                                             (effective, "bold"), f" \u00b7 {HELP[key]}"))
            else:
                _show(note, HELP[key])
        self._sync_context(focused)
        profile = self.query_one("#tune-profile", Select)
        self._shown["tune-profile"] = config.profile.name
        if profile.value != config.profile.name:
            with profile.prevent(Select.Changed):
                profile.value = config.profile.name
        self._effective()

    def _sync_context(self, focused: object) -> None:
        assert self.session is not None
        context = self.session.context_length or 0
        preset = self.query_one("#tune-context-preset", Select)
        wanted = context if any(v == context for _, v in CONTEXT_PRESETS) else Select.NULL
        self._shown["tune-context-preset"] = wanted
        if preset.value != wanted:
            with preset.prevent(Select.Changed):
                preset.value = wanted
        field = self.query_one("#tune-context", Input)
        if field.value != str(context) and (field is not focused or "context" not in self._raw):
            with field.prevent(Input.Changed):
                field.value = str(context)
        note = "no context: the percentage leg is a fixed 10,000" if not context else \
            f"{fmt(context)} tokens"
        _show(self.query_one("#tune-note-context", Static), Content(note))

    def _effective(self) -> None:
        assert self.session is not None
        raw = self.session.config.to_raw()
        block = ", ".join(f"{k}: {_value_text(v)}" for k, v in raw.items())
        target = self.save_target or "no Hermes config loaded: save asks for a path"
        _show(self.query_one("#tune-effective", Static), Content.assemble(
            ("Effective tools.tool_search: ", "bold"), "{" + block + "}\n",
            ("Save target: ", "bold"), target,
        ))

    # -- from the fields to the app -----------------------------------------------------

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        widget_id = event.select.id or ""
        value = event.value
        if value is Select.NULL or self.session is None:
            return
        # A Select announces the value it was built with, and values the pane shows from the
        # session: only a value the pane did not put there is the operator's change.
        if self._shown.get(widget_id) == value:
            return
        self._shown[widget_id] = value
        if widget_id == "tune-profile":
            self.post_message(self.ProfileChanged(self, str(value)))
        elif widget_id == "tune-context-preset":
            self.post_message(self.ContextChanged(self, int(value) or None))  # type: ignore[call-overload]
        elif widget_id in ("tune-enabled", "tune-listing"):
            self.post_message(self.ValueChanged(self, widget_id.removeprefix("tune-"), value))

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        widget_id = event.input.id or ""
        text = event.value.strip()
        if widget_id == "tune-context":
            self._raw["context"] = text
            try:
                number = int(text)
            except ValueError:
                return
            self.post_message(self.ContextChanged(self, number if number > 0 else None))
            return
        key = widget_id.removeprefix("tune-")
        if key not in NUMBER_KEYS:
            return
        self._raw[key] = text
        try:
            value: Any = float(text) if NUMBER_KEYS[key] == "number" else int(text)
        except ValueError:
            return
        self.post_message(self.ValueChanged(self, key, value))

    @on(Input.Blurred)
    def _input_left(self, event: Input.Blurred) -> None:
        """A number field left empty or unreadable (``-``, ``.``) shows the value in effect
        again: it had kept the last number that parsed, which the blank field hid."""
        event.stop()
        widget_id = event.input.id or ""
        key = "context" if widget_id == "tune-context" else widget_id.removeprefix("tune-")
        if key != "context" and key not in NUMBER_KEYS:
            return
        text = event.value.strip()
        try:
            float(text) if key != "context" and NUMBER_KEYS[key] == "number" else int(text)
        except ValueError:
            self._raw.pop(key, None)
            self._sync()

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        """Enter leaves a number field: the pane's keys (and digits for tabs) work again."""
        event.stop()
        focus_now(self)
        self._left = event.input

    def on_blur(self) -> None:
        self._left = None

    def left_by_escape(self, field: object) -> None:
        """Esc left *field* for the pane: Tab moves on from it, as after Enter (Esc had sent
        Tab back to the first field, ``enabled``)."""
        if isinstance(field, Input) and field in self.query(Input) and self.app.focused is self:
            self._left = field

    def start_over(self) -> None:
        """The cursor put on the pane afresh (its tab's digit, Ctrl+R): Tab starts from the
        top again (the pane may hold the cursor already, so no Blur said so)."""
        self._left = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_after_left", "previous_before_left"):
            # only with the cursor on the pane itself, just after Enter: otherwise the key
            # goes on to the screen's own Tab
            return self._left is not None and self.app.focused is self
        return super().check_action(action, parameters)

    def action_next_after_left(self) -> None:
        """Tab after Enter moves on from the field just left (the pane holds the cursor
        then, and the screen's own Tab went back to the pane's first field, ``enabled``)."""
        self._move_from_left(1)

    def action_previous_before_left(self) -> None:
        self._move_from_left(-1)

    def _move_from_left(self, step: int) -> None:
        left, self._left = self._left, None
        chain = self.screen.focus_chain
        if left is None or left not in chain:
            self.screen.focus_next() if step > 0 else self.screen.focus_previous()
            return
        focus_now(chain[(chain.index(left) + step) % len(chain)])

    @on(Button.Pressed, "#tune-reset")
    def _reset(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_reset()

    def action_reset(self) -> None:
        self.post_message(self.ResetRequested(self))

    def reset_fields(self) -> None:
        """Forget typed values and clamp notes; every field shows the session again."""
        self._raw.clear()
        self._force = True
        self._sync()

    def set_field(self, key: str, value: str) -> None:
        """Type *value* into a number field (as the operator would)."""
        self.query_one(f"#tune-{key}", Input).value = value
