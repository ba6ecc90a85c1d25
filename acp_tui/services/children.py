"""The processes acp-tui runs itself (git for checkpoints, the person's editor, shell mode, a
clipboard tool): started so that the subreaper (:mod:`acp_tui.protocol.reaper`) never collects
their exit status before the code waiting for it does.

acp-tui is a child subreaper and collects exited orphans as it runs; a plain
``subprocess.run`` in a thread could lose that race, and Python's ``subprocess`` then reports
exit 0 for a command that failed (``!cmd; exit 3`` shown as "exit 0", a failed git taken
for a snapshot). :func:`popen` registers the child with the reaper as it starts;
:func:`run` is ``subprocess.run`` on top of it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Any

from acp_tui.protocol import reaper

__all__ = ["Process", "popen", "release", "run"]

#: A child started by :func:`popen`.
Process = subprocess.Popen[bytes]


def popen(argv: Sequence[str], **options: Any) -> Process:
    """``subprocess.Popen(argv, **options)``, registered with the reaper. Call
    :func:`release` once it has been waited for."""
    with reaper.spawning_from_thread():
        process: Process = subprocess.Popen(argv, **options)
        reaper.register(process.pid)
    return process


def release(process: Process) -> None:
    """``process`` has been waited for: the reaper may forget it."""
    reaper.unregister(process.pid)


def run(
    argv: Sequence[str],
    *,
    input: bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[bytes]:
    """``subprocess.run`` for a child of acp-tui (same arguments and errors, bytes only)."""
    if input is not None:
        options["stdin"] = subprocess.PIPE
    if capture_output:
        options["stdout"] = options["stderr"] = subprocess.PIPE
    process = popen(argv, **options)
    try:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except BaseException:  # a timeout, an interrupt: nothing is left running
            process.kill()
            process.communicate()
            raise
    finally:
        release(process)
    code = process.returncode
    if check and code:
        raise subprocess.CalledProcessError(code, list(argv), stdout, stderr)
    return subprocess.CompletedProcess(list(argv), code, stdout, stderr)
