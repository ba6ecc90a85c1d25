"""GrowingParagraph: a paragraph drawn a piece at a time looks exactly as Rich draws it whole."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.render import paragraph as paragraph_module
from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme
from acp_tui.ui.render.paragraph import GrowingParagraph, is_plain_paragraph

CONSOLE = Console(width=80, color_system="truecolor", force_terminal=True)
RENDERER = BlockRenderer(CONSOLE, markdown_theme({}))

#: Words of every inline kind, closed and left open, and the whitespace that matters.
WORDS = st.sampled_from(
    [
        "word",
        "wrapping",
        "x" * 23,
        "日本語",
        "**bold**",
        "*it*",
        "`code`",
        "[link](http://example.com)",
        "snake_case",
        "a * b",
        "`open",
        "**open",
        "_under_",
        "~~struck~~",
        "<b>",
        "&amp;",
        "\\*",
        "end.",
        # Words longer than a piece: cut inside, between two letters or digits.
        "QmFzZTY0IGRhdGE+/x9" * 5,
        '{"key":[1,2,{"a_b":"c"}],"n":null}' * 3,
        "x&amp;y&#x41;z" * 6,
        "snake_case_words_" * 6,
        "**b**o`c`d" * 5,
    ]
)
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\n", "  \n", "\t"])


@st.composite
def paragraphs(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=60))
    text = words[0]
    for word in words[1:]:
        text += draw(SEPARATORS) + word
    return text


def cells(strips: list[Strip]) -> list[list[tuple[str, Style]]]:
    return [[(ch, seg.style or Style()) for seg in strip for ch in seg.text] for strip in strips]


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few characters, so that short texts are cut in many places; no forced
    cut (the one place where drawing may differ from Rich, by design)."""
    monkeypatch.setattr(paragraph_module, "MIN_PIECE_CHARS", 3)
    monkeypatch.setattr(paragraph_module, "MAX_PIECE_CHARS", 40)
    monkeypatch.setattr(paragraph_module, "FORCE_CHARS", 10**9)


@settings(max_examples=400, deadline=None)
@given(paragraphs(), st.lists(st.integers(1, 30), max_size=30), st.integers(2, 50))
@example("word <b>", [], 2)  # the dropped HTML leaves a blank last row, which Rich trims
def test_drawn_in_pieces_equals_rich_drawing_the_whole(
    text: str, sizes: list[int], width: int
) -> None:
    paragraph = GrowingParagraph(RENDERER)
    position = 0
    for size in sizes:
        paragraph.extend(text[position : position + size])
        position += size
        shown = paragraph.lines(width)
        if shown is not None:
            assert cells(shown) == cells(RENDERER.lines(paragraph.source, width))
    paragraph.extend(text[position:])
    shown = paragraph.lines(width)
    if is_plain_paragraph(text):
        assert shown is not None
    if shown is not None:
        assert cells(shown) == cells(RENDERER.lines(text, width))


def test_a_long_paragraph_keeps_little_open() -> None:
    """A paragraph of thousands of words given a word at a time settles as it goes: the open
    part, rendered again each time it is looked at, stays small."""
    paragraph = GrowingParagraph(RENDERER)
    for n in range(5_000):
        paragraph.extend(f"word{n} **b{n}** ")
        if n % 50 == 0:
            assert paragraph.lines(60) is not None
            assert len(paragraph.source) - paragraph._settled < 200
    assert len(paragraph._pieces) > 100


def test_a_word_longer_than_a_piece_is_settled_inside() -> None:
    """One word of 200 KB (base64, minified JSON) is settled a piece at a time like words
    are: the open part, rendered again each time the paragraph is looked at, stays small."""
    word = "QmFzZTY0IGRhdGE+/x9" * 10_000
    paragraph = GrowingParagraph(RENDERER)
    paragraph.extend(word)
    while paragraph.unsettled > 100 and paragraph.lines(60) is not None:
        before = paragraph.unsettled
        paragraph.settle()
        if paragraph.unsettled == before:
            break
    assert paragraph.unsettled <= paragraph_module.MAX_PIECE_CHARS
    assert "".join(line.text.rstrip() for line in paragraph.lines(60) or []) == word


def test_block_starts_are_not_plain_paragraphs() -> None:
    for text in ("# head", "- item", "1. item", "> quote", "| a |", "```", "    code", "[x]: /u"):
        assert not is_plain_paragraph(text), text
    assert not is_plain_paragraph("text\n- item")
    assert not is_plain_paragraph("text\n===")
    assert is_plain_paragraph("plain text\nwith a soft break and 2023 in it")
    paragraph = GrowingParagraph(RENDERER, "1")
    assert paragraph.plain
    paragraph.extend(". item")  # the first line became a list item
    assert not paragraph.plain and paragraph.lines(40) is None
    # A long block's next piece goes on a paragraph: its first line starts nothing.
    assert is_plain_paragraph("# not a heading", continued=True)
    assert not is_plain_paragraph("text\n# heading", continued=True)
