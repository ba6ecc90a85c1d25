"""A real terminal for black-box benchmarks: a program in a pseudo-terminal, its output parsed by
the ``pyte`` terminal emulator, and the time at which a condition first held on the emulated
screen.

Why a pty and pyte rather than tmux (which the journey tests use): measured with
``python -m bench.blackbox.floor`` (a key to ``cat`` in a raw tty -> the echo on the screen),
this harness's floor is about 0.1 ms (p95 0.2 ms), against about 4 ms (p95 5 ms) for tmux
polled with ``capture-pane`` as fast as it answers (a process per look; the journeys poll every
50 ms, hence the ~26 ms of issue 20). A screen condition is checked after every read of the
program's output, so the time reported is when the bytes that made it true arrived, not the
next poll.

Threads: one reads the pty (and only stamps and queues what it read, so the program never
blocks on a full pty while the emulator works), one feeds the emulator and checks the waiting
conditions against the rows that changed. A condition's time is the arrival time of the read
that made it true.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyte

#: A condition on the screen: the rows as text (one string per row, ``cols`` wide).
Condition = Callable[[list[str]], bool]

#: Keys by name, as a terminal sends them (xterm, normal cursor mode).
KEYS: dict[str, bytes] = {
    "enter": b"\r",
    "backspace": b"\x7f",
    "escape": b"\x1b",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "ctrl+home": b"\x1b[1;5H",
    "ctrl+end": b"\x1b[1;5F",
}


class ScreenTimeout(Exception):
    """A condition did not hold within its time; carries the screen at that moment."""

    def __init__(self, what: str, limit: float, screen: str) -> None:
        super().__init__(f"no {what} within {limit:.1f} s; the screen:\n{screen}")
        self.what = what
        self.limit = limit
        self.screen = screen


@dataclass
class _Waiter:
    condition: Condition
    done: threading.Event = field(default_factory=threading.Event)
    at: float = 0.0


class PtyTerminal:
    """``argv`` running in a ``cols`` x ``rows`` pseudo-terminal with its own process group.

    Times are ``time.perf_counter()`` of this process (``wall_offset`` converts them to
    ``time.time()``, which other processes' marks use)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        cols: int = 120,
        rows: int = 40,
    ) -> None:
        self.argv = list(argv)
        # The environment given is the whole of it: merged into this process's own, what a
        # caller took out (PYTHONDONTWRITEBYTECODE, COLUMNS, TMUX...) came back.
        self.env = dict(env) if env is not None else dict(os.environ)
        self.env.setdefault("TERM", "xterm-256color")
        self.env.setdefault("COLORTERM", "truecolor")
        self.cwd = str(cwd) if cwd is not None else None
        self.cols = cols
        self.rows = rows
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.lines: list[str] = [" " * cols for _ in range(rows)]
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        #: Bytes the program wrote, and the emulator's own CPU seconds (the harness's cost).
        self.bytes_read = 0
        self.parse_seconds = 0.0
        self._master = -1
        self._lock = threading.Lock()
        self._arrived = threading.Condition()
        self._pending: deque[tuple[float, bytes]] = deque()
        self._waiters: list[_Waiter] = []
        self._closed = threading.Event()
        self._eof = False
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ life

    def start(self) -> float:
        """Start the program; return the time just before it was spawned."""
        # The emulator thread holds the GIL most of the time under a flood: a short switch
        # interval lets the reader stamp a read within about a millisecond of its arrival.
        sys.setswitchinterval(0.0005)
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.cols, 0, 0))
        self._master = master
        self.started_at = time.perf_counter()
        self.process = subprocess.Popen(
            self.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        for target in (self._read_loop, self._parse_loop):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self.started_at

    def close(self) -> None:
        """End the program (its own process group: it and the agent it started)."""
        process = self.process
        if process is not None and process.poll() is None:
            for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # Whatever the program left in its group (an agent that ignored SIGTERM).
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._closed.set()
        with self._arrived:
            self._arrived.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        if self._master >= 0:
            os.close(self._master)
            self._master = -1

    def __enter__(self) -> PtyTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @staticmethod
    def wall_offset() -> float:
        """``time.time() - time.perf_counter()`` now: add it to a perf_counter time."""
        return time.time() - time.perf_counter()

    # ------------------------------------------------------------------ the two threads

    def _read_loop(self) -> None:
        while not self._closed.is_set():
            try:
                ready, _, _ = select.select([self._master], [], [], 0.1)
                if not ready:
                    continue
                data = os.read(self._master, 1 << 16)
            except OSError:
                data = b""
            now = time.perf_counter()
            with self._arrived:
                if not data:
                    self._eof = True
                    self._arrived.notify_all()
                    return
                self._pending.append((now, data))
                self._arrived.notify_all()

    def _parse_loop(self) -> None:
        while True:
            with self._arrived:
                while not self._pending and not self._closed.is_set() and not self._eof:
                    self._arrived.wait(0.1)
                if not self._pending:
                    if self._closed.is_set() or self._eof:
                        return
                    continue
                arrived, data = self._pending.popleft()
            begun = time.process_time()
            with self._lock:
                self.stream.feed(data)
                self.bytes_read += len(data)
                self._refresh_rows()
                for waiter in self._waiters:
                    if not waiter.done.is_set() and waiter.condition(self.lines):
                        waiter.at = arrived
                        waiter.done.set()
            self.parse_seconds += time.process_time() - begun

    def _refresh_rows(self) -> None:
        screen = self.screen
        for y in screen.dirty:
            if 0 <= y < self.rows:
                line = screen.buffer[y]
                # A wide character's second cell holds "": joining the cells gives the text.
                self.lines[y] = "".join(line[x].data for x in range(self.cols))
        screen.dirty.clear()

    # ------------------------------------------------------------------ reading

    def text(self) -> str:
        with self._lock:
            return "\n".join(line.rstrip() for line in self.lines)

    def contains(self, needle: str) -> bool:
        with self._lock:
            return any(needle in line for line in self.lines)

    def exited(self) -> int | None:
        return self.process.poll() if self.process is not None else None

    def peak_rss_mb(self) -> float:
        """The program's peak resident set (VmHWM), in MB; NaN once it is gone."""
        try:
            with open(f"/proc/{self.pid}/status", encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024 / 1e6
        except (OSError, ValueError):
            pass
        return float("nan")

    # ------------------------------------------------------------------ waiting

    def expect(self, condition: Condition) -> _Waiter:
        """Start watching for ``condition`` now (before the key that should cause it)."""
        waiter = _Waiter(condition)
        with self._lock:
            if condition(self.lines):
                waiter.at = time.perf_counter()
                waiter.done.set()
            else:
                self._waiters.append(waiter)
        return waiter

    def settle(self, waiter: _Waiter, limit: float, what: str) -> float:
        """The time ``waiter``'s condition first held; ScreenTimeout after ``limit`` s."""
        try:
            if not waiter.done.wait(limit):
                raise ScreenTimeout(what, limit, self.text())
            return waiter.at
        finally:
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def wait_until(self, condition: Condition, limit: float, what: str) -> float:
        return self.settle(self.expect(condition), limit, what)

    def wait_for(self, needle: str, limit: float) -> float:
        return self.wait_until(lambda rows: any(needle in row for row in rows), limit, repr(needle))

    # ------------------------------------------------------------------ typing

    def write(self, data: bytes) -> float:
        """Send bytes as typed; return the time just before they were written."""
        now = time.perf_counter()
        view = memoryview(data)
        while view:
            written = os.write(self._master, view)
            view = view[written:]
        return now

    def type(self, text: str) -> float:
        return self.write(text.encode("utf-8"))

    def press(self, *keys: str) -> float:
        return self.write(b"".join(KEYS[key] for key in keys))


def visible(needle: str) -> Condition:
    """``needle`` is on one row of the screen."""
    return lambda rows: any(needle in row for row in rows)
