"""``toolsearch call SOURCE BRIDGE_TOOL -`` typed in a terminal read stdin without a word: the
user saw nothing happen. It now says it reads ARGS_JSON from the terminal and how to end it;
piped, it says nothing (tests/test_cli.py reads piped JSON)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time

from tests.test_cli_newuser import REPO, _argv, _env


def test_call_reading_args_json_from_a_terminal_says_so_and_reads_it() -> None:
    master, slave = pty.openpty()
    proc = subprocess.Popen(_argv("call", "seed-demo", "tool_search", "-", "--json"),
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), cwd=REPO)
    os.close(slave)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "nothing said while it waited for the user"
        said = proc.stderr.readline().decode()  # said before it waits for the user
        assert said == ("toolsearch call: reading ARGS_JSON from the terminal; type the JSON "
                        "object, then Ctrl+D on a line of its own\n"), said
        time.sleep(0.2)
        os.write(master, b'{"query": "scrape a web page"}\n\x04')
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 0, err
    assert b'"query": "scrape a web page"' in out and err == b""
