"""Words a new user types that the CLI cannot do, each refused in one line that says what was
given and what to do instead: `toolsearch -`, an empty output path, saving a bundled sample,
and the app without a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path | None = None, stdin: int | None = subprocess.DEVNULL,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, from *cwd* (another folder than the checkout)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "toolsearch", *args], capture_output=True,
                          text=True, timeout=timeout, stdin=stdin, cwd=cwd, env=env)


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("toolsearch: error: ") and "Traceback" not in proc.stderr
    return proc.stderr.removeprefix("toolsearch: error: ").rstrip("\n")


@pytest.mark.parametrize("argv", [["-"], ["-", "--profile", "latest"], ["--profile", "latest",
                                                                        "-"]])
def test_a_dash_says_sources_are_not_read_from_stdin(argv: list[str], tmp_path: Path) -> None:
    """`toolsearch -` was argparse's "argument COMMAND: invalid choice: '-' (choose from ...)"
    while `toolsearch tui -` said what `-` is not."""
    said = one_error(run(*argv, cwd=tmp_path))
    assert said.startswith("-: a SOURCE is not read from stdin"), said
    assert "invalid choice" not in said


@pytest.mark.parametrize("path", ["", " "])
def test_an_empty_output_path_is_named_as_given(path: str, tmp_path: Path) -> None:
    """`snapshot -o ''` named the path `.` (what Path('') is): the user typed no dot."""
    said = one_error(run("snapshot", "seed-demo", "-o", path, cwd=tmp_path))
    assert said.startswith(f"-o {path!r}: "), said
    assert "empty path" in said or "only blanks" in said
    assert list(tmp_path.iterdir()) == []


def test_saving_a_bundled_sample_says_how_to_save_a_copy(tmp_path: Path) -> None:
    """`tune seed-demo --save` said "seed-demo: not a file; --save writes an existing Hermes
    config.yaml": true, but seed-demo is a name `toolsearch samples` lists, and the way to
    keep the values (a copy, or --config) was not said."""
    said = one_error(run("tune", "seed-demo", "--set", "threshold_pct=9", "--save",
                         cwd=tmp_path))
    assert "seed-demo is a bundled sample" in said and "not a file" not in said
    assert "toolsearch snapshot seed-demo -o my.yaml" in said and "--config PATH" in said
    preview = run("tune", "seed-demo", "--set", "threshold_pct=9", cwd=tmp_path)
    assert "add --save --config PATH" in preview.stdout  # --save alone would be refused
    # The advice works as written.
    assert run("snapshot", "seed-demo", "-o", "my.yaml", cwd=tmp_path).returncode == 0
    saved = run("tune", "my.yaml", "--set", "threshold_pct=9", "--save", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    assert yaml.safe_load((tmp_path / "my.yaml").read_text())["tool_search"] == {
        "threshold_pct": 9}


def test_an_empty_config_path_is_refused_not_read_as_source(tmp_path: Path) -> None:
    """`tune config.yaml --save --config "$UNSET"` read the empty --config as none given and
    wrote into the SOURCE."""
    config = tmp_path / "config.yaml"
    text = "mcp_servers: {}\ntools:\n  tool_search:\n    threshold_pct: 5\n"
    config.write_text(text)
    said = one_error(run("tune", str(config), "--set", "threshold_pct=9", "--save",
                         "--config", "", cwd=tmp_path))
    assert said.startswith("--config '': an empty path"), said
    assert config.read_text() == text and not (tmp_path / "config.yaml.bak").exists()


APP_COMMANDS = [[], ["tui"], ["demo"], ["seed-demo"], ["--theme", "ops-light"],
                ["demo", "quickstart"]]


@pytest.mark.parametrize("argv", APP_COMMANDS, ids=lambda a: " ".join(a) or "(none)")
def test_the_app_without_a_terminal_is_one_line(argv: list[str], tmp_path: Path) -> None:
    """`toolsearch demo </dev/null > out` opened the app anyway: escape codes into the file,
    no key read, and no way out but Ctrl-C or kill (the run here timed out)."""
    said = one_error(run(*argv, cwd=tmp_path, timeout=30))
    assert said.startswith("the app needs a terminal, and standard input is not one"), said
    assert "assemble" in said  # what to use instead


def test_the_app_with_a_terminal_for_input_only_names_where_it_draws(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    try:
        proc = run("demo", cwd=tmp_path, stdin=slave, timeout=30)
    finally:
        os.close(slave)
        os.close(master)
    said = one_error(proc)
    assert said.startswith("the app needs a terminal, and standard error is not one"), said


def test_the_app_opens_with_stdout_redirected(tmp_path: Path) -> None:
    """Textual draws on stderr: `toolsearch demo > out.txt` works on the terminal, and is not
    refused."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("TEXTUAL_DRIVER", None)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "toolsearch", "demo"], stdin=slave,
                                stderr=slave, stdout=subprocess.PIPE, cwd=tmp_path, env=env)
        try:
            proc.wait(timeout=8)  # a refusal ends at once; the app runs until it is quit
        except subprocess.TimeoutExpired:
            pass
        running = proc.poll() is None
        proc.kill()
        proc.wait(10)
    finally:
        os.close(slave)
        os.close(master)
    assert running, f"the app did not stay open (exit {proc.returncode})"


@pytest.mark.parametrize("mode", ["follow", "serve"])
def test_the_apps_gateway_modes_need_a_terminal_too(mode: str, tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("")
    extra = ["--follow", str(events)] if mode == "follow" else \
        ["seed-demo", "--serve", "0", "--events", str(events)]
    proc = run("tui", *extra, cwd=tmp_path, timeout=30)
    assert "the app needs a terminal" in proc.stderr.splitlines()[-1], proc.stderr
    assert proc.returncode == 1 and proc.stdout == ""


def test_arguments_are_still_checked_before_the_terminal(tmp_path: Path) -> None:
    """A wrong SOURCE or theme is the error a user must fix first, with or without one."""
    assert "nope.yaml: no such file" in one_error(run("tui", "nope.yaml", cwd=tmp_path))
    assert "--theme: no theme" in one_error(run("demo", "--theme", "ops-drak", cwd=tmp_path))


@pytest.mark.parametrize(("option", "extra"), [("--follow", []), ("--serve", ["seed-demo"]),
                                               ("--events", ["seed-demo", "--serve", "0"])])
def test_an_empty_gateway_option_of_the_app_is_refused(option: str, extra: list[str],
                                                       tmp_path: Path) -> None:
    """`tui --follow "$UNSET"` and `tui SRC --serve "$UNSET"` opened the plain app, neither
    following nor serving, with nothing said."""
    said = one_error(run("tui", *extra, option, "", cwd=tmp_path))
    assert said.startswith(f"{option} '': empty; "), said


@pytest.mark.parametrize("argv", [["serve", "quickstart"], ["tui", "quickstart", "--serve", "0"]])
@pytest.mark.parametrize("events", ["", "  "])
def test_an_empty_events_path_is_refused(argv: list[str], events: str, tmp_path: Path) -> None:
    """`--events ''` silently meant the default file: the gateway wrote one file while the
    operator watched another (`tui --serve` refused it already; both now say the same)."""
    said = one_error(run(*argv, "--events", events, cwd=tmp_path, timeout=30))
    assert said.startswith("--events '") and ": empty; name the events file" in said, said
    assert not list(tmp_path.iterdir())  # nothing started, nothing written
