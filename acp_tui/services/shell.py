"""Shell mode: a command the person runs (``!cmd`` in the prompt), on a real terminal.

The command runs as ``$SHELL -c COMMAND`` (``/bin/sh`` without one) in the session's
directory, in a session and process group of its own, its stdin, stdout and stderr the slave
side of a new pseudo-terminal of the given size: programs see a terminal (``ls --color=auto``
colours, progress bars redraw their line). A thread reads the master side and hands each
chunk to ``on_output``; ``on_exit`` gets the exit code (negative: the signal that ended it)
once the output has ended and the process is reaped. Both are called from that thread: the
caller moves them to its own (the UI: ``App.call_from_thread``).

:meth:`ShellCommand.stop` interrupts the command's group (SIGINT, as Ctrl+C in a terminal),
then ends it (SIGKILL) if it has not ended within :data:`GRACE_SECONDS`. What the command
leaves running in its group goes with it. Pure Python: no Textual, no Rich.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import struct
import termios
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from acp_tui.services import children

__all__ = ["GRACE_SECONDS", "ShellCommand"]

#: How long an interrupted command has to end before it is killed.
GRACE_SECONDS = 2.0
READ_SIZE = 64 * 1024


class ShellCommand:
    """One command on a pseudo-terminal (see the module docstring)."""

    def __init__(
        self,
        command: str,
        cwd: Path,
        *,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        columns: int = 100,
        rows: int = 24,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.cwd = cwd
        self._on_output = on_output
        self._on_exit = on_exit
        self.columns = columns
        self.rows = rows
        self._environ = dict(os.environ if environ is None else environ)
        self._process: children.Process | None = None
        self._master: int | None = None
        self.returncode: int | None = None
        self.stopped = False

    @property
    def running(self) -> bool:
        return self._process is not None and self.returncode is None

    @property
    def pid(self) -> int | None:
        """The shell's process id, which is also its process group's (None before start)."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start the command (raises OSError when it cannot: a missing directory...)."""
        master, slave = os.openpty()
        try:
            fcntl.ioctl(
                slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.columns, 0, 0)
            )
            env = {
                **self._environ,
                "TERM": "xterm-256color",
                "COLUMNS": str(self.columns),
                "LINES": str(self.rows),
            }
            shell = env.get("SHELL") or "/bin/sh"
            self._process = children.popen(
                [shell, "-c", self.command],
                cwd=self.cwd,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self._master = master
        threading.Thread(target=self._pump, name="shell-mode", daemon=True).start()

    def _pump(self) -> None:
        master = self._master
        assert master is not None and self._process is not None
        try:
            while True:
                try:
                    chunk = os.read(master, READ_SIZE)
                except OSError:  # EIO: every writer of the slave side has closed it
                    break
                if not chunk:
                    break
                self._on_output(chunk)
        finally:
            os.close(master)
            self.returncode = self._process.wait()
            children.release(self._process)
            self._on_exit(self.returncode)

    def stop(self) -> None:
        """Interrupt the command (SIGINT to its group), and kill it if it goes on."""
        process = self._process
        if process is None or self.returncode is not None:
            return
        self.stopped = True
        self._signal(signal.SIGINT)
        timer = threading.Timer(GRACE_SECONDS, self.kill)
        timer.daemon = True
        timer.start()

    def kill(self) -> None:
        """End the command's group at once (SIGKILL)."""
        if self._process is not None and self.returncode is None:
            self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        assert self._process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, sig)
