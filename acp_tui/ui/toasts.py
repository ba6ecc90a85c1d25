"""Toasts stay short: one or two lines, so they never stand in front of what they are about
for long. Whatever needs more room goes in the transcript or a panel; a toast only points at it.
"""

from __future__ import annotations

from acp_tui.text.safety import sanitize_terminal_text, truncate

__all__ = ["TOAST_CHARS", "TOAST_LINES", "toast_text"]

#: At most this many lines of text in a toast...
TOAST_LINES = 2
#: ...and this many characters in all (a toast is about 56 cells wide).
TOAST_CHARS = 100


def toast_text(message: str) -> str:
    """``message`` made inert and cut to :data:`TOAST_LINES` lines and :data:`TOAST_CHARS`
    characters, with an ellipsis where it was cut. Blank lines are dropped."""
    lines = [line.strip() for line in sanitize_terminal_text(message).splitlines()]
    lines = [line for line in lines if line]
    kept = lines[:TOAST_LINES]
    text = "\n".join(kept)
    cut = len(lines) > TOAST_LINES
    if len(text) > TOAST_CHARS:
        return truncate(text, TOAST_CHARS)
    return text + "…" if cut else text
