"""Your status line, under the prompt's bar: the built-in items chosen in the config
(``status_items``) and the line your ``status_command`` printed, on one row cut with an
ellipsis. Takes no room when nothing is configured.

Everything in it is data (the agent's names, a path, the command's output): drawn from plain
strings as :class:`~textual.content.Content`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from acp_tui.text.safety import one_line

__all__ = ["ITEM_SEPARATOR", "OwnStatusLine"]

#: Between two items, and between the items and the command's line.
ITEM_SEPARATOR = " · "


class OwnStatusLine(Static):
    """One row: the items (muted), then the command's line (in the text colour), or a short
    note of why the command gave none (dim)."""

    DEFAULT_CSS = """
    OwnStatusLine {
        display: none;
        height: 1;
        width: 1fr;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    OwnStatusLine.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""

    def set_shown(self, shown: bool) -> None:
        self.set_class(shown, "-shown")

    def show(self, items: Sequence[str], line: str = "", problem: str | None = None) -> None:
        """Draw ``items`` (labels, already safe), then the command's ``line`` or its
        ``problem``."""
        pieces: list[str | tuple[str, str]] = []
        for item in items:
            if pieces:
                pieces.append(ITEM_SEPARATOR)
            pieces.append(item)
        tail: tuple[str, str] | None = None
        if line:
            tail = (one_line(line, 400), "$text")
        elif problem:
            tail = (f"status command: {one_line(problem, 80)}", "$text-muted italic")
        if tail is not None:
            if pieces:
                pieces.append(ITEM_SEPARATOR)
            pieces.append(tail)
        content = Content.assemble(*pieces)
        if content.plain != self.plain:
            self.plain = content.plain
            self.update(content)
