"""Run the person's status command once: the session's state as JSON on its stdin, the first
line of its stdout back, as text that is safe to show.

The command runs by ``$SHELL -c`` (else ``/bin/sh``) in the session's directory, in a process
group of its own: one that does not finish within the timeout is killed with everything it
started, and so is whatever it left running when it ends. Its output is data: escape
sequences (colours too) are removed, control characters shown as symbols, the line cut to
:data:`MAX_CHARS`. A command that fails gives a short note, never an exception. Pure Python
(asyncio): no Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass

from acp_tui.text.safety import one_line

__all__ = ["MAX_CHARS", "MAX_DRAIN", "MAX_READ", "TIMEOUT", "StatusOutput", "run_status_command"]

#: Seconds a run may take before it is killed.
TIMEOUT = 2.0
#: The most of its output kept (the rest is read and dropped, so the command never blocks).
MAX_READ = 8192
#: The most of its output read: a command that prints more is cut off (and told so by its
#: closed pipe) rather than keeping the UI's loop busy reading.
MAX_DRAIN = 1024 * 1024
#: The most characters of its line shown.
MAX_CHARS = 400


@dataclass(frozen=True, slots=True)
class StatusOutput:
    """What a run gave: its first line (``""``: it printed none), or a short note of why it
    failed (``problem``; ``line`` is then empty)."""

    line: str = ""
    problem: str | None = None


def _first_line(data: bytes) -> str:
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    return one_line(first.decode("utf-8", "replace"), MAX_CHARS)


def _exit_note(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"ended by {signal.Signals(-code).name}"
        return f"ended by signal {-code}"
    return f"exit {code}"


class _Run(asyncio.SubprocessProtocol):
    """One run's pipes: stdout kept up to :data:`MAX_READ` bytes, read and dropped up to
    :data:`MAX_DRAIN`, then closed (the command is told, as by ``| head``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.kept = bytearray()
        self.drained = 0
        self.flooded = False
        self.transport: asyncio.SubprocessTransport | None = None
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_ended: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.transport = transport

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        if fd != 1 or self.flooded:
            return
        if len(self.kept) < MAX_READ:
            self.kept += data[: MAX_READ - len(self.kept)]
        self.drained += len(data)
        if self.drained > MAX_DRAIN and self.transport is not None:
            self.flooded = True
            pipe = self.transport.get_pipe_transport(1)
            if pipe is not None:
                pipe.close()

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.output_ended.done():
            self.output_ended.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def run_status_command(
    command: str,
    state: bytes,
    cwd: str,
    *,
    limit: float = TIMEOUT,
    environ: Mapping[str, str] | None = None,
) -> StatusOutput:
    """Run ``command`` once with ``state`` (JSON) on stdin; its first line, or a note when
    it fails or takes more than ``limit`` seconds."""
    env = dict(os.environ if environ is None else environ)
    shell = env.get("SHELL") or "/bin/sh"
    loop = asyncio.get_running_loop()
    run = _Run(loop)
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: run,
            shell,
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        return StatusOutput(problem=f"cannot run: {one_line(error.strerror or str(error), 80)}")
    pid = transport.get_pid()
    try:
        stdin = transport.get_pipe_transport(0)
        if stdin is not None:
            # A command that does not read its stdin is fine: what it leaves unread is
            # dropped as the pipe closes, never waited on.
            assert isinstance(stdin, asyncio.WriteTransport)
            stdin.write(state)
            stdin.close()
        async with asyncio.timeout(limit):
            await run.exited
            await run.output_ended
    except TimeoutError:
        return StatusOutput(problem=f"no answer in {limit:g} s")
    finally:
        # Timed out, cancelled, or done: nothing it started outlives the run, and no pipe
        # is left open (a process it detached may still hold one: not waited for).
        _kill_group(pid)
        transport.close()
    if run.flooded:
        return StatusOutput(problem="printed too much")
    code = transport.get_returncode()
    if code is None or code != 0:
        return StatusOutput(problem=_exit_note(code if code is not None else -signal.SIGKILL))
    return StatusOutput(line=_first_line(bytes(run.kept)))
