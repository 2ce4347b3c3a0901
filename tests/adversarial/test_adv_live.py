"""Live sources against real misbehaving servers (``servers/live_hostile.py``, a raw stdio
server, and ``servers/live_http_hostile.py``, a raw HTTP endpoint), through the CLI as the
operator runs it: one line naming the server, bounded time, no leftover process, no secret."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import time
from pathlib import Path

import pytest
from adv_helpers import (
    PYTHON,
    REPO,
    SERVERS,
    cli,
    free_port,
    listening,
    no_leftovers,
    stop,
    wait_until,
    write_yaml_config,
)

SECRET = "sekritVALUE-4f9a2c7e1b"


def hostile(mode: str, marker: str, *extra: str) -> dict[str, object]:
    return {"command": PYTHON,
            "args": [str(SERVERS / "live_hostile.py"), "--mode", mode, "--marker", marker,
                     *extra],
            "env": {"API_KEY": SECRET}}


def warning_for(run_stderr: str, server: str) -> str:
    lines = [ln for ln in run_stderr.splitlines() if ln.startswith(f"toolsearch: warning: {server}:")]
    assert len(lines) == 1, run_stderr
    return lines[0]


@pytest.mark.parametrize("mode", ["group-child", "orphan-child"])
def test_a_server_that_exits_while_its_child_holds_stdout(tmp_path: Path, marker: str,
                                                          mode: str) -> None:
    """The server exits at once; a process it started (in its group, or in a session of its
    own) keeps the server's stdout open, so no end of file ever comes. The server is given
    up a second after its exit, not at the timeout, and the child is killed."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"gone": hostile(mode, marker)})
    run = cli("assemble", str(config), "--timeout", "30")
    assert run.returncode == 0, run
    line = warning_for(run.stderr, "gone")
    assert "server exited with code 0" in line, line
    assert run.seconds < 15, run.seconds
    assert "Traceback" not in run.output and SECRET not in run.output
    no_leftovers(marker)


def test_a_child_left_in_the_servers_group_is_killed(tmp_path: Path, marker: str) -> None:
    """A server (a wrapper script, say) that starts a helper in its process group and exits
    when its stdin closes: the helper does not outlive the command."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"wrapped": hostile("helper-child", marker)})
    run = cli("assemble", str(config), "--timeout", "20")
    assert run.returncode == 0 and "connected" in run.stdout, run
    no_leftovers(marker)


def test_a_call_to_a_server_that_exits_leaving_a_child_ends_early(tmp_path: Path,
                                                                 marker: str) -> None:
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"gone": hostile("call-orphan", marker)})
    run = cli("call", str(config), "tool_call",
              '{"name": "mcp__gone__echo", "arguments": {}}', "--timeout", "30")
    assert "server exited with code 0" in run.output, run
    assert run.seconds < 20, run.seconds
    assert "Traceback" not in run.output and SECRET not in run.output
    no_leftovers(marker)


def test_a_malformed_url_is_that_servers_error_row(tmp_path: Path, marker: str) -> None:
    """``urlsplit`` raising on one server's URL used to end the whole command with
    ``toolsearch: error: ValueError: Invalid IPv6 URL`` (no server named, no other server
    loaded)."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "v6": {"url": "http://[::1/mcp?api_key=" + SECRET},
        "ftp": {"url": "ftp://127.0.0.1/x"},
        "port": {"type": "http", "url": "http://127.0.0.1:99999/mcp"},
        "good": hostile("reply", marker)})
    run = cli("assemble", str(config), "--timeout", "20")
    assert run.returncode == 0, run
    assert "invalid url" in warning_for(run.stderr, "v6")
    assert "not http or https" in warning_for(run.stderr, "ftp")
    assert "invalid url" in warning_for(run.stderr, "port")
    assert "mcp__good__echo" in run.stdout
    assert "Traceback" not in run.output and SECRET not in run.output
    no_leftovers(marker)


