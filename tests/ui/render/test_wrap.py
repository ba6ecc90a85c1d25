"""GrowingWrap: wrapping a text a piece at a time gives exactly Rich's wrap of the whole."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.ui.render import wrap as wrap_module
from acp_tui.ui.render.wrap import GrowingWrap, wrap_with_starts

CONSOLE = Console(width=80, color_system="truecolor", force_terminal=True)
STYLES = [None, Style(bold=True), Style(italic=True, color="red"), Style(underline=True)]
#: Words of every kind that wrapping treats apart: short, long (folded), wide, tabs, breaks.
WORDS = st.sampled_from(
    [
        "a",
        "word",
        "wrapping",
        "x" * 23,
        "y" * 61,
        "日本語",
        "emoji🙂",
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n",
        "end.",
        "com-\npound",
    ]
)


def cells(lines: list[Text]) -> list[list[tuple[str, Style | None]]]:
    """What reaches the screen: each line's characters with their styles."""
    result = []
    for line in lines:
        row: list[tuple[str, Style | None]] = []
        for segment in Segment.simplify(line.render(CONSOLE)):
            row.extend((char, segment.style) for char in segment.text)
        result.append(row)
    return result


def styled(pieces: list[tuple[str, int]]) -> list[Text]:
    return [Text(text, style=STYLES[style] or "") for text, style in pieces]


PIECES = st.lists(
    st.tuples(
        st.lists(WORDS, min_size=1, max_size=6).map("".join), st.integers(0, len(STYLES) - 1)
    ),
    min_size=1,
    max_size=40,
)
#: 1,500 examples per property, run as shards of 250 (each shard its own random search): the
#: same search in all, spread over the xdist workers instead of one long test that ends last.
#: (3,000 took 7 % of the suite's CPU; every run draws new examples, so the runs add up.)
SHARDS = pytest.mark.parametrize("shard", range(6))
EXAMPLES_PER_SHARD = 1500 // 6


@SHARDS
@settings(max_examples=EXAMPLES_PER_SHARD, deadline=None)
@given(pieces=PIECES, width=st.integers(1, 40))
def test_growing_wrap_equals_wrapping_the_whole(
    shard: int, pieces: list[tuple[str, int]], width: int
) -> None:
    texts = styled(pieces)
    whole = Text(justify="left")
    for text in texts:
        whole.append_text(text)
    expected = whole.wrap(CONSOLE, width, justify="left", overflow="fold")
    wrap = GrowingWrap(width)
    for text in texts:
        wrap.extend(text)
    assert cells(wrap.lines()) == cells(list(expected))


@SHARDS
@settings(max_examples=EXAMPLES_PER_SHARD, deadline=None)
@given(settled=PIECES, provisional=PIECES, width=st.integers(1, 40))
def test_a_provisional_end_wraps_as_if_it_were_added(
    shard: int, settled: list[tuple[str, int]], provisional: list[tuple[str, int]], width: int
) -> None:
    """The open end shown each frame (text that may still change) wraps like the same text
    added for good, and adding it later changes nothing already frozen."""
    wrap = GrowingWrap(width)
    for text in styled(settled):
        wrap.extend(text)
    frozen = len(wrap.frozen)
    tail = Text(justify="left")
    for text in styled(provisional):
        tail.append_text(text)
    shown = cells(wrap.lines(tail))
    wrap.extend(tail)
    assert cells(wrap.lines()) == shown
    if "\t" not in tail.plain.partition("\n")[0]:
        # A tab thaws the current line's frozen lines (its width depends on the line's start).
        assert len(wrap.frozen) >= frozen


def test_only_the_last_lines_stay_open() -> None:
    """A long paragraph given a word at a time keeps two lines open, whatever its length."""
    wrap = GrowingWrap(20)
    for n in range(2_000):
        wrap.extend(Text(f"word{n} "))
        assert len(wrap._open.plain) <= 2 * 20 + 12
    assert len(wrap.frozen) > 500


def test_starts_restart_the_wrap() -> None:
    text = Text("alpha beta gamma delta epsilon\nzeta eta theta iota kappa lambda mu")
    lines, starts, _ = wrap_with_starts(text, 12)
    for index, start in enumerate(starts):
        assert start >= 0
        again, _, _ = wrap_with_starts(text[start:], 12)
        assert cells(again) == cells(lines[index:])


def test_a_folded_word_is_measured_once_not_once_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether wrapping may start over inside a folded word depends on the rest of the word
    being wider than a line; measuring all of the rest at every line made a word of a megabyte
    take hours. The characters measured stay in proportion to the text."""
    measured = 0

    def counting_cell_len(text: str, *args: object) -> int:
        nonlocal measured
        measured += len(text)
        return cell_len(text)

    monkeypatch.setattr(wrap_module, "cell_len", counting_cell_len)
    word = "QmFzZTY0IGRhdGE+/x9" * 2_000  # 38,000 characters, no space
    lines, starts, _ = wrap_with_starts(Text(word), 60)
    assert "".join(line.plain.rstrip() for line in lines) == word
    assert all(start >= 0 for start in starts[1:-1])  # every line is a place to start over
    assert measured < 4 * len(word)
