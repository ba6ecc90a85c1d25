"""From what a reply draws back to what the agent sent: a selection of drawn rows as the text
of the reply it shows, and a code block's code.

A reply is drawn wrapped to the width, with markers resolved and decorations added (the bar
of a quote, a list's bullet, a code block's margin). Copied as drawn, a long line of code
comes out cut at every wrap. So a selection is mapped back: each drawn character is matched,
in order, to the character of its block's text it shows (a character the text does not hold,
a bullet or a bar, matches nothing), and the selection becomes the slice of the reply's text
from its first selected character to its last. What lies between comes as it was sent: whole
lines, blank lines, fences and markers. A selection that starts at the start of a block takes
the block's leading markers too (``- ``, ``# ``), one that reaches a block's end its trailing
ones; a selection inside a code block is code only, never its fences.

Plain Python over strings: :class:`~acp_tui.ui.render.document.Document` gives the blocks, where
each starts and what each draws.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from acp_tui.ui.render.blocks import FencePiece, markdown_blocks

__all__ = [
    "DrawnBlock",
    "code_of_block",
    "fence_body",
    "is_fence",
    "last_code_block",
    "selected_source",
]

#: An opening code fence: up to three spaces, then three or more backticks or tildes.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: How far ahead in the text a drawn character is first looked for (a bullet or a bar that
#: the text holds further on must not pull the match there); then anywhere further on.
_NEAR = 64


@dataclass(frozen=True, slots=True)
class DrawnBlock:
    """One block of the reply as drawn: its text (as the splitter gave it, a long block's
    piece maybe), the row it starts on, and its drawn rows' text."""

    text: str
    first_row: int
    rows: Sequence[str]


def is_fence(block: str) -> bool:
    """Whether ``block`` is a fenced code block (or a piece of one)."""
    return _FENCE.match(block) is not None


def fence_body(block: str) -> str:
    """The code of a fenced block: without its opening line and its closing fence (none
    while it is still streaming)."""
    lines = block.split("\n")
    opener = _FENCE.match(lines[0])
    if opener is None:
        return block
    fence = opener.group(1)
    body = lines[1:]
    if body:
        last = body[-1].strip()
        if last.startswith(fence) and not last.strip(fence[0]):
            body = body[:-1]
    return "\n".join(body)


def _body(block: str) -> str:
    """What of a block its rows draw: a code block's code, any other block all of it."""
    return fence_body(block) if is_fence(block) else block


def code_of_block(blocks: Sequence[str], index: int) -> str:
    """The whole code of the fenced block that block ``index`` is (or is a piece of), as
    sent: a long one's pieces joined. "" when block ``index`` is no code block."""
    if not 0 <= index < len(blocks) or not is_fence(blocks[index]):
        return ""
    first = index
    while first > 0 and isinstance(blocks[first], FencePiece):
        first -= 1
    last = index
    while last + 1 < len(blocks) and isinstance(blocks[last + 1], FencePiece):
        last += 1
    return "\n".join(fence_body(blocks[i]) for i in range(first, last + 1))


def last_code_block(text: str) -> str | None:
    """The code of the last fenced code block of a reply's text, as sent; None if it has
    none."""
    blocks = markdown_blocks(text)
    for index in range(len(blocks) - 1, -1, -1):
        if is_fence(blocks[index]):
            return code_of_block(blocks, index)
    return None


def _align(rows: Sequence[str], body: str) -> list[list[int]]:
    """For each drawn character of ``rows``, where in ``body`` the character it shows is (-1
    for a space, or a character the body does not hold: a bullet, a bar, a border)."""
    found: list[list[int]] = []
    place = 0
    for row in rows:
        marks: list[int] = []
        for char in row:
            if char.isspace():
                marks.append(-1)
                continue
            at = body.find(char, place, place + _NEAR)
            if at < 0:
                at = body.find(char, place)
            if at >= 0:
                place = at + 1
            marks.append(at)
        found.append(marks)
    return found


def selected_source(
    source: str,
    before: Sequence[str],
    blocks: Sequence[DrawnBlock],
    start: tuple[int, int] | None,
    end: tuple[int, int] | None,
) -> str | None:
    """The text of ``source`` (the whole reply) a selection of its drawn rows shows.
    ``before``: the text of every block before the first the selection touches (to find
    where in ``source`` those are: the same code may come twice); ``blocks``: the blocks the
    selection touches, in order (as each is drawn); ``start`` and ``end``: (column, row) of
    the selection's first character and one past its last (None: from the start, to the
    end). None when a block's text is not found in ``source`` (the caller then gives the
    rows as drawn)."""
    first_row, first_column = (start[1], start[0]) if start is not None else (0, 0)
    last_row, last_column = (end[1], end[0]) if end is not None else (1 << 62, 1 << 62)
    begin: int | None = None
    finish: int | None = None
    cursor = 0
    for text in before:
        body = _body(text)
        offset = source.find(body, cursor)
        if offset < 0:
            return None
        cursor = offset + len(body)
    for block in blocks:
        body = _body(block.text)
        offset = source.find(body, cursor) if body else cursor
        if offset < 0:
            return None
        cursor = offset + len(body)
        marks = _align(block.rows, body)
        chosen: list[int] = []
        covers_first = covers_last = False
        first_mark = last_mark = None
        for number, row_marks in enumerate(marks):
            row = block.first_row + number
            for column, mark in enumerate(row_marks):
                if mark < 0:
                    continue
                if first_mark is None:
                    first_mark = (row, column)
                last_mark = (row, column)
                if _inside(row, column, first_row, first_column, last_row, last_column):
                    chosen.append(mark)
        if not chosen:
            continue
        covers_first = first_mark is not None and _inside(
            *first_mark, first_row, first_column, last_row, last_column
        )
        covers_last = last_mark is not None and _inside(
            *last_mark, first_row, first_column, last_row, last_column
        )
        low = 0 if covers_first else min(chosen)
        high = len(body) if covers_last else max(chosen) + 1
        if begin is None:
            begin = offset + low
        finish = offset + high
    if begin is None or finish is None:
        return ""
    return source[begin:finish]


def _inside(
    row: int, column: int, first_row: int, first_column: int, last_row: int, last_column: int
) -> bool:
    if row < first_row or row > last_row:
        return False
    if row == first_row and column < first_column:
        return False
    return not (row == last_row and column >= last_column)
