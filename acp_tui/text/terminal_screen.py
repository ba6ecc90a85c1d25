"""What a program's terminal output looks like: its bytes run through a terminal emulator
(pyte), so that colours, carriage returns (progress bars), cursor moves and erasing are drawn
as a terminal draws them, and nothing of an escape sequence is left to reach ours.

One class for every output of a process shown in the transcript: the person's shell-mode
commands and the agent's terminals. Output bytes are data: only the cells the emulator drew
come out, each a printable character (characters that hide or reorder text are dropped),
with its colours and attributes as names (the face makes its styles of them).

Bounded: the screen is ``rows`` high and keeps at most ``history`` lines that scrolled off
its top (:attr:`TerminalScreen.truncated` says when older ones were let go).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Any

import pyte

from acp_tui.text.safety import strip_invisible

__all__ = ["Run", "TerminalScreen", "exit_words", "render_text"]

#: Lines kept above the screen: a long listing stays whole, ``yes`` stays bounded.
HISTORY_LINES = 1000
#: pyte's names for the eight colours, where they are not the usual ones.
_COLOURS = {"brown": "yellow", "brightbrown": "bright_yellow"}
#: Characters that draw nothing or reorder text (bidi controls, zero widths, tags).
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


@dataclass(frozen=True, slots=True)
class Run:
    """Characters of one line drawn alike: their colours (None: the default) and attributes."""

    text: str
    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False


def colour(value: str) -> str | None:
    """pyte's colour as a colour name (``red``, ``bright_red``) or ``#rrggbb``; None: default."""
    if value == "default" or not value:
        return None
    value = _COLOURS.get(value, value)
    if len(value) == 6 and all(char in "0123456789abcdefABCDEF" for char in value):
        return f"#{value.lower()}"
    if value.startswith("bright") and not value.startswith("bright_"):
        return "bright_" + value[6:]
    return value


def _visible(char: str) -> str:
    import unicodedata

    if char.isprintable() or char == " ":
        return char
    return "" if unicodedata.category(char[:1]) in _INVISIBLE_CATEGORIES else "\ufffd"


class _Screen(pyte.HistoryScreen):
    """pyte's screen with history, noting when history lines were let go."""

    def __init__(self, columns: int, lines: int, history: int) -> None:
        super().__init__(columns, lines, history=history, ratio=0.5)
        self.truncated = False

    def index(self) -> None:
        _top, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        if self.cursor.y == bottom and len(self.history.top) == self.history.top.maxlen:
            self.truncated = True
        super().index()


