"""Markdown drawn through Textual's Line API, one cached render per top-level block.

Textual's ``Markdown`` widget mounts a widget per block, which costs about 0.15 s per KB of
dense Markdown here: a fast agent outruns it and every keystroke waits behind it. This widget
keeps the reply as text, splits it into top-level blocks (cheap string work), renders each
block once with Rich's Markdown and keeps the lines. While a reply streams only its last,
still-open block is rendered again, so a frame costs what the new text costs, not what the
reply so far costs. Colours come from the app theme's variables.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.theme import Theme
from textual.color import Color
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

#: An opening code fence: up to three spaces, then three or more backticks or tildes.
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: Lines of an open code fence rendered as one piece: a long code block streams in pieces,
#: so only its last piece is drawn again as it grows.
FENCE_PIECE_LINES = 40
#: draw_ahead lets other tasks run after drawing for this long.
DRAW_SLICE_SECONDS = 0.002


def markdown_blocks(text: str) -> list[str]:
    """Split Markdown into top-level blocks at blank lines, never inside a fenced code block
    and never before an indented line (a list item's continuation stays with its item).
    Long fenced blocks come in pieces of :data:`FENCE_PIECE_LINES` lines, each fenced."""
    blocks: list[str] = []
    lines = text.split("\n")
    current: list[str] = []
    fence: str | None = None
    fence_opener = ""
    fence_lines = 0
    blank_seen = False
    for line in lines:
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
                current.append(line)
                continue
            if fence_lines >= FENCE_PIECE_LINES:
                # Close this piece and open the next one with the same info string.
                current.append(fence)
                blocks.append("\n".join(current))
                current = [fence_opener]
                fence_lines = 0
            current.append(line)
            fence_lines += 1
            continue
        if not line.strip():
            if current:
                blank_seen = True
            continue
        if blank_seen and not line.startswith((" ", "\t")):
            blocks.append("\n".join(current))
            current = []
        elif blank_seen:
            current.append("")
        blank_seen = False
        current.append(line)
        opener = _FENCE.match(line)
        if opener:
            fence = opener.group(1)
            fence_opener = line
            fence_lines = 0
    if current:
        blocks.append("\n".join(current))
    return blocks


class _LeftHeading(Heading):
    """Headings flush left, like the rest of a terminal transcript."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class _FlatCodeBlock(CodeBlock):
    """A code block without vertical padding, so the pieces of a long one join up."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Syntax(
            str(self.text).rstrip(),
            self.lexer_name,
            theme=self.theme,
            word_wrap=True,
            padding=(0, 1),
        )


class _TerminalMarkdown(Markdown):
    elements: ClassVar = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "fence": _FlatCodeBlock,
        "code_block": _FlatCodeBlock,
    }
    #: One parser for every block: building a MarkdownIt costs more than parsing a short
    #: block (Rich's own __init__ builds one per call). Configured as Rich configures its own.
    _parser: ClassVar[MarkdownIt | None] = None

    def __init__(self, markup: str, code_theme: str) -> None:
        parser = _TerminalMarkdown._parser
        if parser is None:
            parser = _TerminalMarkdown._parser = (
                MarkdownIt().enable("strikethrough").enable("table")
            )
        self.markup = markup
        self.parsed = parser.parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme


def _blank(line: list[Segment]) -> bool:
    return not "".join(segment.text for segment in line).strip()


def _solid(variables: dict[str, str], name: str, fallback: str) -> str:
    """A theme variable as an opaque hex colour (blended over the background)."""
    value = variables.get(name, "")
    try:
        colour = Color.parse(value)
    except Exception:
        return fallback
    background = Color.parse(variables.get("background", "#000000"))
    return (background + colour).hex6


def markdown_theme(variables: dict[str, str]) -> Theme:
    """Rich styles for Markdown from a Textual theme's CSS variables."""
    primary = _solid(variables, "text-primary", "blue")
    muted = _solid(variables, "foreground-muted", "grey50")
    accent = _solid(variables, "text-accent", "yellow")
    surface = _solid(variables, "surface", "black")
    styles: dict[str, str | Style] = {
        "markdown.code": f"{accent} on {surface}",
        "markdown.code_block": f"on {surface}",
        "markdown.block_quote": muted,
        "markdown.list": primary,
        "markdown.item.bullet": f"bold {primary}",
        "markdown.item.number": primary,
        "markdown.hr": muted,
        "markdown.link": f"underline {primary}",
        "markdown.link_url": muted,
        "markdown.table.border": muted,
        "markdown.table.header": f"bold {primary}",
        "markdown.h1.border": muted,
    }
    for level in range(1, 7):
        colour = _solid(variables, f"markdown-h{level}-color", primary)
        text_style = variables.get(f"markdown-h{level}-text-style", "bold")
        if text_style.strip() in ("", "none"):
            text_style = ""
        styles[f"markdown.h{level}"] = f"{text_style} {colour}".strip()
    return Theme(styles, inherit=True)


class MarkdownLines(Widget):
    """Markdown as lines: the whole text is kept; each top-level block is rendered once per
    width and cached by its text."""

    DEFAULT_CSS = """
    MarkdownLines { height: auto; }
    """

    def __init__(self, source: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._source = source
        self._blocks = markdown_blocks(source)
        self._split_source, self._split_blocks = source, self._blocks
        self._cache: dict[str, list[Strip]] = {}
        #: Blocks drawn by draw_ahead for a text not shown yet (same width as the cache).
        self._ahead: dict[str, list[Strip]] = {}
        self._cache_width = 0
        self._lines: list[Strip] = []
        self._lines_width = -1
        self._rich_theme: Theme | None = None
        #: ``rich_style`` walks every ancestor; it changes only when styles do.
        self._base_style: Style | None = None

    @property
    def source(self) -> str:
        return self._source

    @property
    def is_drawn(self) -> bool:
        """The current text is drawn into lines at the widget's width."""
        return self._lines_width == max(1, self.size.width)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None

    def _theme_changed(self, _theme: object) -> None:
        self._rich_theme = None
        self._cache.clear()
        self._lines_width = -1
        self.refresh(layout=True)

    def update(self, source: str) -> None:
        """Show ``source``; only blocks not seen before at this width are rendered."""
        if source == self._source:
            return
        self._source = source
        self._blocks = self._split(source)
        self._lines_width = -1
        if self.size.width:
            # Draw now rather than in the next layout pass: the screen's layout and paint
            # then stay short, and a keystroke's echo can slip in between the two.
            self._lines_at(self.size.width)
        self.refresh(layout=True)

    async def draw_ahead(self, source: str, width: int | None = None) -> None:
        """Render the blocks of ``source`` not drawn yet, giving the event loop a turn between
        blocks, so that a following :meth:`update` finds them all ready. Keystrokes and paints
        slip in between blocks instead of waiting for the whole batch. ``width`` is for a
        widget not laid out yet (the width its container will give it)."""
        width = self.size.width or width or 0
        if width <= 0 or source == self._source:
            return
        if self._cache_width != width:
            if self._cache:
                return  # being resized: the layout pass draws at the new width
            self._cache_width = width
        started = time.perf_counter()
        for block in self._split(source):
            if self._cache_width != width or (self.size.width and self.size.width != width):
                return  # resized meanwhile: the layout pass draws at the new width
            if block in self._cache or block in self._ahead:
                continue
            self._ahead[block] = self._render_block(block, width)
            if time.perf_counter() - started > DRAW_SLICE_SECONDS:
                await asyncio.sleep(0)
                started = time.perf_counter()

    def _split(self, source: str) -> list[str]:
        """:func:`markdown_blocks` of ``source``, split once for draw_ahead and update."""
        if self._split_source is not source:
            self._split_source, self._split_blocks = source, markdown_blocks(source)
        return self._split_blocks

    def append(self, text: str) -> None:
        self.update(self._source + text)

    # ------------------------------------------------------------------ rendering

    def _theme(self) -> Theme:
        if self._rich_theme is None:
            self._rich_theme = markdown_theme(self.app.get_css_variables())
        return self._rich_theme

    def _render_block(self, block: str, width: int) -> list[Strip]:
        console = self.app.console
        dark = getattr(self.app.current_theme, "dark", True)
        markdown = _TerminalMarkdown(block, code_theme="monokai" if dark else "friendly")
        options = console.options.update(width=width, height=None, highlight=False)
        with console.use_theme(self._theme()):
            rendered = console.render_lines(markdown, options, pad=False)
        # Blocks are joined with one blank line; drop the ones Rich puts around a block.
        drawn = list(rendered)
        while drawn and _blank(drawn[-1]):
            drawn.pop()
        first = 0
        while first < len(drawn) and _blank(drawn[first]):
            first += 1
        return [Strip(line) for line in drawn[first:]]

    def _lines_at(self, width: int) -> list[Strip]:
        width = max(1, width)
        if self._lines_width == width:
            return self._lines
        if self._cache_width != width:
            self._cache = {}
            self._ahead = {}
            self._cache_width = width
        cache = self._cache
        fresh: dict[str, list[Strip]] = {}
        lines: list[Strip] = []
        blank = Strip([])
        ahead = self._ahead if self._cache_width == width else {}
        for index, block in enumerate(self._blocks):
            strips = fresh.get(block) or cache.get(block) or ahead.get(block)
            if strips is None:
                strips = self._render_block(block, width)
            fresh[block] = strips
            if index:
                lines.append(blank)
            lines.extend(strips)
        # Keep only what the text still has: a folded or replaced reply frees its lines.
        self._cache = fresh
        self._ahead = {}
        self._lines = lines
        self._lines_width = width
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines_at(width)
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        if y >= len(lines):
            return Strip.blank(width, base)
        strip = lines[y].crop_extend(0, width, base).apply_style(base)
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
        """The selected part of the reply as drawn (Markdown markers resolved)."""
        text = "\n".join(line.text.rstrip() for line in self._lines_at(self.size.width))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


__all__ = [
    "FENCE_PIECE_LINES",
    "MarkdownLines",
    "markdown_blocks",
    "markdown_theme",
]
