"""A frame renders only the lines of a widget that are not hidden behind the widgets above it.

Textual composes a frame front to back, and the first widget to reach a cell of a line wins;
but it asks *every* widget in the updated box for all its lines first, including the
containers that their children cover completely (the tab set, its content switcher, the tab
pane, the pane around a table: 4-6 widgets, 25-30 lines each, re-rendered after a tab switch
because their caches were cleared when they were hidden). Their lines are then thrown away.

:class:`OccludingCompositor` fills the same cells from the same widgets in the same order,
but asks a widget only for the lines on which one of its cells is still empty, in runs of
consecutive lines. A frame sends exactly what Textual's own frame sends (a test compares
them); a covered container is simply not rendered.

Textual 8.2.8 internals (``Compositor._render_chops``, ``cuts``, ``visible_widgets``):
re-check on an upgrade.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class OccludingCompositor(Compositor):
    """A compositor that does not render what the widgets above would cover."""

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]
                      ) -> Sequence[Mapping[int, Strip]]:
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        crop_top, crop_bottom = crop.y, crop.bottom
        for widget, (region, clip) in self.visible_widgets.items():  # front to back
            if not crop_overlaps(clip):
                continue
            x, y, width, height = region.intersection(clip)
            if not (width and height):
                continue
            end = x + width
            wanted: list[tuple[int, list[int]]] = []  # (line, cuts across the widget)
            for line_y in range(max(y, crop_top), min(y + height, crop_bottom)):
                if not is_rendered_line(line_y):
                    continue
                line = chops[line_y]
                across = [cut for cut in cuts[line_y] if end >= cut >= x]
                if any(line.get(cut, 0) is None for cut in across[:-1]):
                    wanted.append((line_y, across))
            start = 0
            while start < len(wanted):
                stop = start + 1
                while stop < len(wanted) and wanted[stop][0] == wanted[stop - 1][0] + 1:
                    stop += 1
                first = wanted[start][0]
                strips = widget.render_lines(
                    Region(x - region.x, first - region.y, width, stop - start))
                for (line_y, across), strip in zip(wanted[start:stop], strips, strict=False):
                    line = chops[line_y]
                    pieces = strip.divide([c - x for c in across[1:]])  # one fewer than cuts
                    for cut, piece in zip(across, pieces, strict=False):
                        if line.get(cut, 0) is None:
                            line[cut] = piece
                start = stop
        return chops  # type: ignore[return-value]
