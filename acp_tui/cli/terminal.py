"""The TUI draws on a terminal and reads keys from one: started with stdin or stdout on a pipe
or a file, it would write escape codes there and wait for keys that never come. It refuses
instead, pointing scripts to ``acp-tui ask``."""

from __future__ import annotations

import os
import sys
from typing import TextIO

__all__ = ["NEEDS_TERMINAL", "NO_TERMINAL_EXIT", "terminal_problem"]

NEEDS_TERMINAL = "acp-tui needs a terminal; use `acp-tui ask` for scripts"
#: The exit code of a refused start: a usage error, as for a bad command line.
NO_TERMINAL_EXIT = 2


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and os.isatty(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False  # closed, or a stream with no file descriptor


def terminal_problem(stdin: TextIO | None = None, stdout: TextIO | None = None) -> str | None:
    """The message to print when the TUI cannot run here, or None when it can: stdin and
    stdout are both terminals, or a driver of Textual's that needs none was chosen
    (``TEXTUAL_DRIVER``: textual-serve's web driver for ``--serve``)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    if _is_terminal(stdin) and _is_terminal(stdout):
        return None
    return NEEDS_TERMINAL
