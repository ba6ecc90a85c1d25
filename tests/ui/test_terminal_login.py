"""A terminal sign-in runs as the agent's own processes do (issue 36): Ctrl-C is the sign-in's,
and one that ignores it is ended after a grace period with a message (it could be left only
by killing acp-tui); what it leaves behind (a background job, a ``setsid`` daemon) is marked
and ended with it. Real processes, run the way the suspended TUI runs them."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from acp_tui.protocol import reaper
from acp_tui.session.auth import terminal_run
from acp_tui.session.auth.methods import TerminalLogin, parse_auth_methods

#: A sign-in that ignores Ctrl-C, leaves a background job and a setsid daemon behind (their
#: pids written to the file named by its first argument), then waits for a minute.
STUBBORN = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
job = subprocess.Popen(["sleep", "300"])
daemon = subprocess.Popen(["sleep", "301"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{job.pid} {daemon.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
"""


def stubborn_login(tmp_path: Path) -> tuple[TerminalLogin, Path]:
    pids = tmp_path / "pids"
    (method,) = parse_auth_methods([{"id": "t", "type": "terminal", "name": "Stubborn"}])
    login = TerminalLogin.of(method, [sys.executable, "-c", STUBBORN, str(pids)], str(tmp_path))
    return login, pids


def ctrl_c_when(ready: Path) -> threading.Thread:
    """Ctrl-C at the terminal once the sign-in is ready: SIGINT to acp-tui (this process; the
    terminal sends it to the sign-in too, which ignores it here)."""

    def press() -> None:
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if ready.exists():  # else run_login is over: a SIGINT would interrupt pytest itself
            os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            state = file.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


@pytest.mark.skipif(not reaper.supported(), reason="marking and sweeping need Linux's /proc")
@pytest.mark.parametrize("jobs", [True, False], ids=["a job of its own", "no job control"])
def test_a_sign_in_that_ignores_ctrl_c_is_ended_with_what_it_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: bool
) -> None:
    """Also where there is no job control (Windows): the command run as it is."""
    monkeypatch.setattr(terminal_run, "JOBS", jobs)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))  # "Press Enter to go back"
    login, pids = stubborn_login(tmp_path)
    written: list[str] = []
    presser = ctrl_c_when(pids)
    started = time.monotonic()
    status = terminal_run.run_login(login, "Agent", written.append, grace=0.5)
    took = time.monotonic() - started
    presser.join(5)
    text = "".join(written)
    assert status != 0
    assert "did not stop 0.5 s after Ctrl-C; acp-tui ends it" in text, text
    assert f"ended with status {status}" in text
    assert took < 20  # the grace and the kill, not the sign-in's minute
    job, daemon = (int(word) for word in pids.read_text().split())
    deadline = time.monotonic() + 10
    while (alive(job) or alive(daemon)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(job) and not alive(daemon), "left behind by the sign-in"


@pytest.mark.skipif(not reaper.supported(), reason="marking needs Linux's /proc")
def test_a_sign_in_is_marked_as_an_agent_process_is(tmp_path: Path) -> None:
    """Marked, its leftovers end with acp-tui (the exit sweep) even when it ends by itself."""
    script = (
        "import subprocess, sys; "
        "p = subprocess.Popen(['sleep', '300'], start_new_session=True); "
        "open(sys.argv[1], 'w').write(str(p.pid))"
    )
    pid_file = tmp_path / "pid"
    (method,) = parse_auth_methods([{"id": "t", "type": "terminal", "name": "Quick"}])
    login = TerminalLogin.of(method, [sys.executable, "-c", script, str(pid_file)], str(tmp_path))
    assert terminal_run.run_login(login, "Agent", lambda text: None) == 0
    daemon = int(pid_file.read_text())
    try:
        assert alive(daemon) and reaper.is_marked(daemon)
    finally:
        os.kill(daemon, signal.SIGKILL)


def test_a_sign_in_that_stops_on_ctrl_c_is_not_ended_by_acp_tui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One that handles Ctrl-C itself (to clean up) ends on its own: no message, its status."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    ready = tmp_path / "ready"
    script = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGINT, lambda *a: sys.exit(3))\n"
        "open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\n"
        "os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n"
        "time.sleep(60)\n"
    )
    (method,) = parse_auth_methods([{"id": "t", "type": "terminal", "name": "Polite"}])
    login = TerminalLogin.of(method, [sys.executable, "-c", script, str(ready)], str(tmp_path))

    def press() -> None:  # the terminal sends SIGINT to the sign-in and to acp-tui
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not ready.exists():
            return
        # acp-tui's first: while the sign-in runs, run_login's handler takes it. Sent after
        # the sign-in's, it could come once run_login had returned (the sign-in ends on its
        # SIGINT) and interrupt pytest itself.
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(int(ready.read_text()), signal.SIGINT)

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    written: list[str] = []
    status = terminal_run.run_login(login, "Agent", written.append, grace=30)
    presser.join(5)
    assert status == 3
    assert "acp-tui ends it" not in "".join(written)


