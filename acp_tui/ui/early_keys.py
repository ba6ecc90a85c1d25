"""Keys typed while acp-tui starts reach it as they were typed.

Until Textual takes the terminal (most of a second on a slow machine), the terminal is in its
cooked mode: the line discipline turns Enter ("\\r") into a line feed as it is typed, and
Textual reads that line feed as Ctrl+J, the prompt's new-line key. A message typed and sent
while the app started stayed in the prompt with a new line after it (OpenCode's tester, who
typed during OpenCode's slow start). So a TUI run, from its first moment, has the terminal keep
Enter as typed and stop echoing (the app shows what was typed). Textual notes the settings it
finds, to put them back when it suspends (an agent's sign-in runs in the terminal then) and
when it ends: :func:`hand_back` gives it the terminal's own ones instead of the held ones (a
sign-in that reads a line never saw its Enter). They come back when the process ends too.

Only what is typed once the process runs is kept so: a key typed before that was already read
the cooked way.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import Any

__all__ = ["hand_back", "keep_keys_as_typed"]

#: The terminal's own settings, while they are held.
_original: list[Any] | None = None


def keep_keys_as_typed() -> None:
    """Enter stays Enter, nothing is echoed, until the process ends (a terminal on stdin
    only; elsewhere, and where terminals have no such settings, nothing happens)."""
    try:
        import termios
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    try:
        descriptor = sys.stdin.fileno()
        if not os.isatty(descriptor):
            return
        original = termios.tcgetattr(descriptor)
        mode = termios.tcgetattr(descriptor)
    except (OSError, ValueError, termios.error):
        return
    mode[0] &= ~termios.ICRNL  # input flags: Enter is not turned into a line feed
    mode[3] &= ~(termios.ICANON | termios.ECHO)  # local flags: no line editing, no echo
    try:
        # TCSANOW, not TCSAFLUSH: what was typed so far stays to be read.
        termios.tcsetattr(descriptor, termios.TCSANOW, mode)
    except termios.error:
        return
    global _original
    _original = original
    atexit.register(_restore, descriptor, original)


def hand_back(driver: object) -> None:
    """Textual's driver has taken the terminal and noted the settings it found (ours, held):
    it gets the terminal's own instead, to restore when it suspends and when it ends."""
    if _original is not None and getattr(driver, "attrs_before", None) is not None:
        driver.attrs_before = _original  # type: ignore[attr-defined]


def _restore(descriptor: int, original: list[Any]) -> None:
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(descriptor, termios.TCSADRAIN, original)
