"""The command palette holds a command per server ("Servers: detach NAME"): a server's name
comes from a config key or a catalog, and Textual's palette reads a title or help given as
a string as markup. A server named ``[bold red]x`` showed a bold red ``x``, a ``[link=...]``
one a link, and an ESC or U+202E in the name reached the terminal. Every title and help now
shows the source's text as written, with those characters escaped."""

from __future__ import annotations

from textual.command import CommandList
from tui_helpers import settle

from toolsearch.toolsets import Toolset, ToolSpec, Workspace
from tui.app import ToolSearchApp

NAME = "[bold red]zq[/] [link=https://evil.example]go[/link] \x1b[5m\u202ebidi $var"
SHOWN = "[bold red]zq[/] [link=https://evil.example]go[/link] \\x1b[5m\\u202ebidi $var"
KIND = "[i]odd\x1b[2J"


def _lines(app: ToolSearchApp) -> list[tuple[str, list[object]]]:
    """Each drawn line of the palette's list: its text and the styles of its segments."""
    commands = app.screen.query_one(CommandList)
    return [(strip.text, [seg.style for seg in strip])
            for strip in (commands.render_line(y) for y in range(commands.size.height))]


def _check(lines: list[tuple[str, list[object]]]) -> None:
    text = "\n".join(line for line, _ in lines)
    assert f"Servers: detach {SHOWN}" in text, text
    assert "\\x1b[2J toolset, 1 tools" in text and "[i]odd" in text, text
    assert "\x1b" not in text and "\u202e" not in text
    for _, styles in lines:
        for style in styles:
            assert style is None or not style.link, style  # type: ignore[attr-defined]
            assert style is None or not style.italic, style  # type: ignore[attr-defined]


async def test_palette_shows_a_hostile_server_name_as_text() -> None:
    tool = ToolSpec("only", "d", {"type": "object"})
    workspace = Workspace(name="hostile", toolsets=(Toolset(NAME, KIND, (tool,)),))
    app = ToolSearchApp(workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"detach zq")  # a search: the hits' titles go through the matcher
        await settle(pilot)
        _check(_lines(app))
        commands = app.screen.query_one(CommandList)
        prompt = commands.get_option_at_index(0).prompt
        plain = getattr(prompt, "plain", str(prompt))
        assert plain.startswith(f"Servers: detach {SHOWN}"), plain
        # the query's letters are still marked, on the name as written
        spans = getattr(prompt, "spans", [])
        marked = {span.start for span in spans if span.end == span.start + 1}
        assert plain.index("zq") in marked, spans
        await pilot.press("enter")  # the command acts on the server's own name
        await settle(pilot)
        assert app.session is not None and NAME in app.session.detached


async def test_palette_discovery_shows_a_hostile_server_name_as_text() -> None:
    """The commands offered before anything is typed (discovery hits) are text too."""
    tool = ToolSpec("only", "d", {"type": "object"})
    workspace = Workspace(name="hostile", toolsets=(Toolset(NAME, KIND, (tool,)),))
    app = ToolSearchApp(workspace=workspace, exact_delay=0.0)
    async with app.run_test(size=(160, 80)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        commands = app.screen.query_one(CommandList)
        prompts = [commands.get_option_at_index(i).prompt
                   for i in range(commands.option_count)]
        plains = [getattr(p, "plain", str(p)) for p in prompts]
        ours = [p for p in plains if p.startswith("Servers: detach")]
        assert ours == [f"Servers: detach {SHOWN}\n[i]odd\\x1b[2J toolset, 1 tools"], plains
        for prompt in prompts:
            for span in getattr(prompt, "spans", []):
                style = span.style
                assert not isinstance(style, str) or "link" not in style, span
