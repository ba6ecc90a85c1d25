"""The status line says what is true now, never what was true before: a cancelled turn says
"cancelled" until something else happens, and neither that nor an agent's crash outlives a
restart (Ctrl+R) that reopened the session, or the next turn."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from acp_tui.session.agent.reconnect import Reconnects
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
                and screen.controller is not None
                and screen.controller.current_session_id == session_id
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


#: The demo agent behind a parent that gives up its ends of the pipes, then outlives the
#: agent by a moment: the connection closes well before the exit is known (an agent that
#: flushes its logs, or a wrapper script), so the turn's error is drawn before the exit.
LINGERING = (
    "import os, subprocess, sys, time\n"
    "agent = subprocess.Popen(sys.argv[1:])\n"
    "os.close(0); os.close(1)\n"
    "code = agent.wait()\n"
    "time.sleep(0.6)\n"
    "sys.exit(code)\n"
)


async def test_the_exit_reported_after_the_turns_error_does_not_wipe_the_status(
    tmp_path: Path,
) -> None:
    from acp_tui.demo_agent import demo_agent_argv
    from tests.ui.chat_helpers import agent_app

    argv = [sys.executable, "-c", LINGERING, *demo_agent_argv(str(tmp_path / "state"), 0)]
    app = agent_app(argv, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/crash")
        await wait_for(pilot, lambda: status(screen) == "stopped: error", "the turn's error")
        await wait_for(pilot, lambda: not screen.agent_alive, "the exit")
        await pilot.pause()
        assert status(screen) == "stopped: error"
        # Asking the dead agent for something: a toast says it is not running; the status
        # still says how the turn ended.
        assert screen.controller is not None
        screen.controller.spawn(lambda: pilot.pause(), "changing the mode")
        await pilot.pause()
        assert status(screen) == "stopped: error"


@pytest.mark.parametrize("reconnects", [(), (60.0,)], ids=["no reconnect", "a reconnect"])
async def test_a_v2_turn_the_agent_dies_in_ends_as_an_error(
    tmp_path: Path, reconnects: tuple[float, ...]
) -> None:
    """On v2 the prompt is answered at once and a state update ends the turn: an agent that
    dies in between never sends it. The turn ends anyway, as an error, and says so; nothing
    goes on saying "working". With a reconnect waiting, the status line says that (the
    session's own updates drew "stopped: error" over it, so it was never seen) until it is
    made; the attempts used up, "stopped: error" stays. The waits are set so that neither is
    a moment a busy machine can miss (CI missed the first's half second once)."""
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        screen.agent.reconnects = Reconnects(delays=reconnects)
        session_id = screen.session_id
        await send(pilot, "/crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the crash")
        said = (
            "the agent exited; reconnecting (attempt 1 of 1) in 60 s…"
            if reconnects
            else "stopped: error"
        )
        await wait_for(pilot, lambda: status(screen) == said, said)
        state = screen.store.get(session_id or "")
        assert state is not None and state.activity == "idle" and not screen.busy
        assert screen.controller is not None and not screen.controller.is_busy(session_id or "")
        notices = [getattr(entry, "title", "") for entry in state.transcript]
        assert "The agent exited during this turn" in notices
        # More of the session's updates (a notice, the store's events) do not draw over it.
        screen.store.add_notice(session_id or "", "something else", severity="information")
        await pilot.pause()
        assert status(screen) == said
