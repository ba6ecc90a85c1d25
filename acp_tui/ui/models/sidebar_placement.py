"""Where the sessions sidebar stands: shown or hidden (by the person's choice or by the
terminal's width), what Ctrl+B does next, and which session opens when the one on screen
leaves the list."""

from __future__ import annotations

from typing import Literal

__all__ = ["SidebarPlacement", "SidebarStep", "neighbour"]


#: What Ctrl+B does: show the sidebar (and go there), go there, or hide it.
SidebarStep = Literal["show", "focus", "hide"]


class SidebarPlacement:
    """Whether the sidebar shows. The person's choice wins (Ctrl+B, or ``sidebar`` in the
    config): it is kept whatever the width. Without one, it shows from ``min_width``
    columns on, and gives way (and comes back) as the terminal crosses that width."""

    def __init__(self, configured: bool | None, min_width: int) -> None:
        #: Shown (True) or hidden (False) by the person; None: by the width.
        self.pinned = configured
        self.min_width = min_width
        self._width: int | None = None

    def at_start(self, width: int) -> bool:
        self._width = width
        return self.pinned if self.pinned is not None else width >= self.min_width

    def resized(self, width: int) -> bool | None:
        """The terminal is ``width`` wide now: True to show the sidebar, False to hide it,
        None to leave it (the person chose, or the width did not cross the line: a sidebar
        shown by ``--resume`` or ``/resume`` at 80 columns stays)."""
        before, self._width = self._width, width
        if self.pinned is not None or before is None:
            return None
        wide = width >= self.min_width
        return wide if wide != (before >= self.min_width) else None

    def step(self, shown: bool, focused_inside: bool) -> SidebarStep:
        """Ctrl+B, by what the person sees: hidden, it shows (and takes the focus); shown
        without the focus, it takes the focus; shown with the focus (drawn so), it hides.
        Showing or hiding is the person's choice from then on."""
        if not shown:
            self.pinned = True
            return "show"
        if not focused_inside:
            return "focus"
        self.pinned = False
        return "hide"


def neighbour(rows: list[str], session_id: str) -> str | None:
    """The session to show when ``session_id`` leaves the list (archived): the one below it,
    else the one above; None when it was the only one (or not listed)."""
    if session_id not in rows:
        return None
    index = rows.index(session_id)
    rest = rows[:index] + rows[index + 1 :]
    if not rest:
        return None
    return rest[min(index, len(rest) - 1)]
