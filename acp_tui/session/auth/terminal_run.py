"""A terminal sign-in's process, run in the person's terminal (the TUI has stepped aside:
acp_tui.ui.terminal_login suspends it and calls :func:`run_login`).

The agent's own command (plus the method's ``args`` and ``env``) runs as a shell runs a job:
in a process group of its own that is the terminal's foreground group while it runs, so it
reads the person's answers, and Ctrl-C (and Ctrl-\\) reaches it and everything it
started in its group, not acp-tui. The group's leader is a small Python process
(:data:`LEADER`) that takes the terminal for the group, runs the command, tells acp-tui of
each Ctrl-C through a pipe and exits with the command's status; acp-tui takes the terminal
back when the group is done.

Its processes are marked as an agent's are (:mod:`acp_tui.protocol.reaper`): what it leaves
running (a background job, a ``setsid`` daemon) does not outlive acp-tui. A sign-in that does
not stop within :data:`INTERRUPT_GRACE` seconds of a Ctrl-C is ended, with a message: its
whole group, then whatever else carries its mark.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from acp_tui.protocol import reaper
from acp_tui.services import children
from acp_tui.session.auth.methods import TerminalLogin
from acp_tui.text.safety import one_line

__all__ = ["INTERRUPT_GRACE", "LEADER", "NOT_STARTED", "run_login"]

#: Exit status when the command could not be started at all.
NOT_STARTED = 127
#: Seconds a sign-in has to end after Ctrl-C before acp-tui ends it (a program that handles
#: Ctrl-C itself, to clean up, has time to).
INTERRUPT_GRACE = 3.0
#: Seconds between asking it to end (SIGTERM) and killing it.
KILL_GRACE = 2.0
#: How often the wait looks at the clock.
POLL_SECONDS = 0.1
#: Process groups and job control (POSIX): the sign-in runs as a job of its own. Elsewhere
#: (Windows) the command runs as it is, and acp-tui's own Ctrl-C starts the grace.
JOBS = os.name == "posix"

#: The sign-in group's leader, ``python -I -S -c LEADER FD COMMAND...``: it makes its group
#: the terminal's foreground group (when it has a terminal), runs COMMAND in that group, writes
#: ``i`` to descriptor FD for each SIGINT (the terminal's Ctrl-C) and exits with COMMAND's
#: status (128 + N when a signal N ended it). Nothing here may stop (no shell would resume
#: it): Ctrl-Z does not stop the leader, and a stopped COMMAND is continued; Ctrl-\ ends the
#: command, not the leader before it. A COMMAND that
#: cannot be started: ``x`` and the errno on FD, exit 127.
LEADER = r"""
import os, signal, subprocess, sys
fd = int(sys.argv[1])
def note(signum, frame):
    try:
        os.write(fd, b"i")
    except OSError:
        pass
signal.signal(signal.SIGINT, note)
for tty in (0, 1, 2):
    if os.isatty(tty):
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(tty, os.getpgrp())
        except OSError:
            pass
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        break
for stop in (signal.SIGTSTP, signal.SIGQUIT):  # the command's to act on, not the leader's
    signal.signal(stop, lambda signum, frame: None)
try:
    command = subprocess.Popen(sys.argv[2:])
except OSError as error:
    os.write(fd, b"x%d" % (error.errno or 0))
    sys.exit(127)