# -- in a real terminal ---------------------------------------------------------------------

#: acp-tui's side, in a terminal of its own (the session's leader, the terminal's foreground
#: group, as acp-tui is in the person's terminal): runs a sign-in that ignores Ctrl-C and
#: writes, once it returns, its status and whether the terminal is acp-tui's again.
DRIVER = """
import os, sys
os.close(os.open(os.ttyname(0), os.O_RDWR))  # the terminal becomes this session's
from acp_tui.session.auth import terminal_run
from acp_tui.session.auth.methods import TerminalLogin, parse_auth_methods
(method,) = parse_auth_methods([{"id": "t", "type": "terminal", "name": "Stubborn"}])
login = TerminalLogin.of(method, [sys.executable, "-c", sys.argv[1], sys.argv[2]], sys.argv[3])
def write(text):
    sys.stdout.write(text)
    sys.stdout.flush()
status = terminal_run.run_login(login, "Agent", write, grace=float(sys.argv[4]))
print(f"STATUS {status} BACK {os.tcgetpgrp(0) == os.getpgrp()} ME {os.getpgrp()}", flush=True)
"""

#: The sign-in: its group and the terminal's foreground group, a job in its group and a
#: setsid daemon (pids in the file named by its argument), then it ignores Ctrl-C a minute.
STUBBORN_IN_A_TERMINAL = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
job = subprocess.Popen(["sleep", "300"])  # ignores Ctrl-C too
daemon = subprocess.Popen(["sleep", "301"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpgrp()} {os.tcgetpgrp(0)} {job.pid} {daemon.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
"""


class Pty:
    """A program in a terminal of its own: what it wrote, and keys typed into it."""

    def __init__(self, argv: list[str]) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
        os.close(slave)
        self.output = b""

    def read_until(self, needle: bytes, limit: float = 30) -> bytes:
        import select

        deadline = time.monotonic() + limit
        while needle not in self.output and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.output += os.read(self.master, 4096)
                except OSError:
                    break
        assert needle in self.output, self.output.decode("utf-8", "replace")
        return self.output

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        os.close(self.master)


@pytest.mark.skipif(not reaper.supported(), reason="marking and sweeping need Linux's /proc")
def test_in_a_terminal_the_sign_in_is_a_job_of_its_own_and_ctrl_c_ends_all_of_it(
    tmp_path: Path,
) -> None:
    """The sign-in's processes are a group of their own that has the terminal (not acp-tui's
    group); Ctrl-C typed there reaches that group, acp-tui learns of it, and when the
    sign-in ignores it, its group and its setsid daemon are ended after the grace; then the
    terminal is acp-tui's again."""
    pids = tmp_path / "pids"
    term = Pty(
        [
            sys.executable,
            "-c",
            DRIVER,
            STUBBORN_IN_A_TERMINAL,
            str(pids),
            str(tmp_path),
            "0.5",
        ]
    )
    try:
        deadline = time.monotonic() + 30
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        group, foreground, job, daemon = (int(word) for word in pids.read_text().split())
        assert group != term.process.pid  # not acp-tui's group
        assert foreground == group  # the sign-in has the terminal
        os.write(term.master, b"\x03")  # Ctrl-C, typed
        term.read_until(b"did not stop 0.5 s after Ctrl-C; acp-tui ends it")
        term.read_until(b"Press Enter to go back")
        os.write(term.master, b"\n")
        output = term.read_until(b"BACK").decode()
        assert "BACK True" in output and f"ME {term.process.pid}" in output
        deadline = time.monotonic() + 10
        while (alive(job) or alive(daemon)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(job) and not alive(daemon), "left behind by the sign-in"
    finally:
        term.close()


#: A sign-in that asks for a line and says what it got ("ready" is not in its source, which
#: the "Running:" line shows).
ASKS = """
import sys
print("READY".lower(), flush=True)
print("GOT", sys.stdin.readline().strip(), flush=True)
"""


@pytest.mark.parametrize(
    ("key", "then", "expected"),
    [
        (b"\x1a", b"hello\n", b"GOT hello"),  # Ctrl-Z: no shell would resume it, so it goes on
        (b"\x1c", b"", b"status 131"),  # Ctrl-\: the command ends, and acp-tui says so
    ],
    ids=["ctrl-z", "ctrl-backslash"],
)
def test_in_a_terminal_no_key_leaves_the_sign_in_stuck(
    tmp_path: Path, key: bytes, then: bytes, expected: bytes
) -> None:
    term = Pty([sys.executable, "-c", DRIVER, ASKS, "unused", str(tmp_path), "3"])
    try:
        term.read_until(b"ready")
        os.write(term.master, key)
        time.sleep(0.3)
        if then:
            os.write(term.master, then)
        term.read_until(expected)
        if b"status" in expected:
            term.read_until(b"Press Enter to go back")
            os.write(term.master, b"\n")
        output = term.read_until(b"BACK").decode()
        assert "BACK True" in output
    finally:
        term.close()
