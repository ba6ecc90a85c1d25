"""The base of a transcript entry's view, and the helpers every view uses to show agent text
inert (:func:`safe`, :func:`pretty_json`) and fold (:data:`FOLD_CLOSED`). Kept apart from
:mod:`acp_tui.ui.widgets.transcript` so that views in modules of their own (a subagent's
card) build on it."""

from __future__ import annotations

import json
import logging
from typing import Any

from textual.css.query import NoMatches
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from acp_tui.store.entries import Entry
from acp_tui.text.safety import sanitize_terminal_text, truncate
from acp_tui.ui.textual_patches import access
from acp_tui.ui.textual_patches.tall import lean_dirty_rows, with_coarse_grid

__all__ = [
    "FOLD_CLOSED",
    "FOLD_OPEN",
    "RAW_LIMIT",
    "TITLE_LIMIT",
    "EntryView",
    "pretty_json",
    "safe",
]

log = logging.getLogger(__name__)

RAW_LIMIT = 20_000
#: A fold's marks: Textual's own (▶, ▼) is an emoji some terminals draw two cells wide.
FOLD_CLOSED, FOLD_OPEN = "▸", "▾"
TITLE_LIMIT = 500


def safe(text: Any, limit: int | None = None) -> str:
    """Agent text made inert for the terminal, optionally cut with an ellipsis."""
    value = sanitize_terminal_text(text if isinstance(text, str) else str(text))
    return value if limit is None else truncate(value, limit)


def pretty_json(value: Any, limit: int = RAW_LIMIT) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:  # JSON the reader could parse may be too deep to print again
        text = "(too deeply nested to show)"
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
    return safe(text)


class EntryView(Widget):
    """Base: a view of one store entry that redraws when the entry's version moves. As tall as
    its entry (a reply of megabytes): see :mod:`~acp_tui.ui.textual_patches.tall`."""

    DEFAULT_CSS = """
    EntryView { height: auto; }
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes=f"entry -{entry.kind.replace('_', '-')}")
        lean_dirty_rows(self)
        self.entry = entry
        self.drawn_version = -1

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        return with_coarse_grid(self, super().arrange(size, optimal))

    async def sync(self, entry: Entry) -> None:
        """Bring the view up to date with ``entry`` (the same object, or its replacement).

        A view draws into the children it composed. One asked before they exist (its mount
        was skipped because the transcript is being removed) or after they are gone (removed
        while a redraw awaited) has nothing to draw into: it keeps the entry and draws it
        when it mounts, if it ever does."""
        self.entry = entry
        if entry.version == self.drawn_version:
            return
        if not self._can_draw():
            self._draw_on_mount = True
            return
        self.drawn_version = entry.version
        try:
            await self.redraw()
        except NoMatches:
            if self._can_draw():
                raise
            self.drawn_version = -1

    _draw_on_mount = False

    def _can_draw(self) -> bool:
        return self.is_mounted and self.is_attached and not access.closing(self)

    def on_mount(self) -> None:
        if self._draw_on_mount:
            self._draw_on_mount = False
            self.call_after_refresh(self._draw_late)

    async def _draw_late(self) -> None:
        try:
            await self.sync(self.entry)
        except Exception:  # as _sync_each: a view that cannot draw never stops the app
            log.exception("drawing a transcript entry failed")

    async def redraw(self) -> None:
        raise NotImplementedError
