"""Keys typed while acp-tui starts reach it as they were typed.

Until Textual takes the terminal (most of a second on a slow machine), the terminal is in its
cooked mode: the line discipline turns Enter ("\\r") into a line feed as it is typed, and
Textual reads that line feed as Ctrl+J, the prompt's new-line key. A message typed and sent
while the app started stayed in the prompt with a new line after it (OpenCode's tester, who
typed during OpenCode's slow start). So a TUI run, from its first moment, has the terminal keep
Enter as typed and stop echoing (the app shows what was typed); the terminal's own settings
come back when the process ends, after Textual has put back the ones it found.

Only what is typed once the process runs is kept so: a key typed before that was already read
the cooked way.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import Any

__all__ = ["keep_keys_as_typed"]


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
    atexit.register(_restore, descriptor, original)


def _restore(descriptor: int, original: list[Any]) -> None:
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(descriptor, termios.TCSADRAIN, original)
