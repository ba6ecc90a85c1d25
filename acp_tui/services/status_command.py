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
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from acp_tui.services import children
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


class _Output(asyncio.Protocol):
    """The command's stdout: kept up to :data:`MAX_READ` bytes, read and dropped up to
    :data:`MAX_DRAIN`, then closed (the command is told, as by ``| head``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.kept = bytearray()
        self.drained = 0
        self.flooded = False
        self.transport: asyncio.BaseTransport | None = None
        self.ended: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.flooded:
            return
        if len(self.kept) < MAX_READ:
            self.kept += data[: MAX_READ - len(self.kept)]
        self.drained += len(data)
        if self.drained > MAX_DRAIN and self.transport is not None:
            self.flooded = True
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _collect(loop: asyncio.AbstractEventLoop, process: children.Process, tries: int = 200) -> None:
    """A killed command's exit status, read once it has gone (a kill takes effect at once,
    as a rule), so that it leaves no zombie; then the reaper may forget it."""
    if process.poll() is not None or tries == 0:
        children.release(process)
    else:
        loop.call_later(0.05, _collect, loop, process, tries - 1)


async def _exit_code(process: children.Process) -> int:
    """Its exit status, once its output has ended (it exits then, as a rule)."""
    pause = 0.001
    while (code := process.poll()) is None:
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)
    return code


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
    try:
        # Started here rather than by asyncio's subprocess support, whose clean-up of a run
        # cancelled while starting waits for every holder of the output to close it (a
        # child the command left running: minutes); and registered with the reaper, which
        # would otherwise take its exit status (see acp_tui.services.children).
        process = children.popen(
            [shell, "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        return StatusOutput(problem=f"cannot run: {one_line(error.strerror or str(error), 80)}")
    assert process.stdin is not None and process.stdout is not None
    output = _Output(loop)
    writer: asyncio.WriteTransport | None = None
    reader: asyncio.ReadTransport | None = None
    code: int | None = None
    try:
        async with asyncio.timeout(limit):
            writer, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, process.stdin)
            # A command that does not read its stdin is fine: what it leaves unread is
            # dropped as the pipe closes, never waited on.
            writer.write(state)
            writer.close()
            reader, _ = await loop.connect_read_pipe(lambda: output, process.stdout)
            await output.ended
            code = await _exit_code(process)
    except TimeoutError:
        return StatusOutput(problem=f"no answer in {limit:g} s")
    finally:
        # Timed out, cancelled, or done: nothing it started outlives the run, and no pipe
        # is left open (a process it detached may still hold one: not waited for).
        _kill_group(process.pid)
        if writer is not None and writer.get_write_buffer_size():
            writer.abort()  # what it did not read is dropped
        if reader is not None:
            reader.close()
        process.stdin.close()
        process.stdout.close()
        if code is None:
            _collect(loop, process)
        else:
            children.release(process)
    if output.flooded:
        return StatusOutput(problem="printed too much")
    if code != 0:
        return StatusOutput(problem=_exit_note(code if code is not None else -signal.SIGKILL))
    return StatusOutput(line=_first_line(bytes(output.kept)))
