"""The top-level Markdown blocks of a text, split as the text grows.

:func:`markdown_blocks` splits a whole text; :class:`BlockSplitter` gives the same blocks for a
text fed a piece at a time, looking at each line once: every block but the last one or two is
final as soon as the next block starts (text is only ever added at the end), so a reply of
megabytes costs what its new text costs per frame, not what the whole reply costs.

No block is long: one longer than :data:`LONG_BLOCK_CHARS` (a reply of one 5 MB word, a line
of minified JSON, a huge code line) is cut into pieces, each drawn on its own, so the work of
drawing what is on screen never depends on how long a block is. A code block is cut at a line
end (or, for one huge line, anywhere); any other block where nothing is open
(:func:`cut_place`), its next pieces drawn as the paragraph text they continue
(:class:`ParagraphPiece`). Each piece starts a new row: a long block shows a row that ends
early every :data:`LONG_BLOCK_CHARS` characters or so, and all of its text.
"""

from __future__ import annotations

import re

__all__ = [
    "FENCE_PIECE_LINES",
    "LONG_BLOCK_CHARS",
    "BlockSplitter",
    "FencePiece",
    "ParagraphPiece",
    "cut_place",
    "markdown_blocks",
]

#: An opening code fence: up to three spaces, then three or more backticks or tildes.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: The start of a line that opens a code fence, or may still (more of it to come).
_MAY_FENCE = re.compile(r" {0,3}(?:`{3,}|~{3,}|`{1,2}$|~{1,2}$)|\s*$")
#: Lines of an open code fence rendered as one piece: a long code block streams in pieces,
#: so only its last piece is drawn again as it grows.
FENCE_PIECE_LINES = 40
#: A block grows to this many characters before it is cut into pieces (see the module doc).
LONG_BLOCK_CHARS = 32_768
#: How far past :data:`LONG_BLOCK_CHARS` a place where nothing is open is looked for, then
#: any place between words, then the cut is made anyway (see :func:`cut_place`).
FORCE_CUT_CHARS = 32_768
#: Characters before a cut with no inline marker among them (see :func:`cut_place`).
QUIET_CHARS = 256
#: Where a block other than code may be cut: at a line start, after a space between two
#: words, or between two letters or digits (inside a long word).
_CUT_AT = re.compile(r"(?<=\n)(?=\S)|(?<=\S )(?=\S)|(?<=[^\W_])(?=[^\W_])")
#: What may open an inline construct that a cut after it would break: a code span, emphasis
#: (an underscore only outside a word), strikethrough, an autolink, an escape, an entity.
_LOUD = re.compile(r"[`*~<\\&]|(?<![^\W_])_|_(?![^\W_])")


class FencePiece(str):
    """A block that goes on the code block before it (a long fence's next piece): drawn right
    under it, with no blank row between, so that the code reads as one block."""

    __slots__ = ()


class ParagraphPiece(str):
    """A block that goes on the block before it (a long block's next piece): drawn right under
    it, with no blank row between, as the paragraph text it continues (never read as a
    heading, a list or code, whatever its first characters)."""

    __slots__ = ()


def cut_place(text: str, start: int, *, code: bool, base: int = 0) -> int:
    """Where a block ``text`` longer than :data:`LONG_BLOCK_CHARS` is cut, looked for from
    ``start`` on (the places before were looked at already); -1 while there is none yet. The
    same text always gives the same place, however it arrived.

    Code: the first line start from :data:`LONG_BLOCK_CHARS` on, else a cut
    :data:`FORCE_CUT_CHARS` later. Other blocks: the first place of ``_CUT_AT`` with no inline
    marker in the :data:`QUIET_CHARS` before it (nothing opened there can be left open), within
    :data:`FORCE_CUT_CHARS`; else the first such place at all within as many more; else the
    cut is made there anyway (a construct spanning it shows its markers literally). Lengths
    count from ``base`` (a fence's piece repeats its opening line before it)."""
    low = max(start, base + LONG_BLOCK_CHARS)
    quiet_end = base + LONG_BLOCK_CHARS + FORCE_CUT_CHARS
    if code:
        newline = text.find("\n", low - 1, quiet_end)
        if newline >= 0 and newline + 1 < len(text):
            return newline + 1
        return _hard_cut(text, quiet_end)
    position = low
    while position < quiet_end:
        match = _CUT_AT.search(text, position, min(len(text), quiet_end))
        if match is None:
            break
        place = match.start()
        loud = None
        for loud in _LOUD.finditer(text, max(0, place - QUIET_CHARS), place):  # noqa: B007
            pass
        if loud is None:
            return place
        position = loud.start() + QUIET_CHARS + 1
    if len(text) <= quiet_end:
        return -1
    match = _CUT_AT.search(text, max(start, quiet_end), quiet_end + FORCE_CUT_CHARS)
    if match is not None:
        return match.start()
    return _hard_cut(text, quiet_end + FORCE_CUT_CHARS)


def _hard_cut(text: str, place: int) -> int:
    """``place`` if the text goes on after it (after the line end there is one), else -1."""
    if place < len(text) and text[place] == "\n":
        place += 1
    return place if place < len(text) else -1


