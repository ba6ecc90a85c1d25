"""Textual's driver (the terminal's input and output threads), patched in two ways.

**Keys heard in the input thread** (switch ``input-thread``). A key reaches the app through
Textual's input thread, then the app's message queue, turns of the loop later: during a flood
those turns are the agents' readers and the transcript's steps (15-60 ms of them ahead of a key
during three floods at once). The app learns of each key as the thread reads it
(``key_read``, called in that thread: it may only stamp a time), so that no whole frame starts
and background work gives way meanwhile. What the key does is still decided on the loop.
Textual's ``Driver.process_message`` (run in that thread for every event it reads) is wrapped
once per process: a driver whose app asked for nothing is as Textual made it.

**A terminal that is gone** (switch ``dead-terminal``). When the terminal goes (tmux killed,
the window closed), Textual's writer thread dies at its first write, and once 30 frames wait
for it every later write blocks for good: the app stayed alive, agents and all, with nobody to
see it. :func:`write_nothing_more` drops what would be written, so that a quit goes through and
stops the agents; :func:`terminal_answers` tells whether the terminal is still there. Both use
the driver's private output file and writer thread. And a hang-up sends SIGCONT with its
SIGHUP, on which Textual's driver starts application mode again (as after Ctrl+Z) even when
nothing stopped it: during a quit that left a new input thread spinning on the dead terminal
and a new writer, and the process never ended (some 30 were left after a CI run).
:func:`resume_only_after_stop` has the driver resume only when Ctrl+Z stopped it. A driver
whose app asked for neither is as Textual made it. docs/upstream/dead-terminal-writer.md
proposes the fixes to Textual.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from types import MethodType
from typing import Any
from weakref import WeakKeyDictionary, WeakMethod, WeakSet

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.message import Message

from acp_tui.ui.textual_patches.access import driver as driver_of

__all__ = ["hear_keys", "resume_only_after_stop", "terminal_answers", "write_nothing_more"]

KeyRead = Callable[[events.Key], None]

#: What each app asked to hear of the keys its driver reads, each behind a call that gives it
#: back (None once gone): a listener is often a method of its app, and a value that held its
#: key would keep the app alive forever.
_listeners: WeakKeyDictionary[App[Any], Callable[[], KeyRead | None]] = WeakKeyDictionary()
#: The apps whose driver resumes on SIGCONT only after a Ctrl+Z (:func:`resume_only_after_stop`).
_resume_only_after_stop: WeakSet[App[Any]] = WeakSet()


def hear_keys(app: App[Any], key_read: KeyRead) -> None:
    """Call ``key_read`` with each key ``app``'s driver reads, in the driver's input thread,
    before the key is posted to the app. A bound method is held weakly; any other callable
    must not refer to ``app`` (it would keep it alive)."""
    _wrap_process_message()
    _listeners[app] = WeakMethod(key_read) if isinstance(key_read, MethodType) else lambda: key_read


def _wrap_process_message() -> None:
    textuals: Callable[[Driver, Message], None] = Driver.process_message
    if getattr(textuals, "_heard", False):
        return

    def process_message(self: Driver, message: Message) -> None:  # in the input thread
        if isinstance(message, events.Key):
            held = _listeners.get(self._app)
            listener = held() if held is not None else None
            if listener is not None:
                with contextlib.suppress(Exception):  # never in the way of the key itself
                    listener(message)
        textuals(self, message)

    process_message._heard = True  # type: ignore[attr-defined]
    Driver.process_message = process_message  # type: ignore[method-assign]


def terminal_answers(app: App[Any]) -> bool:
    """Whether ``app``'s terminal is still there (a hang-up closes it; a SIGTERM may come
    after the terminal went, or with it still there)."""
    output = getattr(driver_of(app), "_file", None)
    try:
        os.write(output.fileno(), b"")  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        return False
    return True


def write_nothing_more(app: App[Any]) -> None:
    """The terminal is gone: what ``app`` would write is dropped (see the module docstring)."""
    writer = getattr(driver_of(app), "_writer_thread", None)
    if writer is not None:
        writer.write = lambda text: None
        writer.stop = lambda: None


def resume_only_after_stop(app: App[Any]) -> None:
    """``app``'s driver starts application mode again on SIGCONT only when a Ctrl+Z stopped
    it (Textual's ``_must_signal_resume``), not on the SIGCONT a hang-up sends, nor one sent
    while the app is quitting or has handed the terminal to an editor. Call before the app
    runs: the driver's handler is bound as the driver is made."""
    _wrap_sigcont()
    _resume_only_after_stop.add(app)


def _wrap_sigcont() -> None:
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no POSIX terminal here (Windows): no SIGCONT either
        return
    textuals: Callable[..., None] = LinuxDriver._sigcont_application
    if getattr(textuals, "_after_stop", False):
        return

    def _sigcont_application(self: Any, *args: Any) -> None:
        if self._app in _resume_only_after_stop and not self._must_signal_resume:
            return  # not stopped by a Ctrl+Z: nothing to resume
        textuals(self, *args)

    _sigcont_application._after_stop = True  # type: ignore[attr-defined]
    LinuxDriver._sigcont_application = _sigcont_application  # type: ignore[method-assign]
