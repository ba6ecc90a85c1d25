"""A line of key hints ("1-4 choose · ↑↓ + Enter · Esc reject") that wraps between hints.

Wrapped as one text, a hint line broke inside a hint and left a separator hanging at the end of
a row (``Esc reject  ·  r raw input  ·`` at 80 columns, Codex's tester). Here each hint stays
whole and a row ends at the last hint that fits; a hint wider than the row is folded on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["KeyHints", "pack_hints"]

SEPARATOR = "  ·  "


def pack_hints(hints: Sequence[str], width: int, separator: str = SEPARATOR) -> list[str]:
    """The rows of ``hints`` joined by ``separator``, a new row where the next would not fit
    in ``width`` cells."""
    rows: list[str] = []
    row = ""
    for hint in hints:
        if not row:
            row = hint
        elif cell_len(row) + cell_len(separator) + cell_len(hint) <= width:
            row += separator + hint
        else:
            rows.append(row)
            row = hint
    if row:
        rows.append(row)
    return rows


class KeyHints:
    """Rich renderable of :func:`pack_hints` at the width it is given (so Textual measures
    its height right at any width)."""

    def __init__(self, hints: Sequence[str], separator: str = SEPARATOR) -> None:
        self.hints = list(hints)
        self.separator = separator

    @property
    def plain(self) -> str:
        """On one row."""
        return self.separator.join(self.hints)

    def __str__(self) -> str:
        return self.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows = pack_hints(self.hints, max(options.max_width, 1), self.separator)
        yield Text("\n".join(rows), overflow="fold")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((cell_len(hint) for hint in self.hints), default=0)
        return Measurement(min(widest, options.max_width), cell_len(self.plain))
