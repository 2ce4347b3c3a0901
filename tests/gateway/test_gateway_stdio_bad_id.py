"""``toolsearch serve SOURCE`` over stdio, sent a ``tools/call`` whose id is no string or
integer (an object, an array, 1.5, null, true): the SDK read it as a notification (the id
dropped), so the call ran and no reply ever came, the client waiting for one. Each is now
answered with JSON-RPC's invalid request (-32600, id null), and the next request is served.
A real gateway process and a real upstream written with the ``mcp`` SDK."""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import (
    read_events,
    send_json,
    stdio_gateway,
    tool_call_message,
    upstream_entry,
    write_config,
)

pytestmark = pytest.mark.live


def _reply(proc: subprocess.Popen[bytes], seconds: float = 15) -> dict[str, Any]:
    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            return dict(json.loads(proc.stdout.readline()))
    raise AssertionError("no reply")


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], 1.5, None, True],
                         ids=["object", "array", "float", "null", "true"])
def test_a_request_with_a_bad_id_is_answered(tmp_path: Path, bad_id: Any) -> None:
    config = write_config(tmp_path / "servers.json", {"up": upstream_entry("up")})
    events = tmp_path / "events.jsonl"
    with stdio_gateway(config, events) as proc:
        send_json(proc, {**tool_call_message(0, "mcp__up__add", {"a": 1, "b": 2}),
                         "id": bad_id})
        refused = _reply(proc)
        assert refused["id"] is None and refused["error"]["code"] == -32600, refused
        send_json(proc, tool_call_message(3, "mcp__up__add", {"a": 20, "b": 22}))
        served = _reply(proc)
        assert served["id"] == 3 and "42" in json.dumps(served), served
        assert proc.stdin is not None
        proc.stdin.close()  # the end of stdin: the gateway ends, its records written
        proc.wait(30)
    calls = [r for r in read_events(events) if r.get("type") == "call"]
    assert len(calls) == 1, calls  # the refused call never ran
