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

__all__ = ["MAX_CHARS", "MAX_READ", "TIMEOUT", "StatusOutput", "run_status_command"]

#: Seconds a run may take before it is killed.
TIMEOUT = 2.0
#: The most of its output kept (the rest is read and dropped, so the command never blocks).
MAX_READ = 8192
#: The most characters of its line shown.
MAX_CHARS = 400


@dataclass(frozen=True, slots=True)
class StatusOutput:
    """What a run gave: its first line (``""``: it printed none), or a short note of why it
    failed (``problem``; ``line`` is then empty)."""

    line: str = ""
    problem: str | None = None


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _first_line(data: bytes) -> str:
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    return one_line(first.decode("utf-8", "replace"), MAX_CHARS)


def _exit_note(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"ended by {signal.Signals(-code).name}"
        return f"ended by signal {-code}"
    return f"exit {code}"


async def _talk(process: asyncio.subprocess.Process, state: bytes) -> tuple[bytes, int]:
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None
    # A command that does not read its stdin is fine: the JSON is small, and a closed pipe
    # is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(state)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()
    kept = bytearray()
    while chunk := await stdout.read(65536):
        if len(kept) < MAX_READ:
            kept += chunk[: MAX_READ - len(kept)]
    return bytes(kept), await process.wait()


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
    try:
        process = await asyncio.create_subprocess_exec(
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
    try:
        async with asyncio.timeout(limit):
            output, code = await _talk(process, state)
    except TimeoutError:
        return StatusOutput(problem=f"no answer in {limit:g} s")
    finally:
        # Timed out, cancelled, or done: nothing it started outlives the run.
        _kill_group(process)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(process.wait())
    if code != 0:
        return StatusOutput(problem=_exit_note(code))
    return StatusOutput(line=_first_line(output))
