"""The app and the gateway: ``tui --follow EVENTS`` and ``tui SOURCE... --serve [HOST:]PORT``.

* :class:`FollowApp` watches a running gateway through its events file: each ``call`` line
  becomes an Activity entry (the underlying tool, outcome glyph and word, duration), the
  calls already in the file when the app opens too (its last few hundred lines, read from
  the end: the recent history an operator opening the app expects to see), and each
  ``assembly`` line re-applies the gateway's profile, context, config and scope to the
  gateway's catalog snapshot, so the gauges show what the gateway's clients receive; the
  Servers tab shows each server as the gateway reports it (connected, starting, or the error
  row), until the gateway stops: then the header says so and the rows read "snapshot".
* :class:`ServeApp` hosts the gateway itself (streamable HTTP): one long-lived worker owns
  the gateway (STYLE §5); a tuning change in the app is applied to the gateway at once, which
  sends its clients ``tools/list_changed``; the header says where it serves and how many
  clients are connected. The gateway's warnings are notifications in the app while it runs
  (they were written onto the terminal under the app's screen, mixed into its drawing, and
  gone with it at exit), and printed on stderr once the app has closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.reactive import reactive

from toolsearch.bridge import ActivityEvent
from toolsearch.gateway import leaf_error
from toolsearch.gateway.events import (
    HISTORY_LINES,
    history_range,
    last_record,
    read_records,
    rotated_path,
)
from toolsearch.profiles import PROFILE_NAMES
from toolsearch.session import SessionState
from toolsearch.sources.filesafe import open_regular
from toolsearch.textsafe import shown
from toolsearch.toolsets import ToolsetStatus, Workspace

from .activity import clip
from .app import ToolSearchApp
from .messages import ActivityLogged, WorkspaceLoaded
from .widgets.servers import Reported, ServersPane

POLL_SECONDS = 0.25
SERVING = " \u00b7 serving on "
STARTING = " \u00b7 gateway starting on "
STOPPED = " \u00b7 gateway NOT serving: "
"""What the header says of the hosted gateway: listening (its URL and clients), not yet, or
stopped (the reason), never "serving" before it listens."""
NAME_ROOM = 20
"""The most of the workspace's name the header holds in front of the gateway's state: the
state comes right after the name, and the tier and profile last (at 80 columns "followed
(stopped)" or "gateway NOT serving" fell off the end after them)."""


LIVENESS_SECONDS = 1.0
"""How often the app following a gateway looks whether the gateway still holds its events
file."""
FOLLOWING = " \u00b7 following "
FOLLOWED = " \u00b7 followed "
"""The header names the followed gateway "following ..." while it runs and "followed
(stopped) ..." once it stopped: it read "following" a gateway that had stopped, as if live."""
GONE_PREFIX = "gateway stopped: "
STATUSES = frozenset(status.value for status in ToolsetStatus)
MAX_ERROR = 2000
"""The most of a server's error an assembly line is shown with."""


MAX_MS = 99_999_999.0
"""The longest duration a followed call line is shown with (the feed's column holds it)."""


def _text(value: Any, default: str = "") -> str:
    """A string field of an events line (another type: the line was not the gateway's)."""
    return value if isinstance(value, str) else default


def _count(value: Any) -> float | None:
    """A number field of an events line: a finite int or float, never a bool."""
    if isinstance(value, int | float) and not isinstance(value, bool) and \
            math.isfinite(value):
        return value
    return None


def event_of(record: Mapping[str, Any]) -> ActivityEvent:
    """An events-file ``call`` line as the feed's activity event. Fields of another type than
    the gateway writes (a garbled or hand-made file) read as missing: ``"ms": "abc"`` ended
    the app with a traceback."""
    arguments = record.get("arguments")
    return ActivityEvent(_text(record.get("bridge")) or "?", _text(record.get("tool")) or None,
                         _text(record.get("outcome")) or "error",
                         arguments if isinstance(arguments, Mapping) else {},
                         min(max(0.0, float(_count(record.get("ms")) or 0.0)), MAX_MS),
                         _text(record.get("summary")))


def note_of(record: Mapping[str, Any], earlier: bool = False) -> str:
    """The feed's note under a call: the client, the summary, the reply's size; for a call
    made before the app opened, when (the feed's clock starts with the app)."""
    client = _text(record.get("client")) or "client"
    summary = _text(record.get("summary"))
    size = _count(record.get("result_bytes"))
    text = f"{client}" + (f": {summary}" if summary else "")
    if earlier:
        when = _text(record.get("time"))
        clock = when[11:19] if len(when) >= 19 and when[10:11] == "T" else ""
        text = "before the app opened" + (f" ({clock} UTC)" if clock else "") + f", {text}"
    if size is not None:
        text += f" ({size:.0f} bytes back)"
    return clip(text)


def retuned(state: SessionState, record: Mapping[str, Any]) -> SessionState:
    """*state* with the gateway's profile, context, config and scope from an assembly line (a
    field the gateway would not write, an unknown profile or a context of "abc", is left as
    it was)."""
    profile = record.get("profile")
    if isinstance(profile, str) and profile != state.config.profile:
        with contextlib.suppress(ValueError):
            state = state.with_profile(profile)
    config = record.get("config")
    if isinstance(config, Mapping) and all(isinstance(key, str) for key in config):
        with contextlib.suppress(ValueError, TypeError):
            state = state.with_config(**config)
    context = record.get("context_length")
    if isinstance(context, int) and not isinstance(context, bool) and context > 0:
        state = state.with_context(context)
    scope = record.get("scope")
    state = state.with_scope([str(name) for name in scope] if isinstance(scope, list) else None)
    detached = record.get("detached")
    if isinstance(detached, list):
        state = replace(state, detached=frozenset(str(d) for d in detached))
    return state


def known_profile(name: Any) -> str:
    """The profile an assembly line names, when this app has it; else the default."""
    if isinstance(name, str) and name in PROFILE_NAMES:
        return name
    return "seed"


def starting_of(record: Mapping[str, Any]) -> frozenset[str]:
    """The servers an assembly line says the gateway is still starting (past its start-up
    grace: neither up nor failed yet)."""
    names = record.get("starting")
    if not isinstance(names, list):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))


