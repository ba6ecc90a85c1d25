"""The top-level Markdown blocks of a text, split as the text grows.

:func:`markdown_blocks` splits a whole text; :class:`BlockSplitter` gives the same blocks for a
text fed a piece at a time, looking at each line once: every block but the last one or two is
final as soon as the next block starts (text is only ever added at the end), so a reply of
megabytes costs what its new text costs per frame, not what the whole reply costs.
"""

from __future__ import annotations

import re

__all__ = ["FENCE_PIECE_LINES", "BlockSplitter", "FencePiece", "markdown_blocks"]

#: An opening code fence: up to three spaces, then three or more backticks or tildes.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: Lines of an open code fence rendered as one piece: a long code block streams in pieces,
#: so only its last piece is drawn again as it grows.
FENCE_PIECE_LINES = 40


class FencePiece(str):
    """A block that goes on the code block before it (a long fence's next piece): drawn right
    under it, with no blank row between, so that the code reads as one block."""

    __slots__ = ()


class _Scan:
    """The state of the line scanner between two lines (copied to look ahead)."""

    __slots__ = ("blank_seen", "continued", "current", "fence", "fence_lines", "fence_opener")

    def __init__(self) -> None:
        self.current: list[str] = []
        self.fence: str | None = None
        self.fence_opener = ""
        self.fence_lines = 0
        self.blank_seen = False
        #: The block being gathered is a long fence's next piece.
        self.continued = False

    def copy(self) -> _Scan:
        other = _Scan()
        other.current = list(self.current)
        other.fence = self.fence
        other.fence_opener = self.fence_opener
        other.fence_lines = self.fence_lines
        other.blank_seen = self.blank_seen
        other.continued = self.continued
        return other

    def _emit(self, blocks: list[str]) -> None:
        """The block gathered so far, to ``blocks`` (it stays gathered: the caller starts the
        next one, or is :meth:`finish`, which leaves the scan as it was)."""
        text = "\n".join(self.current)
        blocks.append(FencePiece(text) if self.continued else text)

    def line(self, line: str, blocks: list[str]) -> None:
        """Take one line; finished blocks go to ``blocks``."""
        current = self.current
        if self.fence is not None:
            stripped = line.strip()
            if stripped.startswith(self.fence) and not stripped.strip(self.fence[0]):
                self.fence = None
                current.append(line)
                return
            if self.fence_lines >= FENCE_PIECE_LINES:
                # Close this piece and open the next one with the same info string.
                current.append(self.fence)
                self._emit(blocks)
                current = self.current = [self.fence_opener]
                self.continued = True
                self.fence_lines = 0
            current.append(line)
            self.fence_lines += 1
            return
        if not line.strip():
            if current:
                self.blank_seen = True
            return
        if self.blank_seen and not line.startswith((" ", "\t")):
            self._emit(blocks)
            current = self.current = []
            self.continued = False
        elif self.blank_seen:
            current.append("")
        self.blank_seen = False
        current.append(line)
        opener = _FENCE.match(line)
        if opener:
            self.fence = opener.group(1)
            self.fence_opener = line
            self.fence_lines = 0

    def finish(self, blocks: list[str]) -> None:
        if self.current:
            self._emit(blocks)


def markdown_blocks(text: str) -> list[str]:
    """Split Markdown into top-level blocks at blank lines, never inside a fenced code block
    and never before an indented line (a list item's continuation stays with its item).
    Long fenced blocks come in pieces of :data:`FENCE_PIECE_LINES` lines, each fenced; every
    piece after the first is a :class:`FencePiece`."""
    blocks: list[str] = []
    scan = _Scan()
    for line in text.split("\n"):
        scan.line(line, blocks)
    scan.finish(blocks)
    return blocks


class BlockSplitter:
    """:func:`markdown_blocks` of a text given a piece at a time.

    :attr:`settled` holds the blocks no later text can change; :meth:`open_blocks` the ones
    after them as the text stands now (at most two: the open block, and one the unfinished last
    line may have started). ``settled + open_blocks()`` always equals ``markdown_blocks`` of
    everything fed so far."""

    def __init__(self) -> None:
        self.settled: list[str] = []
        self._scan = _Scan()
        #: The last line, not ended by a newline yet.
        self._pending = ""
        #: Characters fed so far.
        self.fed = 0

    def feed(self, text: str) -> None:
        """Add ``text`` at the end."""
        if not text:
            return
        self.fed += len(text)
        if "\n" not in text:
            self._pending += text
            return
        lines = text.split("\n")
        lines[0] = self._pending + lines[0]
        self._pending = lines.pop()
        scan, settled = self._scan, self.settled
        for line in lines:
            scan.line(line, settled)

    def open_blocks(self) -> list[str]:
        """The blocks after :attr:`settled`, with the unfinished last line taken as it is."""
        blocks: list[str] = []
        scan = self._scan
        if self._pending or scan.fence is not None:
            scan = scan.copy()
            scan.line(self._pending, blocks)
        scan.finish(blocks)
        return blocks
