"""A tool call's command in the transcript: under its title when the title does not say it
(fast-agent titles every shell call "execute"), as written, never twice."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.store.entries import ToolCall
from acp_tui.ui.widgets.tool_call_view import ToolCallView

pytestmark = pytest.mark.anyio


class ToolApp(App[None]):
    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__()
        self.view = ToolCallView(ToolCall.from_fields({"toolCallId": "t1", **fields}))

    def compose(self) -> ComposeResult:
        yield self.view


async def command_row(fields: dict[str, Any]) -> str | None:
    """The command row as drawn, or None when it is hidden."""
    app = ToolApp(fields)
    async with app.run_test(size=(100, 12)) as pilot:
        await app.view.redraw()
        await pilot.pause()
        row = app.view.query_one(".command", Static)
        return str(row.render()) if row.display else None


async def test_an_execute_call_titled_by_its_tool_shows_its_command() -> None:
    fields = {"title": "execute", "kind": "execute", "rawInput": {"command": "echo hi && ls"}}
    assert await command_row(fields) == "$ echo hi && ls"


async def test_a_title_that_says_the_command_is_not_repeated() -> None:
    fields = {"title": "Run `ls -la`", "kind": "execute", "rawInput": {"command": "ls -la"}}
    assert await command_row(fields) is None


async def test_a_terminal_below_shows_the_command_itself() -> None:
    fields = {
        "title": "execute",
        "kind": "execute",
        "rawInput": {"command": "make test"},
        "content": [{"type": "terminal", "terminalId": "term-1"}],
    }
    assert await command_row(fields) is None


async def test_no_command_no_row() -> None:
    assert await command_row({"title": "read_text_file", "rawInput": {"path": "/a"}}) is None


async def test_the_command_is_agent_text_shown_as_written_on_one_row() -> None:
    command = "[b]rm[/b] [@click=app.quit]x[/]\x1b[2J\nsecond"
    fields = {"title": "execute", "kind": "execute", "rawInput": {"command": command}}
    row = await command_row(fields)
    assert row is not None
    assert "[b]rm[/b] [@click=app.quit]x[/]" in row  # markup as written, not applied
    assert "\x1b" not in row and "\n" not in row