def _http_endpoint(mode: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([PYTHON, str(SERVERS / "live_http_hostile.py"), str(port), mode],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_until(lambda: listening(port), 20), "the HTTP endpoint did not start"
    return proc, port


@pytest.mark.parametrize(("mode", "reason"), [("401", "HTTP 401 Unauthorized"),
                                              ("500", "HTTP 500 Internal Server Error")])
def test_an_http_error_status_is_named(tmp_path: Path, mode: str, reason: str) -> None:
    """The SDK turns any non-2xx answer into "server error -32603: Server returned an error
    response"; the operator needs the status (a 401 means a wrong token). The 500 body
    echoes the Authorization header: nothing of it is shown."""
    proc, port = _http_endpoint(mode)
    try:
        config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {"web": {
            "url": f"http://127.0.0.1:{port}/mcp", "headers": {"Authorization": f"Bearer {SECRET}"}}})
        run = cli("assemble", str(config), "--timeout", "20")
    finally:
        stop(proc)
    assert run.returncode == 0, run
    line = warning_for(run.stderr, "web")
    assert line.endswith(f"failed: {reason}"), line
    assert "Traceback" not in run.output and SECRET not in run.output


def test_a_silent_server_past_the_sdks_probe_timeout_says_no_answer(tmp_path: Path,
                                                                    marker: str) -> None:
    """Past 10 s (the SDK's own ``server/discover`` probe timeout, after which it falls back
    to ``initialize``), a server that never answers used to read "server error -32001:
    Request 'server/discover' timed out", as if the server had said so, whatever the
    timeout: the reason is our own deadline."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"mute": hostile("no-init", marker)})
    run = cli("assemble", str(config), "--timeout", "11")
    assert run.returncode == 0, run
    assert warning_for(run.stderr, "mute").endswith("failed: no answer within 11 s"), run.stderr
    assert run.seconds < 11 + 10, run.seconds
    no_leftovers(marker)


def test_a_huge_structured_reply_is_cut_like_a_huge_text(tmp_path: Path, marker: str) -> None:
    """A 20 MB ``structuredContent`` used to be kept whole (only text was cut at 200,000
    characters): `call` printed 40 MB and the app froze for 15 s showing it."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"big": hostile("reply", marker, "--reply", "structured-huge")})
    run = cli("call", str(config), "tool_call", '{"name": "mcp__big__echo", "arguments": {}}',
              "--timeout", "30")
    assert run.returncode == 0, run.stderr
    assert "[ok," in run.stdout and "…" in run.stdout
    assert len(run.stdout) < 1_000_000, len(run.stdout)
    no_leftovers(marker)


def test_a_server_echoing_its_secret_into_its_listing_leaks_nothing(tmp_path: Path,
                                                                   marker: str) -> None:
    """A server that names the key it was given in a tool's description and as a schema
    default: call replies were masked, listings were not (the listing, `tool_describe` and
    the snapshot file showed the key)."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"leaky": hostile("tools-gen", marker, "--tools-kind", "leaky")})
    listing = cli("assemble", str(config), "--timeout", "20")
    assert "mcp__leaky__query: Queries the API (key *** in use)." in listing.stdout, listing
    described = cli("call", str(config), "tool_describe", '{"name": "mcp__leaky__query"}',
                    "--timeout", "20")
    assert '"default": "***"' in described.stdout, described
    out = tmp_path / "snap.json"
    snap = cli("snapshot", str(config), "-o", str(out), "--timeout", "20")
    assert snap.returncode == 0, snap
    for text in (listing.output, described.output, snap.output, out.read_text()):
        assert SECRET not in text
    no_leftovers(marker)


def test_one_malformed_tool_is_skipped_not_the_whole_server(tmp_path: Path,
                                                            marker: str) -> None:
    """SPEC §8 on a live server: the SDK read a ``tools/list`` reply as a whole, so one tool
    with no ``inputSchema``, an ``inputSchema`` that is a list or a name that is a number
    made the whole server an error row. Now the schema-less tool gets an empty object
    schema, the other two are skipped with a warning naming the server and the tool (its
    name, else its index), and the good tool is listed and runs for real (its reply checked
    against its ``outputSchema``, which the SDK learnt from the lenient listing)."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "mixed": hostile("tools-gen", marker, "--tools-kind", "mixed"),
        "nolist": hostile("tools-gen", marker, "--tools-kind", "tools-object")})
    run = cli("assemble", str(config), "--json", "--timeout", "20")
    assert run.returncode == 0, run
    assembled = json.loads(run.stdout)
    assert [(ts["name"], ts["status"], ts["tools"]) for ts in assembled["toolsets"]] == \
        [("mcp-mixed", "connected", 2), ("mcp-nolist", "error", 0)], assembled["toolsets"]
    assert "invalid reply from server (ListToolsResult): tools: Input should be a valid list" \
        in assembled["toolsets"][1]["error"], assembled["toolsets"]  # a whole reply: its row
    assert sorted(assembled["deferred"]) == ["mcp__mixed__bare", "mcp__mixed__echo"]
    described = cli("call", str(config), "tool_describe", '{"name": "mcp__mixed__bare"}',
                    "--timeout", "20")
    assert json.loads(described.stdout[described.stdout.index("\n{"):])["parameters"] == \
        {"type": "object", "properties": {}}, described
    warned = [ln for ln in run.stderr.splitlines() if "mixed" in ln]
    assert len(warned) == 2, run.stderr
    assert warned[0] == "toolsearch: warning: server mixed: tools/list.tools[2] (mixed/listy): " \
        "skipped: inputSchema: Input should be a valid dictionary or instance of InputSchema", \
        warned
    assert warned[1] == "toolsearch: warning: server mixed: tools/list.tools[3] (mixed): " \
        "skipped: name: Input should be a valid string", warned
    called = cli("call", str(config), "tool_call",
                 '{"name": "mcp__mixed__echo", "arguments": {"text": "hi there"}}',
                 "--timeout", "20")
    assert called.returncode == 0, called
    assert '"echoed": "hi there"' in called.stdout, called
    bare = cli("call", str(config), "tool_call", '{"name": "mcp__mixed__bare", "arguments": {}}',
               "--timeout", "20")
    assert bare.returncode == 0 and '"echoed": "None"' in bare.stdout, bare
    for text in (run.output, described.output, called.output, bare.output):
        assert "Traceback" not in text and SECRET not in text
    no_leftovers(marker)


