"""What a sessions sidebar row says about its session's live state (issue 19): a glyph on the
title line, a few words on the second line, and the component class that colours both.

The state itself is the store's (:func:`acp_tui.store.live_state`); this only words and styles
it, so every list of sessions (one agent's or several agents') draws it alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_tui.store import (
    LIVE_ERROR,
    LIVE_UNREAD,
    LIVE_WAITING,
    LIVE_WORKING,
    SessionState,
    live_state,
)
from acp_tui.text.relative_time import elapsed_text

__all__ = [
    "ATTENTION_GLYPH",
    "BUSY_GLYPH",
    "ERROR_GLYPH",
    "STATUS_COMPONENTS",
    "UNREAD_GLYPH",
    "RowStatus",
    "any_working",
    "row_status",
]

BUSY_GLYPH = "●"
ATTENTION_GLYPH = "▲"
UNREAD_GLYPH = "◆"
ERROR_GLYPH = "✗"


@dataclass(frozen=True, slots=True)
class RowStatus:
    glyph: str
    text: str
    #: The sidebar list's component class that colours it.
    component: str
    #: When the session last changed is worth saying after it (not while it runs or waits:
    #: that is now).
    with_time: bool = False


#: The component classes a list drawing these must declare (colours from theme variables).
STATUS_COMPONENTS = frozenset(
    {
        "sessions-list--busy",
        "sessions-list--attention",
        "sessions-list--unread",
        "sessions-list--failed",
    }
)

_WAITING = RowStatus(ATTENTION_GLYPH, "waiting for you", "sessions-list--attention")
_UNREAD = RowStatus(UNREAD_GLYPH, "done · unread", "sessions-list--unread", with_time=True)
_ERROR = RowStatus(ERROR_GLYPH, "error", "sessions-list--failed", with_time=True)


def row_status(session: SessionState, now: float) -> RowStatus | None:
    """The row's status at ``now`` (the store's clock: POSIX seconds), None when nothing is
    going on in the session."""
    live = live_state(session)
    if live == LIVE_WORKING:
        started = session.turn_started
        elapsed = f" {elapsed_text(now - started)}" if started is not None else ""
        return RowStatus(BUSY_GLYPH, f"working{elapsed}", "sessions-list--busy")
    if live == LIVE_WAITING:
        return _WAITING
    if live == LIVE_ERROR:
        return _ERROR
    if live == LIVE_UNREAD:
        return _UNREAD
    return None


def any_working(sessions: list[SessionState]) -> bool:
    """Whether a row shows a running clock (the list then redraws every second)."""
    return any(live_state(s) == LIVE_WORKING for s in sessions)
