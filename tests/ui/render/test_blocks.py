"""BlockSplitter: splitting a text fed a piece at a time gives markdown_blocks of the whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.ui.render.blocks import FENCE_PIECE_LINES, BlockSplitter, markdown_blocks

LINES = st.sampled_from(
    ["", "  ", "word", "# head", "- item", "  indented", "| a | b |", "> q", "```", "~~~py", "x"]
)


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
        assert splitter.settled + splitter.open_blocks() == markdown_blocks(text[:position])
    splitter.feed(text[position:])
    assert splitter.settled + splitter.open_blocks() == markdown_blocks(text)
    assert len(splitter.open_blocks()) <= 2


def test_a_long_fence_settles_piece_by_piece() -> None:
    splitter = BlockSplitter()
    splitter.feed("```python\n")
    for n in range(FENCE_PIECE_LINES * 5):
        splitter.feed(f"x = {n}\n")
    assert len(splitter.settled) >= 4
    assert len(splitter.open_blocks()) <= 2
