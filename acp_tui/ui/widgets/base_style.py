"""A widget's base style, computed once per style change rather than once per line drawn.

``Widget.rich_style`` walks every ancestor to combine their colours and text styles: a third
of drawing a sidebar row, and asked for every line of a reply. It changes only when styles do
(Textual calls ``notify_style_update`` then), so it is kept until the next such call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object

__all__ = ["CachedBaseStyle"]


class CachedBaseStyle(_Base):
    """Mixin for a widget that draws its own lines: :attr:`base_style` is its ``rich_style``,
    kept between style updates."""

    _base_style: Style | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None

    @property
    def base_style(self) -> Style:
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        return base