while True:
    pid, status = os.waitpid(command.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        break
    os.killpg(0, signal.SIGCONT)
status = os.waitstatus_to_exitcode(status)
sys.exit(status if status >= 0 else 128 - status)
"""


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
    # Ctrl-C is the sign-in's: its group has the terminal, and its leader tells acp-tui of
    # each one (see _wait). A SIGINT acp-tui gets all the same (no terminal, or sent to it) is
    # noted the same way; a Python handler, not SIG_IGN, so no child starts ignoring it.
    interrupted: list[float] = []
    previous = signal.signal(
        signal.SIGINT, lambda signum, frame: interrupted.append(time.monotonic())
    )
    notes, note_fd = os.pipe()
    try:
        # Marked like an agent's processes: whatever it leaves behind (a background job, a
        # setsid daemon) is ended with it when acp-tui ends it, and at acp-tui's exit.
        reaper.enable()
        tag = reaper.new_tag("sign-in")
        with _terminal_handed_back():
            try:
                if JOBS:
                    process = children.popen(
                        [sys.executable, "-I", "-S", "-c", LEADER, str(note_fd), *login.argv],
                        cwd=login.cwd,
                        env=reaper.child_env(tag, login.env_overrides),
                        process_group=0,
                        pass_fds=(note_fd,),
                    )
                else:  # no process groups or job control: the command itself
                    process = children.popen(
                        login.argv,
                        cwd=login.cwd,
                        env=reaper.child_env(tag, login.env_overrides),
                    )
            except OSError as error:
                write(f"\nacp-tui: could not run the sign-in: {error}\n")
                status = NOT_STARTED
            else:
                os.close(note_fd)
                note_fd = -1
                try:
                    status = _wait(process, notes, interrupted, grace, write)
                finally:
                    children.release(process)
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
        for fd in (notes, note_fd):
            if fd >= 0:
                os.close(fd)
    return status


@contextlib.contextmanager
def _terminal_handed_back() -> Iterator[None]:
    """Around the sign-in: when acp-tui's group has the terminal now, it has it again after
    (the sign-in's group took it). Asked from the background, so SIGTTOU is ignored."""
    if not JOBS:
        yield
        return
    tty = next((fd for fd in (0, 1, 2) if os.isatty(fd)), None)
    own = os.getpgrp()
    try:
        ours = tty is not None and os.tcgetpgrp(tty) == own
    except OSError:
        ours = False
    try:
        yield
    finally:
        if ours and tty is not None:
            previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            try:
                os.tcsetpgrp(tty, own)
            except OSError:
                pass
            finally:
                signal.signal(signal.SIGTTOU, previous)


def _wait(
    process: children.Process,
    notes: int,
    interrupted: list[float],
    grace: float,
    write: Callable[[str], Any],
) -> int:
    """The sign-in's exit status. After Ctrl-C it has ``grace`` seconds to end; then its
    group is told to (SIGTERM) with a message, and killed :data:`KILL_GRACE` seconds later.
    ``notes``: the leader's pipe (a Ctrl-C each ``i``; ``x`` and an errno: not started)."""
    if JOBS:
        os.set_blocking(notes, False)
    said = b""
    noted = 0
    terminated_at: float | None = None
    while True:
        try:
            status = process.wait(timeout=POLL_SECONDS)
        except subprocess.TimeoutExpired:
            status = None
        said += _read_all(notes) if JOBS else b""
        now = time.monotonic()
        presses = said.count(b"i")
        interrupted.extend([now] * (presses - noted))
        noted = presses
        if status is not None:
            if status == NOT_STARTED and b"x" in said:
                code = said.split(b"x", 1)[1].decode("ascii", "replace")
                reason = os.strerror(int(code)) if code.isdigit() else "unknown error"
                write(f"\nacp-tui: could not run the sign-in: {one_line(reason, 200)}\n")
            return status if status >= 0 else 128 - status
        if terminated_at is None and interrupted and now - interrupted[0] >= grace:
            write(
                f"\nacp-tui: the sign-in did not stop {grace:g} s after Ctrl-C; acp-tui ends it.\n"
            )
            _signal_group(process, signal.SIGTERM)
            terminated_at = now
        elif terminated_at is not None and now - terminated_at >= KILL_GRACE:
            _signal_group(process, signal.SIGKILL)


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 256)
        except BlockingIOError:
            break
        except OSError as error:
            if error.errno == errno.EINTR:
                continue
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _signal_group(process: children.Process, signum: int) -> None:
    """``signum`` to the sign-in's whole group (its leader is ``process``)."""
    try:
        if not JOBS:
            raise ProcessLookupError
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)
