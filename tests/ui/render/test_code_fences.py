"""Code fences: the lexer of a fence's language is looked up once, not at every draw (an open
fence is drawn at every frame while it streams; an unknown language costs a scan of every
installed Pygments plugin per lookup), and a fence looks as Rich draws it."""

from __future__ import annotations

from typing import Any

import pytest
import rich.syntax
from rich.console import Console

from acp_tui.ui.render import markdown as markdown_module
from acp_tui.ui.render.markdown import BlockRenderer, markdown_theme

CONSOLE = Console(width=60, color_system="truecolor", force_terminal=True)


@pytest.mark.parametrize("language", ["python", "no-such-language-here", ""])
def test_a_fence_drawn_again_and_again_looks_its_lexer_up_once(
    monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    lookups: list[str] = []
    real = rich.syntax.get_lexer_by_name

    def counting(name: str, **options: Any) -> Any:
        lookups.append(name)
        return real(name, **options)

    monkeypatch.setattr(rich.syntax, "get_lexer_by_name", counting)
    markdown_module._lexer_named.cache_clear()
    renderer = BlockRenderer(CONSOLE, markdown_theme({}))
    block = f"```{language}\ndef step(x: int) -> int:\n    return x + 1\n```"
    drawn = [renderer.lines(block, 60) for _ in range(5)]
    assert len([name for name in lookups if name != "text"]) <= 1, lookups
    assert all(lines == drawn[0] for lines in drawn)
    text = "\n".join(strip.text for strip in drawn[0])
    assert "def step(x: int) -> int:" in text and "return x + 1" in text


def test_a_fence_is_coloured_as_rich_colours_it() -> None:
    """The lexer found once is the one Rich finds: Python's keyword has Rich's colour."""
    renderer = BlockRenderer(CONSOLE, markdown_theme({}))
    ours = {
        segment.text: segment.style
        for strip in renderer.lines("```python\ndef step(x):\n    return x\n```", 60)
        for segment in strip
    }
    syntax = rich.syntax.Syntax("def step(x):\n    return x", "python", theme="monokai")
    theirs = {segment.text: segment.style for segment in CONSOLE.render(syntax)}
    assert ours["def"] is not None and theirs["def"] is not None
    assert ours["def"].color == theirs["def"].color
