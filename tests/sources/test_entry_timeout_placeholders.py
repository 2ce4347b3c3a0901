"""A server entry's timeout written as ``${VAR}`` is expanded from the environment, as the
entry's other strings (``command``, ``url``, ``env``, ``headers``) are: it was an error row
("'timeout' is '${MCP_TIMEOUT}'") though the variable was set. An unset variable is still an
error row, one that names the key, the value and the variable. ``connect_timeout: null`` is
unset and no longer hides a ``startupTimeout`` in the same entry (a set ``connect_timeout``
still wins)."""

from __future__ import annotations

import sys

import pytest

from toolsearch.sources.client_config import server_from_entry

GOOD = {"command": sys.executable, "args": ["server.py"]}


def test_a_timeout_placeholder_is_read_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_CALL_TIMEOUT", "45")
    monkeypatch.setenv("TS_TEST_CONNECT_TIMEOUT", "12.5")
    config = server_from_entry("s", {**GOOD, "timeout": "${TS_TEST_CALL_TIMEOUT}",
                                     "connect_timeout": "${env:TS_TEST_CONNECT_TIMEOUT}"})
    assert config.problem == ""
    assert (config.call_timeout, config.connect_timeout) == (45.0, 12.5)


def test_an_unset_timeout_placeholder_names_the_key_value_and_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TS_TEST_MISSING", raising=False)
    config = server_from_entry("s", {**GOOD, "timeout": "${TS_TEST_MISSING}"})
    assert config.problem == ("'timeout' is '${TS_TEST_MISSING}' (TS_TEST_MISSING is not set); "
                              "expected a positive number of seconds")


def test_a_timeout_placeholder_set_to_a_word_says_what_it_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_WORD", "soon")
    config = server_from_entry("s", {**GOOD, "connect_timeout": "${TS_TEST_WORD}"})
    assert config.problem == ("'connect_timeout' is '${TS_TEST_WORD}' (read as 'soon'); "
                              "expected a positive number of seconds")


def test_a_null_connect_timeout_leaves_startup_timeout_in_force() -> None:
    config = server_from_entry("s", {**GOOD, "connect_timeout": None, "startupTimeout": 7})
    assert config.problem == "" and config.connect_timeout == 7.0
    both = server_from_entry("s", {**GOOD, "connect_timeout": 3, "startupTimeout": 7})
    assert both.connect_timeout == 3.0
