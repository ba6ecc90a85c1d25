"""The app on a v2 connection (``--protocol 2``): the permission dialog from a v2 request, the
agent's own terminal drawn in its tool call, and turns that end on ``state_update`` idle."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.widgets.transcript import ToolCallView
from tests.ui.chat_helpers import (
    answer_permission,
    demo_app,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio


async def test_v2_tool_call_permission_terminal_and_a_second_turn(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        assert screen.link is not None and screen.link.v2_lifecycle
        await send(pilot, "/run echo pilot-v2")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await settle(pilot)
        views = list(screen.query(ToolCallView))
        assert views, "the tool call is shown"
        terminal_text = "\n".join(str(view.render()) for view in views[-1].query(".terminal"))
        assert "$ echo pilot-v2" in terminal_text and "[exit 0]" in terminal_text
        await send(pilot, "and a second turn")
        await wait_for(
            pilot,
            lambda: (
                not screen.busy
                and any(
                    isinstance(e, AgentMessage) and "AND A SECOND TURN" in e.text
                    for e in screen.store.get(screen.session_id or "").transcript  # type: ignore[union-attr]
                )
            ),
            "the second turn",
        )
        state = screen.store.get(screen.session_id or "")
        assert state is not None and state.stop_reason == "end_turn"
