"""The one way agent text becomes something a widget shows (acp_tui.ui.agent_text)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from textual.content import Content

from acp_tui.ui.agent_text import agent_content, agent_line, agent_lines, line_of

MARKUP = "[/] [@click=app.quit]quit[/] [link=https://evil.example]x[/link] [b]GPT-5 [beta]"


@pytest.mark.parametrize("make", [agent_line, agent_lines, agent_content])
def test_markup_is_never_parsed(make: object) -> None:
    shown = make(MARKUP)  # type: ignore[operator]
    assert isinstance(shown, Text | Content)
    assert shown.plain == MARKUP
    assert not shown.spans  # no style, no link, no action came out of the text


def test_one_line_and_lines() -> None:
    assert agent_line("a\nb\x1b[31m\u202ec\u200b", 80).plain == "a bc"
    assert agent_lines("a\nb\x1b[31m\u202ec", 80).plain == "a\nbc"
    assert agent_line("x" * 500, 10).plain == "x" * 9 + "…"
    assert agent_lines("x" * 500, 10).plain == "x" * 9 + "…"
    assert line_of(None) == "" and line_of(42) == "42"


def test_styles_are_ours_not_the_agents() -> None:
    content = agent_content("[b]name[/b]", style="$text-muted")
    assert content.plain == "[b]name[/b]"
    assert [str(span.style) for span in content.spans] == ["$text-muted"]
    assert agent_line("[i]x[/i]", style="bold").style == "bold"


@given(st.text())
def test_any_text_round_trips_as_its_plain_characters(text: str) -> None:
    assert agent_content(text, 10_000).plain == line_of(text, 10_000)
    assert agent_line(text, 10_000).plain == line_of(text, 10_000)
