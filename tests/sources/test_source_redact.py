"""Secrets in env, headers, URLs and args never reach any output, description or error."""

from __future__ import annotations

import logging
import sys

import pytest
from source_helpers import script_server

from toolsearch.sources.live import ServerConfig, describe_failure, list_servers
from toolsearch.sources.redact import (
    REDACTED,
    arg_secrets,
    redact_args,
    redact_text,
    redact_url,
)

SECRET = "sk-proj-SUPERSECRET-1234567890"


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        (f"Authorization: Bearer {SECRET}", SECRET),
        ("connect to https://alice:hunter2pass@db.example.com/x", "hunter2pass"),
        ("failed: api_key=abcd1234efgh", "abcd1234efgh"),
        ('{"token": "tok-987654321"}', "tok-987654321"),
        ("using ghp_ABCDEFGHijklmnop1234 for GitHub", "ghp_ABCDEFGHijklmnop1234"),
        ("GITHUB_TOKEN=plainvalue99", "plainvalue99"),
    ],
)
def test_redact_text_patterns(text: str, leak: str) -> None:
    out = redact_text(text)
    assert leak not in out and REDACTED in out


def test_known_secrets_are_removed_anywhere() -> None:
    assert redact_text("value is xyzzy-42 here", ["xyzzy-42"]) == f"value is {REDACTED} here"
    assert redact_text("short 1 and on stay", ["1", "on"]) == "short 1 and on stay"


def test_urls_and_args() -> None:
    assert redact_url("https://u:p4ss@h.example/mcp?api_key=K123&page=2") == \
        f"https://h.example/mcp?api_key={REDACTED}&page=2"
    args = ["--api-key", "K-123456", "--token=T-654321", "--verbose", "serve"]
    assert set(arg_secrets(args)) == {"K-123456", "T-654321"}
    assert redact_args(args) == ("--api-key", REDACTED, f"--token={REDACTED}", "--verbose", "serve")


def test_server_config_never_shows_secrets() -> None:
    config = ServerConfig(
        "svc", command="npx", args=("-y", "server", "--token", "arg-SECRET-111"),
        env={"API_KEY": SECRET, "MODE": "fast"},
    )
    remote = ServerConfig("remote", transport="http",
                          url="https://user:pw-SECRET-222@mcp.example.com/mcp?key=q-SECRET-333",
                          headers={"Authorization": f"Bearer {SECRET}", "X-Other": "hdr-SECRET-444"})
    texts = [repr(config), str(config), config.describe(), repr(remote), remote.describe()]
    for text in texts:
        for leak in (SECRET, "arg-SECRET-111", "pw-SECRET-222", "q-SECRET-333", "hdr-SECRET-444"):
            assert leak not in text, text
    assert "API_KEY=***" in config.describe() and "MODE=***" in config.describe()
    assert "Authorization=***" in remote.describe()


def test_failure_reasons_are_redacted() -> None:
    config = ServerConfig("svc", command="x", env={"API_KEY": SECRET})
    reason = describe_failure(RuntimeError(f"auth failed for {SECRET}"), config, timeout=1,
                              stderr=f"token {SECRET} rejected")
    assert SECRET not in reason


@pytest.mark.live
async def test_secret_never_reaches_errors_logs_or_snapshots(
        marker: str, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    from toolsearch.sources.snapshot import catalog_text
    from toolsearch.toolsets import Workspace

    configs = [
        script_server("crash", "crash_server", marker=marker, env={"API_TOKEN": SECRET}),
        script_server("demo", "demo_server", marker=marker, env={"API_TOKEN": SECRET}),
        ServerConfig("missing", command=f"/no/such/{SECRET}", env={"API_TOKEN": SECRET}),
    ]
    caplog.set_level(logging.DEBUG)
    listings = await list_servers(configs, timeout=10)
    ws = Workspace(toolsets=tuple(listing.toolset for listing in listings),
                   warnings=tuple(w for listing in listings for w in listing.warnings))
    crash = ws.toolsets[0]
    assert "could not authenticate" in crash.error  # the stderr line is kept, minus the token
    outputs = [catalog_text(ws), catalog_text(ws, fmt="json"), caplog.text, *ws.warnings]
    outputs += [f"{t.error} {t.origin} {t!r}" for t in ws.toolsets]
    captured = capfd.readouterr()
    outputs += [captured.out, captured.err]
    for text in outputs:
        assert SECRET not in text
    assert sys.executable  # keep the import used
