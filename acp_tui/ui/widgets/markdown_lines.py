"""Markdown drawn through Textual's Line API, laid out lazily and drawn where it is seen.

Textual's ``Markdown`` widget mounts a widget per block, which costs about 0.15 s per KB of
dense Markdown here: a fast agent outruns it and every keystroke waits behind it. This widget
keeps the reply as text and hands it to a :class:`~acp_tui.ui.render.document.Document`, which
splits it into top-level blocks as it grows, gives every block a height (exact once drawn,
estimated before) and draws a block only when a row of it is on screen (or it is one of the
last ones, which a person following the reply sees). A growing paragraph is drawn a piece at a
time. So a frame costs what the new text and the visible rows cost, however long the reply:
nothing is folded away, a reply of 50 MB scrolls from its first word to its last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.pace.input_first import give_way
from acp_tui.ui.render.blocks import FENCE_PIECE_LINES, markdown_blocks
from acp_tui.ui.render.document import Document
from acp_tui.ui.render.source_text import DrawnBlock, code_of_block, selected_source
from acp_tui.ui.textual_patches.tall import lean_dirty_rows
from acp_tui.ui.widgets.base_style import CachedBaseStyle

if TYPE_CHECKING:
    from acp_tui.ui.render.markdown import BlockRenderer

#: Characters of new text taken per step while streaming; other tasks (a keystroke's echo,
#: a paint) run between steps, so one huge chunk never holds the loop for long.
FEED_SLICE = 256_000
#: Characters of a growing paragraph taken in and laid out per step (a few milliseconds).
CATCH_UP_CHARS = 8_192
#: Rows at the end of the reply drawn exactly at each layout (what a person following sees).
TAIL_ROWS = 80


class MarkdownLines(CachedBaseStyle, Widget):
    """Markdown as lines: the whole text is kept; blocks are drawn where they are seen."""

    DEFAULT_CSS = """
    MarkdownLines { height: auto; }
    """

    class Shifted(Message):
        """Rows above the ones on screen changed height as they were drawn (estimates became
        exact): the scrolling container may move by ``rows`` to keep the view still."""

        def __init__(self, lines: MarkdownLines, rows: int) -> None:
            super().__init__()
            self.lines = lines
            self.rows = rows

    def __init__(self, source: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        lean_dirty_rows(self)  # a reply of megabytes is a widget of as many rows
        self._source = ""
        self._document = Document()
        self._renderer: BlockRenderer | None = None
        #: Calls of :meth:`stream` under way (they take the text in and lay it out).
        self._streaming = 0
        if source:
            self.update(source)

    @property
    def source(self) -> str:
        return self._source

    @property
    def is_drawn(self) -> bool:
        """The current text is all taken in and laid out at the widget's width."""
        document = self._document
        return (
            document.fed == len(self._source)
            and not document.behind
            and document.width == max(1, self.size.width)
        )

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        self._renderer = None
        self.refresh(layout=True)

    def _take(self, source: str) -> bool:
        """Make ``source`` the text; False when it is the text already."""
        if source is self._source or source == self._source:
            return False
        if not source.startswith(self._source) or self._document.fed > len(source):
            self._document = Document()  # replaced, not grown (a v2 upsert): start over
        self._source = source
        return True

    def _feed_step(self) -> bool:
        """Feed the document one slice of the text it lacks; True while more remains."""
        document = self._document
        fed = document.fed
        source = self._source
        if fed >= len(source):
            return False
        document.feed(source[fed : fed + FEED_SLICE])
        return document.fed < len(source)

    def update(self, source: str) -> None:
        """Show ``source``: all of it taken in now; blocks are drawn when seen."""
        if not self._take(source):
            return
        while self._feed_step():
            pass
        self._attach_renderer()
        while self._document.catch_up(1 << 20):
            pass
        self.refresh(layout=True)

    async def stream(self, source: str, width: int | None = None) -> None:
        """Show ``source`` like :meth:`update`, a bounded step at a time: huge new text is
        taken in a slice at a time, a growing paragraph laid out a piece at a time, and other
        tasks (a keystroke's echo, a paint) run between steps. ``width`` is for a widget not laid out yet: the width it is expected to get (so
        that heights are estimated as the text arrives, not all at once at the first layout)."""
        if not self._take(source):
            return
        self._streaming += 1
        try:
            await self._stream(width)
        finally:
            self._streaming -= 1
            self.refresh(layout=True)

    async def _stream(self, width: int | None) -> None:
        document = self._document
        if not self.size.width and width and self._attach_renderer():
            document.layout(width, self._renderer_now())
        # One layout at the end (see stream), not one per step: a layout costs in proportion
        # to the transcript's height (Textual files every widget's region in a grid of 20-row
        # squares), so a 50 MB reply laid out per slice would cost seconds.
        while True:
            more = self._feed_step()
            self._attach_renderer()
            if more and document is self._document:
                # The text in hand first: a paragraph laid out now may be long gone by the
                # end of a huge piece (only its last blocks are drawn).
                await give_way()
                continue
            behind = True
            while behind:
                behind = document.catch_up(CATCH_UP_CHARS) and document is self._document
                if behind:
                    await give_way()  # a turn for the other tasks (a key's first)
            if not more or document is not self._document:
                return
            await give_way()

    def _attach_renderer(self) -> bool:
        """Give the document the renderer it draws paragraphs with (once mounted)."""
        if not self.is_attached:
            return False
        self._document.use(self._renderer_now())
        return True

    def _continue_catching_up(self) -> None:
        """A layout found the paragraph behind (text came in through :meth:`update` before
        the widget could draw, or the theme changed): another bounded step, until it caught
        up. Not while :meth:`stream` runs: it catches up itself, with one layout at its end."""
        if self._streaming:
            return
        if self._document.catch_up(CATCH_UP_CHARS):
            self.call_later(self._continue_catching_up)
        self.refresh(layout=True)

    def append(self, text: str) -> None:
        self.update(self._source + text)

    # ------------------------------------------------------------------ layout

    def _renderer_now(self) -> BlockRenderer:
        renderer = self._renderer
        if renderer is None:
            # Rich's Markdown, markdown-it and Pygments are loaded with the first text drawn,
            # not at start-up: about a sixth of the way to a ready prompt.
            from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme

            renderer = self._renderer = BlockRenderer(
                self.app.console,
                markdown_theme(self.app.get_css_variables()),
                dark=getattr(self.app.current_theme, "dark", True),
            )
        return renderer

    def _laid_out(self, width: int, catch_up: int = 0) -> Document:
        document = self._document
        document.layout(width, self._renderer_now(), catch_up)
        return document

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # A paragraph left behind is taken in a step at a time, here and after (see
        # _continue_catching_up), unless stream() is doing it.
        document = self._laid_out(width, 0 if self._streaming else CATCH_UP_CHARS)
        # The last rows exactly (a person following the reply looks there); drawing them may
        # change heights, and so which blocks are last: a few rounds at most.
        rows = max(TAIL_ROWS, viewport.height)
        for _ in range(3):
            height = document.height
            if document.draw_rows(max(0, height - rows), height) is None:
                break
        if document.behind and not self._streaming:
            self.call_later(self._continue_catching_up)
        return document.height

    def render_lines(self, crop: Region) -> list[Strip]:
        document = self._laid_out(self.size.width)
        shift = document.draw_rows(crop.y, crop.bottom)
        # While stream() runs, its own layout at the end follows (one per update).
        if shift is not None and not self._streaming:
            self.refresh(layout=True)
            if shift:
                self.post_message(self.Shifted(self, shift))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        document = self._document  # laid out by render_lines, which asks for these lines
        base = self.base_style
        if y >= document.height:
            return Strip.blank(width, base)
        strip = document.line(y).crop_extend(0, width, base).apply_style(base)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = width if end == -1 else min(end, width)
            if start < end:
                before, chosen, after = strip.divide([start, end, width])
                selected = self.screen.get_component_rich_style("screen--selection")
                # Over the drawn style (Strip.apply_style would go under it); the text keeps
                # its colour.
                highlight = Style(bgcolor=selected.bgcolor)
                chosen = Strip(
                    [
                        Segment(text, style + highlight if style else highlight, control)
                        for text, style, control in chosen
                    ],
                    chosen.cell_length,
                )
                strip = Strip.join([before, chosen, after])
        # Offsets let a mouse drag over the reply select its text (see get_selection).
        return strip.apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the reply as the agent sent it: its text from the first
        selected character to the last (never cut at the wraps, no bar or bullet of the
        drawing; see :mod:`~acp_tui.ui.render.source_text`). Only the selected blocks are
        drawn."""
        document = self._laid_out(self.size.width)
        if not document.blocks:
            return None
        first = selection.start.y if selection.start is not None else 0
        last = selection.end.y if selection.end is not None else document.height - 1
        document.draw_rows(first, last + 1)  # as on screen, where they were selected
        first_block = max(0, document.block_at(first))
        last_block = max(first_block, document.block_at(last))
        drawn = []
        for index in range(first_block, last_block + 1):
            row, lines = document.drawn_block(index)
            drawn.append(DrawnBlock(document.blocks[index], row, [line.text for line in lines]))
        start = (selection.start.x, selection.start.y) if selection.start is not None else None
        end = (selection.end.x, selection.end.y) if selection.end is not None else None
        text = selected_source(self._source, document.blocks[:first_block], drawn, start, end)
        if text is None:  # not found in the text (cannot happen; the rows as drawn, then)
            rows = "\n" * first + "\n".join(document.text_rows(first, last))
            text = selection.extract(rows)
        return text, "\n"

    def code_at(self, row: int) -> str:
        """The whole code of the code block drawn on ``row`` (all of a long one's pieces), as
        sent; "" when no code block is drawn there."""
        document = self._laid_out(self.size.width)
        index = document.block_at(row)
        if index < 0:
            return ""
        start, lines = document.drawn_block(index)
        if not start <= row < start + len(lines):
            return ""  # the blank row between two blocks
        return code_of_block(document.blocks, index)

    class CodeClicked(Message):
        """A click on a code block (not the end of a drag that selected text): ``code`` is
        all of its code, to copy."""

        def __init__(self, lines: MarkdownLines, code: str) -> None:
            super().__init__()
            self.lines = lines
            self.code = code

        @property
        def control(self) -> MarkdownLines:
            return self.lines

    def on_click(self, event: Click) -> None:
        selection = self.text_selection
        if selection is not None and selection.start != selection.end:
            return  # the end of a drag: the person selected text
        offset = event.get_content_offset(self)
        if offset is None:
            return
        code = self.code_at(offset.y)
        if code:
            self.post_message(self.CodeClicked(self, code))

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


__all__ = [
    "FENCE_PIECE_LINES",
    "MarkdownLines",
    "markdown_blocks",
]
