"""Rich's Markdown as this client draws it: one top-level block to lines, or the styled text
of a piece of a paragraph (for :mod:`.paragraph`, which wraps a growing paragraph itself).

Colours come from the app theme's variables (:func:`markdown_theme`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, ListItem, Markdown, Paragraph
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme
from textual.color import Color
from textual.strip import Strip

from acp_tui.ui.render.wrap import wrap_with_starts

__all__ = ["BlockRenderer", "markdown_theme"]


class _LeftHeading(Heading):
    """Headings flush left, like the rest of a terminal transcript."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


@lru_cache(maxsize=256)
def _lexer_named(name: str, tab_size: int) -> Any:
    """The Pygments lexer Rich finds for a fence's language (None: plain text), looked up once
    per name: a name Pygments does not know costs a scan of every installed plugin (some 18 ms
    here), and an open code block is drawn again at every frame while it streams."""
    return Syntax("", name, tab_size=tab_size).lexer


#: The tab size of a fence's code (Rich's default): the lexers are made and kept per tab size.
FENCE_TAB_SIZE = 4


def lexer_for_fence(language: str) -> Any:
    """The lexer a fence of ``language`` is drawn with (None: plain text). Pygments compiles a
    lexer's rules when the first one of its class is made (Python's: 110 ms on a 2-core
    machine), so :mod:`acp_tui.ui.warm_up` makes the usual ones ahead."""
    return _lexer_named(language, FENCE_TAB_SIZE)


class _LexerOnceSyntax(Syntax):
    """Rich's Syntax with its lexer looked up by :func:`_lexer_named` (Rich looks it up at
    every draw): the same lexer, options and fallback as Rich's own."""

    @property
    def lexer(self) -> Any:
        lexer = self._lexer
        return _lexer_named(lexer, self.tab_size) if isinstance(lexer, str) else lexer


class _FlatCodeBlock(CodeBlock):
    """A code block without vertical padding, so the pieces of a long one join up."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _LexerOnceSyntax(
            str(self.text).rstrip(),
            self.lexer_name,
            theme=self.theme,
            word_wrap=True,
            padding=(0, 1),
            tab_size=FENCE_TAB_SIZE,
        )


class _DottedListItem(ListItem):
    """An item of a numbered list numbered ``1.``, as written: Rich's bare ``1`` read as part
    of the text ("1 line number 1 of a long reply", OpenCode's tester)."""

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        number_width = len(str(last_number)) + 3
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - number_width), style=self.style
        )
        number_style = console.get_style("markdown.item.number", default="none")
        padding = Segment(" " * number_width, number_style)
        numeral = Segment(f"{number}.".rjust(number_width - 1) + " ", number_style)
        for index, line in enumerate(lines):
            yield padding if index else numeral
            yield from line
            yield Segment.line()


class _TerminalMarkdown(Markdown):
    elements: ClassVar = {
        **Markdown.elements,
        "list_item_open": _DottedListItem,
        "heading_open": _LeftHeading,
        "fence": _FlatCodeBlock,
        "code_block": _FlatCodeBlock,
    }
    #: One parser for every block: building a MarkdownIt costs more than parsing a short
    #: block (Rich's own __init__ builds one per call). Configured as Rich configures its own
    #: but for HTML, which is text here: Rich draws no HTML token, so ``List<String>`` read
    #: "List", ``a<br>b`` "ab", and a block starting with ``<div>`` vanished whole (OpenHands'
    #: replies and its system prompt's ``<ROLE>`` sections). Agent text is shown, never run.
    _parser: ClassVar[MarkdownIt | None] = None

    def __init__(self, markup: str, code_theme: str) -> None:
        parser = _TerminalMarkdown._parser
        if parser is None:
            parser = _TerminalMarkdown._parser = (
                MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")
            )
        self.markup = markup
        self.parsed = parser.parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme


class _CapturedParagraph(Paragraph):
    """A paragraph that hands its styled text over instead of drawing it."""

    sink: list[Text]

    @classmethod
    def create(cls, markdown: Any, token: Any) -> _CapturedParagraph:
        element = cls(justify="left")
        element.sink = markdown.captured
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        self.sink.append(self.text)
        yield from ()


class _ParagraphText(_TerminalMarkdown):
    elements: ClassVar = {**_TerminalMarkdown.elements, "paragraph_open": _CapturedParagraph}

    def __init__(self, markup: str, code_theme: str) -> None:
        super().__init__(markup, code_theme)
        self.captured: list[Text] = []


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


class BlockRenderer:
    """Draws Markdown with one console, theme and code theme."""

    def __init__(self, console: Console, theme: Theme, *, dark: bool = True) -> None:
        self.console = console
        self.theme = theme
        self.code_theme = "monokai" if dark else "friendly"

    def lines(self, block: str, width: int) -> list[Strip]:
        """One top-level block drawn at ``width``, without the blank lines Rich puts around
        it (blocks are joined with one blank line)."""
        console = self.console
        markdown = _TerminalMarkdown(block, code_theme=self.code_theme)
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        with console.use_theme(self.theme):
            drawn = console.render_lines(markdown, options, pad=False)
        while drawn and _blank(drawn[-1]):
            drawn.pop()
        first = 0
        while first < len(drawn) and _blank(drawn[first]):
            first += 1
        return [Strip(line) for line in drawn[first:]]

    def paragraph_text(self, source: str) -> Text | None:
        """The styled text Rich gives the paragraph ``source`` (before wrapping); None when
        ``source`` is not exactly one paragraph."""
        markdown = _ParagraphText(source, code_theme=self.code_theme)
        console = self.console
        with console.use_theme(self.theme):
            for _ in console.render(markdown, console.options.update(highlight=False)):
                pass
        if len(markdown.captured) != 1:
            return None
        return markdown.captured[0]

    def piece_lines(self, block: str, width: int) -> list[Strip]:
        """A long block's next piece (:class:`~.blocks.ParagraphPiece`) drawn at ``width`` as
        the paragraph text it continues; as Markdown of its own if it is not that."""
        text = self.paragraph_text("x " + block)
        if text is None:
            return self.lines(block, width)
        lines = self.text_lines(wrap_with_starts(text[2:], max(1, width))[0])
        while lines and not lines[-1].text.strip():
            lines.pop()
        first = 0
        while first < len(lines) and not lines[first].text.strip():
            first += 1
        return lines[first:]

    def text_lines(self, lines: list[Text]) -> list[Strip]:
        """Wrapped lines of a paragraph as Rich draws them."""
        console = self.console
        return [Strip(line.render(console)) for line in lines]
