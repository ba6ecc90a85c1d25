"""Widgets as tall as a reply of megabytes, at a cost that does not grow with their height.

A reply is one widget whose height is all its rows (a 50 MB reply is some 400,000 rows), in
containers as tall. Textual does two things per layout in proportion to that height, neither
needed to draw the forty rows on screen:

- every container files its children's regions in a grid of 20-row squares to find what is
  visible (``SpatialMap``): a 400,000-row reply is 20,000 squares per container per layout,
  most of a frame's time, so keystrokes waited behind it (issue 20);
- a widget whose size changes marks every one of its rows dirty in a set (``StylesCache``): a
  set of 400,000 integers per layout, 64 MB of the 50 MB reply's peak memory.

:func:`with_coarse_grid` files regions in squares sized to the arrangement instead (a bounded
number per child, however tall); :func:`lean_dirty_rows` keeps only the rows that matter dirty
(rows not drawn yet are drawn anyway). Both use Textual's own classes, with its own results:
only the bookkeeping is smaller. Where a Textual version lacks what they rely on, they step
aside, and so they do where the switch ``tall-widgets`` is off (the widget's app decides).
"""

from __future__ import annotations

from textual._spatial_map import SpatialMap
from textual.geometry import Region
from textual.layout import DockArrangeResult, WidgetPlacement
from textual.widget import Widget

from acp_tui.ui.textual_patches.switches import Switches, from_environment

try:  # Textual's private module: without it, widgets keep Textual's own cache.
    from textual._styles_cache import StylesCache
except ImportError:  # pragma: no cover - depends on the Textual version
    StylesCache = None  # type: ignore[assignment,misc]

__all__ = ["GRID_SQUARES", "coarse_spatial_map", "lean_dirty_rows", "with_coarse_grid"]

#: At most about this many grid squares per column of an arrangement, however tall.
GRID_SQUARES = 64
#: Textual's own square (columns, rows): kept for anything short enough.
_GRID_WIDTH, _MIN_GRID_HEIGHT = 100, 20


def coarse_spatial_map(placements: list[WidgetPlacement]) -> SpatialMap[WidgetPlacement]:
    """The spatial map Textual would build for ``placements``, with squares tall enough that
    the arrangement spans at most about :data:`GRID_SQUARES` of them."""
    bottom = 0
    for placement in placements:
        region = placement.region.grow(placement.margin) + placement.offset
        bottom = max(bottom, region.bottom)
    grid_height = max(_MIN_GRID_HEIGHT, -(-bottom // GRID_SQUARES))
    spatial_map: SpatialMap[WidgetPlacement] = SpatialMap(_GRID_WIDTH, grid_height)
    spatial_map.insert(
        (
            placement.region.grow(placement.margin),
            placement.offset,
            placement.fixed,
            placement.overlay,
            placement,
        )
        for placement in placements
    )
    return spatial_map


def _on(widget: Widget) -> bool:
    """Whether the patch is on for ``widget``'s app (the environment's switch, outside one)."""
    from acp_tui.ui.textual_patches import switches_of

    try:
        app = widget.app
    except Exception:  # a widget made outside an app
        switches: Switches = from_environment()
    else:
        switches = switches_of(app)
    return switches("tall-widgets")


def with_coarse_grid(widget: Widget, arrangement: DockArrangeResult) -> DockArrangeResult:
    """``arrangement`` with its spatial map built by :func:`coarse_spatial_map` (Textual builds
    it lazily on first use: this builds ours first). For a container's ``arrange``, as a
    function rather than a base class: a Widget base class placed before Textual's own would
    reset what they set up (a VerticalScroll would no longer take the focus)."""
    if getattr(arrangement, "_spatial_map", False) is None and _on(widget):
        arrangement._spatial_map = coarse_spatial_map(arrangement.placements)
    return arrangement


if StylesCache is not None:

    class _LeanStylesCache(StylesCache):
        """Textual's line cache, marking dirty only rows it holds: a row it does not hold is
        drawn when asked for anyway, so a tall widget that changed size no longer files every
        one of its rows in a set (the same rows are drawn, with less bookkeeping)."""

        def set_dirty(self, *regions: Region) -> None:
            if not regions:
                self.clear()
                return
            held = self._cache
            for region in regions:
                rows = region.line_range
                if len(rows) > len(held):
                    self._dirty_lines.update(y for y in held if y in rows)
                else:
                    self._dirty_lines.update(rows)


def lean_dirty_rows(widget: Widget) -> None:
    """Give ``widget`` a line cache that marks only the rows it holds dirty (call from
    ``__init__``, after Textual's)."""
    if StylesCache is None or not isinstance(getattr(widget, "_styles_cache", None), StylesCache):
        return
    if not _on(widget):
        return
    widget._styles_cache = _LeanStylesCache()
