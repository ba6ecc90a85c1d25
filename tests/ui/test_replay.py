"""Record a session in the real app, replay it in the real app (no agent process), and see
the same transcript; replay the committed recordings of real agents; save the protocol
inspector's traffic as a recording."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Static

from acp_tui.devtools.recording import open_recorder
from acp_tui.devtools.replay import replay_settings, run_check
from acp_tui.protocol.recording import load_recording
from acp_tui.session.export.markdown import transcript_markdown
from acp_tui.store.entries import AgentMessage, ToolCall
from acp_tui.ui.app import make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.inspector import InspectorScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.chat_helpers import (
    AGENTS,
    agent_app,
    chat,
    demo_app,
    record_notifications,
    send,
    wait_for,
    wait_for_session,
)
from tests.ui.test_resilience import screen_text

pytestmark = pytest.mark.anyio

DATA = Path(__file__).resolve().parent.parent / "data" / "recordings"
LIMIT = 30.0


def replay_app(path: Path, tmp_path: Path, speed: float = 0.0) -> Any:
    """The app as ``acp-tui replay`` makes it."""
    settings = replay_settings(
        load_recording(path), speed=speed, data_dir=tmp_path / ".replay-data"
    )
    return make_app(settings, ui=UiSettings(theme="textual-dark"))


def transcript_of(screen: ChatScreen) -> tuple[list[dict[str, Any]], str]:
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    entries = [
        {k: v for k, v in entry.to_dict().items() if k not in ("id", "version")}
        for entry in state.transcript
    ]
    return entries, transcript_markdown(state)


async def replay_session(pilot: Any) -> ChatScreen:
    """The chat screen once its session is open (a replay at full speed may already have a
    permission dialog over it)."""

    def screen() -> ChatScreen | None:
        found = [s for s in pilot.app.screen_stack if isinstance(s, ChatScreen)]
        return found[0] if found and found[0].session_id is not None else None

    await wait_for(pilot, lambda: screen() is not None, "the replayed session", LIMIT)
    found = screen()
    assert found is not None
    return found


def header_text(app: Any) -> str:
    """The top line ("" while nothing is drawn yet: a wait on it goes on waiting)."""
    lines = screen_text(app).splitlines()
    return lines[0] if lines else ""


async def answer_permission(pilot: Any, key: str) -> None:
    await wait_for(
        pilot, lambda: isinstance(pilot.app.screen, PermissionScreen), "the dialog", LIMIT
    )
    dialog = pilot.app.screen
    # Past the dialog's arming delay (a stray key must not answer it).
    await wait_for(pilot, lambda: getattr(dialog, "armed", True), "the dialog to arm", LIMIT)
    await pilot.press(key)
    await wait_for(
        pilot, lambda: isinstance(pilot.app.screen, ChatScreen), "the dialog to close", LIMIT
    )


async def permission_then_second_turn(pilot: Any, screen: ChatScreen, key: str = "1") -> None:
    """A recorded session's permission answered with ``key``, then its second turn replayed to
    its end."""
    await answer_permission(pilot, key)
    await wait_for(
        pilot,
        lambda: (
            (s := screen.store.get(screen.session_id or "")) is not None
            and s.turn == 2
            and s.stop_reason == "end_turn"
        ),
        "the second turn",
        LIMIT,
    )


async def test_a_replay_shows_the_transcript_the_recorded_session_showed(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    path = tmp_path / "session.jsonl"
    recorder = open_recorder(str(path))
    app = demo_app(tmp_path, tmp_path / "state", recorder=recorder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/edit notes.txt")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: not screen.busy, "the first turn to end", LIMIT)
        await send(pilot, "a second turn")
        state = screen.store.get(screen.session_id or "")
        await wait_for(
            pilot,
            lambda: state is not None and state.turn == 2 and not screen.busy,
            "the second turn to end",
            LIMIT,
        )
        original = transcript_of(screen)
    recorder.close()
    assert recorder.error is None
    assert run_check(load_recording(path), sys.stderr) == 0

    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    replay = replay_app(path, tmp_path)
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await wait_for(
            pilot, lambda: "replay · acp-tui demo agent" in header_text(replay), "the header"
        )
        await permission_then_second_turn(pilot, screen)
        await wait_for(pilot, lambda: not screen.busy, "the replayed second turn to end", LIMIT)
        replayed = transcript_of(screen)
        assert "a second turn" in screen_text(replay)
    assert replayed == original
    # Nothing was written: the replay asked the person, but acted on nothing.
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "hello\n"


async def test_the_recorded_sdk_agent_session_replays_with_its_dialog(tmp_path: Path) -> None:
    app = replay_app(DATA / "sdk-permission.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await wait_for(pilot, lambda: "replay · SDK Test Agent" in header_text(app), "the header")
        # The person answers otherwise than the recording did: the recording goes on as it was.
        await permission_then_second_turn(pilot, screen, "3")
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        replies = [e.text for e in state.transcript if isinstance(e, AgentMessage)]
        assert replies == ["outcome: allow", "You said: and a second turn"]
        (tool,) = [e for e in state.transcript if isinstance(e, ToolCall)]
        assert tool.status == "completed"
        # The sessions the agent listed, in the sidebar, as the recording has them.
        await wait_for(
            pilot, lambda: "Fix red bug" in screen_text(app), "the listed sessions", LIMIT
        )
        assert "Refactor the parser" in screen_text(app)


async def test_a_recorded_crash_replays_as_the_crash_banner(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    recorder = open_recorder(str(path))
    sdk = [sys.executable, str(AGENTS / "sdk_agent.py")]
    app = agent_app(sdk, tmp_path, recorder=recorder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "please crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to die", LIMIT)
    recorder.close()
    closed = load_recording(path).segments[0].closed
    assert closed is not None and closed["by"] == "agent" and closed["exit"] == "exit code 3"

    replay = replay_app(path, tmp_path)
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await wait_for(
            pilot,
            lambda: "The agent exited (exit code 3, as recorded)" in screen_text(replay),
            "the crash banner",
            LIMIT,
        )
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        assert [e.text for e in state.transcript if isinstance(e, AgentMessage)] == [
            "about to crash"
        ]


async def test_the_inspector_saves_its_traffic_as_a_recording_that_replays(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(
            pilot,
            lambda: (
                (s := screen.store.get(screen.session_id or "")) is not None
                and s.stop_reason == "end_turn"
            ),
            "the reply",
            LIMIT,
        )
        chat(app).tools.show_inspector()
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        await pilot.press("s")
        await wait_for(pilot, lambda: inspector.saved_to is not None, "the save", LIMIT)
        saved = inspector.saved_to
        # acp-tui's recordings folder, never the project (where git status would show it).
        assert saved is not None and saved.parent == tmp_path / ".data" / "recordings"
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
        assert not list(tmp_path.glob("acp-tui-wire-*"))
        original = transcript_of(screen)
    recording = load_recording(saved)
    assert recording.header["source"] == "inspector"
    assert run_check(recording, sys.stderr) == 0

    replay = replay_app(saved, tmp_path)
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await wait_for(
            pilot,
            lambda: (
                (s := screen.store.get(screen.session_id or "")) is not None
                and s.stop_reason == "end_turn"
                and not screen.busy
            ),
            "the replayed reply",
            LIMIT,
        )
        assert transcript_of(screen) == original


async def test_the_inspector_never_saves_through_a_link_or_pipe_at_its_name(
    tmp_path: Path,
) -> None:
    """Whatever is planted at the name the save would take (a link to a file outside, a
    dangling link, a FIFO, for every second the save may fall in), the save makes a new file
    beside them, 0600, and says where; nothing planted is written through or blocks."""
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n", encoding="utf-8")
    folder = tmp_path / "data" / "recordings"
    folder.mkdir(parents=True)
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        assert screen.controller is not None and screen.controller.client is not None
        traffic = screen.controller.traffic()
        assert traffic is not None
        inspector = InspectorScreen(traffic, folder=folder)
        now = time.time()
        planted = set()
        for second in range(-1, 30):
            name = time.strftime("acp-tui-wire-%Y%m%d-%H%M%S.jsonl", time.localtime(now + second))
            kind = second % 3
            if kind == 0:
                (folder / name).symlink_to(outside)
            elif kind == 1:
                (folder / name).symlink_to(tmp_path / "dangling-target")
            else:
                os.mkfifo(folder / name)
            planted.add(name)
        toasts = record_notifications(app)
        await app.push_screen(inspector)
        await pilot.press("s")
        await wait_for(pilot, lambda: inspector.saved_to is not None, "the save", LIMIT)
        saved = inspector.saved_to
        assert saved is not None and saved.parent == folder and saved.name not in planted
        assert not saved.is_symlink() and stat.S_IMODE(saved.stat().st_mode) == 0o600
        # The person is told where it went.
        assert any(str(saved) in message for message in toasts), toasts
    assert load_recording(saved).header["agent"] == list(screen.spec.argv)
    assert outside.read_text(encoding="utf-8") == "keep\n"
    assert not (tmp_path / "dangling-target").exists()


async def test_a_restarted_agent_replays_as_the_next_run_of_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "restart.jsonl"
    recorder = open_recorder(str(path))
    sdk = [sys.executable, str(AGENTS / "sdk_agent.py")]
    app = agent_app(sdk, tmp_path, recorder=recorder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "please crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to die", LIMIT)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.agent_alive, "the restart", LIMIT)
        await wait_for(pilot, lambda: screen.session_id is not None, "a session", LIMIT)
        await send(pilot, "hello again")
        await wait_for(
            pilot,
            lambda: "You said: hello again" in screen_text(app) and not screen.busy,
            "the reply after the restart",
            LIMIT,
        )
        original = transcript_of(screen)
    recorder.close()
    assert len(load_recording(path).segments) == 2

    replay = replay_app(path, tmp_path)
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await wait_for(pilot, lambda: not screen.agent_alive, "the replayed crash", LIMIT)
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.agent_alive
                and (s := screen.store.get(screen.session_id or "")) is not None
                and s.stop_reason == "end_turn"
                and not screen.busy
            ),
            "the replayed turn after the restart",
            LIMIT,
        )
        assert transcript_of(screen) == original


async def test_a_session_resumed_at_start_replays_resumed(tmp_path: Path) -> None:
    """Recorded with --resume ID: the replay opens that session as the recording did (a
    session/load with its history), not a new one the recording has no answer for."""
    state = tmp_path / "state"
    first = demo_app(tmp_path, state)
    async with first.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "the first visit")
        await wait_for(pilot, lambda: "THE FIRST VISIT" in screen_text(first), "a reply", LIMIT)
        session_id = screen.session_id
    path = tmp_path / "resumed.jsonl"
    recorder = open_recorder(str(path))
    again = demo_app(tmp_path, state, resume=session_id, recorder=recorder)
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        assert screen.session_id == session_id
        await send(pilot, "the second visit")
        await wait_for(
            pilot,
            lambda: "THE SECOND VISIT" in screen_text(again) and not screen.busy,
            "the reply",
            LIMIT,
        )
        original = transcript_of(screen)
    recorder.close()

    replay = replay_app(path, tmp_path)
    async with replay.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        assert screen.session_id == session_id
        await wait_for(
            pilot,
            lambda: (
                (s := screen.store.get(screen.session_id or "")) is not None
                and s.turn >= 1
                and s.stop_reason == "end_turn"
                and not screen.busy
            ),
            "the replayed turn",
            LIMIT,
        )
        assert transcript_of(screen) == original
        assert not [n for n in replay._notifications if n.severity == "error"]


async def test_claude_agent_acp_command_output_shows_without_its_fence(tmp_path: Path) -> None:
    """claude-agent-acp sends a command's output as one fenced Markdown block; shown as plain
    text, the ```console and ``` lines read as part of the output."""
    app = replay_app(DATA / "claude-agent-acp-bash.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await answer_permission(pilot, "2")
        await wait_for(
            pilot,
            lambda: (
                (s := screen.store.get(screen.session_id or "")) is not None
                and s.stop_reason == "end_turn"
                and any(isinstance(e, ToolCall) and e.status == "completed" for e in s.transcript)
            ),
            "the replayed turn",
            LIMIT,
        )
        tool = screen.query(ToolCallView).first()
        await wait_for(pilot, lambda: "cb.txt" in screen_text(app), "the output", LIMIT)
        shown = "\n".join(str(static.render()) for static in tool.query(Static))
        assert "bg.txt\ncb.txt\nfast.md" in shown
        assert "```" not in shown


async def test_fast_agents_execute_call_shows_its_command(tmp_path: Path) -> None:
    """fast-agent 0.10.48 (a real agent) titles a shell call "execute" and gives its command
    only in rawInput: the tool block shows the command under the title (it was in the
    permission dialog and nowhere else), and the replayed session ends as recorded."""
    app = replay_app(DATA / "fast-agent-execute.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await permission_then_second_turn(pilot, screen)
        tool = screen.query(ToolCallView).first()
        assert "execute" in str(tool.query_one(".header").render())
        row = tool.query_one(".command", Static)
        await wait_for(pilot, lambda: row.display, "the command row", LIMIT)
        assert str(row.render()) == "$ echo hello-from-tool && ls /tmp/s14/fast/work"


async def test_mistral_vibes_session_replays_and_its_own_thinking_option_is_not_alt_t(
    tmp_path: Path,
) -> None:
    """mistral-vibe 3.0.2 (a real agent): its thinking option has a category of its own
    ("thinking", not the spec's thought_level), so Alt+T has nothing to cycle: it types no
    "t" and says so, while the option itself is in the bar. Its bash call and permission
    replay as recorded, two turns, each message a block of its own."""
    app = replay_app(DATA / "mistral-vibe-bash.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await replay_session(pilot)
        await permission_then_second_turn(pilot, screen)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "config:thinking" in bar.controls, "vibe's option")
        toasts = record_notifications(app)
        editor = screen.query_one(PromptEditor)
        editor.focus()
        app.post_message(events.Key("alt+t", "t"))
        await wait_for(pilot, lambda: any("no thinking level" in t for t in toasts), "the toast")
        assert editor.text == ""
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        (tool,) = [e for e in state.transcript if isinstance(e, ToolCall)]
        assert tool.status == "completed" and tool.command == "touch created_by_vibe.txt && ls -la"
        view = screen.query(ToolCallView).first()
        assert not view.query_one(".command", Static).display  # its title says the command
