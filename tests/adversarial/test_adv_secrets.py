"""Secret leaks (issue 9, 12-14): no secret in any output, in any form; no word eaten."""

from __future__ import annotations

import json
from pathlib import Path

from adv_helpers import (
    PYTHON,
    SERVERS,
    SLACK,
    cli,
    free_port,
    no_leftovers,
    raw_server,
    sdk_server,
    start,
    stop,
    write_yaml_config,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch.sources.live import ServerConfig, describe_failure
from toolsearch.sources.redact import REDACTED, redact_text, redact_url, secret_forms

SECRET = "PLAINSECRETabc123"


def test_a_server_printing_its_token_leaks_nothing(tmp_path: Path, marker: str) -> None:
    entry = {**raw_server("garbage", marker), "env": {"API_TOKEN": SECRET}}
    config = write_yaml_config(tmp_path / "config.yaml", "mcp_servers", {"noisy": entry})
    for extra in ((), ("--json",)):
        run = cli("assemble", str(config), "--timeout", "10", *extra, timeout=10 + SLACK + 10)
        assert run.returncode == 0, run
        assert SECRET not in run.output and "SECRETabc" not in run.output
        assert "using token ***" in run.output
    out = tmp_path / "snap.yaml"
    run = cli("snapshot", str(config), "-o", str(out), "--timeout", "10", timeout=30)
    assert run.returncode == 1 and "nothing written: every server failed" in run.stderr, run
    assert SECRET not in run.output and not out.exists()
    # beside a server that answers, the catalog is written with the failure recorded
    both = write_yaml_config(tmp_path / "both.yaml", "mcp_servers",
                             {"noisy": entry, "ok": sdk_server(marker)})
    run = cli("snapshot", str(both), "-o", str(out), "--timeout", "10", timeout=30)
    assert run.returncode == 0, run
    assert SECRET not in out.read_text() and SECRET not in run.output
    no_leftovers(marker)


def _fail(config: ServerConfig, stderr: str) -> str:
    return describe_failure(RuntimeError("boom"), config, timeout=1, stderr=stderr)


def test_every_printed_form_is_redacted() -> None:
    backslash = "ab\\cd-Secret9x"
    separator = "Sec\u2028ret-99887766"
    config = ServerConfig("s", command="x", env={"API_KEY": backslash, "OTHER_TOKEN": separator})
    for text in (repr(f"value {backslash}"), json.dumps({"v": backslash}),
                 f"raw {backslash}", f"folded {separator}", repr(separator),
                 json.dumps(separator), json.dumps(separator, ensure_ascii=False)):
        reason = _fail(config, text)
        assert "Secret9x" not in reason and "ret-99887766" not in reason, (text, reason)
        assert REDACTED in reason


def test_redaction_happens_before_the_cut() -> None:
    config = ServerConfig("s", command="x", env={"API_TOKEN": SECRET})
    for pad in range(100, 130):
        reason = _fail(config, "x" * pad + SECRET + " tail")
        for size in range(4, len(SECRET) + 1):
            assert SECRET[:size] + "…" not in reason, (pad, reason)
        assert "PLAINSEC" not in reason


def test_url_path_tokens_and_secret_flags() -> None:
    url = "https://mcp.example.com/mcp/tok3nABCDEF1234567890/sse"
    assert "tok3n" not in redact_url(url)
    assert "tok3n" not in redact_text(f"GET {url} -> 404")
    config = ServerConfig("s", command="srv", args=(
        "--pat", "patvalue1234", "--password", "hunter2hunter2", "--api-key", "k3yvalue99",
        "--token=t0kenvalue77", "--verbose"))
    shown = config.describe() + " " + config.redact(
        "argv: srv --pat patvalue1234 --password hunter2hunter2 --api-key k3yvalue99 "
        "--token=t0kenvalue77")
    for value in ("patvalue1234", "hunter2hunter2", "k3yvalue99", "t0kenvalue77"):
        assert value not in shown, shown
    assert "--verbose" in shown


def test_a_path_token_never_reaches_the_output(tmp_path: Path) -> None:
    """A real streamable HTTP server (the SDK) at a URL whose path holds a token."""
    port = free_port()
    proc = start([PYTHON, str(SERVERS / "sdk_server.py"), "--http", str(port)], port)
    try:
        token = "tok3nZZ9988776655443322"
        url = f"http://127.0.0.1:{port}/mcp/{token}/"
        for extra in ((), ("--json",)):
            run = cli("assemble", f"remote={url}", "--timeout", "10", *extra, timeout=40)
            assert run.returncode == 0, run
            assert token not in run.output and "9988776655" not in run.output
            assert "remote: failed:" in run.stderr
    finally:
        stop(proc)


def test_words_are_not_eaten() -> None:
    config = ServerConfig("s", command="x", env={"LOG_LEVEL": "permission", "MODE": "denied"})
    for text in ("open /etc/app.conf: permission denied",
                 "reading credentials: permission denied",
                 "token: expired", "Token expired"):
        assert config.redact(text) == text
        assert redact_text(text) == text
    assert redact_text("password: hunter2x") == "password: ***"


_SECRET_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="*"),
    min_size=12, max_size=40).filter(lambda s: len(s.strip()) >= 12 and len(s.split()) == 1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=_SECRET_TEXT, before=st.text(max_size=30), after=st.text(max_size=30),
       form=st.sampled_from(["raw", "json", "json-ascii", "repr"]))
def test_no_form_of_a_secret_survives(secret: str, before: str, after: str, form: str) -> None:
    shown = {"raw": secret, "json": json.dumps(secret, ensure_ascii=False)[1:-1],
             "json-ascii": json.dumps(secret)[1:-1], "repr": repr(secret)[1:-1]}[form]
    out = redact_text(f"{before} {shown} {after}", [secret])
    assert shown not in out
    assert secret not in out
    assert all(f not in out for f in secret_forms(secret) if len(f) >= 12)
