"""A hostile new user of the command line: holes found by trying every command on odd files
(secrets in a file that is no source, duplicate keys, UTF-16, symlink loops, query files)."""

from __future__ import annotations

import codecs
import os
import sys
from pathlib import Path

import pytest
from adv_helpers import cli, one_error_line, snapshot_files

TOKEN = "ghp_" + "Zq7" * 12


def test_an_unknown_file_is_described_without_its_content(tmp_path: Path) -> None:
    """The "cannot tell what kind of source this is" line names a mapping's plain keys, never
    a key that is a line of the file (``/etc/shadow``) or a credential."""
    shadow = tmp_path / "shadow"
    shadow.write_text("root:$6$salt$Qm9vYmF6cXV4aGFzaGhhc2g:19000:0:99999:7:::\n",
                      encoding="utf-8")
    keys = tmp_path / "keys.yaml"
    keys.write_text(f"{TOKEN}: 1\n'Authorization: Bearer abcdefghijklmnop': 2\nplain: 3\n",
                    encoding="utf-8")
    line = one_error_line(cli("assemble", str(shadow)))
    assert "cannot tell what kind of source" in line
    assert "Qm9vYmF6" not in line and "root:" not in line
    line = one_error_line(cli("assemble", str(keys)))
    assert TOKEN not in line and "abcdefghijklmnop" not in line and "Bearer" not in line
    assert "plain" in line  # an ordinary key is still named


def test_a_duplicate_key_refuses_the_save_without_printing_its_values(tmp_path: Path) -> None:
    """ruamel's duplicate-key error quotes both values (here an env token); the refusal names
    the key and the line only, and the file is left alone."""
    config = tmp_path / "config.yaml"
    config.write_text(
        "mcp_servers:\n  gh: {url: 'http://127.0.0.1:9/mcp', headers: {X-Token: "
        f"{TOKEN}}}}}\nmcp_servers:\n  gh: {{url: 'http://127.0.0.1:9/mcp'}}\n"
        "tools:\n  tool_search: {threshold_pct: 5}\n", encoding="utf-8")
    before = snapshot_files(tmp_path)
    run = cli("tune", str(config), "--set", "threshold_pct=3", "--save", "--timeout", "2")
    assert run.returncode == 1, run
    assert TOKEN not in run.output and TOKEN[4:12] not in run.output
    error = [line for line in run.stderr_lines() if line.startswith("toolsearch: error:")]
    assert error == [f"toolsearch: error: {config}: has a duplicate key \"mcp_servers\" "
                     "(line 3, column 1) (Hermes reads only the last one); refusing to rewrite "
                     "it until one is removed"], run.stderr
    assert snapshot_files(tmp_path) == before


def _utf16(text: str, bom: bytes = codecs.BOM_UTF16_LE, codec: str = "utf-16-le") -> bytes:
    return bom + text.encode(codec)


