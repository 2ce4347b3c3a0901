"""The operator saves a broken SOURCE (a half-written config) while the gateway runs; an
upstream then dies and comes back, so the gateway reads its SOURCEs again and cannot. It
printed ``toolsearch: ERROR: re-assembly failed`` and a 30-line traceback, again at each
upstream change. Now it says one warning line in the gateway's own shape, with the reason,
once; the tools offered stay as they were and the gateway keeps serving."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from gateway_helpers import env, serve_argv, upstream_entry, write_config

pytestmark = pytest.mark.live


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _call(request_id: int, tool: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": "tool_call", "arguments": {"name": tool, "arguments": {}}}}


def test_a_source_broken_while_serving_is_one_warning_line(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    proc = subprocess.Popen(serve_argv([str(config)], "--events",
                                       str(tmp_path / "events.jsonl")), env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pytest", "version": "1"}}})
        assert b'"id":1' in proc.stdout.readline()
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        config.write_text('{"mcpServers": {"up": ')  # saved half-way
        _send(proc, _call(2, "mcp__up__die"))  # down, then back: read again twice
        time.sleep(4)
        proc.stdin.close()
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode(errors="replace")
    assert status == 0, err
    assert "Traceback" not in err and "ERROR" not in err, err
    said = [line for line in err.splitlines() if "cannot re-read the SOURCEs" in line]
    assert len(said) == 1, err
    assert said[0].startswith("toolsearch serve: warning: cannot re-read the SOURCEs ("), err
    assert f"{config}: not valid JSON" in said[0], err
