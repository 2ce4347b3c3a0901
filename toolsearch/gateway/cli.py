"""``toolsearch serve``: the command-line wiring of the gateway (SPEC §10)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..cli_help import add_command
from ..cli_safety import finite_seconds, speak_as, took_sigterm, warn
from . import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROFILE, leaf_error, port_number


def _port(text: str) -> int:
    try:
        return port_number(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            str(exc) if text.strip().lstrip("-").isdigit() else f"not a port: {text!r}") from None


def add_serve_parser(sub: Any, common: Callable[..., None]) -> None:
    p = add_command(sub, "serve", "run the gateway: an MCP server offering tool search over "
                                  "the SOURCEs' MCP servers")
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="where the MCP servers are: a Hermes config.yaml, a Claude Desktop / "
                        "Cursor / VS Code MCP config, a URL (NAME=URL names it); several are "
                        "merged")
    common(p)
    p.set_defaults(profile=DEFAULT_PROFILE)
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio (default) or streamable HTTP at /mcp")
    p.add_argument("--host", default=None,
                   help=f"with --transport http: bind address (default {DEFAULT_HOST}; any "
                        "other needs --token-env)")
    p.add_argument("--port", type=_port, default=None,
                   help=f"with --transport http: port (default {DEFAULT_PORT}; 0 takes a "
                        "free one)")
    p.add_argument("--events", metavar="FILE", default=None,
                   help="events file, one JSON line per bridge call (default "
                        "$XDG_STATE_HOME/toolsearch/events.jsonl)")
    p.add_argument("--token-env", metavar="VAR", default=None,
                   help="with --transport http: environment variable holding the bearer "
                        "token clients must send (default: none, only for a loopback address)")
    p.add_argument("--call-timeout", type=finite_seconds, default=None, metavar="S",
                   help="per-call timeout for upstream tools (default 60 s)")
    p.set_defaults(func=cmd_serve)


def token_from_env(var: str) -> str:
    """The bearer token in the environment variable *var* (``--token-env``), or CliError: unset
    or empty, or one no client can send (whitespace at either end, which HTTP strips from a
    header, or a control character such as a newline): every client would get a 401 with
    nothing said. The token itself is never shown."""
    from toolsearch.cli import CliError

    token = os.environ.get(var) or ""
    if not token:
        raise CliError(f"--token-env {var}: the variable is unset or empty")
    if token != token.strip() or any(ord(c) < 32 and c != "\t" or ord(c) == 127
                                     for c in token):
        raise CliError(f"--token-env {var}: the token has whitespace at an end or a control "
                       "character (a newline?): no client can send it in an Authorization "
                       "header")
    return token


def _token(args: argparse.Namespace) -> str | None:
    """The bearer token named by ``--token-env`` (refused when unset), checked for the bind.
    ``--host``, ``--port`` and ``--token-env`` without ``--transport http`` are refused: the
    gateway would serve stdio and silently ignore them."""
    from toolsearch.cli import CliError

    from .server import GatewayError, check_bind

    if args.transport != "http":
        given = [flag for flag, value in (("--host", args.host), ("--port", args.port),
                                          ("--token-env", args.token_env)) if value is not None]
        if given:
            raise CliError(f"{', '.join(given)}: only with --transport http (without it the "
                           "gateway speaks MCP on stdin/stdout, for a client that starts it)")
    if args.host is None:
        args.host = DEFAULT_HOST
    elif args.host.startswith("[") and args.host.endswith("]"):
        args.host = args.host[1:-1]  # [::1], as an IPv6 address is written in a URL
    if args.port is None:
        args.port = DEFAULT_PORT
    token = token_from_env(args.token_env) if args.token_env else None
    if args.transport == "http":
        try:
            check_bind(args.host, token)
        except GatewayError as exc:
            raise CliError(str(exc)) from None
    return token


def _announce(gateway: Any) -> None:
    """What the gateway offers, its warnings and failed upstreams: on stderr."""
    state = gateway.state
    if state is None:
        return
    for warning in state.workspace.warnings:
        warn(warning)
    for ts in state.workspace.toolsets:
        if ts.error:
            print(f"toolsearch serve: {ts.name}: {ts.error}", file=sys.stderr)
    record = gateway.assembly_record()
    if not gateway.configs and not record["tools"] and not record["deferred_count"]:
        warn("the SOURCEs name no MCP server (mcpServers, servers or mcp_servers): the client "
             "gets no tools")
    print(f"toolsearch serve: {len(record['tools'])} tools offered (tier "
          f"{record['tier']}, {record['deferred_count']} deferred, profile "
          f"{record['profile']})", file=sys.stderr)


def _say_late(kind: str, payload: Any) -> None:
    """An upstream still starting when the gateway began serving, up or failed at last; an
    upstream said down, up again."""
    if kind in ("late", "back"):
        print(f"toolsearch serve: {payload['text']}", file=sys.stderr, flush=True)


def _run(main: Callable[[], Awaitable[None]]) -> None:
    """``anyio.run`` with a gateway error (inside any exception group) as one CLI line."""
    import anyio

    from toolsearch.cli import CliError

    from .server import GatewayError

    try:
        anyio.run(main)
    except BaseException as exc:
        leaf = leaf_error(exc)
        if isinstance(leaf, GatewayError):
            raise CliError(str(leaf)) from None
        if leaf is not exc:
            raise leaf from None
        raise


def _listen(host: str, port: int) -> Any:
    """The HTTP gateway's socket, bound before any upstream server starts (a port in use is
    one error line at once)."""
    from toolsearch.cli import CliError

    from .server import GatewayError, listen_socket

    try:
        return listen_socket(host, port)
    except GatewayError as exc:
        raise CliError(str(exc)) from None


def _events_file(value: str | None) -> str | None:
    """``--events`` as given; an empty or blank path is refused (it silently meant the default
    file, so the operator watched a file the gateway never wrote)."""
    if value is not None and not value.strip():
        from toolsearch.cli import CliError

        raise CliError(f"--events {value!r}: empty; name the events file, or leave --events "
                       "out for the default")  # as `toolsearch tui --serve` says
    return value


STOPPED_BY_SIGTERM = "toolsearch serve: stopped (SIGTERM)"
STOPPED_BY_CTRL_C = "toolsearch serve: stopped (Ctrl+C)"


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve until the client leaves (stdio) or a signal stops it. SIGTERM, how a supervisor
    stops a gateway, is a clean stop: one line and status 0 (it read ``toolsearch:
    interrupted``, status 130, as a failure would); Ctrl+C says so and keeps 130. Either
    way the upstreams are closed and the events file written first."""
    speak_as("toolsearch serve")  # its warnings read as its other lines do
    try:
        return _serve(args)
    except KeyboardInterrupt:
        if took_sigterm():
            print(STOPPED_BY_SIGTERM, file=sys.stderr)
            return 0
        print(STOPPED_BY_CTRL_C, file=sys.stderr)
        return 130
    finally:  # called in-process (a test), the next command's warnings read as before
        speak_as("toolsearch")


