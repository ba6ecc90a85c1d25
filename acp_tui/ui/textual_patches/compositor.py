"""A compositor that does not draw what is hidden behind other widgets.

To paint a region, Textual's compositor asks every widget that overlaps it for its lines, front
to back, cuts each line where widgets' edges fall and keeps, for each piece, the first widget's
(the one in front). Containers come last and are almost always covered by their children
whole: the chat screen, its body, the main column, the sidebar, a reply's view behind its
Markdown. During a stream every frame repaints the transcript's rows, so each of those rows
was drawn and cut five or six times to keep one piece of it (a third of a frame's CPU on the
2-core development machine, where a frame in the way of a key decides how long it waits).

:class:`CoveredSkipping` asks a widget only for the rows where something is still uncovered
when its turn comes, and skips it when nothing is. What reaches the terminal is the same
(tests/ui/test_compositor.py compares both on real screens). It reimplements one private
method of Textual's ``Compositor`` (``_render_chops``, after Textual 8.2); where the installed
Textual lacks what it relies on, the screen keeps Textual's own. Switch: ``compositor``;
docs/upstream/compositor-covered-widgets.md proposes it to Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.geometry import Region
from textual.screen import Screen

try:  # Textual's private module: without it, screens keep Textual's own compositor.
    from textual._compositor import Compositor
except ImportError:  # pragma: no cover - depends on the Textual version
    Compositor = None  # type: ignore[assignment,misc]

if TYPE_CHECKING:
    from textual.strip import Strip

__all__ = ["CoveredSkipping", "covered_skipping", "install"]


if Compositor is not None:

    class CoveredSkipping(Compositor):
        """Textual's compositor, drawing only the rows of a widget still uncovered."""

        def _render_chops(
            self,
            crop: Region,
            is_rendered_line: Callable[[int], bool],
        ) -> Sequence[Mapping[int, Strip]]:
            cuts = self.cuts
            chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
            crop_overlaps = crop.overlaps
            intersection = Region.intersection
            crop_top, crop_bottom = crop.y, crop.bottom
            # Front to back: a piece already taken by a widget in front is never drawn again.
            for widget, (region, clip) in self.visible_widgets.items():
                if not crop_overlaps(clip):
                    continue
                render_region = intersection(region, clip)
                first_cut, last_cut = render_region.column_span
                top = max(render_region.y, crop_top)
                bottom = min(render_region.bottom, crop_bottom)
                open_rows: list[tuple[int, list[int]]] = []
                for y in range(top, bottom):
                    if not is_rendered_line(y):
                        continue
                    chops_line = chops[y]
                    final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                    if any(chops_line.get(cut) is None for cut in final_cuts[:-1]):
                        open_rows.append((y, final_cuts))
                if not open_rows:
                    continue  # covered where it would be drawn: never asked for its lines
                first_row, last_row = open_rows[0][0], open_rows[-1][0]
                strips = widget.render_lines(
                    Region(
                        render_region.x - region.x,
                        first_row - region.y,
                        render_region.width,
                        last_row - first_row + 1,
                    )
                )
                render_x = render_region.x
                for y, final_cuts in open_rows:
                    if y - first_row >= len(strips):
                        break
                    strip = strips[y - first_row]
                    chops_line = chops[y]
                    cut_strips = strip.divide([cut - render_x for cut in final_cuts[1:]])
                    for cut, piece in zip(final_cuts, cut_strips, strict=False):
                        if chops_line.get(cut) is None:
                            chops_line[cut] = piece
            return chops  # type: ignore[return-value]

else:  # pragma: no cover - depends on the Textual version
    CoveredSkipping = None  # type: ignore[assignment,misc]


def covered_skipping() -> Compositor | None:
    """A new :class:`CoveredSkipping`, or None where this Textual lacks what it needs."""
    if CoveredSkipping is None or not hasattr(Compositor, "visible_widgets"):
        return None
    return CoveredSkipping()


def install(screen: Screen[Any]) -> bool:
    """Give ``screen`` a :class:`CoveredSkipping` compositor (before it is laid out: from its
    ``__init__``); False where this Textual lacks what it needs."""
    compositor = covered_skipping()
    if compositor is None:
        return False
    screen._compositor = compositor
    return True