def test_utf16_and_utf32_files_with_a_bom_are_read(tmp_path: Path) -> None:
    """YAML and JSON allow UTF-16/32 with a byte-order mark (what a Windows editor saves as
    "Unicode"); they load like UTF-8, where they used to fail on "#x0000"."""
    catalog = ("toolsets:\n  - name: docs\n    kind: mcp\n    tools:\n"
               "      - {name: find_page, description: Find a page by its title.}\n")
    files = {
        "le.yaml": _utf16(catalog),
        "be.yaml": _utf16(catalog, codecs.BOM_UTF16_BE, "utf-16-be"),
        "wide.yaml": codecs.BOM_UTF32_LE + catalog.encode("utf-32-le"),
        "le.json": _utf16('{"mcpServers": {}}'),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    for name in ("le.yaml", "be.yaml", "wide.yaml"):
        run = cli("assemble", str(tmp_path / name), "--json")
        assert run.returncode == 0, run
        assert run.json()["deferred"] == ["mcp__docs__find_page"]  # type: ignore[index]
    assert cli("assemble", str(tmp_path / "le.json")).returncode == 0
    (tmp_path / "bad.yaml").write_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8")
    assert "not valid UTF-16" in one_error_line(cli("assemble", str(tmp_path / "bad.yaml")))
    (tmp_path / "bom-only.yaml").write_bytes(codecs.BOM_UTF16_LE)
    assert "file is empty" in one_error_line(cli("assemble", str(tmp_path / "bom-only.yaml")))


def test_tune_save_refuses_a_utf16_file_untouched(tmp_path: Path) -> None:
    """--save writes UTF-8 only: a UTF-16 config or catalog is refused in one line (the
    catalog's used to end in a UnicodeDecodeError), never rewritten in another encoding."""
    (tmp_path / "config.yaml").write_bytes(
        _utf16("mcp_servers: {}\ntools:\n  tool_search: {threshold_pct: 5}\n"))
    (tmp_path / "catalog.yaml").write_bytes(
        _utf16("toolsets: []\ntool_search: {threshold_pct: 5}\n"))
    before = snapshot_files(tmp_path)
    for name in ("config.yaml", "catalog.yaml"):
        line = one_error_line(cli("tune", str(tmp_path / name), "--set", "threshold_pct=3",
                                  "--save"))
        assert "is UTF-16 text; refusing to rewrite it" in line, line
    assert snapshot_files(tmp_path) == before


def test_symlink_loops_and_dangling_links_say_so(tmp_path: Path) -> None:
    """A loop of links is not "no such file, and not a sample catalog"."""
    os.symlink(tmp_path / "b.yaml", tmp_path / "a.yaml")
    os.symlink(tmp_path / "a.yaml", tmp_path / "b.yaml")
    os.symlink(tmp_path / "gone.yaml", tmp_path / "dangling.yaml")
    assert "a symlink loop" in one_error_line(cli("assemble", str(tmp_path / "a.yaml")))
    line = one_error_line(cli("explain", str(tmp_path / "dangling.yaml"), "x"))
    assert "a symlink to" in line and "which does not exist" in line


def test_bench_recall_query_file_errors_are_one_plain_line(tmp_path: Path) -> None:
    """A bad or empty query file is one line without a Python type name, before any source
    is loaded (an empty one used to report recall 0.000 over 0 queries)."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# nothing yet\n\n", encoding="utf-8")
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"query": "scrape a page", "expected": ["x"]}\n', encoding="utf-8")
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"query":' * 5000 + "\n", encoding="utf-8")
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", str(empty)))
    assert line.startswith(f"toolsearch: error: {empty}: no queries"), line
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", str(wrong)))
    assert line == f"toolsearch: error: {wrong}:1: no 'gold', 'gold_tools' or " \
                   "'gold_qualified_any_of'", line
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", str(deep)))
    assert line == f"toolsearch: error: {deep}: a line is nested too deeply", line
    # checked before the sources: a missing SOURCE is not what is reported
    line = one_error_line(cli("bench", "recall", str(tmp_path / "nope.yaml"), "--queries",
                              str(empty)))
    assert "no queries" in line


def test_an_empty_scope_is_refused_not_read_as_nothing_in_scope() -> None:
    """``--scope "$UNSET"`` used to put every toolset out of scope, silently (exit 0)."""
    for value in ("", " , "):
        line = one_error_line(cli("assemble", "seed-demo", "--scope", value))
        assert line == "toolsearch: error: --scope: names no toolset (give TOOLSET,...; have: " \
                       "hermes-core, mcp-firecrawl, mcp-xactions)", line
    line = one_error_line(cli("search", "seed-demo", "-q", "x", "--detach", ""))
    assert line.startswith("toolsearch: error: --detach: names no toolset"), line


def test_an_unknown_option_points_at_its_command_help() -> None:
    """The hint after "unrecognized arguments" names the subcommand's --help, as every other
    usage error does (it named the top-level --help)."""
    cases = {("assemble", "seed-demo", "--bogus"): "toolsearch assemble --help",
             ("bench", "recall", "seed-demo", "--bogus"): "toolsearch bench recall --help",
             ("samples", "extra"): "toolsearch samples --help",
             ("--bogus",): "toolsearch --help"}
    for argv, hint in cases.items():
        line = one_error_line(cli(*argv))
        assert line.startswith("toolsearch: error: unrecognized arguments: ") and \
            line.endswith(f"(see {hint})"), line


def test_snapshot_force_over_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """--force backs the old file up first: the backup read a FIFO (or a link to /dev/zero)
    without a check, and blocked forever (or filled memory)."""
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    os.symlink("/dev/zero", tmp_path / "zero.yaml")
    def entries() -> list[tuple[str, int]]:  # never read: reading the FIFO would block
        return sorted((p.name, p.lstat().st_mode) for p in tmp_path.iterdir())

    before = entries()
    for name in ("out.yaml", "zero.yaml"):
        run = cli("snapshot", "quickstart", "-o", str(tmp_path / name), "--force", timeout=30)
        assert one_error_line(run) == f"toolsearch: error: {tmp_path / name}: not a regular " \
                                      "file; refusing to replace it"
    assert entries() == before


def _without_root_powers(*argv: str) -> list[str]:
    """``python -m toolsearch ARGV`` as root without the capabilities that bypass file modes
    (so a mode of 000 denies, as it does for a user); skipped where that is not possible."""
    import shutil

    import pytest

    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to drop the file-mode override")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search,-fowner", sys.executable,
            "-m", "toolsearch", *argv]


def test_permission_denied_is_one_plain_line(tmp_path: Path) -> None:
    """A file in a folder the user may not enter raised PermissionError out of pathlib's
    exists() ("PermissionError: [Errno 13] ..."), and a locked dump folder read as "no server
    dumps found"."""
    import subprocess

    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "config.yaml").write_text("mcp_servers: {}\n", encoding="utf-8")
    cases = {
        ("assemble", str(locked / "config.yaml")): f"{locked / 'config.yaml'}: cannot read: "
                                                   "Permission denied",
        ("assemble", str(locked)): f"{locked}: cannot read: Permission denied",
        ("snapshot", "quickstart", "-o", str(locked / "out.yaml")):
            f"{locked / 'out.yaml'}: cannot write: Permission denied",
    }
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    locked.chmod(0)
    try:
        for argv, message in cases.items():
            proc = subprocess.run(_without_root_powers(*argv), capture_output=True, text=True,
                                  timeout=60, env=env)
            assert (proc.returncode, proc.stderr) == (1, f"toolsearch: error: {message}\n"), proc
    finally:
        locked.chmod(0o755)


