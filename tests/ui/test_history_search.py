"""The Ctrl+R prompt search panel (issue 42): the highlight a person moved to stays when a
refresh brings the same matches (a late change of the query must not undo a key)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Label, OptionList

from acp_tui.config.history import InputHistory
from acp_tui.ui.screens.history_search import HistorySearchScreen

pytestmark = pytest.mark.anyio


class _Host(App[None]):
    def __init__(self, history: InputHistory) -> None:
        super().__init__()
        self.history = history
        self.chosen: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Label("host")

    def on_mount(self) -> None:
        self.push_screen(HistorySearchScreen(self.history, "/here"), self.chosen.append)


def _history() -> InputHistory:
    history = InputHistory()
    history.append("fix the flaky payment test", "/elsewhere")
    history.append("write the docs of the parser", "/here")
    return history


async def test_ctrl_r_moves_older_and_a_late_refresh_of_the_same_matches_keeps_it() -> None:
    app = _Host(_history())
    async with app.run_test() as pilot:
        await pilot.press("t", "h", "e")
        await pilot.pause()
        screen: Any = app.screen
        assert isinstance(screen, HistorySearchScreen)
        matches = screen.query_one(OptionList)
        assert matches.highlighted == 0
        await pilot.press("ctrl+r")
        assert matches.highlighted == 1
        # A change of the query that reaches the panel after the key (as under load).
        field = screen.query_one(Input)
        field.post_message(Input.Changed(field, "the"))
        await pilot.pause()
        assert matches.highlighted == 1
        await pilot.press("enter")
        await pilot.pause()
    assert app.chosen == ["fix the flaky payment test"]


async def test_new_matches_start_again_at_the_newest() -> None:
    app = _Host(_history())
    async with app.run_test() as pilot:
        await pilot.press("t", "h", "e")
        await pilot.press("ctrl+r")
        await pilot.press("space", "d")  # "the d": only the parser's prompt
        await pilot.pause()
        matches = app.screen.query_one(OptionList)
        assert matches.option_count == 1
        assert matches.highlighted == 0
        await pilot.press("enter")
        await pilot.pause()
    assert app.chosen == ["write the docs of the parser"]
