"""What the command line writes itself: its messages, errors and reports, through one function.

They quote text from outside: a path or a method name from a recording, an agent's error, a
config value, an argument. So every line goes through the rule the TUI's text goes through
(:func:`acp_tui.text.safety.sanitize_terminal_text`: escape sequences, control characters and
invisible characters removed, lone surrogates as U+FFFD) and is written in the stream's
encoding; a closed pipe is no traceback. ``print`` is not used in the package (ruff's T20
says so): this is where the command line writes. The headless commands' streamed output
(:class:`acp_tui.cli.headless_output.Output`) follows the same rule.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, TextIO

from acp_tui.text.safety import encodable, sanitize_terminal_text

__all__ = ["InertArgumentParser", "say"]


def say(text: str, file: TextIO | None = None) -> None:
    """Write ``text`` and a newline to ``file`` (default: stdout), made inert."""
    stream = sys.stdout if file is None else file
    line = encodable(sanitize_terminal_text(text) + "\n", getattr(stream, "encoding", None))
    try:
        stream.write(line)
        stream.flush()
    except (BrokenPipeError, ValueError):
        pass


class InertArgumentParser(argparse.ArgumentParser):
    """An argument parser whose error messages (which quote the arguments given) are made
    inert like every other line the command line writes."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        super().exit(status, sanitize_terminal_text(message) if message else message)
