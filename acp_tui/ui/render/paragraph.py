"""A Markdown paragraph that grows at its end, drawn without drawing all of it again.

Rich draws a paragraph as one styled text (its inline Markdown resolved) wrapped to the width.
Both steps are redone here a piece at a time:

- **settled pieces**: the paragraph is cut after a space between two words once everything
  before the cut is resolved (no emphasis, code span, link or HTML left open: the styled text
  of that part shows none of ``* _ ` [ ~ <``). Text after such a cut cannot change how the part
  before it is read (CommonMark matches delimiters left to right, and a cut between two words
  ends no construct), so that part's styled text is final. A word longer than a piece (base64,
  minified JSON) is cut inside, between two letters or digits (:meth:`GrowingParagraph._word_cut`).
  A piece is rendered once, with a word on either side so it is read in the same context as
  inside the paragraph;
- **wrapping**: settled pieces go to :class:`~.wrap.GrowingWrap`, which keeps every line but
  the last two final; the open rest of the paragraph is rendered and wrapped as a provisional
  end each time it is looked at.

So a frame costs what the new text and the last lines cost. A piece that stays unresolved (a
literal ``*`` or an unmatched backtick) is settled anyway once the open part passes
:data:`FORCE_CHARS`, so the work per frame stays bounded whatever the paragraph holds; only a
construct spanning such a forced cut would be drawn differently from Rich (it then shows its
markers literally).

A paragraph whose lines could be read as something else (a heading, list, quote, table,
fence, HTML or a setext underline interrupting it) is not handled here: :func:`is_plain_paragraph`
says no, and the caller draws it whole, as Rich does.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.render.wrap import GrowingWrap

if TYPE_CHECKING:
    from acp_tui.ui.render.markdown import BlockRenderer

__all__ = ["FORCE_CHARS", "GrowingParagraph", "is_plain_paragraph"]

#: A line that could start a block of another kind (or turn the paragraph into one).
_BLOCK_START = re.compile(r" {0,3}(?:[#>*+\-=|:~`<\[_]|\d{1,9}[.)])|\s{4}|\t")
#: Markers of an inline construct; in styled text they mean one was left open (an intraword
#: underscore never opens or closes emphasis).
_UNRESOLVED = re.compile(r"[*`\[~<]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
#: The open part is not cut into pieces shorter than this (each render has a fixed cost).
MIN_PIECE_CHARS = 256
#: The longest piece rendered at once when settling (bounded work per step).
MAX_PIECE_CHARS = 8_192
#: The longest HTML entity name (``&CounterClockwiseContourIntegral;``) and its ``&``, and some.
ENTITY_CHARS = 40
#: An open part longer than this is settled even though unresolved (see the module's doc).
FORCE_CHARS = 16_384


def is_plain_paragraph(text: str, *, continued: bool = False) -> bool:
    """Whether ``text`` is read as one paragraph (as far as its lines' starts tell: a line
    that may still grow is checked again by :func:`_lines_plain` when it does). ``continued``:
    ``text`` goes on a paragraph (a :class:`~.blocks.ParagraphPiece`), so its first line is no
    line start."""
    if not text:
        return False
    if not continued and (text[0].isspace() or _BLOCK_START.match(text)):
        return False
    return _lines_plain(text, 1, continued=continued)


def _lines_plain(text: str, start: int, *, continued: bool = False) -> bool:
    """No line of ``text`` that ends at or after ``start`` starts a block (the lines before
    were checked already; the one ``start`` falls in may have grown)."""
    newline = text.rfind("\n", 0, start)
    if newline < 0:
        if not continued and (_BLOCK_START.match(text) or text[:1].isspace()):
            return False
        newline = text.find("\n", start)
    while newline >= 0:
        if _BLOCK_START.match(text, newline + 1):
            return False
        newline = text.find("\n", newline + 1)
    return True


def _resolved(text: Text) -> bool:
    return _UNRESOLVED.search(text.plain) is None


class GrowingParagraph:
    """One paragraph's lines, given its text a piece at a time (:meth:`extend`)."""

    def __init__(
        self, renderer: BlockRenderer, source: str = "", *, continued: bool = False
    ) -> None:
        self.renderer = renderer
        #: The text goes on a paragraph (a long block's next piece): read in its context.
        self.continued = continued
        self.source = ""
        #: False once a line could be read as another kind of block: draw the block whole.
        self.plain = True
        #: Characters of :attr:`source` settled into :attr:`_pieces`.
        self._settled = 0
        self._pieces: list[Text] = []
        self._wrap: GrowingWrap | None = None
        self._wrapped = 0
        self._frozen: list[Strip] = []
        #: The open part's styled text, for the source and settled length it was made from.
        self._open_for = (-1, -1)
        self._open_text = Text()
        if source:
            self.extend(source)

    def extend(self, text: str) -> None:
        """Add ``text`` at the end of the paragraph."""
        if not text:
            return
        start = len(self.source)
        self.source += text
        if self.plain:
            self.plain = _lines_plain(self.source, start, continued=self.continued)

    @property
    def unsettled(self) -> int:
        """Characters of the open part (rendered again whenever the paragraph is drawn)."""
        return len(self.source) - self._settled

    def settle(self, budget: int = 2 * MAX_PIECE_CHARS) -> None:
        """Settle what can be settled of the open part, rendering at most about ``budget``
        characters."""
        if not self.plain:
            return
        source = self.source
        while budget > 0:
            open_chars = len(source) - self._settled
            if open_chars < 2 * MIN_PIECE_CHARS:
                return
            low = self._settled + MIN_PIECE_CHARS
            end = min(len(source) - 1, self._settled + MAX_PIECE_CHARS)
            cut = self._last_cut(low, end)
            if cut < 0:
                # A word longer than a piece (base64, minified JSON): cut inside it.
                cut = self._word_cut(low, end)
            if cut < 0:
                if open_chars <= FORCE_CHARS:
                    return
                cut = end  # forced (see the module's doc)
            piece = self._piece_text(self._settled, cut)
            budget -= cut - self._settled
            if piece is None or not _resolved(piece):
                # Something is still open: settle up to the word before the last marker, or
                # else the first one (the part before the first marker is resolved).
                found = self._resolved_before_marker(cut)
                if found is not None:
                    cut, piece = found
                elif open_chars <= FORCE_CHARS:
                    return
                if piece is None:
                    self.plain = False
                    return
            self._pieces.append(piece)
            self._settled = cut

    def _resolved_before_marker(self, cut: int) -> tuple[int, Text] | None:
        source, start = self.source, self._settled
        markers = [m.start() for m in _UNRESOLVED.finditer(source, start, cut)]
        for marker in dict.fromkeys(markers[-1:] + markers[:1]):
            earlier = self._last_cut(start + 1, marker)
            if earlier > 0:
                piece = self._piece_text(start, earlier)
                if piece is not None and _resolved(piece):
                    return earlier, piece
        return None

    def _last_cut(self, low: int, high: int) -> int:
        """The last cut position in ``source[low:high]`` (the start of a word), or -1."""
        source = self.source
        space = source.rfind(" ", low, high)
        while space > low:
            if not source[space - 1].isspace() and not source[space + 1].isspace():
                return space + 1
            space = source.rfind(" ", low, space)
        return -1

    def _word_cut(self, low: int, high: int) -> int:
        """The last place in ``source[low:high]`` inside a word where it may be cut: between
        two letters or digits, with no ``&`` shortly before (an entity such as ``&amp;``
        would be cut in two), or -1. Such a cut is in no inline construct a letter can end or
        start, so either side reads the same alone as in the paragraph; wrapping is of the
        whole text, so the word still folds as Rich folds it."""
        source = self.source
        for cut in range(high, low, -1):
            if (
                source[cut].isalnum()
                and source[cut - 1].isalnum()
                and source.rfind("&", max(0, cut - ENTITY_CHARS), cut) < 0
            ):
                return cut
        return -1

    def _piece_text(self, start: int, end: int) -> Text | None:
        """The styled text of ``source[start:end]`` (ending with a space) as part of the
        paragraph: rendered between two words, which are then cut off again."""
        piece = self.source[start:end]
        if start == 0 and not self.continued:
            text = self.renderer.paragraph_text(piece + "y")
            return None if text is None else text[:-1]
        text = self.renderer.paragraph_text("x " + piece + "y")
        return None if text is None else text[2:-1]

    def _open(self) -> Text | None:
        if self._open_for != (len(self.source), self._settled):
            start = self._settled
            rest = self.source[start:]
            if not rest.strip():
                self._open_text = Text()
            elif start == 0 and not self.continued:
                text = self.renderer.paragraph_text(rest)
                if text is None:
                    return None
                self._open_text = text
            else:
                text = self.renderer.paragraph_text("x " + rest)
                if text is None:
                    return None
                self._open_text = text[2:]
            self._open_for = (len(self.source), self._settled)
        return self._open_text

    def lines(self, width: int) -> list[Strip] | None:
        """The paragraph drawn at ``width``, exactly as Rich draws it; None when it is not
        (or no longer) a plain paragraph."""
        if not self.plain:
            return None
        self.settle()
        wrap = self.wrap_to(width)
        open_text = self._open()
        if open_text is None:
            self.plain = False
            return None
        frozen, tail = wrap.tail(open_text)
        lines = self._frozen[:frozen] + self.renderer.text_lines(tail)
        # As BlockRenderer.lines: no blank row at either end (inline HTML, which Rich drops,
        # can leave one).
        while lines and not lines[-1].text.strip():
            lines.pop()
        while lines and not lines[0].text.strip():
            del lines[0]
        return lines

    def wrap_to(self, width: int) -> GrowingWrap:
        """Wrap the settled pieces not wrapped yet at ``width`` (all of them again when the
        width changed), and draw the lines that became final."""
        wrap = self._wrap
        if wrap is None or wrap.width != max(1, width):
            wrap = self._wrap = GrowingWrap(width)
            self._wrapped = 0
            self._frozen = []
        for piece in self._pieces[self._wrapped :]:
            wrap.extend(piece)
        self._wrapped = len(self._pieces)
        if wrap.lowest_frozen < len(self._frozen):
            del self._frozen[wrap.lowest_frozen :]  # thawed by a tab, frozen again since
        if len(self._frozen) < len(wrap.frozen):
            self._frozen.extend(self.renderer.text_lines(wrap.frozen[len(self._frozen) :]))
        wrap.lowest_frozen = len(wrap.frozen)
        return wrap
