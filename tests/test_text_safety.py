"""Terminal text sanitising: nothing an agent sends may drive the terminal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text.safety import one_line, sanitize_terminal_text, strip_invisible, truncate


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
        # Issue 36: what draws nothing goes from messages and diffs as from titles.
        ("pay\u200bpal \u2060word\ufeffjoiner\u00ad", "paypal wordjoiner"),
        ("tag\U000e0041\U000e007f chars", "tag chars"),
        ("fill\u3164er \u115f\u1160x", "filler x"),
        ("a\u200db but 👨\u200d👩 and ب\u200cی", "ab but 👨\u200d👩 and ب\u200cی"),
        ("line\u2028sep\u2029para", "line\nsep\npara"),
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
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
    for at, char in enumerate(clean):
        code = ord(char)
        assert char in "\n\t" or not (code < 0x20 or 0x7F <= code <= 0x9F)
        assert not 0xD800 <= code <= 0xDFFF
        assert char not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
        assert char not in "\u200b\u2060\ufeff\u00ad\u2028\u2029\u3164"
        assert not 0xE0000 <= code <= 0xE007F, repr(char)  # tag characters
        if char in "\u200c\u200d":  # only between two visible non-ASCII characters
            assert 0 < at < len(clean) - 1
            assert not clean[at - 1].isascii() and not clean[at + 1].isascii()
    # Idempotent.
    assert sanitize_terminal_text(clean) == clean


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc",))))
def test_labels_and_text_follow_one_rule(text: str) -> None:
    """A label is the text's own sanitised form on one line: what a title drops, a message
    drops too (issue 36: messages and diffs kept zero-width and tag characters)."""
    assert one_line(text, 10**6) == " ".join(sanitize_terminal_text(text).split())


#: Characters that draw something: not controls, format characters or surrogates, and none of
#: the marks and fillers that draw nothing (U+034F, U+115F, U+3164...), which are dropped.
VISIBLE = st.characters(blacklist_categories=("Cc", "Cf", "Cs")).filter(
    lambda char: strip_invisible(char) == char
)


@given(st.text(alphabet=VISIBLE))
def test_printable_text_is_untouched(text: str) -> None:
    assert sanitize_terminal_text(text) == text


def test_truncate_and_one_line() -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", 4) == "abc…"
    assert len(truncate("x" * 500, 80)) == 80
    assert truncate("abc", 0) == ""
    assert one_line("a\n\tb   c\x1b[1m d", 80) == "a b c d"
    assert one_line("word " * 50, 20) == "word word word word…"


# --- one-line labels (issue 17): nothing hides, reorders or breaks a label ------------------

_CONTROL_SYMBOLS = {chr(0x2400 + code) for code in range(0x20)} | {"\u2421", "\ufffd"}


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("pay\u200bpal", "paypal"),  # zero-width space
        ("a\u2060b\ufeffc\u00add", "abcd"),  # word joiner, BOM, soft hyphen
        ("\u202etxt.exe\u202c", "txt.exe"),  # an override cannot reorder it
        ("\u2066iso\u2069 \u200emarks\u200f\u061c", "iso marks"),
        ("tag\U000e0041\U000e007f", "tag"),  # tag characters
        ("a\u200db", "ab"),  # a joiner inside ASCII only hides
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # but joins an emoji family
        ("ب\u200cی", "ب\u200cی"),  # and is part of Persian writing
        ("a\u2028b\u2029c\x85d\re\vf\fg", "a b c d e f g"),  # every line break is a space
        ("bell\x07 nul\x00 del\x7f c1\x80", "bell␇ nul␀ del␡ c1\ufffd"),  # shown, not hidden
        ("\x1b[31mred\x1b[0m \x1b]0;t\x07x", "red x"),  # escape sequences still removed
    ],
)
def test_one_line_labels(raw: str, label: str) -> None:
    assert one_line(raw, 200) == label


@given(st.text(), st.integers(min_value=1, max_value=300))
def test_one_line_is_one_visible_line(text: str, limit: int) -> None:
    label = one_line(text, limit)
    assert len(label) <= limit
    assert label == label.strip() and "  " not in label
    for at, char in enumerate(label):
        code = ord(char)
        assert not (code < 0x20 or 0x7F <= code <= 0x9F), repr(char)
        assert char not in "\u2028\u2029\u202e\u202d\u200b\ufeff", repr(char)
        if char in "\u200c\u200d":  # only between two visible non-ASCII characters
            assert 0 < at < len(label) - 1
            assert not label[at - 1].isascii() and not label[at + 1].isascii()


def test_one_line_of_a_huge_title_is_cheap_and_says_it_was_cut() -> None:
    assert one_line("word " * 1_000_000, 30) == ("word " * 6)[:29] + "…"
    assert one_line("\x1b[1m" * 200_000 + "x", 10).endswith("…")
