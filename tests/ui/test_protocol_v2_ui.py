"""The app on a v2 connection (``--protocol 2``): the permission dialog from a v2 request, the
agent's own terminal drawn in its tool call, and turns that end on ``state_update`` idle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.widgets.tool_call_view import ToolCallView
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
        assert screen.controller is not None and screen.controller.v2_lifecycle
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


async def test_on_v1_a_stray_state_update_does_not_let_a_second_message_overtake(
    tmp_path: Path,
) -> None:
    """The demo with --v2-updates sends state_update on a v1 connection: the message typed
    while a turn runs still waits in the queue (shown) until the turn's answer."""
    from acp_tui.demo_agent import demo_agent_argv
    from tests.ui.chat_helpers import agent_app

    argv = [*demo_agent_argv(str(tmp_path / "state"), chunk_delay=0.01), "--v2-updates"]
    app = agent_app(argv, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/help")
        await wait_for(pilot, lambda: not screen.busy, "the first turn")
        await send(pilot, "/slow")
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        await wait_for(
            pilot,
            lambda: (state.state_detail or {}).get("state") == "running",
            "the agent's running state",
        )
        await send(pilot, "waits its turn")
        await settle(pilot)
        assert [q.text for q in screen.prompts.items(screen.session_id)] == ["waits its turn"]
        assert len(screen.query("QueuedItem")) == 1
        assert screen.controller is not None and not screen.controller.v2_lifecycle
        await pilot.press("escape")  # cancel /slow: then it goes
        await wait_for(
            pilot,
            lambda: (
                not screen.prompts.has(screen.session_id)
                and any(
                    isinstance(e, AgentMessage) and "WAITS ITS TURN" in e.text
                    for e in state.transcript
                )
            ),
            "the queued message answered after the turn",
        )


async def test_a_v2_session_recorded_replays_as_it_was(tmp_path: Path) -> None:
    from acp_tui.devtools.recording import open_recorder
    from acp_tui.devtools.replay import replay_settings, requested_version, run_check
    from acp_tui.protocol.recording import load_recording
    from acp_tui.ui.app import make_app
    from acp_tui.ui.preferences import UiSettings
    from tests.ui.test_replay import answer_permission as answer_replayed
    from tests.ui.test_replay import replay_session, transcript_of

    path = tmp_path / "v2.jsonl"
    recorder = open_recorder(str(path))
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2, recorder=recorder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/run echo replayed-v2")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        original = transcript_of(screen)
    recorder.close()
    recording = load_recording(path)
    assert requested_version(recording) == 2
    assert run_check(recording, sys.stderr) == 0
    settings = replay_settings(recording, speed=0.0, data_dir=tmp_path / ".replay")
    replay = make_app(settings, ui=UiSettings(theme="textual-dark"))
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        assert screen.controller is not None
        await answer_replayed(pilot, "1")
        await wait_for(
            pilot,
            lambda: (
                (s := screen.store.get(screen.session_id or "")) is not None
                and s.stop_reason == "end_turn"
                and not screen.busy
            ),
            "the replayed turn to end",
        )
        assert screen.controller.v2_lifecycle
        assert transcript_of(screen) == original