def _serve(args: argparse.Namespace) -> int:
    from toolsearch.cli import (
        _check_sources,
        _overrides,
        _split_csv,
        _warn_block_values,
        _warn_read_as,
    )

    from .events import EventLog, default_events_path
    from .server import Gateway
    from .upstream import DEFAULT_CALL_TIMEOUT

    token = _token(args)
    _check_sources(args.sources)  # one line for a bad SOURCE, before anything is said
    overrides = _overrides(args.set)  # and for a bad --set, before it listens
    sock = _listen(args.host, args.port) if args.transport == "http" else None
    given = _events_file(args.events)
    path = Path(given) if given else default_events_path()
    events = EventLog(path)
    made = f" (folder {events.created} created)" if events.created is not None else ""
    print(f"toolsearch serve: events -> {path}{made}", file=sys.stderr)
    gateway = Gateway(args.sources, profile=args.profile, context_length=args.context,
                      overrides=overrides, scope=_split_csv(args.scope),
                      detach=_split_csv(args.detach) or (),
                      events=events, connect_timeout=args.timeout,
                      call_timeout=args.call_timeout or DEFAULT_CALL_TIMEOUT)
    gateway.add_listener(_say_late)
    gateway.serving = "stdio" if sock is None else \
        Gateway.http_url(args.host, sock.getsockname()[1])  # the port --port 0 found

    async def main() -> None:
        async with gateway.running():
            _announce(gateway)
            if gateway.state is not None:  # what other commands warn of, in the same words
                _warn_block_values(args.sources, gateway.state.workspace, args.profile,
                                   replaced=overrides or {})
                _warn_read_as(overrides, gateway.state.config)
            if args.transport == "http":
                await gateway.serve_http(args.host, args.port, token, started=lambda url: print(
                    f"toolsearch serve: listening on {url}", file=sys.stderr), sock=sock)
            else:
                if sys.stdin.isatty():  # typed by hand: nothing else would happen on screen
                    print("toolsearch serve: waiting for an MCP client on stdin (a client "
                          "such as Claude Desktop starts this command itself; --transport "
                          "http serves a URL instead); Ctrl+C stops", file=sys.stderr)
                await gateway.serve_stdio()

    try:
        _run(main)
    finally:
        events.close()
    return 0


