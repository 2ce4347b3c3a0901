"""Safe save of tools.tool_search into a Hermes config.yaml."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from toolsearch.sources import SourceError
from toolsearch.sources.save import save_tool_search_block

HERMES_CONFIG = """\
# ~/.hermes/config.yaml -- managed by hand, keep the comments!
model:
  default: anthropic/claude-sonnet-4   # main model
  provider: openrouter
  context_length: 200000

toolsets:
    - hermes-cli        # four-space sequences on purpose
    - web

mcp_servers:
  github:
    command: "npx"
    args: ["-y", "@modelcontextprotocol/server-github"]
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_not_a_real_token_123'
  linear: {url: "https://mcp.linear.app/mcp", headers: {Authorization: "Bearer x"}}

tools:
  # progressive tool disclosure
  tool_search:
    enabled: auto        # auto | on | off
    threshold_pct: 5     # percent of the context window
    # listing_max_tokens: 4000   (commented-out default)
  browser: {headless: true}

terminal:
  backend: local
  long: "a very long line that a YAML dumper would be tempted to wrap because it is longer than eighty columns"
  block: |
    literal text
      with indentation
# trailing comment at the end
"""


def _save(tmp_path: Path, text: str, values: dict, name: str = "config.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path, save_tool_search_block(path, values)


def _diff_lines(before: str, after: str) -> list[tuple[str, str]]:
    import difflib

    out = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append((line[0], line[1:]))
    return out


def test_round_trip_changes_only_the_values(tmp_path: Path) -> None:
    path, result = _save(tmp_path, HERMES_CONFIG, {"threshold_pct": 150, "listing_max_tokens": 3000})
    after = path.read_text()
    assert result.changed_keys == ("threshold_pct", "listing_max_tokens")
    assert result.backup_path == tmp_path / "config.yaml.bak"
    assert result.backup_path.read_text() == HERMES_CONFIG
    # Byte-compare the rest: only the changed value line and the new key line differ.
    assert _diff_lines(HERMES_CONFIG, after) == [
        ("-", "    threshold_pct: 5     # percent of the context window"),
        ("+", "    threshold_pct: 100   # percent of the context window"),  # clamped to 100
        ("+", "    listing_max_tokens: 3000"),
    ]
    data = yaml.safe_load(after)
    assert data["tools"]["tool_search"] == {"enabled": "auto", "threshold_pct": 100,
                                            "listing_max_tokens": 3000}


def test_unchanged_values_write_nothing(tmp_path: Path) -> None:
    path, result = _save(tmp_path, HERMES_CONFIG, {"enabled": "auto", "threshold_pct": 5.0})
    assert result.changed_keys == () and result.backup_path is None
    assert path.read_text() == HERMES_CONFIG
    assert not (tmp_path / "config.yaml.bak").exists()


def test_every_key_is_clamped(tmp_path: Path) -> None:
    path, _ = _save(tmp_path, HERMES_CONFIG, {
        "enabled": "yes", "search_default_limit": 99, "max_search_limit": 500,
        "listing": "bogus", "listing_max_tokens": 5, "defer": ["b", "a"]})
    block = yaml.safe_load(path.read_text())["tools"]["tool_search"]
    assert block == {"enabled": "on", "threshold_pct": 5, "search_default_limit": 50,
                     "max_search_limit": 50, "listing": "auto", "listing_max_tokens": 200,
                     "defer": ["a", "b"]}


@pytest.mark.parametrize(
    ("text", "expected_tail"),
    [
        ("model: {default: x}\n", "model: {default: x}\n\ntools:\n  tool_search:\n    threshold_pct: 8\n"),
        ("", "tools:\n  tool_search:\n    threshold_pct: 8\n"),
        ("tools:\n  browser: {headless: true}\nx: 1\n",
         "tools:\n  browser: {headless: true}\n  tool_search:\n    threshold_pct: 8\nx: 1\n"),
        ("tools:\nx: 1\n", "tools:\n  tool_search:\n    threshold_pct: 8\nx: 1\n"),
        ("tools:\n    tool_search: true   # legacy\nx: 1\n",
         "tools:\n    tool_search:  # legacy\n        threshold_pct: 8\nx: 1\n"),
        ("tools:\n  tool_search: {enabled: 'on'}\n",
         "tools:\n  tool_search:\n    enabled: 'on'\n    threshold_pct: 8\n"),
    ],
)
def test_missing_or_legacy_blocks_are_created(tmp_path: Path, text: str,
                                              expected_tail: str) -> None:
    path, result = _save(tmp_path, text, {"threshold_pct": 8})
    assert result.changed_keys == ("threshold_pct",)
    assert path.read_text() == expected_tail


def test_legacy_false_keeps_its_meaning(tmp_path: Path) -> None:
    path, _ = _save(tmp_path, "tools:\n  tool_search: false\n", {"threshold_pct": 8})
    assert yaml.safe_load(path.read_text())["tools"]["tool_search"] == {
        "enabled": "off", "threshold_pct": 8}


def test_new_file_is_created_without_backup(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    result = save_tool_search_block(path, {"listing": "on"})
    assert result.backup_path is None
    assert yaml.safe_load(path.read_text()) == {"tools": {"tool_search": {"listing": "on"}}}


@pytest.mark.parametrize("text", ["tools: [\n", "a: b: c\n", "key: 'unterminated\n"])
def test_unparsable_file_is_refused_and_untouched(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(SourceError, match="config.yaml"):
        save_tool_search_block(path, {"threshold_pct": 8})
    assert path.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


@pytest.mark.parametrize("text", ["- a\n- b\n", "tools: [a, b]\n", "tools: 3\n"])
def test_wrong_shapes_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(SourceError):
        save_tool_search_block(path, {"threshold_pct": 8})
    assert path.read_text() == text


def test_non_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(b"model: \xff\xfe\n")
    with pytest.raises(SourceError, match="UTF-8"):
        save_tool_search_block(path, {"threshold_pct": 8})
    assert path.read_bytes() == b"model: \xff\xfe\n"


def test_unknown_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HERMES_CONFIG)
    with pytest.raises(SourceError, match="unknown tool_search key"):
        save_tool_search_block(path, {"threshold": 8})
    assert path.read_text() == HERMES_CONFIG


def test_mode_is_kept_and_no_temp_files_remain(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HERMES_CONFIG)
    os.chmod(path, 0o600)
    save_tool_search_block(path, {"threshold_pct": 9})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "config.yaml.bak"]


def test_symlinked_config_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "hermes.yaml"
    real.parent.mkdir()
    real.write_text("tools:\n  tool_search: {}\n")
    link = tmp_path / "config.yaml"
    link.symlink_to(real)
    save_tool_search_block(link, {"threshold_pct": 9})
    assert link.is_symlink()
    assert yaml.safe_load(real.read_text())["tools"]["tool_search"] == {"threshold_pct": 9}


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    text = "\ufeffmodel: x\r\ntools:\r\n  tool_search:\r\n    threshold_pct: 5\r\n"
    path = tmp_path / "config.yaml"
    path.write_bytes(text.encode("utf-8"))
    save_tool_search_block(path, {"threshold_pct": 7})
    assert path.read_bytes() == text.replace("5", "7").encode("utf-8")


def test_backup_is_replaced_by_each_save(tmp_path: Path) -> None:
    path, first = _save(tmp_path, HERMES_CONFIG, {"threshold_pct": 6})
    middle = path.read_text()
    second = save_tool_search_block(path, {"threshold_pct": 7})
    assert first.backup_path == second.backup_path
    assert second.backup_path is not None and second.backup_path.read_text() == middle


def test_a_spliced_save_parses_the_file_with_ruamel_no_more_than_needed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ruamel is pure Python: one round-trip parse of a 1 MB catalog takes seconds on this
    machine. A save the text splice handles parses the file once (for its positions), and
    never dumps the whole document; it used to guess the indentation with a parse of its own
    and dump every time, and `tune --save` into a copy of cloudflare-scale took 25 s of CPU;
    then the Hermes config was parsed twice (a pristine copy for the positions)."""
    from ruamel.yaml import YAML

    from toolsearch.sources.save_target import save_catalog_block

    calls: list[str] = []
    real_load, real_dump = YAML.load, YAML.dump
    monkeypatch.setattr(YAML, "load", lambda self, *a, **k: (calls.append("load"),
                                                             real_load(self, *a, **k))[1])
    monkeypatch.setattr(YAML, "dump", lambda self, *a, **k: (calls.append("dump"),
                                                             real_dump(self, *a, **k))[1])
    path, result = _save(tmp_path, HERMES_CONFIG, {"threshold_pct": 7})
    assert result.changed_keys == ("threshold_pct",)
    assert calls == ["load"], calls
    calls.clear()
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("name: c\ntool_search: {threshold_pct: 5}\ntoolsets: []\n")
    assert save_catalog_block(catalog, {"threshold_pct": 7}).changed_keys == ("threshold_pct",)
    assert calls == ["load"], calls
    assert catalog.read_text() == "name: c\ntool_search: {threshold_pct: 7}\ntoolsets: []\n"
    # a shape the splice does not take is still dumped in full, in the file's own indentation
    calls.clear()
    odd = tmp_path / "odd.yaml"
    odd.write_text("tools: {tool_search: {threshold_pct: 5}}\nmodel:\n    default: x\n")
    save_tool_search_block(odd, {"threshold_pct": 7})
    assert calls.count("dump") == 1, calls
    assert yaml.safe_load(odd.read_text()) == {"tools": {"tool_search": {"threshold_pct": 7}},
                                               "model": {"default": "x"}}
    assert "\n    default: x\n" in odd.read_text()