def _alias_bomb(levels: int = 9) -> str:
    parts = ['&l0 ["x","x","x","x","x","x","x","x","x"]']
    parts += [f"&l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


def test_a_set_value_that_is_an_alias_bomb_is_refused() -> None:
    """``--set`` reads its value as YAML, with PyYAML's unbounded alias expansion: under the
    latest profile (which reads ``defer``) nine lines of aliases took over a minute and
    1.8 GB. A file's bounds now apply to it too; a small alias still works."""
    run = cli("assemble", "seed-demo", "--profile", "latest", "--set", f"defer={_alias_bomb()}",
              timeout=30)
    assert one_error_line(run) == "toolsearch: error: --set defer: refused: YAML aliases " \
                                  "expand to over 100,000 extra nodes (an alias bomb?)"
    run = cli("assemble", "seed-demo", "--profile", "latest", "--set", "defer=[&a x, *a]",
              "--json")
    assert run.returncode == 0 and run.json()["config"]["defer"] == ["x"]  # type: ignore[index]


def test_a_set_value_nested_too_deeply_is_one_line() -> None:
    deep = "[" * 20000 + "]" * 20000
    line = one_error_line(cli("assemble", "seed-demo", "--profile", "latest", "--set",
                              f"defer={deep}"))
    assert line == "toolsearch: error: --set defer: the value is nested too deeply to read"


def test_tune_save_into_a_catalog_keeps_crlf_and_bom(tmp_path: Path) -> None:
    """The Hermes config's save kept CRLF line ends and a UTF-8 BOM; a catalog's own
    ``tool_search`` save dropped the BOM and wrote its new line with a bare LF."""
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(b"toolsets: []\r\ntool_search: {threshold_pct: 5}\r\nname: x\r\n")
    inserted = tmp_path / "inserted.yaml"
    inserted.write_bytes(b"toolsets: []\r\nname: x\r\n")
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(codecs.BOM_UTF8 + b"toolsets: []\ntool_search: {threshold_pct: 5}\n")
    for path in (crlf, inserted, bom):
        run = cli("tune", str(path), "--set", "threshold_pct=3", "--save")
        assert run.returncode == 0, run
    assert crlf.read_bytes() == b"toolsets: []\r\ntool_search: {threshold_pct: 3}\r\nname: x\r\n"
    assert inserted.read_bytes() == b"tool_search: {threshold_pct: 3}\r\ntoolsets: []\r\n" \
                                    b"name: x\r\n"
    assert bom.read_bytes() == codecs.BOM_UTF8 + b"toolsets: []\ntool_search: " \
                                                 b"{threshold_pct: 3}\n"


def test_a_second_yaml_document_is_named_plainly(tmp_path: Path) -> None:
    """PyYAML's half sentence ("not valid YAML or JSON: but found another document")."""
    path = tmp_path / "config.yaml"
    path.write_text("---\nmcp_servers: {}\n...\n---\nother: 1\n", encoding="utf-8")
    assert one_error_line(cli("assemble", str(path))) == \
        f"toolsearch: error: {path}: holds more than one YAML document (another starts at " \
        "line 4); a source is one document"


def test_a_defer_the_profile_cannot_take_is_said_not_saved(tmp_path: Path) -> None:
    """Under seed (no defer list) ``--set defer=[...]`` did nothing, silently, and
    ``--save`` then claimed the file "already holds these values"; under latest a defer that
    reads as unset said the same while the file held another list."""
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers: {}\ntools:\n  tool_search:\n    defer: [a, b]\n",
                      encoding="utf-8")
    before = snapshot_files(tmp_path)
    run = cli("tune", str(config), "--set", "defer=[c]", "--save")
    assert run.returncode == 0, run
    assert "toolsearch: warning: --set defer: the seed profile has no defer list and does not " \
           "read it (no effect; --profile latest reads it)" in run.stderr_lines()
    assert "toolsearch: warning: --set defer: not saved (this profile does not read it)" \
        in run.stderr_lines()
    assert "already holds" not in run.stdout
    assert f"nothing saved: no --set value can be written (not written: {config})" in run.stdout
    run = cli("tune", str(config), "--profile", "latest", "--set", "defer=c", "--save")
    assert run.returncode == 0, run
    assert "already holds" not in run.stdout and "nothing saved" in run.stdout
    assert "toolsearch: warning: --set defer: not saved (it reads as unset, the curated " \
           "default)" in run.stderr_lines()
    assert snapshot_files(tmp_path) == before


