"""Rich's word wrap for a styled text that grows at its end.

Wrapping is greedy: where a wrapped line ends depends only on where it starts and on the text
after that. So once a text is wrapped, every line but the last is final while text is only
added at the end (the last word may still grow, and then moves to a new line, but it can never
move back). :class:`GrowingWrap` keeps the final lines and re-wraps from the start of the last
two lines only: adding a word to a paragraph of a megabyte costs what two lines cost.

The lines are exactly those of ``Text.wrap`` (and so of Rich rendering the text), which the
tests check against Rich on random texts; :func:`wrap_with_starts` is that same algorithm,
step by step, also telling where each line starts.
"""

from __future__ import annotations

import re

from rich._wrap import divide_line
from rich.cells import cell_len
from rich.text import Text

__all__ = ["GrowingWrap", "wrap_with_starts"]

_WORD = re.compile(r"\S*")
_FIRST_WORD = re.compile(r"\s*\S+\s*")
#: Lines at the end kept open (re-wrapped with the next text): the last one can change.
KEEP_OPEN = 2


def wrap_with_starts(
    text: Text,
    width: int,
    *,
    justify: str = "left",
    overflow: str = "fold",
    tab_size: int = 8,
) -> tuple[list[Text], list[int], list[int]]:
    """``text.wrap(width)`` as Rich does it, plus two lists with an item per line: the offset
    in ``text`` where wrapping may restart to give the same lines again, or -1 where it may
    not; and the offset where the line's physical line (up to a newline) starts.

    Wrapping may not restart inside a line whose tabs were expanded (a tab's width depends on
    where its line starts), nor inside a folded word whose rest would fit a line (Rich folds a
    word together with its trailing spaces)."""
    width = max(1, width)
    lines: list[Text] = []
    starts: list[int] = []
    physicals: list[int] = []
    fold = overflow == "fold"
    offset = 0
    for physical in text.split("\n", allow_blank=True):
        plain = physical.plain
        tabbed = "\t" in plain
        if tabbed:
            physical.expand_tabs(tab_size)
        breaks = divide_line(physical.plain, width, fold=fold)
        first = _FIRST_WORD.match(plain)
        first_end = first.end() if first else 0
        pieces = physical.divide(breaks)
        for piece in pieces:
            piece.rstrip_end(width)
        pieces.justify(None, width, justify=justify, overflow=overflow)  # type: ignore[arg-type]
        for piece in pieces:
            piece.truncate(width, overflow=overflow)  # type: ignore[arg-type]
        lines.extend(pieces)
        physicals.extend([offset] * len(pieces))
        starts.append(offset)
        for cut in breaks:
            # A line may start over where a word starts after a space, past the line's first
            # "word" (which holds its leading spaces and may be folded with them), or inside
            # a folded word whose rest is still too long for a line (it folds the same way).
            restart = not tabbed and (
                (cut >= first_end and plain[cut - 1].isspace() and not plain[cut].isspace())
                or _wider_than(plain, cut, width)
            )
            starts.append(offset + cut if restart else -1)
        offset += len(plain) + 1
    return lines, starts, physicals


def _wider_than(plain: str, start: int, width: int) -> bool:
    """Whether the word (the run of non-spaces) at ``start`` in ``plain`` is wider than
    ``width`` cells. Only as much of the word is measured as the answer needs: asked at every
    line of a folded word, measuring the whole rest of it each time made wrapping a word of a
    megabyte take hours."""
    limit = width + 1
    while True:
        word = _WORD.match(plain, start, start + limit).group()  # type: ignore[union-attr]
        if cell_len(word) > width:
            return True
        if len(word) < limit:
            return False
        limit *= 2


def _tab_in_first_line(plain: str) -> bool:
    tab = plain.find("\t")
    if tab < 0:
        return False
    newline = plain.find("\n", 0, tab)
    return newline < 0


class GrowingWrap:
    """The wrapped lines of a text given a piece at a time (:meth:`extend`), plus, for each
    look, a provisional end that is not final yet (:meth:`tail`)."""

    def __init__(self, width: int, *, justify: str = "left", overflow: str = "fold") -> None:
        self.width = max(1, width)
        self.justify = justify
        self.overflow = overflow
        #: Lines that no later text can change (but see :meth:`tail` for tabs).
        self.frozen: list[Text] = []
        #: The text from the start of the first line still open.
        self._open = self._empty()
        #: The frozen part of the current physical line, and how many frozen lines it made: a
        #: tab arriving in that line changes how all of it wraps.
        self._head = self._empty()
        self._head_lines = 0
        #: The fewest frozen lines there were since a reader last reset this (a tab in the
        #: current physical line thaws its frozen lines): lines from here on may differ from
        #: what the reader saw.
        self.lowest_frozen = 0

    def _empty(self) -> Text:
        return Text(justify=self.justify)  # type: ignore[arg-type]

    def _wrap(self, text: Text) -> tuple[list[Text], list[int], list[int]]:
        return wrap_with_starts(text, self.width, justify=self.justify, overflow=self.overflow)

    def _with_head(self, text: Text) -> Text:
        joined = self._head.copy()
        joined.append_text(text)
        return joined

    def extend(self, text: Text) -> None:
        """Add ``text`` at the end, for good."""
        if not text.plain:
            return
        self._open.append_text(text)
        if self._head_lines and _tab_in_first_line(self._open.plain):
            self._open = self._with_head(self._open)
            del self.frozen[-self._head_lines :]
            self.lowest_frozen = min(self.lowest_frozen, len(self.frozen))
            self._head, self._head_lines = self._empty(), 0
        lines, starts, physicals = self._wrap(self._open)
        keep = max(0, len(lines) - KEEP_OPEN)
        while keep > 0 and starts[keep] < 0:
            keep -= 1
        if not keep:
            return
        cut = starts[keep]
        self.frozen.extend(lines[:keep])
        line_start = physicals[keep]
        if line_start == 0:
            self._head.append_text(self._open[:cut])
            self._head_lines += keep
        else:
            self._head = self._open[line_start:cut]
            self._head_lines = sum(1 for start in physicals[:keep] if start == line_start)
        self._open = self._open[cut:]

    def tail(self, provisional: Text | None = None) -> tuple[int, list[Text]]:
        """The lines of the open text with ``provisional`` at its end (text that may still
        change, shown for now), and how many of :attr:`frozen` come before them (fewer than
        all when a tab in ``provisional`` re-wraps the current line)."""
        text = self._open
        if provisional is not None and provisional.plain:
            text = text.copy()
            text.append_text(provisional)
        frozen = len(self.frozen)
        if self._head_lines and _tab_in_first_line(text.plain):
            text = self._with_head(text)
            frozen -= self._head_lines
        if not text.plain:
            return frozen, []
        return frozen, self._wrap(text)[0]

    def lines(self, provisional: Text | None = None) -> list[Text]:
        """Every line (for tests and small texts: the frozen list is copied)."""
        frozen, tail = self.tail(provisional)
        return self.frozen[:frozen] + tail
