"""GrowingSanitizer gives exactly what sanitising the whole text gives, however it grows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text.safety import GrowingSanitizer, sanitize_terminal_text

# Text rich in what the sanitiser removes, so splits land inside escape sequences.
PIECES = st.sampled_from(
    [
        "a",
        "b c",
        "\n",
        "\t",
        "\x1b",
        "[",
        "31m",
        "]0;title",
        "\x07",
        "\\",
        "\x9b",
        "\x9d",
        "é",
        "\u202e",
        "P",
        "\x1b\\",
        "``",
        "\u200d",
        "\u200c",
        "👨",
        "ب",
        "\u200b",
        "\U000e0041",
    ]
)


@given(st.lists(st.lists(PIECES, max_size=8).map("".join), min_size=1, max_size=12))
def test_growing_equals_whole(parts: list[str]) -> None:
    sanitizer = GrowingSanitizer()
    text = ""
    for part in parts:
        text += part
        assert sanitizer.feed(text) == sanitize_terminal_text(text)


def test_replaced_text_starts_over() -> None:
    sanitizer = GrowingSanitizer()
    assert sanitizer.feed("hello world") == "hello world"
    assert sanitizer.feed("bye\x1b[2J") == "bye"
    assert sanitizer.feed("bye\x1b[2J now") == "bye now"


def test_clean_text_is_scanned_once() -> None:
    sanitizer = GrowingSanitizer()
    sanitizer.feed("x" * 1000)
    # The clean point moved to the end: only the new part is left to scan.
    assert sanitizer._raw_clean == "x" * 1000
    assert sanitizer.feed("x" * 1000 + "\x1b[31my") == "x" * 1000 + "y"
