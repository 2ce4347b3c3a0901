"""A frame draws the bands of the screen that changed, not the box around them.

Textual draws a partial frame by rendering every widget inside the smallest box that holds
all the changed regions: a change that touches the gauges at the top and a line of the table
below (`a` on Servers), or the gauges and two Tuning rows, renders the tab bar, the header and
every Tuning row between them too (a Tuning digit: ~70 widgets, about two thirds of a 13 ms
frame at 4,900 tools, while the lines it shows changed in 8 of them). Their lines are cached,
but each widget still costs its styles and background walk.

:class:`BandedCompositor` groups the changed regions into bands of lines that do not touch,
and renders each band's box on its own; the terminal gets exactly the same spans of exactly
the same lines as before (the lines outside the changed spans were never sent).

Textual 8.2.8 internals (``Compositor.render_partial_update``): re-check on an upgrade.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual._compositor import ChopsUpdate
from textual.geometry import Region
from textual.strip import Strip

from .occlusion import OccludingCompositor


def bands(regions: Iterable[Region]) -> list[Region]:
    """The regions merged into boxes whose line ranges neither overlap nor touch, top first."""
    out: list[Region] = []
    for region in sorted(regions, key=lambda r: r.y):
        if out and region.y <= out[-1].bottom:
            out[-1] = out[-1].union(region)
        else:
            out.append(region)
    return out


class BandedCompositor(OccludingCompositor):
    """A compositor whose partial frames render each band of changed lines on its own (and
    never what other widgets cover: tui/occlusion.py)."""

    def render_partial_update(self) -> ChopsUpdate | None:
        screen = self.size.region
        found = [band.intersection(screen) for band in bands(self._dirty_regions)]
        found = [band for band in found if band]
        if len(found) < 2:
            return super().render_partial_update()
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        spans = list(self._regions_to_spans(update_regions))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
        chops: list[Mapping[int, Strip | None]] = []
        for band in found:
            part = self._render_chops(band, is_rendered_line)
            if not chops:
                chops = list(part)
            else:
                chops[band.y:band.bottom] = part[band.y:band.bottom]
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)
