"""SIGTERM and SIGHUP end acp-tui, even while it is busy.

A signal handler given to the event loop (``loop.add_signal_handler``) runs only when the loop
is free: an app whose loop some long work held never heard its terminal close, and went on
burning CPU, agents and all, with nobody to see it. Here the signals are heard by a thread of
their own: the interpreter writes each signal's number to a pipe the moment it arrives
(``signal.set_wakeup_fd``, in C, whatever the main thread is doing), and the thread reading
that pipe

1. asks the app to quit as Ctrl+Q does (its callback, on the loop: the agents are stopped,
   the terminal given back), and
2. if the app has not ended :data:`QUIT_GRACE` seconds later, or at a second signal, ends the
   process itself: every process started for an agent is killed (the reaper's sweep, and their
   process groups), the terminal, if it is still there, is given back its normal modes, and
   the process exits with 128 + the signal's number.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from acp_tui.session.workspace.workspace import kill_every_agent

__all__ = ["QUIT_GRACE", "SIGNALS", "TerminationWatch", "terminal_modes"]

#: What ends acp-tui: a termination request, the terminal's hang-up.
SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: Seconds an orderly quit may take before the process is ended without it (stopping agents
#: takes a grace each, at the same time).
QUIT_GRACE = 6.0
#: What gives a terminal its normal modes back: mouse reporting, bracketed paste and focus
#: events off, line wrap on, the keyboard protocol popped, the alternate screen left, the
#: cursor shown (what Textual's driver writes when it stops).
RESTORE_TERMINAL = (
    b"\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?7h\x1b[?2048l"
    b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l"
)


def terminal_modes() -> tuple[int, list[Any]] | None:
    """The terminal's settings now (before the app takes it), to give back at a forced exit:
    its file descriptor and ``termios`` attributes; None without a terminal."""
    try:
        import termios
    except ImportError:  # not a POSIX system
        return None
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError, termios.error):
            if os.isatty(fd):
                return fd, termios.tcgetattr(fd)
    return None


class TerminationWatch:
    """Hears SIGTERM and SIGHUP for one running app (see the module docstring)."""

    def __init__(
        self,
        quit_app: Callable[[int], None],
        *,
        modes: tuple[int, list[Any]] | None = None,
        grace: float = QUIT_GRACE,
    ) -> None:
        #: Called on the loop (through ``call_soon``) with the signal's number.
        self.quit_app = quit_app
        self.modes = modes
        self.grace = grace
        self._loop: Any = None
        self._read_fd = -1
        self._write_fd = -1
        self._previous: dict[int, Any] = {}
        self._previous_wakeup = -1
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def install(self, loop: Any) -> bool:
        """Start hearing the signals for the app running on ``loop`` (in the main thread).
        False where the platform cannot (the loop's own handlers stay the way)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._loop = loop
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        try:
            self._previous_wakeup = signal.set_wakeup_fd(self._write_fd, warn_on_full_buffer=False)
            for number in SIGNALS:
                # The wakeup byte is written only for a signal with a Python handler: this one
                # does nothing (the thread does it all), whatever the main thread is doing.
                self._previous[number] = signal.signal(number, _heard)
        except (ValueError, OSError):
            self._close_pipe()
            return False
        self._thread = threading.Thread(target=self._watch, name="acp-tui-signals", daemon=True)
        self._thread.start()
        return True

    def finished(self) -> None:
        """The app has ended (in order): no forced exit from now on; the signals go back to
        what they were."""
        self._done.set()
        if self._write_fd < 0:
            return
        for number, handler in self._previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(number, handler)
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(self._previous_wakeup)
        self._close_pipe()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)

    def _close_pipe(self) -> None:
        for fd in (self._write_fd, self._read_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._read_fd = self._write_fd = -1

    def _watch(self) -> None:
        """The thread: wait for a signal, ask for the quit, then for the end or the grace."""
        read_fd = self._read_fd
        deadline: float | None = None
        first = 0
        while not self._done.is_set():
            timeout = None if deadline is None else max(0.0, deadline - _now())
            try:
                ready, _, _ = select.select([read_fd], [], [], timeout)
                data = os.read(read_fd, 64) if ready else b""
            except (OSError, ValueError):
                return  # the pipe was closed: the app has ended
            if ready and not data:
                return
            for number in data:
                if number not in SIGNALS:
                    continue  # another signal with a Python handler (a resize)
                if first:
                    self._end_now(first)  # a second one: at once
                first = number
                self._ask_to_quit(number)
                deadline = _now() + self.grace
            if deadline is not None and _now() >= deadline:
                self._end_now(first)

    def _ask_to_quit(self, number: int) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app has ended
            self._loop.call_soon_threadsafe(self.quit_app, number)

    def _end_now(self, number: int) -> None:
        """The process ends without the app: its agents killed, the terminal given back."""
        if self._done.is_set():
            return
        with contextlib.suppress(Exception):
            kill_every_agent()
        if self.modes is not None:
            _give_back(*self.modes)
        os._exit(128 + int(number))


def _heard(number: int, frame: FrameType | None) -> None:
    """The Python-level handler: nothing (see :meth:`TerminationWatch.install`)."""


def _now() -> float:
    return time.monotonic()


def _give_back(fd: int, attributes: list[Any]) -> None:
    """The terminal's modes as they were before the app, if it is still there."""
    try:
        os.write(fd, b"")
    except OSError:
        return  # gone (the hang-up): nothing to give back
    with contextlib.suppress(Exception):
        os.write(fd, RESTORE_TERMINAL)
    with contextlib.suppress(Exception):
        import termios

        termios.tcsetattr(fd, termios.TCSANOW, attributes)
