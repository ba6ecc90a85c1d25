"""Terminal text sanitising: nothing an agent sends may drive the terminal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text_safety import one_line, sanitize_terminal_text, truncate


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain text", "plain text"),
        ("keep\nnewlines\tand tabs", "keep\nnewlines\tand tabs"),
        ("unicode: héllo → 世界 🎉", "unicode: héllo → 世界 🎉"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("clear\x1b[2J\x1b[Hscreen", "clearscreen"),
        ("\x1b[?1049h alt screen", " alt screen"),
        ("title\x1b]0;pwned\x07 after", "title after"),
        ("clip\x1b]52;c;ZXZpbA==\x1b\\ after", "clip after"),
        ("link \x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\", "link text"),
        ("dcs \x1bPq#0;2;0;0;0\x1b\\ end", "dcs  end"),
        ("reset\x1bc done", "reset done"),
        ("charset \x1b(B ok", "charset  ok"),
        ("8-bit csi \x9b31m red", "8-bit csi  red"),
        ("8-bit osc \x9d0;t\x9c end", "8-bit osc  end"),
        ("bell\x07 bs\x08 cr\r nul\x00 del\x7f", "bell bs cr nul del"),
        ("c1 \x85\x90x", "c1 "),
        ("bidi \u202egnp.exe\u202c ok", "bidi gnp.exe ok"),
        ("isolates \u2066a\u2067b\u2068c\u2069 marks \u200e\u200f\u061c", "isolates abc marks "),
        ("unterminated osc \x1b]0;forever", "unterminated osc "),
        ("lone escape at end \x1b", "lone escape at end "),
        ("", ""),
    ],
)
def test_sanitize(raw: str, clean: str) -> None:
    assert sanitize_terminal_text(raw) == clean


@given(st.text())
def test_sanitized_text_has_no_controls(text: str) -> None:
    clean = sanitize_terminal_text(text)
    for char in clean:
        code = ord(char)
        assert char in "\n\t" or not (code < 0x20 or 0x7F <= code <= 0x9F)
        assert char not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    # Idempotent.
    assert sanitize_terminal_text(clean) == clean


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs"))))
def test_printable_text_is_untouched(text: str) -> None:
    assert sanitize_terminal_text(text) == text


def test_truncate_and_one_line() -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", 4) == "abc…"
    assert len(truncate("x" * 500, 80)) == 80
    assert truncate("abc", 0) == ""
    assert one_line("a\n\tb   c\x1b[1m d", 80) == "a b c d"
    assert one_line("word " * 50, 20) == "word word word word…"
