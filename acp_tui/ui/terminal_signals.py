"""Write the app's own terminal signals (bell, desktop notification, window title) through
Textual's driver, the way :meth:`textual.app.App.bell` writes the bell: in the same stream as
the frames, so a sequence never lands in the middle of one.

Nothing is written by a headless app (tests) or in a browser (textual-serve); a test reads what
would have been written by setting :attr:`TerminalSignals.writer`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from textual.app import App

from acp_tui.text.osc import (
    TITLE_POP,
    TITLE_PUSH,
    DesktopProtocol,
    desktop_notification,
    window_title,
)
from acp_tui.ui.textual_patches import access

__all__ = ["TerminalSignals", "signals_of"]

_SIGNALS: weakref.WeakKeyDictionary[App[object], TerminalSignals] = weakref.WeakKeyDictionary()


def signals_of(app: App[object]) -> TerminalSignals:
    """The signals of ``app``: one per app, so every view writes the same title."""
    signals = _SIGNALS.get(app)
    if signals is None:
        signals = _SIGNALS[app] = TerminalSignals(app)
    return signals


class TerminalSignals:
    """One app's signals; the window title is written only when it changes, and the title the
    terminal had is restored by :meth:`restore_title`."""

    def __init__(self, app: App[object]) -> None:
        # Weakly: this object is the value of a WeakKeyDictionary keyed by the app, and a value
        # that held its key would keep every app (and all its widgets) alive for good.
        self._app = weakref.ref(app)
        #: Takes what would be written instead of the terminal (tests).
        self.writer: Callable[[str], None] | None = None
        self._title: str | None = None

    def _write(self, data: str) -> None:
        if not data:
            return
        if self.writer is not None:
            self.writer(data)
            return
        app = self._app()
        driver = access.driver(app)
        if app is None or driver is None or app.is_headless or app.is_web:
            return
        driver.write(data)

    def bell(self) -> None:
        self._write("\x07")

    def desktop(self, title: str, body: str, protocol: DesktopProtocol) -> None:
        if protocol != "off":
            self._write(desktop_notification(title, body, protocol))

    @property
    def title_written(self) -> bool:
        """Whether the app has set the window title (and will restore the terminal's)."""
        return self._title is not None

    def set_title(self, title: str) -> None:
        if title == self._title:
            return
        if self._title is None:
            self._write(TITLE_PUSH)
        self._title = title
        self._write(window_title(title))

    def restore_title(self) -> None:
        """Give the terminal its own title back (the app is leaving)."""
        if self._title is not None:
            self._title = None
            self._write(TITLE_POP)
