"""Keys typed while acp-tui starts reach it as they were typed.

Until Textual takes the terminal (most of a second on a slow machine), the terminal is in its
cooked mode: the line discipline turns Enter ("\\r") into a line feed as it is typed, and
Textual reads that line feed as Ctrl+J, the prompt's new-line key. A message typed and sent
while the app started stayed in the prompt with a new line after it (OpenCode's tester, who
typed during OpenCode's slow start). So a TUI run, from its first moment, has the terminal keep
Enter as typed and stop echoing (the app shows what was typed). Textual notes the settings it
finds, to put them back when it suspends (an agent's sign-in runs in the terminal then) and
when it ends: :func:`install` gives it the terminal's own ones instead of the held ones (a
sign-in that reads a line never saw its Enter). They come back when the process ends too.

Only what is typed once the process runs is kept so: a key typed before that was already read
the cooked way. The settings Textual notes are its Linux driver's ``attrs_before``. Switch:
``early-keys`` (the command line asks the environment before the app exists).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakSet

if TYPE_CHECKING:  # imported by the command line before Textual is: nothing of it at run time
    from textual.app import App

__all__ = ["install", "keep_keys_as_typed"]

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


#: The apps whose driver gets the terminal's own settings back (see :func:`install`).
_apps: WeakSet[App[Any]] = WeakSet()


def install(app: App[Any]) -> None:
    """Each time ``app``'s driver takes the terminal (as the app starts, and as it comes back
    from a suspend) and notes the settings it found (ours, held), it gets the terminal's own
    instead, to restore when it suspends and when it ends. Textual's Linux driver's
    ``start_application_mode`` is wrapped once: other apps' drivers are as Textual made them."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # pragma: no cover - not a POSIX system: no such settings
        return
    _apps.add(app)
    textuals: Callable[[LinuxDriver], None] = LinuxDriver.start_application_mode
    if getattr(textuals, "_hands_back", False):
        return

    def start_application_mode(self: LinuxDriver) -> None:
        textuals(self)
        if self._app in _apps and _original is not None and self.attrs_before is not None:
            self.attrs_before = _original

    start_application_mode._hands_back = True  # type: ignore[attr-defined]
    LinuxDriver.start_application_mode = start_application_mode  # type: ignore[method-assign]


def _restore(descriptor: int, original: list[Any]) -> None:
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(descriptor, termios.TCSADRAIN, original)
