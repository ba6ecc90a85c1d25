"""What the headless commands write: the exit codes, :class:`Output` (stdout for the reply
or the table, one-line messages on stderr, a closed pipe never a traceback) and the session
table of ``acp-tui sessions``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from acp_tui.text.safety import encodable, one_line, sanitize_terminal_text

EXIT_OK = 0
EXIT_STOPPED = 1
EXIT_UNSUPPORTED = 2
EXIT_CRASH = 3
EXIT_AUTH = 4
EXIT_BUDGET = 5
EXIT_NOT_FOUND = 127
EXIT_INTERRUPTED = 130

CANCEL_WAIT_SECONDS = 10.0
STDERR_TAIL_LINES = 3
TITLE_WIDTH = 80

PROG = "acp-tui"

STOP_REASONS = {
    "max_tokens": "the agent hit its token limit",
    "max_turn_requests": "the agent hit its limit of model requests for one turn",
    "refusal": "the agent refused to continue",
    "cancelled": "the turn was cancelled",
}


# ---------------------------------------------------------------------------------- output


@dataclass(slots=True)
class Output:
    """Where headless output goes; tests may swap the streams."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    # Whether the last thing written to stdout ended a line (so stderr lines and the final
    # status do not glue onto the reply when both go to one terminal).
    at_line_start: bool = True

    # The reader of stdout went away (`acp-tui ask ... | head -1`): stop writing there.
    broken: bool = False
    #: How many line ends the reply written so far ends with (0 before any text).
    trailing_newlines: int = 0
    wrote_text: bool = False

    def text(self, text: str) -> None:
        text = sanitize_terminal_text(text)
        if text:
            self._emit(text)
            self.wrote_text = True
            self.at_line_start = text.endswith("\n")
            stripped = text.rstrip("\n")
            ends = len(text) - len(stripped)
            self.trailing_newlines = self.trailing_newlines + ends if not stripped else ends

    def finish_text(self) -> None:
        if not self.at_line_start:
            self._emit("\n")
            self.at_line_start = True
            self.trailing_newlines = 1

    def paragraph_break(self) -> None:
        """Before another of the agent's messages: a blank line after the reply so far (none
        before the first), so that two messages never run into one word or one paragraph,
        whether stdout is a terminal or a file."""
        if not self.wrote_text or self.trailing_newlines >= 2:
            return
        self._emit("\n" * (2 - self.trailing_newlines))
        self.at_line_start = True
        self.trailing_newlines = 2

    def write_raw(self, text: str) -> None:
        """``text`` as it is, but inert (the command line's one rule: see
        :mod:`acp_tui.cli.say`); a table, JSON (ASCII: untouched), line breaks."""
        self._emit(sanitize_terminal_text(text))

    def _emit(self, text: str) -> None:
        if self.broken:
            return
        # A lone surrogate (valid JSON) or a character stdout's encoding lacks must not pass
        # for a closed pipe: that cut the reply short and still exited 0.
        text = encodable(text, getattr(self.out, "encoding", None))
        try:
            self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self.broken = True
            _silence_stdout(self.out)

    def break_line(self) -> None:
        """Before a stderr line in the middle of the reply: end the reply's current line,
        but only when both streams are one terminal (a script's stdout stays the pure reply)."""
        if not self.at_line_start and _isatty(self.out) and _isatty(self.err):
            self.finish_text()

    def note(self, line: str) -> None:
        """A message on stderr, made inert (it quotes the agent: an error, a title)."""
        line = sanitize_terminal_text(line)
        try:
            self.err.write(encodable(line + "\n", getattr(self.err, "encoding", None)))
            self.err.flush()
        except (OSError, ValueError):
            pass

    def error(self, message: str) -> None:
        self.note(f"{PROG}: {message}")


def _silence_stdout(stream: TextIO) -> None:
    """Point a broken stdout at /dev/null, so the interpreter's final flush stays quiet."""
    if stream is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _label(value: Any, limit: int = TITLE_WIDTH) -> str:
    return one_line(_str(value), limit)


def format_updated(value: Any, now: datetime | None = None) -> str:
    """The table's UPDATED cell: '5m ago', '3h ago', '2d ago' for ISO 8601 times within a
    week; the ISO date (YYYY-MM-DD) beyond; the raw (sanitised) value when it does not
    parse; '' when absent. (The sidebar's wording lives in :mod:`acp_tui.text.relative_time`; a
    script-facing table prefers sortable ISO dates.)"""
    text = _str(value)
    if not text:
        return ""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return one_line(text, 25)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < -60:
        return when.strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return when.strftime("%Y-%m-%d")


def format_table(
    sessions: list[dict[str, Any]], now: datetime | None = None, *, agent_column: bool = False
) -> str:
    """A plain-text table: TITLE, UPDATED, CWD, ID (after AGENT, each row's ``agent``, with
    ``agent_column``); every cell sanitised and one line."""
    rows = [
        (
            *((_label(session.get("agent"), 40),) if agent_column else ()),
            _label(session.get("title"), TITLE_WIDTH) or "(untitled)",
            format_updated(session.get("updatedAt"), now),
            _label(session.get("cwd"), 200),
            _label(session.get("sessionId"), 200),
        )
        for session in sessions
    ]
    header = (*(("AGENT",) if agent_column else ()), "TITLE", "UPDATED", "CWD", "ID")
    if not rows:
        return ""
    padded = len(header) - 1
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(padded)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:padded])]
        lines.append("  ".join([*cells, row[padded]]).rstrip())
    return "\n".join(lines) + "\n"


__all__ = ["Output", "format_table", "format_updated"]