def test_a_misspelt_command_or_sample_gets_did_you_mean() -> None:
    """Tools had *Did you mean*; a misspelt command or sample name only got the full lists."""
    line = one_error_line(cli("assemblee", "seed-demo"))
    assert "'assemblee' is not a command, a file or a sample catalog (did you mean " \
           "'assemble'? commands:" in line, line
    line = one_error_line(cli("assemble", "seed-dem"))
    assert "seed-dem: no such file, and not a sample catalog (did you mean 'seed-demo'? " \
           "samples:" in line, line
    assert "did you mean" not in one_error_line(cli("assemble", "nothing-like-it"))


def test_a_closed_stdout_is_one_line() -> None:
    """``toolsearch samples >&-`` said "AttributeError: 'NoneType' object has no attribute
    'write'"."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-m", "toolsearch", "samples"], stdout=None,
                          stderr=subprocess.PIPE, text=True, timeout=60, env=env,
                          preexec_fn=lambda: os.close(1))
    assert (proc.returncode, proc.stderr) == (1, "toolsearch: error: standard output is "
                                                 "closed\n"), proc


def test_a_source_echoed_in_an_error_keeps_its_credentials_hidden() -> None:
    """A URL SOURCE that is no http(s) URL (a typo, ``ws://``) was echoed in "no such file",
    credentials and all; so was one in "unrecognized arguments", and ``tune URL --save``
    printed it with its ``//`` folded, past the URL redaction."""
    secret, query = "S3cretPW99", "QSECRET12345"
    runs = [
        cli("assemble", f"htp://alice:{secret}@example.com/mcp?api_key={query}"),
        cli("assemble", f"ws://alice:{secret}@example.com/mcp"),
        cli(f"htp://alice:{secret}@example.com/mcp"),
        cli("assemble", "seed-demo", "--bogus", f"https://alice:{secret}@example.com/"),
        cli("tune", f"https://alice:{secret}@127.0.0.1:9/mcp", "--set", "threshold_pct=3",
            "--save", "--timeout", "2"),
    ]
    for run in runs:
        line = one_error_line(run)
        assert secret not in line and query not in line, line
        assert "alice" not in line, line
    assert one_error_line(runs[-1]) == "toolsearch: error: --save writes a Hermes config.yaml " \
        "or a YAML catalog, and SOURCE is a URL: name the file with --config PATH"


def test_explain_with_a_source_last_says_the_tool_comes_last() -> None:
    """``explain seed-demo five-servers`` (the TOOL forgotten) explained a tool named
    "five-servers" as unknown and said nothing else."""
    run = cli("explain", "seed-demo", "five-servers")
    assert run.returncode == 1
    assert run.stderr_lines() == ["toolsearch: warning: 'five-servers' is a SOURCE, read here "
                                  "as the TOOL name: the TOOL comes last (toolsearch explain "
                                  "SOURCE... TOOL)"], run.stderr
    assert cli("explain", "seed-demo", "mcp__firecrawl__scrape").stderr == ""


def test_a_quoted_off_tool_search_reads_and_saves_as_hermes_reads_it(tmp_path: Path) -> None:
    """``tools: {tool_search: "off"}`` is a string, which Hermes reads as the defaults with
    enabled auto (REFERENCE §2); toolsearch showed tool search off, and --save turned the
    string into ``enabled: off``, switching Hermes' tool search off. A plain ``off`` (YAML
    1.1's False) stays off."""
    quoted = tmp_path / "quoted.yaml"
    quoted.write_text("mcp_servers: {}\ntools:\n  tool_search: 'off'\n", encoding="utf-8")
    plain = tmp_path / "plain.yaml"
    plain.write_text("mcp_servers: {}\ntools:\n  tool_search: off\n", encoding="utf-8")
    run = cli("assemble", str(quoted), "--json")
    assert run.json()["config"]["enabled"] == "auto"  # type: ignore[index]
    assert "tools.tool_search is 'off', not a mapping: Hermes reads it as the defaults " \
           "(enabled auto); to set it, write `enabled: off` under tools.tool_search" in run.stderr
    assert cli("assemble", str(plain), "--json").json()["config"]["enabled"] == "off"  # type: ignore[index]
    for path in (quoted, plain):
        assert cli("tune", str(path), "--set", "threshold_pct=3", "--save").returncode == 0
    assert quoted.read_text(encoding="utf-8") == \
        "mcp_servers: {}\ntools:\n  tool_search:\n    threshold_pct: 3\n"
    assert plain.read_text(encoding="utf-8") == \
        "mcp_servers: {}\ntools:\n  tool_search:\n    enabled: 'off'\n    threshold_pct: 3\n"


def test_bench_speed_checks_its_arguments_first(tmp_path: Path) -> None:
    """``--sizes 0`` ended in "IndexError: Cannot choose from an empty sequence" after the
    real catalogs' runs; ``--catalogs`` naming no folder said "no ../shared/catalogs/real
    here" (it still runs the generated catalogs only: tests/test_cli.py relies on that)."""
    for sizes, message in (("0", "--sizes: each size is 1 to 200,000 tools (got 0)"),
                           ("5,-1", "--sizes: each size is 1 to 200,000 tools (got -1)"),
                           ("10000000", "--sizes: each size is 1 to 200,000 tools (got "
                                        "10000000)"),
                           ("abc", "--sizes takes whole numbers, got 'abc'")):
        assert one_error_line(cli("bench", "speed", "--sizes", sizes)) == \
            f"toolsearch: error: {message}"
    missing = tmp_path / "nope"
    for extra in ((), ("--json",)):  # said on stderr, with --json too (it was silent there)
        run = cli("bench", "speed", "--sizes", "1", "--catalogs", str(missing), *extra)
        assert run.returncode == 0, run
        assert run.stderr == f"toolsearch: warning: --catalogs {missing}: no such folder: " \
                             "generated catalogs only\n"
    for sizes in ("", "1,,2", ","):  # an empty size was dropped without a word
        assert one_error_line(cli("bench", "speed", "--sizes", sizes)) == \
            f"toolsearch: error: --sizes takes whole numbers, got {sizes!r}"


def test_bench_recall_finds_a_bundled_query_set_outside_a_checkout(tmp_path: Path) -> None:
    """The README's ``--queries queries/seed-demo.jsonl`` (or the set's name) works from any
    folder: a wheel install has no ``queries/`` in the working directory, and the sets it
    ships were out of reach (``cannot read: No such file or directory``)."""
    for value in ("queries/seed-demo.jsonl", "seed-demo.jsonl", "seed-demo"):
        run = cli("bench", "recall", "seed-demo", "--queries", value, "--json", cwd=tmp_path)
        assert run.returncode == 0, run
        assert run.json()["n"] == 92  # type: ignore[index]
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", "seed-dem",
                              cwd=tmp_path))
    assert line.startswith("toolsearch: error: seed-dem: no such file, and not a bundled "
                           "query set (bundled: five-servers, "), line
    # a file of the same name in the working directory is the one read
    (tmp_path / "seed-demo.jsonl").write_text("# mine\n", encoding="utf-8")
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", "seed-demo.jsonl",
                              cwd=tmp_path))
    assert line == "toolsearch: error: seed-demo.jsonl: no queries (JSON lines such as " \
                   '{"query": "...", "gold": ["TOOL"]})', line