@pytest.mark.parametrize("where", ["hermes", "catalog"])
def test_a_file_changed_during_the_save_is_not_overwritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Another program (an editor, Hermes) writes the file while the save parses it, which
    takes seconds on a big file: the save used to write its rewrite of the old content over
    the new one (the new one only survived in the .bak). It is refused, nothing written."""
    import toolsearch.sources.save as save_module
    import toolsearch.sources.save_target as target_module

    if where == "hermes":
        path, text, module = tmp_path / "config.yaml", HERMES_CONFIG, save_module
        save = save_module.save_tool_search_block
    else:
        path, module = tmp_path / "catalog.yaml", target_module
        text = "name: c\ntool_search: {threshold_pct: 5}\ntoolsets: []\n"
        save = target_module.save_catalog_block
    path.write_text(text)
    edited = text + "# added by the editor\n"
    real = module._rt_yaml

    def parse_while_edited(source: str) -> object:
        result = real(source)
        path.write_text(edited)
        return result

    monkeypatch.setattr(module, "_rt_yaml", parse_while_edited)
    with pytest.raises(SourceError, match="changed while it was being saved .*nothing written"):
        save(path, {"threshold_pct": 7})
    assert path.read_text() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


@pytest.mark.parametrize("spelling", ["off", "no", "yes", "on", "false"])
@pytest.mark.parametrize("where", ["hermes", "catalog"])
def test_a_yaml_1_1_word_in_the_block_does_not_refuse_the_save(
        tmp_path: Path, spelling: str, where: str) -> None:
    """`enabled: off` is how people write it. PyYAML (Hermes' loader, and ours) reads it as
    False, ruamel as the word "off": the save compared the two readings, found them unequal
    and refused ("the rewrite would not keep every other key exactly as it was"). The key is
    now left as written and the other key's line alone changes."""
    from toolsearch.sources.save_target import save_catalog_block

    if where == "hermes":
        text = (f"model: x\ntools:\n  tool_search:\n    enabled: {spelling}   # for now\n"
                "    threshold_pct: 10\nmcp_servers: {}\n")
        path = tmp_path / "config.yaml"
        path.write_text(text)
        result = save_tool_search_block(path, {"threshold_pct": 5})
    else:
        text = (f"name: c\ntool_search:\n  enabled: {spelling}   # for now\n"
                "  threshold_pct: 10\ntoolsets: []\n")
        path = tmp_path / "catalog.yaml"
        path.write_text(text)
        result = save_catalog_block(path, {"threshold_pct": 5})
    assert result.changed_keys == ("threshold_pct",)
    assert path.read_text() == text.replace("threshold_pct: 10", "threshold_pct: 5")


def test_a_catalog_block_is_edited_in_place_not_dumped(tmp_path: Path) -> None:
    """A catalog whose top-level tool_search is a block mapping was dumped in full by ruamel:
    its long descriptions re-wrapped, its other lines rewritten. Now only the changed key's
    line changes and a new key is added under the block, comments kept."""
    from toolsearch.sources.save_target import save_catalog_block

    long = "word " * 40
    text = ("name: c\ntool_search:\n  listing_max_tokens: 3000  # keep\n"
            "  threshold_pct: 10\n# toolsets follow\ntoolsets:\n- name: s\n  kind: mcp\n"
            f"  tools:\n  - name: t\n    description: {long.strip()}\n      continued\n")
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    result = save_catalog_block(path, {"threshold_pct": 5, "max_search_limit": 7})
    assert result.changed_keys == ("threshold_pct", "max_search_limit")
    assert path.read_text() == text.replace(
        "  threshold_pct: 10\n", "  threshold_pct: 5\n  max_search_limit: 7\n")
