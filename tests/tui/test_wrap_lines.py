"""TextView's wrapping (positions in the line, not copies of its rest) wraps as the plain
loop it replaced: the same pieces for any text and width."""

from __future__ import annotations

import random

from tui.widgets.textview import wrap_lines


def _plain(text: str, width: int) -> list[str]:
    """The straightforward loop: cut at the last space that fits, hang the rest."""
    width = max(8, width)
    out = []
    for line in text.split("\n"):
        hang = " " * min(len(line) - len(line.lstrip(" ")) + 2, width // 2)
        while len(line) > width:
            start = len(hang) if line.startswith(hang) else 0
            cut = line.rfind(" ", start + 1, width + 1)
            if cut <= start:
                cut = width
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
            if line:
                line = hang + line
        out.append(line)
    return out


def test_wrapping_matches_the_plain_loop():
    rng = random.Random(7)
    words = ["a", "bc", " ", " ", "  ", "\n", "xyzxyzxyzxyz", "    ", "- name: x"]
    for _ in range(20_000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(0, 120)))
        width = rng.randint(1, 30)
        assert wrap_lines(text, width) == _plain(text, width), (text, width)


def test_a_long_line_of_names_wraps_under_its_indent():
    line = "  - server: " + ", ".join(f"tool_{i}" for i in range(400))
    lines = wrap_lines(line, 40)
    assert lines == _plain(line, 40)
    assert all(len(piece) <= 40 for piece in lines)
    assert all(piece.startswith("    ") for piece in lines[1:])