def test_dash_reads_args_json_from_stdin_and_is_named_as_a_source() -> None:
    """``call ... ARGS_JSON -`` reads the object from stdin (it was parsed as the JSON text
    "-": "not valid JSON: Expecting value"); ``-`` as a SOURCE says stdin is not read (it
    was "no such file, and not a sample catalog")."""
    run = cli("call", "seed-demo", "tool_describe", "-", "--json",
              stdin=b'{"name": "mcp__firecrawl__scrape"}\n')
    assert run.returncode == 0, run
    assert run.json()["activity"]["tool"] == "mcp__firecrawl__scrape"  # type: ignore[index]
    for data, said in ((b"", "ARGS_JSON -: stdin is empty (pipe the JSON object in)"),
                       (b"\xff{}", "ARGS_JSON -: stdin is not UTF-8 (byte 0)"),
                       (b"[1]", "ARGS_JSON must be a JSON object")):
        line = one_error_line(cli("call", "seed-demo", "tool_search", "-", stdin=data))
        assert line == f"toolsearch: error: {said}", line
    for argv in (("assemble", "-"), ("search", "-", "-q", "x"), ("explain", "-", "foo")):
        line = one_error_line(cli(*argv, stdin=b"{}"))
        assert line == "toolsearch: error: -: a SOURCE is not read from stdin; save it to a " \
                       "file and name the file", line