class _Scan:
    """The state of the line scanner between two lines (copied to look ahead)."""

    __slots__ = (
        "blank_seen",
        "chars",
        "continued",
        "current",
        "fence",
        "fence_base",
        "fence_lines",
        "fence_opener",
        "line_goes_on",
        "piece",
        "searched",
    )

    def __init__(self) -> None:
        self.current: list[str] = []
        self.fence: str | None = None
        self.fence_opener = ""
        #: Characters of :attr:`current` up to the end of the open fence's opening line.
        self.fence_base = 0
        self.fence_lines = 0
        self.blank_seen = False
        #: The block being gathered is a long fence's next piece.
        self.continued = False
        #: The block being gathered is a long block's next piece (not code).
        self.piece = False
        #: The next line is the rest of one cut in two: not the start of a line.
        self.line_goes_on = False
        #: Characters of :attr:`current`, a newline after each line.
        self.chars = 0
        #: Where :func:`cut_place` looks on from in the block being gathered.
        self.searched = 0

    def copy(self) -> _Scan:
        other = _Scan()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.current = list(self.current)
        return other

    def _emit(self, blocks: list[str]) -> None:
        """The block gathered so far, to ``blocks`` (it stays gathered: the caller starts the
        next one, or is :meth:`finish`, which leaves the scan as it was)."""
        blocks.append(self._typed("\n".join(self.current)))

    def _typed(self, text: str) -> str:
        if self.continued:
            return FencePiece(text)
        return ParagraphPiece(text) if self.piece else text

    def _start(self, lines: list[str]) -> None:
        self.current = lines
        self.chars = sum(len(line) + 1 for line in lines)
        self.searched = 0

    def line(self, line: str, blocks: list[str]) -> None:
        """Take one line; finished blocks go to ``blocks``."""
        if self.line_goes_on:
            self.line_goes_on = False
            self.current.append(line)
            self.chars += len(line) + 1
            if self.fence is not None:
                self.fence_lines += 1
        else:
            self._line(line, blocks)
        self.cut_long(blocks)

    def _line(self, line: str, blocks: list[str]) -> None:
        current = self.current
        if self.fence is not None:
            stripped = line.strip()
            if stripped.startswith(self.fence) and not stripped.strip(self.fence[0]):
                self.fence = None
                current.append(line)
                self.chars += len(line) + 1
                return
            if self.fence_lines >= FENCE_PIECE_LINES:
                # Close this piece and open the next one with the same info string.
                current.append(self.fence)
                self._emit(blocks)
                self._start([self.fence_opener])
                self.fence_base = self.chars
                current = self.current
                self.continued = True
                self.fence_lines = 0
            current.append(line)
            self.chars += len(line) + 1
            self.fence_lines += 1
            return
        if not line.strip():
            if current:
                self.blank_seen = True
            return
        if self.blank_seen and not line.startswith((" ", "\t")):
            self._emit(blocks)
            self._start([])
            current = self.current
            self.continued = self.piece = False
        elif self.blank_seen:
            current.append("")
            self.chars += 1
        self.blank_seen = False
        current.append(line)
        self.chars += len(line) + 1
        opener = _FENCE.match(line)
        if opener:
            self.fence = opener.group(1)
            self.fence_opener = line
            self.fence_base = self.chars
            self.fence_lines = 0

    def finish(self, blocks: list[str]) -> None:
        if self.current:
            self._emit(blocks)

    def cut_long(self, blocks: list[str], pending: str = "") -> str:
        """While the block being gathered (with ``pending``, the start of a line not ended
        yet, when it belongs to the block) is longer than :data:`LONG_BLOCK_CHARS`, cut it
        (:func:`cut_place`): the part before goes to ``blocks``. Returns what is left of
        ``pending``."""
        while True:
            if self.blank_seen:
                # The block is whole; a line after the blank is cut once it has ended.
                return pending
            # The line not ended yet is cut only once it cannot still open a fence.
            with_pending = bool(pending) and (
                self.line_goes_on or not (_MAY_FENCE.match(pending) or not pending.strip())
            )
            code = self.fence is not None
            # A fence's pieces each repeat its opening line: the length is counted after it.
            base = self.fence_base if code else 0
            size = self.chars + (len(pending) if with_pending else 0) - base
            if size <= LONG_BLOCK_CHARS:
                return pending
            text = "\n".join(self.current)
            if with_pending:
                text = f"{text}\n{pending}" if self.current else pending
            place = cut_place(text, self.searched, code=code, base=base)
            if place < 0:
                self.searched = len(text)
                return pending
            head, rest = text[:place], text[place:]
            at_line_start = head.endswith("\n")
            head = head.removesuffix("\n")
            lines = rest.split("\n")
            if with_pending:
                # The rest of the line not ended yet stays pending; if the cut is in it, its
                # next part is no line start.
                pending = lines.pop()
                self.line_goes_on = not at_line_start and len(lines) == 0
            if self.fence is not None:
                blocks.append(self._typed(f"{head}\n{self.fence}"))
                self.continued = True
                self._start([self.fence_opener, *lines])
                self.fence_base = len(self.fence_opener) + 1
                self.fence_lines = len(lines)
            else:
                blocks.append(self._typed(head))
                self.piece = True
                self._start(lines)


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
        scan, settled = self._scan, self.settled
        if "\n" not in text:
            self._pending += text
        else:
            lines = text.split("\n")
            lines[0] = self._pending + lines[0]
            self._pending = lines.pop()
            for line in lines:
                scan.line(line, settled)
        self._pending = scan.cut_long(settled, self._pending)

    def open_blocks(self) -> list[str]:
        """The blocks after :attr:`settled`, with the unfinished last line taken as it is."""
        blocks: list[str] = []
        scan = self._scan
        if self._pending or scan.fence is not None:
            scan = scan.copy()
            scan.line(self._pending, blocks)
        scan.finish(blocks)
        return blocks
