"""A widget's base style is kept between style updates and follows them
(acp_tui/ui/widgets/base_style.py): the sessions list and a reply draw every line with it."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget

from acp_tui.ui.widgets.base_style import CachedBaseStyle
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio


class Lines(CachedBaseStyle, Widget):
    DEFAULT_CSS = "Lines { background: #102030; color: #a0b0c0; } Lines.-other { color: #ff0000; }"


class ThemedLines(CachedBaseStyle, Widget):
    DEFAULT_CSS = "ThemedLines { background: $primary; color: $text; }"


class LinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Lines()
        yield ThemedLines()


async def test_the_base_style_is_kept_and_follows_a_style_change() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 5)) as pilot:
        lines = app.query_one(Lines)
        first = lines.base_style
        assert first == lines.rich_style
        assert lines.base_style is first, "kept, not computed again"
        lines.add_class("-other")
        await wait_for(pilot, lambda: lines.base_style != first, "the new colour")
        assert lines.base_style == lines.rich_style
        assert str(lines.base_style.color) != str(first.color)


async def test_a_theme_change_reaches_the_base_style() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 5)) as pilot:
        lines = app.query_one(ThemedLines)
        before = lines.base_style
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await wait_for(pilot, lambda: lines.base_style != before, "the theme's colour")
        assert lines.base_style == lines.rich_style
