"""The operator saves a broken SOURCE (a half-written config) while the gateway runs; an
upstream then dies and comes back, so the gateway reads its SOURCEs again and cannot. It
printed ``toolsearch: ERROR: re-assembly failed`` and a 30-line traceback, again at each
upstream change. Now it says one warning line in the gateway's own shape, with the reason,
once; the tools offered stay as they were and the gateway keeps serving."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gateway_helpers import (
    send_json,
    stdio_gateway,
    tool_call_message,
    upstream_entry,
    write_config,
)

pytestmark = pytest.mark.live


def test_a_source_broken_while_serving_is_one_warning_line(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    with stdio_gateway(config, tmp_path / "events.jsonl", "pytest") as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        config.write_text('{"mcpServers": {"up": ')  # saved half-way
        send_json(proc, tool_call_message(2, "mcp__up__die"))  # down, then back: read again twice
        time.sleep(4)
        proc.stdin.close()
        status = proc.wait(timeout=60)
    err = proc.stderr.read().decode(errors="replace")
    assert status == 0, err
    assert "Traceback" not in err and "ERROR" not in err, err
    said = [line for line in err.splitlines() if "cannot re-read the SOURCEs" in line]
    assert len(said) == 1, err
    assert said[0].startswith("toolsearch serve: warning: cannot re-read the SOURCEs ("), err
    assert f"{config}: not valid JSON" in said[0], err
