"""The agent's log (Ctrl+P, "Agent log"): its lines as written, and how to close it said."""

from __future__ import annotations

import pytest
from textual.app import App

from acp_tui.ui.screens.inspector import TextLogScreen

pytestmark = pytest.mark.anyio


async def test_the_log_says_how_to_close_it_and_closes() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 20)) as pilot:
        screen = TextLogScreen("Agent stderr", ["[b]not markup[/b]", "line \x1b[2J two"])
        app.push_screen(screen)
        await pilot.pause()
        panel = screen.query_one("Vertical")
        assert panel.border_subtitle == "Esc to close"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen
