"""A status too long for its row takes a second row instead of being cut ("Choose a session
to resume (↑ ↓ Enter), or Esc for a new one" at 80 columns with the sidebar open lost its
end); a short one keeps one row, and the row count follows the width as it changes."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.ui.widgets.status_line import StatusLine

pytestmark = pytest.mark.anyio

LONG = "Choose a session to resume (↑ ↓ Enter), or Esc for a new one"


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine()


def screen_text(app: App[None]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_long_status_wraps_and_a_short_one_does_not() -> None:
    async with Host().run_test(size=(44, 8)) as pilot:
        line = pilot.app.query_one(StatusLine)
        status = line.query_one("#status", Static)
        line.set_text(LONG)
        await pilot.pause()
        assert status.size.height == 2
        flat = " ".join(screen_text(pilot.app).split())
        assert LONG in flat
        line.set_text("● working… 3 s (Esc to cancel)")
        await pilot.pause()
        assert status.size.height == 1
        line.set_text(LONG)
        await pilot.pause()
        await pilot.resize_terminal(120, 8)
        await pilot.pause()
        assert status.size.height == 1
        await pilot.resize_terminal(44, 8)
        await pilot.pause()
        assert status.size.height == 2
