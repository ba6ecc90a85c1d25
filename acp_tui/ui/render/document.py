"""A reply as Markdown blocks with heights, drawn only where someone looks.

The text is split into top-level blocks as it arrives (:class:`~.blocks.BlockSplitter`, width
independent). At a width, every block has a height: exact once the block was drawn, else
estimated from its length (cheap: a megabyte of blocks is estimated in milliseconds). Blocks are
drawn when a line of theirs is asked for (the screen shows about forty lines), plus the last
ones, which a person following the reply sees; a growing plain paragraph is drawn a piece at a
time (:class:`~.paragraph.GrowingParagraph`). Drawn lines are kept for the most recently seen
blocks only (:data:`KEEP_LINES`): a reply of 50 MB keeps its text and one integer per block,
not its millions of drawn lines.

Blocks are joined by one blank line, as :class:`MarkdownLines` always drew them, except the
pieces of a long block, drawn one under the other (:class:`~.blocks.FencePiece`,
:class:`~.blocks.ParagraphPiece`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from itertools import accumulate
from typing import TYPE_CHECKING

from textual.strip import Strip

from acp_tui.ui.render.blocks import BlockSplitter, FencePiece, ParagraphPiece
from acp_tui.ui.render.paragraph import GrowingParagraph, is_plain_paragraph

if TYPE_CHECKING:
    from acp_tui.ui.render.markdown import BlockRenderer

__all__ = ["KEEP_LINES", "Document", "estimate_height"]

#: Drawn lines kept for blocks that are not open (the most recently used blocks first).
KEEP_LINES = 6_000
_BLANK = Strip([])


def estimate_height(block: str, width: int) -> int:
    """About how many rows ``block`` takes at ``width``: its characters over the width (less
    what word wrapping leaves at line ends), at least a row per line; two more for a heading's
    margin. Constant time: a reply of 50 MB has some 100,000 blocks to estimate."""
    usable = max(1, width - 3) if width > 12 else max(1, width)
    rows = max(block.count("\n") + 1, -(-len(block) // usable))
    return rows + 2 if block.startswith("# ") else rows


class Document:
    """The blocks of one text, laid out at one width at a time."""

    def __init__(self) -> None:
        self._splitter = BlockSplitter()
        #: Every block's text: the settled ones, then the open ones (replaced as they grow).
        self.blocks: list[str] = []
        #: How many of :attr:`blocks` are settled (never change again).
        self._settled = 0
        #: The last block while it is a plain paragraph, drawn a piece at a time.
        self._paragraph: GrowingParagraph | None = None
        self._paragraph_index = -1
        self.width = 0
        self.renderer: BlockRenderer | None = None
        self._heights: list[int] = []
        #: Settled block index -> its drawn lines at :attr:`width` (least recently used first).
        self._drawn: OrderedDict[int, list[Strip]] = OrderedDict()
        self._drawn_lines = 0
        #: Open block index -> (the text drawn, its lines): open blocks change every frame.
        self._open_lines: dict[int, tuple[str, list[Strip]]] = {}
        #: Row where each block starts (a blank row comes before every block but the first and
        #: a long fence's next pieces),
        #: valid for the first ``_starts_valid`` blocks.
        self._starts: list[int] = []
        self._starts_valid = 0

    @property
    def fed(self) -> int:
        """Characters fed so far."""
        return self._splitter.fed

    # ------------------------------------------------------------------ text

    def feed(self, text: str) -> None:
        """Add ``text`` at the end (any size: the caller slices huge texts)."""
        if not text:
            return
        splitter = self._splitter
        before = self._settled
        splitter.feed(text)
        settled = splitter.settled
        blocks = self.blocks
        del blocks[before:]
        blocks.extend(settled[before:])
        blocks.extend(splitter.open_blocks())
        self._settled = len(settled)
        # Blocks from ``before`` on are new or may have changed: heights again.
        del self._heights[before:]
        self._starts_valid = min(self._starts_valid, before)
        if self.width:
            width = self.width
            heights = self._heights
            heights.extend(
                estimate_height(blocks[i], width) for i in range(len(heights), len(blocks))
            )
        paragraph = self._paragraph
        if paragraph is not None:
            index = self._paragraph_index
            if index >= len(blocks) or not blocks[index].startswith(paragraph.source):
                self._paragraph, self._paragraph_index = None, -1
            elif index < self._settled - 1:
                # Settled with more blocks after it (a long text in one piece): drawn when
                # someone looks, like any block.
                self._paragraph, self._paragraph_index = None, -1
            elif index < self._settled and self.width:
                self._draw(index)  # its final lines, drawn the cheap way; then let go
        self._follow_paragraph()

    @property
    def behind(self) -> bool:
        """The growing paragraph has text it has not taken in yet (see :meth:`catch_up`)."""
        paragraph = self._paragraph
        if paragraph is None:
            return False
        return len(paragraph.source) < len(self.blocks[self._paragraph_index])

    def catch_up(self, budget: int) -> bool:
        """Let the growing paragraph take in and lay out about ``budget`` characters of the
        text it lacks (it shows what it has taken in). True while it is still behind."""
        paragraph = self._paragraph
        if paragraph is None:
            return False
        index = self._paragraph_index
        block = self.blocks[index]
        taken = len(paragraph.source)
        if taken < len(block):
            paragraph.extend(block[taken : taken + budget])
        paragraph.settle(budget)
        if self.width and paragraph.plain:
            paragraph.wrap_to(self.width)
        self._open_lines.pop(index, None)
        return self.behind

    def _follow_paragraph(self) -> None:
        last = len(self.blocks) - 1
        if (
            self.renderer is not None
            and last >= self._settled
            and last != self._paragraph_index
            and (self._paragraph is None or self._paragraph_index < self._settled)
            and is_plain_paragraph(
                self.blocks[last], continued=isinstance(self.blocks[last], ParagraphPiece)
            )
        ):
            continued = isinstance(self.blocks[last], ParagraphPiece)
            self._paragraph = GrowingParagraph(self.renderer, continued=continued)
            self._paragraph_index = last

    # ------------------------------------------------------------------ layout

    def use(self, renderer: BlockRenderer) -> None:
        """Draw with ``renderer`` from now on (a new one: the theme changed)."""
        if renderer is not self.renderer:
            self.renderer = renderer
            self._paragraph, self._paragraph_index = None, -1
            self.width = 0
        self._follow_paragraph()

    def layout(self, width: int, renderer: BlockRenderer, catch_up: int = 8_192) -> None:
        """Heights for every block at ``width``; the open blocks are drawn (exact), a growing
        paragraph with up to ``catch_up`` more characters taken in."""
        width = max(1, width)
        self.use(renderer)
        if width != self.width:
            self.width = width
            self._heights = []
            self._drawn.clear()
            self._drawn_lines = 0
            self._open_lines.clear()
            self._starts_valid = 0
        if catch_up and self.behind:
            self.catch_up(catch_up)
        heights = self._heights
        blocks = self.blocks
        for index in range(len(heights), len(blocks)):
            heights.append(estimate_height(blocks[index], width))
        self._follow_paragraph()
        # What a person following the reply sees first: its open blocks, exactly, and the
        # paragraph that just settled (its drawer is let go once its final lines are drawn).
        if 0 <= self._paragraph_index < self._settled:
            self._draw(self._paragraph_index)
        for index in range(self._settled, len(blocks)):
            self._draw(index)
        for index in [key for key in self._open_lines if key >= len(blocks)]:
            del self._open_lines[index]

    def _draw(self, index: int) -> list[Strip]:
        """Block ``index`` drawn at :attr:`width`, its height now exact."""
        lines = self._drawn.get(index)
        if lines is not None:
            self._drawn.move_to_end(index)
            return lines
        block = self.blocks[index]
        hit = self._open_lines.get(index)
        if hit is not None and hit[0] == block:
            lines = hit[1]
        else:
            renderer = self.renderer
            assert renderer is not None
            paragraph = self._paragraph
            if index == self._paragraph_index and paragraph is not None:
                if index < self._settled:  # final: take in the rest now
                    while self.catch_up(1 << 20):
                        pass
                    paragraph.settle(1 << 30)
                lines = paragraph.lines(self.width)
            if lines is None:
                if index == self._paragraph_index:
                    self._paragraph, self._paragraph_index = None, -1
                if isinstance(block, ParagraphPiece):
                    lines = renderer.piece_lines(block, self.width)
                else:
                    lines = renderer.lines(block, self.width)
        self._set_height(index, len(lines))
        if index < self._settled:
            self._open_lines.pop(index, None)
            if index == self._paragraph_index:
                self._paragraph, self._paragraph_index = None, -1
            self._drawn[index] = lines
            self._drawn_lines += len(lines)
            self._evict()
        else:
            self._open_lines[index] = (block, lines)
        return lines

    def _evict(self) -> None:
        drawn = self._drawn
        while self._drawn_lines > KEEP_LINES and len(drawn) > 1:
            _, lines = drawn.popitem(last=False)
            self._drawn_lines -= len(lines)

    def _set_height(self, index: int, height: int) -> None:
        heights = self._heights
        for missing in range(len(heights), index + 1):
            heights.append(estimate_height(self.blocks[missing], self.width))
        if heights[index] != height:
            heights[index] = height
            self._starts_valid = min(self._starts_valid, index + 1)

    def _valid_starts(self) -> list[int]:
        heights, starts = self._heights, self._starts
        count = len(heights)
        valid = min(self._starts_valid, count, len(starts))
        if valid < count or len(starts) != count:
            del starts[valid:]
            gap = self._gap_before
            first = starts[valid - 1] + heights[valid - 1] + gap(valid) if valid else 0
            starts.extend(
                accumulate(
                    (heights[i] + gap(i + 1) for i in range(valid, count - 1)), initial=first
                )
            )
            if not count:
                starts.clear()
        self._starts_valid = count
        return starts

    def _gap_before(self, index: int) -> int:
        """Blank rows before block ``index`` (one past the last: after it): one, but none
        before a long block's next piece."""
        blocks = self.blocks
        if index < len(blocks) and isinstance(blocks[index], FencePiece | ParagraphPiece):
            return 0
        return 1

    @property
    def height(self) -> int:
        """Rows of the whole text at :attr:`width` (estimated where not drawn)."""
        heights = self._heights
        if not heights:
            return 0
        return self._valid_starts()[-1] + heights[-1]

    # ------------------------------------------------------------------ lines

    def block_at(self, y: int) -> int:
        """The index of the block at row ``y`` (the one before, for the blank row above a
        block); -1 when there is none."""
        return bisect_right(self._valid_starts(), y) - 1

    def line(self, y: int) -> Strip:
        index = self.block_at(y)
        if index < 0:
            return _BLANK
        row = y - self._starts[index]
        lines = self._draw(index)
        return lines[row] if row < len(lines) else _BLANK

    def draw_rows(self, top: int, bottom: int) -> int | None:
        """Draw the blocks showing rows ``top`` to ``bottom`` (exclusive), so that their
        heights are exact. Returns None when no height changed, else by how many rows the
        blocks starting above ``top`` grew (negative: shrank)."""
        if not self.blocks:
            return None
        heights = self._heights
        index = max(0, self.block_at(top))
        row = self._starts[index] if self._starts else 0
        changed = False
        above = 0
        while index < len(self.blocks) and row < bottom:
            before = heights[index]
            self._draw(index)
            if heights[index] != before:
                changed = True
                if row < top:
                    above += heights[index] - before
            row += heights[index] + self._gap_before(index + 1)
            index += 1
        return above if changed else None

    def drawn_block(self, index: int) -> tuple[int, list[Strip]]:
        """Block ``index`` drawn: the row it starts on and its lines."""
        lines = self._draw(index)
        return self._valid_starts()[index], lines

    def text_rows(self, first: int, last: int) -> list[str]:
        """The plain text of rows ``first`` to ``last`` (inclusive), for a selection."""
        return [
            self.line(y).text.rstrip() for y in range(max(0, first), min(self.height, last + 1))
        ]
