"""Numbered list items are numbered as written, "1." (Rich's bare "1" read as part of the
text: "1 line number 1 of a long reply", OpenCode's tester)."""

from __future__ import annotations

import io

from rich.console import Console

from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme


def rows(markdown: str, width: int = 40) -> list[str]:
    renderer = BlockRenderer(Console(width=width, file=io.StringIO()), markdown_theme({}))
    return [line.text.rstrip() for line in renderer.lines(markdown, width)]


def test_items_are_numbered_with_a_dot_and_wrap_under_their_text() -> None:
    assert rows("1. first item that is long enough to wrap around\n2. second\n") == [
        " 1. first item that is long enough to",
        "    wrap around",
        " 2. second",
    ]


def test_ten_items_and_a_list_that_starts_elsewhere_line_up() -> None:
    ten = rows("".join(f"{n}. item {n}\n" for n in range(1, 11)))
    assert ten[0] == "  1. item 1" and ten[-1] == " 10. item 10"
    assert rows("7. seventh\n8. eighth\n") == [" 7. seventh", " 8. eighth"]


def test_bullets_are_unchanged() -> None:
    assert rows("- one\n- two\n") == [" • one", " • two"]
