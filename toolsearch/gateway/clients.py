"""Who is connected to the gateway, in both protocol eras (the app's "N client(s)").

* A **handshake-era** client (``initialize``, protocol up to 2025-11-25) has one connection
  for its whole session: it counts from its first request until that connection closes
  (the SDK unwinds the connection's exit stack then), or until a notification to it fails.
* A **2026-era** client sends every request with its own envelope: there is no session.
  Over a duplex transport (stdio) its requests share one channel, which counts until the
  transport ends. Over streamable HTTP each request stands alone: the client (its name,
  version and address) counts while a ``subscriptions/listen`` stream of its is open, and
  for ``idle`` seconds after its last request.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

CLIENT_IDLE_SECONDS = 60.0

Key = tuple[Any, ...]


def client_name(ctx: Any) -> str:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "unknown")


class ClientTracker:
    """Counts the gateway's clients; ``on_change(count)`` when the count changes."""

    def __init__(self, on_change: Callable[[int], None], *,
                 idle: float = CLIENT_IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.on_change = on_change
        self.idle = idle
        self.clock = clock
        self.sessions: dict[int, Any] = {}
        """Handshake-era clients: ``id(client params)`` -> the session that notifies them."""
        self._streams: set[int] = set()
        self._seen: dict[Key, float] = {}
        self._listening: Counter[Key] = Counter()
        self._count = 0

    # -- requests ---------------------------------------------------------------------

    def request(self, ctx: Any) -> str:
        """Note the client of one request; return its name."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        name = client_name(ctx)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            key = self._modern_key(ctx, name)
            if key[0] == "http":
                self._seen[key] = self.clock()
            else:
                self._streams.add(key[1])
        else:
            session = ctx.session
            params = getattr(session, "client_params", None)
            if params is None or id(params) in self.sessions:
                return name
            key_id = id(params)
            self.sessions[key_id] = session
            # the connection's exit stack unwinds when the client's connection closes
            connection = getattr(session, "_connection", None)
            stack = getattr(connection, "exit_stack", None)
            if stack is not None:
                stack.callback(self.forget, key_id)
        self.recount()
        return name

    @staticmethod
    def _modern_key(ctx: Any, name: str) -> Key:
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None and getattr(connection, "has_standalone_channel", False):
            return ("stream", id(connection.outbound))
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        peer = getattr(getattr(ctx, "request", None), "client", None)
        return ("http", name, str(getattr(info, "version", "") or ""),
                str(getattr(peer, "host", "") or ""))

    @contextmanager
    def listening(self, ctx: Any) -> Iterator[None]:
        """Around a ``subscriptions/listen`` stream: its client counts while it is open."""
        key = self._modern_key(ctx, client_name(ctx))
        self._listening[key] += 1
        self.request(ctx)
        try:
            yield
        finally:
            self._listening[key] -= 1
            if self._listening[key] <= 0:
                del self._listening[key]
            if key[0] == "http":
                self._seen[key] = self.clock()
            self.recount()

    # -- ends -------------------------------------------------------------------------

    def forget(self, key_id: int) -> None:
        """A handshake-era client is gone."""
        if self.sessions.pop(key_id, None) is not None:
            self.recount()

    def streams_ended(self) -> None:
        """The duplex transport ended: its 2026-era clients are gone."""
        self._streams.clear()
        self.recount()

    # -- the count --------------------------------------------------------------------

    def count(self) -> int:
        now = self.clock()
        http = {k for k, at in self._seen.items() if now - at <= self.idle}
        http.update(k for k in self._listening if k[0] == "http")
        streams = self._streams | {k[1] for k in self._listening if k[0] == "stream"}
        return len(self.sessions) + len(streams) + len(http)

    def recount(self) -> None:
        """Drop idle 2026-era clients; tell ``on_change`` when the count moved."""
        now = self.clock()
        for key, at in list(self._seen.items()):
            if now - at > self.idle and key not in self._listening:
                del self._seen[key]
        count = self.count()
        if count != self._count:
            self._count = count
            self.on_change(count)
