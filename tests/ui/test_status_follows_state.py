"""The status line says what is true now, never what was true before: a cancelled turn says
"cancelled" until something else happens, and neither that nor an agent's crash outlives a
restart (Ctrl+R) that reopened the session, or the next turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from acp_tui.ui.screens.chat import ChatScreen
from tests.ui.chat_helpers import demo_app, send, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def status(screen: ChatScreen) -> str:
    return str(screen.query_one("#status", Static).render())


async def test_cancelled_and_error_do_not_outlive_a_restart_or_the_next_turn(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        session_id = screen.session_id
        await send(pilot, "/slow 20")
        await wait_for(pilot, lambda: screen.busy, "the slow turn")
        await pilot.press("escape")
        await wait_for(pilot, lambda: status(screen) == "cancelled", "cancelled")
        # The agent dies during the next turn; Ctrl+R brings it back, reopening the session.
        await send(pilot, "/crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the crash")
        await wait_for(pilot, lambda: status(screen).startswith("stopped"), "stopped: error")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.agent_alive
                and screen.link is not None
                and screen.link.current_session_id == session_id
                and not screen.store.get(session_id).replaying  # type: ignore[union-attr]
            ),
            "the restart",
            limit=15,
        )
        await pilot.pause()
        await wait_for(pilot, lambda: status(screen) == "", "the status to clear", limit=5)
        # A cancel, then the next turn: "cancelled" goes as it starts, and stays gone.
        await send(pilot, "/slow 20")
        await wait_for(pilot, lambda: screen.busy, "the slow turn")
        await pilot.press("escape")
        await wait_for(pilot, lambda: status(screen) == "cancelled", "cancelled")
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "cancelled" not in status(screen), "the next turn")
        await wait_for(pilot, lambda: not screen.busy, "its end")
        assert status(screen) == ""
