"""Keys handled in the order typed, each where the keys before it left the cursor (SPEC §11:
keys never misfire), also when they arrive in one burst: a fast typist, a paste, or
`tmux send-keys`.

Textual hands each key to the focused widget's queue as it arrives, and runs the key's binding
only when the key comes back up to the app. Keys that arrive together are all handed out before
the first one's binding has run, so they meet the cursor where it *was*: `/quit` typed quickly
quit the app instead of filtering, the letters after `2/` went to the Servers pane (`s`, `a`
toggle scope and attachment there), and in a text field `Ctrl+U 17 Enter` cleared the `17`
(the field types characters at once, its bindings run later). Here:

- outside a text field, a key's binding runs as it arrives, and focus moves made by bindings
  are immediate (:func:`focus_now`);
- in a text field, typed characters go to the field in order; any other key (Enter, Esc, Tab,
  Ctrl+U, arrows) goes the usual way, and the keys after it wait until its binding has run and
  the messages it sent on the way up have been handled (Enter: the field's Submitted, whose
  handler may move the cursor to a table), or the cursor has moved;
- a click (and a key outside a text field whose binding sent messages) goes first too: the
  keys after it wait until what it set off has travelled up to the app (:meth:`KeyOrder.
  clicked`). A click reaches its widget through that widget's queue and then sends messages
  up (a button's Pressed, the pane's request), so Reset clicked, then Ctrl+S, showed a save
  dialog offering the values the operator had just reset; a click made while keys wait,
  waits with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget
from textual.widgets import TextArea

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

LONGEST_WAIT_S = 1.0
"""Keys never wait longer than this behind one key (a key the field stops never comes back)."""


TRAIL_PASSES = 4
"""How many times a check waits behind new messages in one widget's queue before it goes on
up (the app's own queue holds the keys typed later: once)."""


class KeysSettled(Message):
    """Sent up from a text field behind a key's own messages: when it reaches the app, what the
    key set off along the way has been handled."""

    def __init__(self, key: events.Key) -> None:
        super().__init__()
        self.key = key


def takes_typing(widget: Widget | None) -> bool:
    """True when *widget* handles printable keys itself (a text field, or a select's open
    list, which jumps to what is typed)."""
    return widget is not None and widget.check_consume_key("a", "a")


ESCAPED_DIGITS = dict(zip("¡™£¢∞§¶•ªº", "1234567890", strict=True))
"""What Textual makes of Esc and a digit sent together: it reads them as a macOS terminal's
Option+digit and gives the character that key makes there."""


def escape_and_key(key: events.Key, focused: Widget | None) -> tuple[events.Key, events.Key] | None:
    """Esc and the key typed after it, when the terminal delivered them as one key.

    Esc and a key arriving within Textual's escape delay (100 ms: a quick typist, or
    `tmux send-keys Escape 3`) are one key to Textual: Esc then `z` is Alt+z, Esc then `3` is
    `£`. A text field kept the cursor and typed the character, so `Esc 3` in the Tools filter
    filtered for "zone£" instead of showing Listing (SPEC §11). The app binds no Alt key, and
    a terminal whose Alt sends Esc makes Alt+z the same bytes. The digit's characters are left
    alone in a multi-line text (a call's arguments), where they may be meant. None for any
    other key.
    """
    char = key.character
    if char is None or len(char) != 1:
        return None
    if key.key.startswith("alt+") and char.isalnum():  # Textual adds Alt to a letter only
        pass  # the key is named by its character, as Textual names it alone (`S`, not shift+s)
    elif char in ESCAPED_DIGITS and not isinstance(focused, TextArea):
        char = ESCAPED_DIGITS[char]
    else:
        return None
    return events.Key("escape", "\x1b"), events.Key(char, char)


def focus_now(widget: Widget) -> None:
    """Give *widget* the cursor at once. ``Widget.focus`` waits behind every message already
    queued for the app, keys typed after this one included, which would then be resolved
    against the old cursor."""
    try:
        screen = widget.screen
    except Exception:  # not mounted (yet): nothing to focus
        return
    screen.set_focus(widget)


def _queued(node: MessagePump) -> bool:
    """True when *node* has messages waiting: in its queue, or the next one, which Textual
    (8.2.8) takes out of the queue to look at while it handles the one before."""
    return node.message_queue_size > 0 or node._pending_message is not None


class KeyOrder:
    """The app's key intake: the app's ``on_event`` calls :meth:`arrived` and
    :meth:`came_back`, its KeysSettled handler :meth:`settled`, its focus watch
    :meth:`focus_moved`."""

    def __init__(self, app: App[object]) -> None:
        self.app = app
        # keys (and clicks) waiting behind a key in a text field, a click, or a binding
        self._held: list[events.Key | events.MouseDown | events.MouseUp] | None = None
        self._waiting_for: object | None = None
        self._focus_before: Widget | None = None
        self._until_focus_moves = False  # a key in a text field: a cursor move releases too
        self._timer: Timer | None = None

    async def arrived(self, event: events.Key) -> bool:
        """A key from the terminal; True when it was taken here (held, or its binding run)."""
        if self._held is not None:
            self._held.append(event)
            return True
        app = self.app
        if app._exit or not app.screen_stack:
            return True  # quitting: nothing is left to take a key
        if event.key == "escape" and app.screen.maximized is not None and \
                app.escape_to_minimize:
            return False  # Textual restores the maximized widget (the palette's "Maximize"):
            # a pane's or the app's Esc binding took it first, and the operator was stuck
        focused = app.focused
        if not takes_typing(focused):
            check = app._check_bindings  # the lookup Textual makes when the key comes back
            if not (await check(event.key, priority=True) or await check(event.key)):
                return False
            if focused is not None and any(_queued(node) for node in
                                           focused.ancestors_with_self if node is not app):
                self._follow_from(focused, event)  # Enter on a button: its Pressed
            return True
        if not event.is_printable:  # goes the usual way; the keys after it wait
            if await app._check_bindings(event.key, priority=True):
                return True  # Ctrl+Q, Ctrl+P: Textual runs these itself and never forwards
                # them, so they would never come back (the keys after waited a second)
            self._hold(event)
            self._focus_before, self._until_focus_moves = focused, True
        return False

    def mouse_arrived(self, event: events.MouseDown | events.MouseUp) -> bool:
        """A mouse button pressed or let go; True when it waits behind the keys before it."""
        if self._held is None:
            return False
        self._held.append(event)
        return True

    def clicked(self, event: events.MouseUp) -> None:
        """A mouse button let go has been handed to the widget under it (and a click made of
        it): the keys after it wait until what it set off has been handled."""
        app = self.app
        if self._held is not None or app._exit or not app.screen_stack:
            return
        try:
            widget, _ = app.screen.get_widget_at(*event.screen_offset)
        except Exception:  # nothing under the pointer (a screen going away)
            return
        self._follow_from(widget, event)

    def _hold(self, cause: object) -> None:
        self._held, self._waiting_for = [], cause
        self._focus_before, self._until_focus_moves = None, False
        self._timer = self.app.set_timer(LONGEST_WAIT_S, self._release)

    def _follow_from(self, node: MessagePump, cause: object) -> None:
        """Hold the keys after *cause* until a check has gone up from *node* to the app, each
        time behind every message then queued where it is: what the cause set off travels the
        same way (a click's Click, the button's Pressed, the pane's request to the app)."""
        self._hold(cause)
        self._trail(node, cause)

    def _trail(self, node: MessagePump, cause: object, passes: int = 0) -> None:
        if cause is not self._waiting_for:
            return  # released meanwhile (waited too long)
        parent = node._parent
        if _queued(node) and passes < (TRAIL_PASSES if parent is not None else 1) and \
                node.call_later(self._trail, node, cause, passes + 1):
            return  # behind what was queued here meanwhile (a Click handler's Pressed)
        while parent is not None and not parent.call_later(self._trail, parent, cause):
            parent = parent._parent  # a node closing: on up
        if parent is None:
            self._release()  # the app has handled what the cause sent it

    def came_back(self, event: events.Key) -> None:
        """A key has been up to the app and its binding (if any) has run: what the binding
        sent the field (Enter: Submitted) is in the field's queue, ahead of a KeysSettled."""
        if event is not self._waiting_for:
            return
        field = self._focus_before
        if field is not None and field.is_attached and self.app.focused is field:
            field.post_message(KeysSettled(event))
        else:
            self._release()

    def settled(self, message: KeysSettled) -> None:
        """A KeysSettled reached the app."""
        if message.key is self._waiting_for:
            self._release()

    def focus_moved(self) -> None:
        """The cursor moved on the app's screen."""
        if self._until_focus_moves and self.app.focused is not self._focus_before:
            self._release()

    def _release(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        held, self._held, self._waiting_for = self._held or [], None, None
        self._focus_before, self._until_focus_moves = None, False
        if self.app._exit:
            return  # quitting: a key replayed now would reach panes already taken down
        for event in held:  # back through the intake, in order (the first may hold the rest)
            if isinstance(event, events.Key):
                self.app.post_message(events.Key(event.key, event.character))
            else:
                self.app.post_message(event._apply_offset(0, 0))  # a fresh copy, not forwarded