def reported_of(record: Mapping[str, Any]) -> dict[str, Reported]:
    """What an assembly line says of each server: its ``toolsets`` (name, status, error);
    an entry the gateway would not write (a status it has no word for) is left out, and the
    error is shown as text on one line."""
    toolsets = record.get("toolsets")
    reported: dict[str, Reported] = {}
    for entry in toolsets if isinstance(toolsets, list) else ():
        if isinstance(entry, Mapping) and isinstance(name := entry.get("name"), str) \
                and (status := _text(entry.get("status"))) in STATUSES:
            error = shown(_text(entry.get("error"))[:MAX_ERROR], one_line=True)
            reported[name] = Reported(status, error)
    return reported


def _file_at(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at *path*; None when there is none."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def gateway_gone(path: Path) -> str:
    """Why no gateway writes the events file at *path* now; "" while one does (or when this
    system cannot tell). A gateway holds an advisory lock on its events file while it runs
    (:class:`~toolsearch.gateway.events.EventLog`), let go when it stops, even killed."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks to tell by
        return ""
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return f"{GONE_PREFIX}its events file is gone"
    except OSError:
        return ""
    if handle is None:
        return f"{GONE_PREFIX}its events file is not a regular file"
    with handle:
        try:  # held for an instant: shared, so it never stands in a reader's way
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # held by the gateway (BlockingIOError), or cannot tell
            return ""
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return f"{GONE_PREFIX}nothing writes its events file"


class GatewayApp(ToolSearchApp):
    """The app showing a gateway: its Servers pane tells the servers still starting."""

    starting: reactive[frozenset[str]] = reactive(frozenset, init=False, repaint=False)
    """The gateway's servers still starting (its last assembly's ``starting`` list)."""
    reported: reactive[Mapping[str, Reported]] = reactive(dict, init=False, repaint=False)
    """What a followed gateway reports of its servers (a hosted one's workspace is live)."""

    def _pane(self, key: str) -> ComposeResult:
        for widget in super()._pane(key):
            if isinstance(widget, ServersPane):
                widget.data_bind(starting=GatewayApp.starting,
                                 reported=GatewayApp.reported)
            yield widget


def gateway_title(parts: tuple[str, str], state: str) -> str:
    """The header's subtitle with the gateway's *state* right after the workspace's name
    (cut to :data:`NAME_ROOM`), the tier and profile last."""
    name, rest = parts
    name = name if len(name) <= NAME_ROOM else name[: NAME_ROOM - 1] + "\u2026"
    return f"{name}{state}{rest}"


class FollowApp(GatewayApp):
    """The app following a gateway's events file."""

    def __init__(self, events: Path, **kwargs: Any) -> None:
        self.events_path = Path(events)
        record = last_record(self.events_path, "assembly") or {}
        self._record: dict[str, Any] = record
        catalog = _text(record.get("catalog"))
        self._catalog_mtime = 0.0
        sources = [catalog] if catalog and Path(catalog).exists() else ["seed-demo"]
        super().__init__(sources, profile=known_profile(record.get("profile")), **kwargs)
        self._reading = _file_at(self.events_path)
        """The file being read (device, inode): another one at the path is a rotation."""
        self._history = history_range(self.events_path)
        self._offset = self._history[1]
        self.gone = gateway_gone(self.events_path) if record else ""
        """Why the gateway is not running ("" while it is): its servers are not shown as
        it last reported them."""
        self._looked = time.monotonic()

    def on_mount(self) -> None:
        super().on_mount()
        self._show_history()
        self.set_interval(POLL_SECONDS, self._poll, name="follow events")

    def _show_history(self) -> None:
        """The calls in the file's last lines as Activity entries (its assembly lines are
        history: the last one is already applied)."""
        start, end = self._history
        records, self._offset = read_records(self.events_path, start, end - start)
        if start == 0 and len(records) < HISTORY_LINES:  # just rotated: the moved file's end
            older = rotated_path(self.events_path)
            begin, stop = history_range(older, HISTORY_LINES - len(records))
            records = read_records(older, begin, stop - begin)[0] + records
        for record in records:
            if record.get("type") == "call":
                self.post_message(ActivityLogged(event_of(record), None,
                                                 note_of(record, earlier=True), earlier=True))

    def _install(self, workspace: Workspace, *, quiet: bool = False) -> None:
        # one session change, already retuned: two in a row race the Tuning pane's echo
        super()._install(workspace, quiet=True)
        if self.session is None:
            return
        state = retuned(self.session, self._record) if self._record else self.session
        self._initial = state
        if quiet:
            starting, reported = self._live()
            self.set_reactive(GatewayApp.starting, starting)
            self.set_reactive(GatewayApp.reported, reported)
        else:  # told with the workspace it goes with (a catalog reloaded as the server came up)
            self._show_live()
        self.set_reactive(ToolSearchApp.session, state)
        if not quiet:  # the watchers run even when the gateway's tuning is the default one,
            self.mutate_reactive(ToolSearchApp.session)  # which leaves the state as it was

    def _live(self) -> tuple[frozenset[str], dict[str, Reported]]:
        """The servers starting and each server's status, as the gateway last reported
        them; none once it stopped."""
        if self.gone:
            return frozenset(), {}
        return starting_of(self._record), reported_of(self._record)

    def _show_live(self) -> None:
        self.starting, self.reported = self._live()

    def watch_session(self, session: SessionState | None) -> None:
        super().watch_session(session)
        if session is not None:
            self._title()

    def _title(self) -> None:
        if not self.title_parts[0]:  # no session shown yet
            return
        clients = _count(self._record.get("clients"))
        served = shown(_text(self._record.get("serving"))[:200], one_line=True) or "a gateway"
        if self.gone:  # the word before the address: a long one is cut off at 80 columns
            why = self.gone.removeprefix(GONE_PREFIX)
            self.sub_title = gateway_title(self.title_parts,
                                           f"{FOLLOWED}(stopped) {served} \u00b7 {why}")
            return
        state = f" \u00b7 {clients:.0f} client(s)" if clients is not None else ""
        self.sub_title = gateway_title(self.title_parts, f"{FOLLOWING}{served}{state}")

    def _look(self) -> None:
        """Whether the gateway still runs (looked at every :data:`LIVENESS_SECONDS`): once
        it stopped, its servers are no longer shown as it last reported them."""
        now = time.monotonic()
        if now - self._looked < LIVENESS_SECONDS or not self._record:
            return
        self._looked = now
        gone = gateway_gone(self.events_path)
        if gone == self.gone:
            return
        self.gone = gone
        self._show_live()
        self._title()
        if gone:
            self.notify(f"{gone}; its servers are shown as its catalog snapshot had them",
                        title="Gateway stopped", severity="warning", timeout=15)

    def _poll(self) -> None:
        self._look()
        session = self.session
        if session is not None and self._record:
            # follow mode shows the gateway's tuning: a local change (or the Tuning pane's
            # start-up echo of its default fields) is put back
            wanted = retuned(session, self._record)
            if (wanted.config, wanted.context_length, wanted.scope, wanted.detached) != \
                    (session.config, session.context_length, session.scope, session.detached):
                self.session = wanted
        for record in self._read_new():
            if record.get("type") == "call":
                event = event_of(record)
                self.post_message(ActivityLogged(event, None, note_of(record)))
            elif record.get("type") == "assembly":
                self._record = record
                self._follow_assembly(record)
                self._title()

    def _read_new(self) -> list[dict[str, Any]]:
        """The lines written since the last poll. The gateway rotated the file (moved it to
        ``FILE.1`` and started ``FILE`` again): the moved file's rest, then the new file from
        its start (the app read on at the old offset of the new file, and showed nothing more
        for good). A file cut short is read again from its start."""
        now = _file_at(self.events_path)
        if now is not None and now != self._reading:
            records: list[dict[str, Any]] = []
            older = rotated_path(self.events_path)
            if self._reading is not None and _file_at(older) == self._reading:
                while True:
                    more, offset = read_records(older, self._offset)
                    records += more
                    if offset == self._offset:
                        break
                    self._offset = offset
            self._reading, self._offset = now, 0
            more, self._offset = read_records(self.events_path, 0)
            return records + more
        with contextlib.suppress(OSError):
            if self.events_path.stat().st_size < self._offset:  # truncated in place
                self._offset = 0
        records, self._offset = read_records(self.events_path, self._offset)
        return records

    def _follow_assembly(self, record: Mapping[str, Any]) -> None:
        catalog = _text(record.get("catalog"))
        if catalog and Path(catalog).exists():
            mtime = Path(catalog).stat().st_mtime
            if mtime != self._catalog_mtime:
                self._catalog_mtime = mtime
                self.sources = (str(catalog),)
                self.run_worker(self._load, group="load", exclusive=True,
                                exit_on_error=False, description="reload gateway catalog")
                return  # the starting list is applied with the catalog it goes with
        self._show_live()
        if self.session is not None:
            self.session = retuned(self.session, record)


WARNING_SHOWN = 2000
"""The most of a gateway warning a notification shows (the whole line is printed at exit)."""


class _WarningsShown(logging.Handler):
    """While the app hosts the gateway, the log's warnings (the gateway's, its sources') go
    to the app, never onto the terminal under its screen: the log's own stderr handlers
    (plain ``StreamHandler``) are set aside, and put back by :meth:`close`."""

    def __init__(self, app: ServeApp) -> None:
        super().__init__(logging.WARNING)
        self.app = app
        self.loop = asyncio.get_running_loop()
        root = logging.getLogger()
        self.aside = [h for h in root.handlers if type(h) is logging.StreamHandler]
        for handler in self.aside:
            root.removeHandler(handler)
        root.addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        self.app.warned.append(record)  # for the line printed at exit, whatever comes next
        try:  # any thread (the gateway's pool too): shown from the app's loop
            self.loop.call_soon_threadsafe(self.app.gateway_warned, record)
        except RuntimeError:  # the loop is closed: the app too
            pass

    def close(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self)
        for handler in self.aside:
            root.addHandler(handler)
        self.aside = []
        super().close()


class GatewayChanged(Message):
    """The hosted gateway re-assembled (upstream change) or its clients changed."""

    def __init__(self, kind: str, payload: Any) -> None:
        super().__init__()
        self.kind = kind
        self.payload = payload


class ServeApp(GatewayApp):
    """The app hosting the gateway over streamable HTTP."""

    def __init__(self, sources: list[str], *, host: str, port: int, token: str | None = None,
                 events: Path | None = None, sock: socket.socket | None = None,
                 **kwargs: Any) -> None:
        """*sock*: bound by the command line before the app opens (a port in use is an error
        there); bound when the gateway starts when not given."""
        super().__init__(sources, **kwargs)
        from toolsearch.gateway.events import EventLog
        from toolsearch.gateway.server import Gateway

        self.events_log = EventLog(events) if events is not None else None
        self.gateway = Gateway(sources, profile=kwargs.get("profile", "seed"),
                               context_length=kwargs.get("context"), events=self.events_log)
        self.host, self.port, self._token, self._sock = host, port, token, sock
        if sock is not None:  # bound: the events file's assembly lines name the URL from the
            self.gateway.serving = Gateway.http_url(host, sock.getsockname()[1])  # first one
        self.clients = 0
        self.serving = ""
        """The gateway's URL once it listens."""
        self.stopped = ""
        """Why the gateway stopped or never started (it is not serving)."""
        self.warned: list[logging.LogRecord] = []
        """The gateway's warnings while the app ran (shown as notifications), for stderr
        once the app has closed (:func:`run_serve`)."""

    async def _load(self) -> None:  # the gateway lists the servers (once, for both)
        self.run_worker(self._serve, group="gateway", exit_on_error=False,
                        description="MCP gateway")

    async def _serve(self) -> None:
        gateway = self.gateway
        gateway.add_listener(lambda kind, payload: self.post_message(
            GatewayChanged(kind, payload)))
        warnings = _WarningsShown(self)
        try:
            async with gateway.running():
                assert gateway.state is not None
                self._executor = gateway.pool
                self.post_message(WorkspaceLoaded(gateway.state.workspace))
                await gateway.serve_http(self.host, self.port, self._token,
                                         started=self._listening, handle_signals=False,
                                         sock=self._sock)
        except Exception as exc:  # noqa: BLE001 - shown, never a crash
            leaf = leaf_error(exc)  # what failed, not the task group around it
            self.serving, self.stopped = "", str(leaf) or type(leaf).__name__
            self._title()
            self.notify(f"{type(leaf).__name__}: {leaf}", title="Gateway stopped",
                        severity="error", timeout=30)
        finally:
            warnings.close()
            if self._sock is not None:
                self._sock.close()  # not served on (the gateway failed first), or done

    def gateway_warned(self, record: logging.LogRecord) -> None:
        """A warning the gateway logged (kept in :attr:`warned`): a notification."""
        if self.is_running:
            text = shown(record.getMessage()[:WARNING_SHOWN])
            error = record.levelno > logging.WARNING
            self.notify(text, title="Gateway error" if error else "Gateway warning",
                        severity="error" if error else "warning", timeout=20, markup=False)

    def _listening(self, url: str) -> None:
        self.serving = url
        self._title()

    @on(GatewayChanged)
    def _gateway_changed(self, message: GatewayChanged) -> None:
        if message.kind == "call":
            record = dict(message.payload)
            self.post_message(ActivityLogged(event_of(record), None, note_of(record)))
        elif message.kind == "clients":
            self.clients = int(message.payload)
            self._title()
        elif message.kind == "assembly":
            self.starting = starting_of(message.payload)
            state = self.gateway.state
            if state is not None and self.session is not None \
                    and state.workspace is not self.session.workspace:
                self.session = replace(self.session, workspace=state.workspace)

    def _title(self) -> None:
        session = self.session
        if session is None:
            return
        if self.serving:
            state = f"{SERVING}{self.serving} \u00b7 {self.clients} client(s)"
        elif self.stopped:
            state = f"{STOPPED}{self.stopped}"
        else:
            shown = f"[{self.host}]" if ":" in self.host else self.host
            state = f"{STARTING}{shown}:{self.port}"
        self.sub_title = gateway_title(self.title_parts, state)

    def watch_session(self, session: SessionState | None) -> None:
        super().watch_session(session)
        self._title()
        live = self.gateway.state
        if session is None or live is None:
            return
        if (session.config, session.context_length, session.scope, session.detached) != \
                (live.config, live.context_length, live.scope, live.detached):
            self.run_worker(self.gateway.retune(lambda s: replace(
                s, config=session.config, context_length=session.context_length,
                scope=session.scope, detached=session.detached)),
                group="retune", exclusive=True, exit_on_error=False,
                description="apply tuning to the gateway")


def run_follow(events: str, *, theme: str | None = None) -> None:
    FollowApp(Path(events), theme=theme).run()


def run_serve(sources: list[str], serve: str, *, context: int | None, profile: str,
              theme: str | None, token: str | None = None, events: str | None = None,
              sock: socket.socket | None = None) -> None:
    host, _, port = serve.rpartition(":")
    from toolsearch.gateway.events import default_events_path
    from toolsearch.gateway.server import check_bind

    host = host.strip("[]") or "127.0.0.1"
    check_bind(host, token)
    app = ServeApp(sources, host=host, port=int(port), token=token,
                   events=Path(events) if events else default_events_path(),
                   context=context, profile=profile, theme=theme, sock=sock)
    app.run()
    for record in app.warned:  # the terminal is the operator's again: the lines to keep
        logging.getLogger(record.name).handle(record)
