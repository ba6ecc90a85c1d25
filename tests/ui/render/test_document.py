"""Document: a text fed in pieces and drawn lazily shows exactly what drawing every block of
the whole text with Rich shows, and draws only what is looked at."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.render import blocks as blocks_module
from acp_tui.ui.render import document as document_module
from acp_tui.ui.render.blocks import markdown_blocks
from acp_tui.ui.render.document import Document
from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme

CONSOLE = Console(width=80, color_system="truecolor", force_terminal=True)
RENDERER = BlockRenderer(CONSOLE, markdown_theme({}))

PIECES = st.sampled_from(
    [
        "word ",
        "**bold** ",
        "`code` ",
        "a long wrapping sentence of several words ",
        "\n",
        "\n\n",
        "# Heading\n\n",
        "- item one\n- item two\n\n",
        "```python\nx = 1\n```\n\n",
        "> quoted\n\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n",
        "1. first\n",
        "end.",
    ]
)


def cells(strips: list[Strip]) -> list[list[tuple[str, Style]]]:
    return [[(ch, seg.style or Style()) for seg in strip for ch in seg.text] for strip in strips]


def whole(text: str, width: int) -> list[Strip]:
    """What MarkdownLines always drew: every block with Rich, joined by a blank line."""
    lines: list[Strip] = []
    for index, block in enumerate(markdown_blocks(text)):
        if index:
            lines.append(Strip([]))
        lines.extend(RENDERER.lines(block, width))
    return lines


def every_row(document: Document) -> list[Strip]:
    return [document.line(y) for y in range(document.height)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(PIECES, min_size=1, max_size=40).map("".join),
    st.lists(st.integers(1, 60), max_size=20),
    st.integers(10, 70),
)
def test_fed_in_pieces_and_drawn_lazily_equals_drawing_the_whole(
    text: str, sizes: list[int], width: int
) -> None:
    document = Document()
    document.layout(width, RENDERER)
    position = 0
    for size in sizes:
        document.feed(text[position : position + size])
        position += size
        while document.catch_up(7):
            pass
        document.layout(width, RENDERER)
    document.feed(text[position:])
    while document.catch_up(1 << 20):
        pass
    document.layout(width, RENDERER)
    # Drawing rows from the top makes every height exact on the way (estimates never show).
    for y in range(10**6):
        if y >= document.height:
            break
        document.draw_rows(y, y + 1)
    assert cells(every_row(document)) == cells(whole(text, width))


def test_only_the_rows_looked_at_are_drawn_and_drawn_lines_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(document_module, "KEEP_LINES", 500)
    paragraph = "the agent reads the parser and finds two problems in the code " * 8
    text = "".join(f"{paragraph}{n}.\n\n" for n in range(5_000))
    document = Document()
    document.layout(100, RENDERER)
    document.feed(text)
    document.layout(100, RENDERER)
    assert len(document.blocks) == 5_000
    assert len(document._drawn) <= 2  # only the open block, and nothing else yet
    height = document.height
    document.draw_rows(height - 40, height)
    document.draw_rows(0, 40)
    assert len(document._drawn) < 20
    assert document.line(0).text.startswith("the agent reads")
    for y in range(0, document.height, 97):  # scroll through it all
        document.draw_rows(y, y + 40)
    assert document._drawn_lines <= 500 + 20


def test_a_growing_paragraph_is_taken_in_a_bounded_step_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(blocks_module, "LONG_BLOCK_CHARS", 10**9)  # one block, not pieces
    document = Document()
    document.layout(80, RENDERER)
    # About 190 KB: some 23 steps of 8 KB, each bounded below, and the whole compared with Rich
    # (the comparison, not the steps, is what a larger text makes slow: 100,000 words took 15 s).
    words = "".join(f"word{n} " for n in range(20_000))
    document.feed(words)
    steps = 0
    while document.catch_up(8_192):
        steps += 1
        paragraph = document._paragraph
        assert paragraph is not None and paragraph.unsettled < 3 * 8_192
    assert steps >= len(words) // 8_192 - 1
    document.layout(80, RENDERER)
    assert cells(every_row(document)) == cells(RENDERER.lines(words, 80))


@pytest.mark.parametrize(
    "word",
    [
        "QmFzZTY0IGRhdGE+/x9" * 40_000,  # base64: 760 KB with no space or newline
        '{"key":[1,2,{"a_b":"c<d>"}],"n":null,"s":"x-y"}' * 16_000,  # minified JSON
        "!?" * 200_000,  # no letter pair to cut between either
    ],
    ids=["base64", "json", "punctuation"],
)
def test_one_huge_word_is_drawn_a_screen_at_a_time(word: str) -> None:
    """A reply that is one word of most of a megabyte is cut into blocks of bounded length,
    drawn only where someone looks; every character shows, in order, on full rows."""
    document = Document()
    document.layout(100, RENDERER)
    document.feed(word)
    while document.catch_up(8_192):
        pass
    document.layout(100, RENDERER)
    limit = blocks_module.LONG_BLOCK_CHARS + 2 * blocks_module.FORCE_CUT_CHARS + 1
    assert max(len(block) for block in document.blocks) <= limit
    height = document.height
    document.draw_rows(height - 40, height)
    document.draw_rows(0, 40)
    assert document._drawn_lines < 3 * limit // 100  # two screens: a few blocks' lines
    assert document.line(0).text.startswith(word[:100])
    for y in range(10**6):  # drawn from the top: every height exact on the way
        if y >= document.height:
            break
        document.draw_rows(y, y + 1)
    rows = [document.line(y).text.rstrip() for y in range(document.height)]
    shown = "".join(rows)
    assert len(shown) == len(word) and shown == word  # (no diff of a megabyte)
    # Rows are full but at the pieces' ends (a row every LONG_BLOCK_CHARS or so ends early).
    short = [row for row in rows[:-1] if len(row) < 100]
    assert len(short) <= len(document.blocks)
