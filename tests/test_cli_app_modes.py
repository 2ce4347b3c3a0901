"""``toolsearch tui``'s modes take the options of one mode: ``--follow`` opened the follow view
and silently dropped ``--serve`` and every SOURCE; ``--events`` and ``--token-env`` without
``--serve`` did nothing. Each is now refused in one line, before the terminal is asked for
(so these run piped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli_refusals import one_error, run


@pytest.mark.parametrize(("extra", "said"), [
    (["seed-demo", "--follow", "EV", "--serve", "0"], "--follow and --serve: give one"),
    (["--follow", "EV", "--serve", "0"], "--follow and --serve: give one"),
    (["seed-demo", "--follow", "EV"], "--follow: the servers come from the gateway's events "
                                      "file; leave out the SOURCEs (seed-demo)"),
    (["seed-demo", "--events", "EV"], "--events: only with --serve [HOST:]PORT"),
    (["seed-demo", "--token-env", "HOME"], "--token-env: only with --serve [HOST:]PORT"),
], ids=["follow-serve", "follow-serve-no-source", "follow-source", "events", "token-env"])
def test_an_option_the_apps_mode_would_drop_is_refused(extra: list[str], said: str,
                                                       tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("")
    argv = [str(events) if word == "EV" else word for word in extra]
    assert one_error(run("tui", *argv, cwd=tmp_path)).startswith(said)


def test_each_mode_on_its_own_still_reaches_the_terminal_check(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("")
    for argv in (["--follow", str(events)], ["seed-demo", "--serve", "0", "--events",
                                             str(events), "--token-env", "HOME"]):
        assert "the app needs a terminal" in one_error(run("tui", *argv, cwd=tmp_path))


def test_the_help_says_what_follow_and_tune_save_take() -> None:
    """`tui --follow`'s help did not say the SOURCEs are not its to take (now refused);
    `tune --save` and `--config` named only a Hermes config.yaml, while a YAML catalog is
    saved into too (and a JSON catalog refused)."""
    from tests.test_cli_newuser import _parsers

    parsers = dict(_parsers())
    follow = parsers["tui"]._option_string_actions["--follow"].help or ""
    assert "no SOURCE" in follow
    for option in ("--save", "--config"):
        said = parsers["tune"]._option_string_actions[option].help or ""
        assert "Hermes config.yaml or" in said and "YAML catalog" in said, said