def test_start_failures_say_what_is_wrong_and_eat_no_words(tmp_path: Path) -> None:
    """A command that is a directory read "permission denied"; a command whose file name
    holds a secret-looking word ("token-server") had the next word masked as if it were the
    value ("cannot start '.../token-server': *** not found")."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "folder": {"command": str(tmp_path)},
        "named": {"command": str(tmp_path / "mcp-token-server")}})
    run = cli("assemble", str(config), "--timeout", "10")
    assert warning_for(run.stderr, "folder").endswith(
        f"cannot start '{tmp_path}': it is a directory"), run.stderr
    assert warning_for(run.stderr, "named").endswith(
        f"cannot start '{tmp_path / 'mcp-token-server'}': command not found"), run.stderr


def test_invalid_utf8_on_stdout_is_replaced_not_waited_out(tmp_path: Path, marker: str) -> None:
    """One 0xff byte in a tools/list reply killed the SDK's strict stdout reader: nothing
    noticed, and the server was an error row only when the whole timeout ran out."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"latin": hostile("bad-utf8", marker)})
    run = cli("assemble", str(config), "--timeout", "30")
    assert run.returncode == 0, run
    assert "- mcp__latin__echo: Echoes\N{REPLACEMENT CHARACTER}" in run.stdout, run
    assert run.seconds < 20, run.seconds
    no_leftovers(marker)


