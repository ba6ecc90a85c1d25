"""BlockSplitter: splitting a text fed a piece at a time gives markdown_blocks of the whole."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.ui.render import blocks as blocks_module
from acp_tui.ui.render.blocks import (
    FENCE_PIECE_LINES,
    BlockSplitter,
    FencePiece,
    ParagraphPiece,
    markdown_blocks,
)

LINES = st.sampled_from(
    ["", "  ", "word", "# head", "- item", "  indented", "| a | b |", "> q", "```", "~~~py", "x"]
)


def marked(blocks: list[str]) -> list[tuple[str, str]]:
    """Each block, and whether it goes on the block before it (drawn with no gap)."""
    return [(type(block).__name__, str(block)) for block in blocks]


@settings(max_examples=1000, deadline=None)
@given(st.lists(LINES, max_size=120), st.lists(st.integers(1, 40), max_size=60))
def test_fed_in_pieces_equals_splitting_the_whole(lines: list[str], sizes: list[int]) -> None:
    text = "\n".join(lines)
    splitter = BlockSplitter()
    position = 0
    settled_before = 0
    for size in sizes:
        splitter.feed(text[position : position + size])
        position += size
        # Blocks once settled never change, and what is open completes the split so far.
        assert len(splitter.settled) >= settled_before
        settled_before = len(splitter.settled)
        assert marked(splitter.settled + splitter.open_blocks()) == marked(
            markdown_blocks(text[:position])
        )
    splitter.feed(text[position:])
    assert marked(splitter.settled + splitter.open_blocks()) == marked(markdown_blocks(text))
    assert len(splitter.open_blocks()) <= 2


def test_a_long_fence_settles_piece_by_piece() -> None:
    splitter = BlockSplitter()
    splitter.feed("```python\n")
    for n in range(FENCE_PIECE_LINES * 5):
        splitter.feed(f"x = {n}\n")
    assert len(splitter.settled) >= 4
    assert len(splitter.open_blocks()) <= 2
    # Every piece but the first goes on the one before it.
    pieces = splitter.settled + splitter.open_blocks()
    assert [isinstance(piece, FencePiece) for piece in pieces] == [False] + [True] * (
        len(pieces) - 1
    )


#: Lines of long blocks: words of every kind, long ones with no space, markers, fences.
LONG_LINES = st.lists(
    st.sampled_from(
        [
            "word",
            "QmFzZTY0/x+9" * 7,
            '{"a":[1,{"b_c":"d"}]}' * 3,
            "*em* `code` [l](u) &amp; \\_",
            "!?" * 15,
            " ",
            "  ",
            "```",
            "- item",
            "    indented",
        ]
    ),
    max_size=12,
).map("".join)


@contextmanager
def small_blocks() -> Iterator[None]:
    """Long blocks of a few dozen characters, so that short texts are cut in many places."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocks_module, "LONG_BLOCK_CHARS", 40)
        patch.setattr(blocks_module, "FORCE_CUT_CHARS", 30)
        patch.setattr(blocks_module, "QUIET_CHARS", 8)
        yield


def _fence_lines(block: str) -> int:
    """Characters of ``block``'s fence lines (each piece of a fence repeats its opening line,
    however long: the rest of a piece is what is bounded)."""
    return sum(
        len(line) + 1 for line in block.split("\n") if line.lstrip().startswith(("```", "~~~"))
    )


def _visible(text: str) -> str:
    return "".join(text.split())


@settings(max_examples=400, deadline=None)
@given(st.lists(LONG_LINES, max_size=12), st.lists(st.integers(1, 90), max_size=40))
def test_long_blocks_are_cut_the_same_however_the_text_arrives(
    lines: list[str], sizes: list[int]
) -> None:
    """A block longer than LONG_BLOCK_CHARS is cut into pieces of bounded length, at the same
    places whether the text came in one piece or many, and no character is lost."""
    with small_blocks():
        _cut_the_same("\n".join(lines), sizes)


def _cut_the_same(text: str, sizes: list[int]) -> None:
    splitter = BlockSplitter()
    position = 0
    for size in sizes:
        splitter.feed(text[position : position + size])
        position += size
        assert marked(splitter.settled + splitter.open_blocks()) == marked(
            markdown_blocks(text[:position])
        )
    splitter.feed(text[position:])
    blocks = splitter.settled + splitter.open_blocks()
    assert marked(blocks) == marked(markdown_blocks(text))
    # Bounded, but for a fence's lines, which each of its pieces repeats; a block with a fence
    # opened inside it has a part before the fence and one after it, each bounded.
    limit = 40 + 2 * 30 + len("```") + 1
    for block in blocks:
        fenced = _fence_lines(block)
        assert len(block) - fenced <= (2 * limit if fenced else limit), repr(block)
    # Every visible character is in a block, in order (a fence's pieces repeat its markers).
    if "```" not in text:
        assert _visible("".join(blocks)) == _visible(text)


def test_a_huge_word_is_cut_into_paragraph_pieces() -> None:
    word = "QmFzZTY0IGRhdGE+/x9" * 50_000  # 950 KB, no space, no newline
    splitter = BlockSplitter()
    for start in range(0, len(word), 100_000):
        splitter.feed(word[start : start + 100_000])
    blocks = splitter.settled + splitter.open_blocks()
    assert "".join(blocks) == word
    # Cut between two letters or digits: a few characters past the length (base64's "+/").
    assert max(len(block) for block in blocks) <= blocks_module.LONG_BLOCK_CHARS + 16
    assert [type(block) for block in blocks] == [str] + [ParagraphPiece] * (len(blocks) - 1)


def test_a_huge_code_line_is_cut_into_fence_pieces() -> None:
    line = "x = '" + "a" * 200_000 + "'"
    blocks = markdown_blocks(f"```python\n{line}\n```\n\nafter")
    assert blocks[-1] == "after"
    pieces = blocks[:-1]
    assert len(pieces) > 2 and all(isinstance(piece, FencePiece) for piece in pieces[1:])
    assert all(piece.startswith("```python\n") and piece.endswith("\n```") for piece in pieces)
    body = "".join(piece.removeprefix("```python\n").removesuffix("\n```") for piece in pieces)
    assert body == line