def test_a_word_longer_than_a_file_name_is_read_as_a_word() -> None:
    """A word of over 255 bytes (a pasted tool name, a stray argument) is no file name: the
    operating system refuses to look it up (ENAMETOOLONG), and pathlib raises. It was a
    traceback as the first word, the sample folder's path with "File name too long" as a
    SOURCE, and "File name too long" instead of "unknown" for `explain`'s TOOL."""
    long = "x" * 300
    line = one_error_line(cli(long))
    assert line.startswith(f"toolsearch: error: '{long}' is not a command, a file or a "
                           "sample catalog"), line
    for argv in (("assemble", long), ("tune", long, "--set", "threshold_pct=3")):
        line = one_error_line(cli(*argv))
        assert line.startswith(f"toolsearch: error: {long}: no such file, and not a sample "
                               "catalog"), line
    run = cli("explain", "seed-demo", "mcp__firecrawl__" + long)
    assert run.returncode == 1 and run.stderr == "", run
    assert run.stdout.startswith(f"mcp__firecrawl__{long}: unknown"), run
    line = one_error_line(cli("bench", "recall", "seed-demo", "--queries", long))
    assert line.startswith(f"toolsearch: error: {long}: no such file, and not a bundled "), line


def test_an_interrupt_while_the_command_line_is_read_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl+C or SIGTERM in the first moments (the parser being built: `bench gateway`'s
    SIGTERM reaches its `serve` child then) was a KeyboardInterrupt traceback, not the one
    `toolsearch: interrupted` line and exit status 130."""
    from toolsearch import cli as cli_module

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "build_parser", interrupted)
    try:
        status = cli_module.main(["assemble", "seed-demo"])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped main() as a traceback")
    assert status == 130
    assert capsys.readouterr().err == "toolsearch: interrupted\n"
