"""The agent as a child process: spawn, drain stderr, observe exit, shut down firmly.

ACP agents are launched by the client and speak on stdio
(https://agentclientprotocol.com/protocol/transports). stderr is the agent's log: it is
read continuously (a chatty agent that fills the pipe would otherwise block forever) into a
ring buffer for the crash banner and a log file for later.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from acp_tui.protocol import reaper
from acp_tui.text.safety import log_text

STDERR_RING_LINES = 500
#: The most of an agent's stderr kept in its log file (each start has its own file).
LOG_LIMIT_BYTES = 16 * 1024 * 1024
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


class AgentStartError(Exception):
    """The agent could not be started at all (not found, not executable, bad cwd)."""

    def __init__(self, argv: Sequence[str], reason: str) -> None:
        self.argv = list(argv)
        self.reason = reason
        super().__init__(f"cannot start agent `{shlex.join(self.argv)}`: {reason}")


def describe_exit(returncode: int | None) -> str:
    """'exit code 1', 'killed by SIGKILL', or 'running'."""
    if returncode is None:
        return "running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


class AgentProcess:
    """One running agent. Use :meth:`start`, then :meth:`drain_stderr` in a task (it also
    notices the exit), and :meth:`shutdown` when done (safe to call more than once)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        stderr_lines: int = STDERR_RING_LINES,
        log_limit: int = LOG_LIMIT_BYTES,
    ) -> None:
        if not argv:
            raise AgentStartError([], "no agent command given")
        self.argv = [str(part) for part in argv]
        self.cwd = str(cwd) if cwd is not None else None
        self.env = dict(env) if env is not None else None
        self.stderr_tail: deque[str] = deque(maxlen=stderr_lines)
        self.log_dir = log_dir
        #: The most stderr written to the log file; the rest is counted, not written.
        self.log_limit = log_limit
        self._log_bytes = 0
        self._log_dropped = 0
        self.log_path: Path | None = None
        #: Whether what the agent left behind was ended: its sweep of /proc (every process's
        #: environment, some 20 ms) is done once, at the exit or at the shutdown that came first.
        self._leftovers_ended = False
        self._log_file: IO[str] | None = None
        self._process: Process | None = None
        self.started_at: float | None = None
        self.returncode: int | None = None
        self.exited = anyio.Event()
        #: Set once stderr has closed and every line of it is in :attr:`stderr_tail`.
        self.stderr_done = anyio.Event()
        #: The mark this agent and everything it starts carry (see acp_tui.protocol.reaper).
        self.tag = reaper.new_tag("agent")

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def stdin(self) -> ByteSendStream:
        assert self._process is not None and self._process.stdin is not None
        return self._process.stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        assert self._process is not None and self._process.stdout is not None
        return self._process.stdout

    @property
    def exit_description(self) -> str:
        return describe_exit(self.returncode)

    async def start(self) -> None:
        if self._process is not None:
            return  # started early (acp_tui.session.launch.prestart), before the launch asked
        # Marked, so that whatever the agent starts (even a daemon that leaves the process
        # group) is found and ended with it; see acp_tui.protocol.reaper.
        reaper.enable()
        env = reaper.child_env(self.tag, self.env)
        if self.cwd is not None and not os.path.isdir(self.cwd):
            raise AgentStartError(self.argv, f"working directory {self.cwd} does not exist")
        try:
            with reaper.spawning():
                self._process = await anyio.open_process(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=self.cwd,
                    env=env,
                    # Own process group: a Ctrl-C in the terminal must reach us, not the
                    # agent, and shutdown can take the agent's children down with it.
                    start_new_session=True,
                )
                reaper.register(self._process.pid)
        except FileNotFoundError:
            raise AgentStartError(self.argv, f"command not found: {self.argv[0]}") from None
        except PermissionError:
            raise AgentStartError(self.argv, f"not executable: {self.argv[0]}") from None
        except OSError as error:
            raise AgentStartError(self.argv, error.strerror or str(error)) from None
        self.started_at = time.monotonic()
        self._open_log()

    def _open_log(self) -> None:
        try:
            if self.log_dir is None:
                return
            log_dir = self.log_dir
            log_dir.mkdir(parents=True, exist_ok=True)
            name = _UNSAFE_FILENAME.sub("_", Path(self.argv[0]).name)[:40] or "agent"
            stamp = time.strftime("%Y%m%d-%H%M%S")
            self.log_path = log_dir / f"{name}-{stamp}-{self.pid}.log"
            self._log_file = self.log_path.open("a", encoding="utf-8", buffering=1)
            self._log_file.write(f"# {self.command_line}\n")
        except OSError:
            # A read-only home must not stop the agent; the ring buffer still works.
            self.log_path = None
            self._log_file = None

    async def drain_stderr(self) -> None:
        """Read stderr until it closes, and watch for the exit meanwhile; return when both
        are over."""
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(self._watch_exit)
            await self._read_stderr()

    async def _watch_exit(self) -> None:
        # Not after stderr's end: the agent's children inherit its pipes, and a crashed
        # agent's orphans would hold them open (and the crash unseen) for as long as they
        # live. The exit is the end: what the agent started goes with it.
        await self.wait()
        self._end_leftovers()

    async def _read_stderr(self) -> None:
        try:
            await self._read_stderr_lines()
        finally:
            self.stderr_done.set()

    async def _read_stderr_lines(self) -> None:
        assert self._process is not None
        stream = self._process.stderr
        pending = b""
        if stream is not None:
            while True:
                try:
                    chunk = await stream.receive(65536)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    self._add_stderr_line(raw)
                if len(pending) > 65536:
                    self._add_stderr_line(pending)
                    pending = b""
        if pending:
            self._add_stderr_line(pending)

    def _add_stderr_line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        self.stderr_tail.append(line)
        if self._log_file is None:
            return
        self._log_bytes += len(raw) + 1
        if self._log_bytes > self.log_limit:
            # An agent that logs in a loop (or on purpose) must not fill the disk: the log
            # keeps its first part, says so once, and counts what it left out.
            self._log_dropped += 1
            if self._log_dropped == 1:
                with contextlib.suppress(OSError, ValueError):
                    self._log_file.write(
                        f"# the log is full ({self.log_limit:,} bytes): further stderr is "
                        "not written (the last lines are in the crash banner)\n"
                    )
            return
        # Safe to cat: what would act on a terminal is written as its escape, and bytes
        # that are no UTF-8 as \xNN (the tail above, for the screen, is sanitised there).
        logged = log_text(raw.decode("utf-8", errors="backslashreplace").rstrip("\r"))
        with contextlib.suppress(OSError, ValueError):
            self._log_file.write(logged + "\n")

    async def wait(self) -> int:
        assert self._process is not None
        returncode = await self._process.wait()
        reaper.unregister(self._process.pid)
        self.returncode = returncode
        self.exited.set()
        return returncode

    async def shutdown(self, grace: float = 2.0) -> None:
        """Close stdin, give the agent `grace` seconds, then SIGTERM, then SIGKILL."""
        process = self._process
        if process is None:
            return
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                if process.stdin is not None:
                    with contextlib.suppress(Exception):
                        await process.stdin.aclose()
                with anyio.move_on_after(grace):
                    await self.wait()
            if process.returncode is None:
                self._signal_group(signal.SIGTERM)
                with anyio.move_on_after(grace):
                    await self.wait()
            if process.returncode is None:
                self._signal_group(signal.SIGKILL)
                with anyio.move_on_after(grace):
                    await self.wait()
            self.returncode = process.returncode
            if self.returncode is not None:
                self.exited.set()
            self._end_leftovers()
            # Our ends of the pipes, always: a descendant that escaped the signals (it left
            # the process group where nothing sweeps it) may hold its ends open, and a
            # transport left open outlives the event loop: "Event loop is closed" at exit.
            _close_transport(process)
            if self._log_file is not None:
                with contextlib.suppress(OSError):
                    if self._log_dropped:
                        self._log_file.write(
                            f"# {self._log_dropped:,} lines of stderr were not written\n"
                        )
                    self._log_file.write(f"# agent ended: {self.exit_description}\n")
                    self._log_file.close()
                self._log_file = None

    def _end_leftovers(self) -> None:
        """The agent is gone; so must be what it started: its children (orphaned if it
        crashed) and anything that left its process group."""
        if self._leftovers_ended:
            return
        self._leftovers_ended = True
        if reaper.supported():
            reaper.sweep(self.tag)
        elif self._process is not None and hasattr(os, "killpg"):
            # No marks to follow here: the process group is what the platform offers. Its
            # id cannot be reused while a member of the group is alive.
            with contextlib.suppress(OSError):
                os.killpg(self._process.pid, signal.SIGKILL)

    def _signal_group(self, sig: signal.Signals) -> None:
        assert self._process is not None
        try:
            os.killpg(self._process.pid, sig)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                self._process.send_signal(sig)


def _close_transport(process: Process) -> None:
    """Close asyncio's subprocess transport. It closes itself only once the process has
    exited and every pipe reached EOF, and closing anyio's streams only marks them at EOF;
    anyio offers no public way to it, so it is reached here (asyncio backend only)."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    if transport is not None and not transport.is_closing():
        with contextlib.suppress(Exception):
            transport.close()
