"""Agent strings in a security decision (issue 17): one line, every unprintable character
visible as an escape, cut with an ellipsis. A path with newlines once drew fake "SAFE: this
file is inside your project" lines under the question."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text.safety import escaped_line

SPOOF = "/tmp/x.txt\n\n  SAFE: this file is inside your project\r\n\u2028OK\u202e\x1b[2K"


def test_a_spoofing_path_is_one_visible_line() -> None:
    shown = escaped_line(SPOOF, 200)
    assert shown == (
        "/tmp/x.txt\\n\\n  SAFE: this file is inside your project\\r\\n\\u2028OK\\u202e\\x1b[2K"
    )


def test_zero_width_bidi_and_odd_spaces_are_shown() -> None:
    assert escaped_line("a\u200bb\u200ec\u00a0d\u3000e\ud800") == (
        "a\\u200bb\\u200ec\\xa0d\\u3000e\\ud800"
    )


def test_cut_with_an_ellipsis_never_inside_an_escape() -> None:
    assert escaped_line("x" * 10, 10) == "x" * 10
    assert escaped_line("x" * 11, 10) == "x" * 9 + "…"
    assert escaped_line("abcdefg\n", 9) == "abcdefg\\n"
    assert escaped_line("abcdefgh\n", 9) == "abcdefgh…"  # "\\n" would not fit whole
    assert escaped_line("anything", 0) == ""


@given(st.text(st.characters(codec=None, exclude_categories=())), st.integers(1, 300))
def test_always_one_printable_line_within_the_limit(text: str, limit: int) -> None:
    shown = escaped_line(text, limit)
    assert len(shown) <= limit
    assert shown.isprintable()  # no newline, control, format or separator character
    if text.isprintable() and len(text) <= limit:
        assert shown == text  # nothing to escape, nothing to cut: shown as sent
