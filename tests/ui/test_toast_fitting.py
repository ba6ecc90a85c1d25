"""A toast about a session says what happened and the key to press whole, however long the
session's title and the agent's name: they give way, cut at a word's end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.ui.toasts import TOAST_CHARS, about_session, shortened, toast_text

TAILS = [
    "needs you: Ctrl+L to go there",
    "ended in an error: open it from the sessions (Ctrl+B)",
]
words = st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=14), min_size=1, max_size=12)


@given(title=words, agent=words, tail=st.sampled_from(TAILS))
def test_the_tail_reads_whole_and_names_are_cut_at_words(
    title: list[str], agent: list[str], tail: str
) -> None:
    text = about_session(" ".join(title), " ".join(agent), tail)
    assert toast_text(text) == text  # nothing more is cut on the way to the screen
    assert len(text) <= TOAST_CHARS and text.endswith(tail)
    shown_title = text[1 : text.index("”")]
    if shown_title != " ".join(title):
        kept = shown_title.removesuffix("…").split(" ")
        # Whole words, bar one too long to stand alone.
        assert kept[:-1] == title[: len(kept) - 1]
        assert kept[-1] == title[len(kept) - 1] or len(kept) == 1


def test_the_long_names_seen_in_real_use() -> None:
    text = about_session(
        "Investigate the flaky payment gateway integration tests on the nightly CI builds",
        "Mistral Vibe coding agent (local models)",
        TAILS[0],
    )
    assert text.endswith("needs you: Ctrl+L to go there")
    assert text.startswith("“Investigate the flaky payment")
    assert "(Mistral Vibe coding…)" in text


def test_shortened_keeps_what_fits() -> None:
    assert shortened("short", 10) == "short"
    assert shortened("two words here", 9) == "two…"
    assert shortened("x" * 30, 10) == "x" * 9 + "…"
