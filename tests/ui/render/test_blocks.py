"""BlockSplitter: splitting a text fed a piece at a time gives markdown_blocks of the whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.ui.render.blocks import (
    FENCE_PIECE_LINES,
    BlockSplitter,
    FencePiece,
    markdown_blocks,
)

LINES = st.sampled_from(
    ["", "  ", "word", "# head", "- item", "  indented", "| a | b |", "> q", "```", "~~~py", "x"]
)


def marked(blocks: list[str]) -> list[tuple[bool, str]]:
    """Each block, and whether it goes on the code block before it (drawn with no gap)."""
    return [(isinstance(block, FencePiece), str(block)) for block in blocks]


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