def test_a_line_with_no_end_is_cut_off_not_buffered(tmp_path: Path, marker: str) -> None:
    """A server writing for ever with no newline: the reader kept the whole line, some
    250 MB a second, until the timeout (or the memory) ran out. Past 128 MB the server is
    killed and named; the command runs under a 3 GB address-space limit."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"firehose": hostile("endless-line", marker)})

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    environ = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    proc = subprocess.run([PYTHON, "-m", "toolsearch", "assemble", str(config), "--timeout", "40"],
                          capture_output=True, timeout=120, env=environ,
                          preexec_fn=limit_memory)  # noqa: PLW1509 - a limit for this child only
    seconds = time.monotonic() - started
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr
    assert warning_for(stderr, "firehose").endswith(
        "failed: wrote a line of over 128 MB on stdout"), stderr
    assert seconds < 30, seconds
    no_leftovers(marker)


def _largest_open_file(pid: int) -> int:
    largest = 0
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        fds = list(fd_dir.iterdir())
    except OSError:
        return 0
    for fd in fds:
        try:
            info = fd.stat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            largest = max(largest, info.st_size)
    return largest


def test_a_stderr_flood_fills_no_disk(tmp_path: Path, marker: str) -> None:
    """A server writing stderr for ever: its stderr went to a temporary file, ~400 MB a
    second until the timeout (GBs of disk per server). Only its tail is kept now, and the
    reason still quotes it."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"loud": hostile("stderr-endless", marker)})
    environ = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([PYTHON, "-m", "toolsearch", "assemble", str(config), "--timeout", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ)
    largest = 0
    while proc.poll() is None:
        largest = max(largest, _largest_open_file(proc.pid))
        time.sleep(0.05)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    line = warning_for(err.decode("utf-8", "replace"), "loud")
    assert "no answer within 4 s; stderr: EEEE" in line, line
    assert largest < 8 * 2**20, largest
    no_leftovers(marker)


def test_a_launcher_that_exits_leaving_its_server_serving_still_works(tmp_path: Path,
                                                                      marker: str) -> None:
    """The other side of giving up a server whose process exited: a launcher that starts
    the real server on its pipes and exits is kept (its child answers), and the child is
    still stopped at the end."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers",
                               {"launched": hostile("launcher", marker)})
    listing = cli("assemble", str(config), "--timeout", "30")
    assert "mcp__launched__echo" in listing.stdout, listing
    call = cli("call", str(config), "tool_call", '{"name": "mcp__launched__echo", "arguments": {}}',
               "--timeout", "30")
    assert "[ok," in call.stdout and "result: ok" in call.stdout, call
    no_leftovers(marker)


def test_an_input_schema_with_no_type_is_read_as_an_object_schema(tmp_path: Path,
                                                                  marker: str) -> None:
    """A tool listed with ``inputSchema: {}`` (or an object schema lacking ``"type"``) was
    skipped with a warning: the revision's schema wants ``"type": "object"``. It is now read
    as an object schema (``"type": "object"`` added, the rest kept), said in a warning, and
    runs; a typeless schema that is not an object schema (``anyOf``), or a typed non-object
    one, is still skipped."""
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {
        "typeless": hostile("tools-gen", marker, "--tools-kind", "typeless")})
    run = cli("assemble", str(config), "--json", "--timeout", "20")
    assert run.returncode == 0, run
    assembled = json.loads(run.stdout)
    assert [(ts["name"], ts["status"], ts["tools"]) for ts in assembled["toolsets"]] == \
        [("mcp-typeless", "connected", 2)], assembled["toolsets"]
    warned = [ln for ln in run.stderr.splitlines() if "typeless" in ln]
    mended = 'inputSchema has no "type": read as an object schema ({"type": "object"} added)'
    assert warned[:2] == [
        f"toolsearch: warning: server typeless: tools/list.tools[0] (typeless/empty): {mended}",
        f"toolsearch: warning: server typeless: tools/list.tools[1] (typeless/lookup): {mended}",
    ], run.stderr
    assert [ln.split("): ")[0] for ln in warned[2:]] == [
        "toolsearch: warning: server typeless: tools/list.tools[2] (typeless/either",
        "toolsearch: warning: server typeless: tools/list.tools[3] (typeless/listish"], warned
    assert all("skipped: " in ln for ln in warned[2:]), warned
    described = cli("call", str(config), "tool_describe", '{"name": "mcp__typeless__lookup"}',
                    "--timeout", "20")
    assert json.loads(described.stdout[described.stdout.index("\n{"):])["parameters"] == \
        {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"],
         "additionalProperties": False}, described
    called = cli("call", str(config), "tool_call",
                 '{"name": "mcp__typeless__empty", "arguments": {}}', "--timeout", "20")
    assert called.returncode == 0 and '"ok"' in called.stdout, called
    for text in (run.output, described.output, called.output):
        assert "Traceback" not in text and SECRET not in text
    no_leftovers(marker)