class TerminalScreen:
    """An emulated terminal ``columns`` wide fed a program's output (see the module)."""

    def __init__(self, columns: int = 100, rows: int = 24, history: int = HISTORY_LINES) -> None:
        self.columns = max(20, columns)
        self._screen = _Screen(self.columns, max(2, rows), history)
        self._stream = pyte.Stream(self._screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.bytes_seen = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> TerminalScreen:
        # A copy (a forked session's transcript) draws the same lines; pyte's parser is a
        # generator, which no copy can take.
        copy = TerminalScreen(self.columns)
        copy.feed(self.ansi().encode())
        copy._screen.truncated = self.truncated
        return copy

    @property
    def truncated(self) -> bool:
        return bool(self._screen.truncated)

    def feed(self, data: bytes) -> None:
        self.bytes_seen += len(data)
        # Characters that hide or reorder text go before the emulator sees them (it would
        # draw a bidi control as nothing, and lose the line's text with it).
        self._stream.feed(strip_invisible(self._decoder.decode(data)))

    def feed_text(self, text: str) -> None:
        # A lone "\n" moves down without going back to the first column on a terminal whose
        # driver does not translate it (as a pty does): output read from a pipe is text.
        self.feed(text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8", "replace"))

    def _rows(self) -> list[Any]:
        screen = self._screen
        rows = list(screen.history.top) + [screen.buffer[y] for y in range(screen.lines)]
        # Down to the cursor's row, and past it to the last row holding anything.
        last = len(screen.history.top) + screen.cursor.y
        for index in range(len(rows) - 1, last, -1):
            if any(cell.data.strip() for cell in rows[index].values()):
                last = index
                break
        rows = rows[: last + 1]
        while rows and not any(cell.data.strip() for cell in rows[-1].values()):
            rows.pop()
        return rows

    def lines(self) -> list[list[Run]]:
        """The lines drawn, each a list of runs (trailing blanks left out)."""
        out: list[list[Run]] = []
        default = self._screen.default_char
        for row in self._rows():
            width = max((column + 1 for column in row), default=0)
            runs: list[Run] = []
            text: list[str] = []
            key: tuple[Any, ...] | None = None
            for column in range(width):
                cell = row.get(column, default)
                shape = (cell.fg, cell.bg, cell.bold, cell.italics, cell.underscore, cell.reverse)
                if shape != key and text:
                    runs.append(_run("".join(text), key))
                    text = []
                key = shape
                text.append(_visible(cell.data))
            if text:
                runs.append(_run("".join(text), key))
            while runs and not runs[-1].text.strip() and runs[-1].bg is None:
                runs.pop()
            if runs and runs[-1].bg is None:
                last = runs[-1]
                runs[-1] = Run(last.text.rstrip(), *_shape_of(last))
            out.append(runs)
        return out

    def text(self) -> str:
        """The lines drawn as plain text."""
        return "\n".join("".join(run.text for run in line) for line in self.lines())

    def ansi(self) -> str:
        """The lines drawn, with their colours as SGR sequences: what a terminal fed it
        draws again (how a shell block is kept, and shown when its session is reopened)."""
        out: list[str] = []
        for line in self.lines():
            for run in line:
                codes = _sgr(run)
                out.append(f"\x1b[0;{codes}m{run.text}" if codes else f"\x1b[0m{run.text}")
            out.append("\x1b[0m\r\n")
        return "".join(out)


_BASIC = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]


def _colour_code(name: str | None, base: int) -> str | None:
    """The SGR parameters of a colour name (``base`` 30: foreground, 40: background)."""
    if name is None:
        return None
    if name.startswith("#") and len(name) == 7:
        red, green, blue = (int(name[i : i + 2], 16) for i in (1, 3, 5))
        return f"{base + 8};2;{red};{green};{blue}"
    bright = name.startswith("bright_")
    plain = name.removeprefix("bright_")
    if plain in _BASIC:
        return str(base + (60 if bright else 0) + _BASIC.index(plain))
    return None


def _sgr(run: Run) -> str:
    flags = [(run.bold, "1"), (run.italic, "3"), (run.underline, "4"), (run.reverse, "7")]
    codes = [code for on, code in flags if on]
    codes += [c for c in (_colour_code(run.fg, 30), _colour_code(run.bg, 40)) if c]
    return ";".join(codes)


def _run(text: str, shape: tuple[Any, ...] | None) -> Run:
    if shape is None:
        return Run(text)
    fg, bg, bold, italic, underline, reverse = shape
    return Run(text, colour(fg), colour(bg), bold, italic, underline, reverse)


def _shape_of(run: Run) -> tuple[Any, ...]:
    return (run.fg, run.bg, run.bold, run.italic, run.underline, run.reverse)


def render_text(output: str, columns: int = 100) -> TerminalScreen:
    """A terminal that was fed ``output`` (text a process wrote, read from a pipe)."""
    screen = TerminalScreen(columns)
    screen.feed_text(output)
    return screen


def exit_words(exit_code: int | None) -> str:
    """How a command ended, in words: ``running``, ``exit 0``, ``ended by SIGINT``."""
    if exit_code is None:
        return "running"
    if exit_code >= 0:
        return f"exit {exit_code}"
    import signal

    try:
        name = signal.Signals(-exit_code).name
    except ValueError:
        name = f"signal {-exit_code}"
    return f"ended by {name}"
