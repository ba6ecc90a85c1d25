"""A selection of a drawn reply is its text as the agent sent it (acp_tui/ui/render/
source_text.py): never cut at the wraps, no bar, bullet or margin of the drawing, whatever
the width; a code block's code is its code exactly."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from acp_tui.ui.render.blocks import FENCE_PIECE_LINES
from acp_tui.ui.render.document import Document
from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme
from acp_tui.ui.render.source_text import (
    DrawnBlock,
    code_of_block,
    fence_body,
    last_code_block,
    selected_source,
)

RENDERER = BlockRenderer(
    Console(width=80, file=io.StringIO(), color_system="truecolor"), markdown_theme({})
)


def laid_out(text: str, width: int) -> Document:
    document = Document()
    document.feed(text)
    document.layout(width, RENDERER)
    return document


def rows(document: Document) -> list[str]:
    return [document.line(y).text for y in range(document.height)]


def select(
    text: str, width: int, start: tuple[int, int] | None, end: tuple[int, int] | None
) -> str | None:
    """What a selection from ``start`` to ``end`` ((column, row), end exclusive) gives."""
    document = laid_out(text, width)
    rows(document)  # drawn, as the rows a person selects on screen are
    first = start[1] if start else 0
    last = end[1] if end else document.height - 1
    first_block = max(0, document.block_at(first))
    last_block = max(first_block, document.block_at(last))
    drawn = []
    for index in range(first_block, last_block + 1):
        row, lines = document.drawn_block(index)
        drawn.append(DrawnBlock(document.blocks[index], row, [line.text for line in lines]))
    return selected_source(text, document.blocks[:first_block], drawn, start, end)


def find_row(document: Document, needle: str) -> int:
    return next(y for y, row in enumerate(rows(document)) if needle in row)


LONG_CODE = "result = compute(alpha, beta, gamma, delta) + another_function(epsilon, zeta)"
REPLY = (
    "Here is the fix, explained in a sentence long enough to wrap at a narrow width.\n\n"
    f"```python\ndef f():\n    {LONG_CODE}\n    return result\n```\n\n"
    "> A quoted remark that is also long enough to wrap over two rows here.\n\n"
    "- first item with **bold** words\n- second item\n\n"
    "Done."
)


def test_a_wrapped_code_line_copies_as_one_line() -> None:
    document = laid_out(REPLY, 40)
    top = find_row(document, "def f():")
    bottom = find_row(document, "return result")
    assert bottom - top > 2, "the long line must wrap for this test"
    got = select(REPLY, 40, (0, top), (40, bottom))
    assert got == f"def f():\n    {LONG_CODE}\n    return result"


def test_part_of_a_wrapped_paragraph_copies_without_the_wrap() -> None:
    document = laid_out(REPLY, 40)
    assert rows(document)[0].rstrip() == "Here is the fix, explained in a sentence"
    assert select(REPLY, 40, (5, 0), (10, 1)) == "is the fix, explained in a sentence long enoug"


def test_a_quote_copies_without_its_bars() -> None:
    document = laid_out(REPLY, 40)
    top = find_row(document, "quoted remark")
    bottom = find_row(document, "two rows here")
    assert bottom > top and "▌" in rows(document)[top]
    got = select(REPLY, 40, (0, top), (40, bottom))
    assert got == "> A quoted remark that is also long enough to wrap over two rows here."
    inner = select(REPLY, 40, (4, top), (40, bottom))
    assert inner is not None and "▌" not in inner and "\n" not in inner


def test_everything_selected_is_the_reply_as_sent() -> None:
    assert select(REPLY, 40, None, None) == REPLY
    assert select(REPLY, 120, None, None) == REPLY


def test_a_selection_inside_a_code_line_is_that_code() -> None:
    document = laid_out(REPLY, 100)
    row = find_row(document, "result = compute")
    column = rows(document)[row].index("compute")
    got = select(REPLY, 100, (column, row), (column + len("compute(alpha"), row))
    assert got == "compute(alpha"


def test_the_same_code_twice_is_found_where_it_was_selected() -> None:
    text = "```\nsame\n```\n\nBetween.\n\n```\nsame\n```\n\nAfter."
    document = laid_out(text, 40)
    second = [y for y, row in enumerate(rows(document)) if "same" in row][1]
    assert select(text, 40, (0, second), (40, document.height - 1)) == "same\n```\n\nAfter."


def test_a_long_code_block_in_pieces_is_one_block_of_code() -> None:
    body = "\n".join(f"line {n} " + "x" * 50 for n in range(FENCE_PIECE_LINES * 2 + 3))
    text = f"Intro.\n\n```\n{body}\n```\n\nOutro."
    document = laid_out(text, 30)
    blocks = document.blocks
    assert len(blocks) > 3, "the fence must come in pieces for this test"
    assert code_of_block(blocks, 2) == body
    assert code_of_block(blocks, 1) == body
    assert code_of_block(blocks, 0) == ""
    top = find_row(document, "line 0 ")
    bottom = max(y for y, row in enumerate(rows(document)) if "xxx" in row)
    assert select(text, 30, (0, top), (30, bottom)) == body


def test_code_helpers() -> None:
    assert fence_body("```py\na\nb\n```") == "a\nb"
    assert fence_body("~~~~\na\n~~~~") == "a"
    assert fence_body("```\nstill streaming") == "still streaming"
    assert last_code_block("a\n\n```\none\n```\n\nb\n\n```sh\ntwo\n```\n\nc") == "two"
    assert last_code_block("no code here") is None


WORDS = st.text(alphabet="abcdefghij *_`[]()#>-.:", min_size=1, max_size=12)
LINE = st.lists(WORDS, min_size=1, max_size=30).map(" ".join)
CODE = st.lists(
    st.text(alphabet="abc xyz=()[]{};:,.'\"\t", min_size=0, max_size=150), min_size=1, max_size=6
).map(lambda lines: "```\n" + "\n".join(lines) + "\n```")
BLOCK = st.one_of(
    LINE,
    LINE.map(lambda line: "> " + line),
    st.lists(LINE, min_size=1, max_size=3).map(lambda items: "\n".join("- " + i for i in items)),
    CODE,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=5), st.integers(min_value=12, max_value=90))
def test_a_code_block_selected_whole_is_its_code_at_any_width(
    blocks: list[str], width: int
) -> None:
    text = "Start.\n\n" + "\n\n".join(blocks) + "\n\nEnd."
    document = laid_out(text, width)
    rows(document)
    for index, block in enumerate(document.blocks):
        if not block.startswith("```"):
            continue
        start, lines = document.drawn_block(index)
        marked = [y for y in range(start, start + len(lines)) if lines[y - start].text.strip()]
        if not marked:
            continue
        got = select(text, width, (0, marked[0]), (width, marked[-1]))
        code = fence_body(block)
        # From its first drawn character to its last: all of its code, as sent.
        assert got == code


@settings(max_examples=150, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=5), st.integers(min_value=12, max_value=90))
def test_everything_selected_is_the_text_at_any_width(blocks: list[str], width: int) -> None:
    text = "Start.\n\n" + "\n\n".join(blocks) + "\n\nEnd."
    assert select(text, width, None, None) == text
