"""Tool output in one fenced block is shown without its fence lines, and nothing else is
touched."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.text.fences import unfenced


def test_one_fenced_block_loses_its_fence_lines() -> None:
    # What claude-agent-acp sends for a Bash call's output.
    assert unfenced("```console\nbg.txt\ncb.txt\n```") == "bg.txt\ncb.txt"
    assert unfenced("```\n\n  indented\n```\n") == "\n  indented"
    assert unfenced("~~~~ text\n```\ninner fence of another kind\n~~~~") == (
        "```\ninner fence of another kind"
    )
    assert unfenced("```\n```") == ""


def test_anything_else_is_left_as_it_is() -> None:
    for text in (
        "plain output",
        "```console\nnot closed",
        "```\none\n```\nand text after",
        "text before\n```\ncode\n```",
        "```\na\n```\n```\nb\n```",  # two blocks
        "```python x``\nno\n```",  # a backtick in the info string: not a fence
        "``\nshort\n``",
        "",
    ):
        assert unfenced(text) == text


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80))
def test_the_inside_is_kept_whole(inside: str) -> None:
    text = f"```\n{inside}\n```"
    shown = unfenced(text)
    assert shown in (inside, text)
    if "```" not in inside:
        assert shown == inside