def add_tui_gateway_args(p: argparse.ArgumentParser) -> None:
    """``tui --follow EVENTS`` and ``tui SOURCE... --serve [HOST:]PORT``."""
    p.add_argument("--follow", metavar="EVENTS", default=None,
                   help="watch a running gateway through its events file, with no "
                        "SOURCE: its servers are the gateway's (default: off)")
    p.add_argument("--serve", metavar="[HOST:]PORT", default=None,
                   help="host the gateway in the app (streamable HTTP at /mcp; default: "
                        "off)")
    p.add_argument("--events", metavar="FILE", default=None,
                   help="with --serve: the events file (default under $XDG_STATE_HOME)")
    p.add_argument("--token-env", metavar="VAR", default=None,
                   help="with --serve: variable holding the bearer token clients must send "
                        "(default: none, only for a loopback address)")


def tui_gateway(args: argparse.Namespace, app_entry: Callable[[str], Any]) -> bool:
    """Open the app in follow or serve mode; False when neither was asked for."""
    from toolsearch.cli import CliError

    if getattr(args, "follow", None):
        from .events import default_events_path

        if Path(args.follow).is_dir():
            raise CliError(f"--follow: {args.follow} is a folder; name the events file in it "
                           f"(the gateway's default is {default_events_path().name})")
        if not Path(args.follow).is_file():
            raise CliError(f"--follow: no events file at {args.follow}")
        app_entry("tui.follow.run_follow")(args.follow, theme=args.theme)
        return True
    if not getattr(args, "serve", None):
        return False
    if not args.sources:
        raise CliError("--serve needs at least one SOURCE")
    host, _, port = str(args.serve).rpartition(":")
    bind_host = host.strip("[]") or DEFAULT_HOST
    try:
        number = port_number(port)
    except ValueError:
        raise CliError(f"--serve takes [HOST:]PORT (a port is 0 to 65535), got {args.serve!r}"
                       ) from None
    token = token_from_env(args.token_env) if args.token_env else None
    from .server import GatewayError, check_bind

    try:
        check_bind(bind_host, token)
    except GatewayError as exc:
        raise CliError(str(exc)) from None
    run_serve = app_entry("tui.follow.run_serve")  # no terminal: refused before it listens
    sock = _listen(bind_host, number)
    speak_as("toolsearch tui")  # the hosted gateway's warnings name the command run
    try:  # (they read ``toolsearch: warning:`` where ``serve`` says ``toolsearch serve:``)
        run_serve(args.sources, args.serve, context=args.context, profile=args.profile,
                  theme=args.theme, token=token, events=args.events, sock=sock)
    finally:
        speak_as("toolsearch")
    return True
