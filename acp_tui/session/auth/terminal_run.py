"""A terminal sign-in's process, run in the person's terminal (the TUI has stepped aside:
acp_tui.ui.terminal_login suspends it and calls :func:`run_login`).

The agent's own command (plus the method's ``args`` and ``env``) runs in the foreground and
shares acp-tui's process group, which owns the terminal, so it reads the person's answers.
Its processes are marked as an agent's are (:mod:`acp_tui.protocol.reaper`): what it leaves
running (a background job, a ``setsid`` daemon) does not outlive acp-tui. Ctrl-C is the
sign-in's: acp-tui only notes it, and one that does not stop within :data:`INTERRUPT_GRACE`
seconds of it is ended, with a message, and what it started with it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from acp_tui.protocol import reaper
from acp_tui.session.auth.methods import TerminalLogin
from acp_tui.text.safety import one_line

__all__ = ["INTERRUPT_GRACE", "NOT_STARTED", "run_login"]

#: Exit status when the command could not be started at all.
NOT_STARTED = 127
#: Seconds a sign-in has to end after Ctrl-C before acp-tui ends it (a program that handles
#: Ctrl-C itself, to clean up, has time to).
INTERRUPT_GRACE = 3.0
#: Seconds between asking it to end (SIGTERM) and killing it.
KILL_GRACE = 2.0
#: How often the wait looks at the clock.
POLL_SECONDS = 0.1


def run_login(
    login: TerminalLogin,
    agent_name: str,
    write: Callable[[str], Any],
    *,
    grace: float = INTERRUPT_GRACE,
) -> int:
    # Written to the real terminal (the TUI is suspended): every agent string is one line of
    # printable text here, the command's words are spelt by shell_word.
    write(
        f"\nacp-tui: {one_line(agent_name, 80)} asks you to sign in here "
        f"({one_line(login.method.label, 80)}).\n"
        f"Running: {login.command_line()}\n\n"
    )
    # Ctrl-C belongs to the sign-in (it shares acp-tui's process group, which owns the
    # terminal): acp-tui only notes it, and ends a sign-in that ignores it (see _wait). A
    # Python handler, not SIG_IGN, so that the child starts with the default action.
    interrupted: list[float] = []
    previous = signal.signal(
        signal.SIGINT, lambda signum, frame: interrupted.append(time.monotonic())
    )
    try:
        # Marked like an agent's processes: whatever it leaves behind (a background job, a
        # setsid daemon) is ended with it when acp-tui ends it, and at acp-tui's exit.
        reaper.enable()
        tag = reaper.new_tag("sign-in")
        try:
            with reaper.spawning():
                process = subprocess.Popen(
                    login.argv, cwd=login.cwd, env=reaper.child_env(tag, login.env_overrides)
                )
                reaper.register(process.pid)
        except OSError as error:
            write(f"\nacp-tui: could not run the sign-in: {error}\n")
            status = NOT_STARTED
        else:
            try:
                status = _wait(process, interrupted, grace, write)
            finally:
                reaper.unregister(process.pid)
            if interrupted:
                reaper.sweep(tag)  # stopped by the person: nothing of it goes on
        if status != 0:
            write(f"\nacp-tui: the sign-in ended with status {status}. Press Enter to go back. ")
            try:
                sys.stdin.readline()
            except (OSError, ValueError, KeyboardInterrupt):
                pass
    finally:
        signal.signal(signal.SIGINT, previous)
    return status


def _wait(
    process: subprocess.Popen[bytes],
    interrupted: list[float],
    grace: float,
    write: Callable[[str], Any],
) -> int:
    """The sign-in's exit status. After Ctrl-C it has ``grace`` seconds to end; then it is
    told to (SIGTERM) with a message, and killed :data:`KILL_GRACE` seconds later."""
    terminated_at: float | None = None
    while True:
        try:
            return process.wait(timeout=POLL_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if terminated_at is None and interrupted and now - interrupted[0] >= grace:
            write(
                f"\nacp-tui: the sign-in did not stop {grace:g} s after Ctrl-C; acp-tui ends it.\n"
            )
            process.terminate()
            terminated_at = now
        elif terminated_at is not None and now - terminated_at >= KILL_GRACE:
            process.kill()
