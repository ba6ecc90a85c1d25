"""The chat screen against real agent processes: the demo agent and a scripted fixture agent."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from acp_tui.store.entries import AgentMessage, AgentThought, Notice, PlanSnapshot, ToolCall
from acp_tui.ui.screens.chat import ChatHeader
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import PlanView, ThoughtView
from tests.ui.chat_helpers import (
    answer_permission,
    demo_app,
    fixture_app,
    record_notifications,
    run_palette_command,
    send,
    wait_for,
    wait_for_session,
)
from tests.ui.test_resilience import screen_text

pytestmark = pytest.mark.anyio


def last_reply(screen) -> str:  # type: ignore[no-untyped-def]
    state = screen.store.get(screen.session_id)
    replies = [e.text for e in state.transcript if isinstance(e, AgentMessage)]
    return replies[-1] if replies else ""


async def test_send_and_stream_from_the_demo_agent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        header = screen.query_one(ChatHeader)
        assert "demo" in str(header.query_one("#agent").render()).lower()
        assert screen.focused is not None and "PromptTextArea" in type(screen.focused).__name__
        await send(pilot, "Hello there")
        await wait_for(
            pilot, lambda: "Hello there" in last_reply(screen) and not screen.busy, "the reply"
        )
        # The reply is on screen, drawn from its Markdown, not only in the store.
        transcript = screen.query_one(Transcript)

        def reply_drawn() -> bool:
            for lines in transcript.query(MarkdownLines):
                drawn = [lines.render_line(y).text for y in range(lines.size.height)]
                if any("Hello there" in line for line in drawn):
                    return True
            return False

        await wait_for(pilot, reply_drawn, "the reply drawn on screen")
        await wait_for(
            pilot, lambda: "Hello there" in str(header.query_one("#title").render()), "the title"
        )


async def test_escape_cancels_a_running_turn(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(
            pilot, lambda: screen.busy and "Working on it" in last_reply(screen), "the turn to run"
        )
        await pilot.press("escape")
        state = screen.store.get(screen.session_id)
        await wait_for(
            pilot, lambda: state.stop_reason == "cancelled" and not screen.busy, "cancelled"
        )
        assert any(isinstance(e, Notice) and e.title == "Cancelled" for e in state.transcript)
        assert "cancelled" in str(screen.query_one("#status").render())


async def test_a_message_sent_while_busy_is_queued_then_sent(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(pilot, lambda: screen.busy, "the turn to run")
        await send(pilot, "after the hang")
        await wait_for(
            pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queued item to show"
        )
        assert screen.controller is not None and [
            q.text for q in screen.controller.queue(screen.session_id)
        ] == ["after the hang"]
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: last_reply(screen) == "You said: after the hang",
            "the queued message to be sent",
        )
        assert len(screen.query("QueuedItem")) == 0


async def test_a_queued_message_can_be_removed(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(pilot, lambda: screen.busy, "the turn to run")
        await send(pilot, "never mind")
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queued item")
        await pilot.click("QueuedItem .remove")
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 0, "the item to go")
        assert screen.controller is not None and screen.controller.queue(screen.session_id) == []


async def test_slash_commands_from_the_agent_are_offered(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        editor = screen.query_one("#prompt")
        await wait_for(pilot, lambda: len(editor.commands) == 2, "the agent's commands")  # type: ignore[attr-defined]
        editor.focus()
        await pilot.press("slash", "t")
        await wait_for(pilot, lambda: editor.completion_open, "the completion list")  # type: ignore[attr-defined]
        await pilot.press("tab")
        assert editor.text.startswith("/title ")  # type: ignore[attr-defined]


async def test_mode_and_model_switch_are_sent_and_reflected(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        state = screen.store.get(screen.session_id)
        await wait_for(pilot, lambda: screen.query_one("#mode-select").display, "the mode selector")
        assert state.current_mode_id == "code"
        screen.options.choose("modes", "ask")
        await wait_for(pilot, lambda: state.current_mode_id == "ask", "the mode change")
        await wait_for(
            pilot, lambda: screen.query_one("#mode-select").value == "ask", "the selector to follow"
        )
        screen.options.choose("config:model", "deep")
        await wait_for(pilot, lambda: state.current_model == "deep", "the model change")
        titles = [c.title for c in screen.agent_commands()]
        assert "Mode: Code" in titles and "Model: Fast" in titles


async def test_tool_call_with_diff_and_plan_are_rendered(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "conversation")
        state = screen.store.get(screen.session_id)
        await wait_for(pilot, lambda: state.stop_reason == "end_turn", "the turn to end")
        await wait_for(pilot, lambda: len(screen.query(PlanView)) == 1, "the plan view")
        tool = screen.query_one(ToolCallView)
        assert tool.has_class("-status-completed")
        assert len(tool.query(DiffView)) == 1
        assert any(isinstance(e, ToolCall) and e.status == "completed" for e in state.transcript)
        assert any(isinstance(e, PlanSnapshot) for e in state.transcript)
        # The gauge follows usage_update.
        assert "40.0K / 200K · 20%" in screen.query_one("#gauge").gauge_line()  # type: ignore[attr-defined]


async def test_edit_through_the_permission_dialog_writes_the_file(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/edit notes.txt")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").exists(), "the file to be written")
        state = screen.store.get(screen.session_id)
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        assert any(
            isinstance(e, Notice) and e.title.startswith("Allowed once") for e in state.transcript
        )


async def test_thoughts_can_be_hidden(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "think")
        state = screen.store.get(screen.session_id)
        await wait_for(
            pilot, lambda: any(isinstance(e, AgentThought) for e in state.transcript), "a thought"
        )
        await wait_for(pilot, lambda: len(screen.query(ThoughtView)) == 1, "the thought view")
        thought = screen.query_one(ThoughtView)
        assert thought.display is True
        await run_palette_command(pilot, "Toggle thoughts")
        assert screen.query_one(Transcript).has_class("-hide-thoughts")
        assert thought.display is False  # hidden by the transcript's CSS class
        await run_palette_command(pilot, "Toggle thoughts")
        assert thought.display is True
        # Opened, it reads as Markdown (Codex's thoughts showed their asterisks), its
        # markup-looking text literal.
        thought.set_expanded(True)
        await wait_for(
            pilot,
            lambda: (
                "Considering the request: think, and [bold]nothing[/bold] else." in screen_text(app)
            ),
            "the thought drawn",
        )
        assert "**" not in screen_text(app) and "`" not in screen_text(app)


async def test_export_writes_the_transcript_as_markdown(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "conversation")
        await wait_for(
            pilot, lambda: screen.store.get(screen.session_id).stop_reason == "end_turn", "the turn"
        )
        toasts = record_notifications(app)
        screen.tools.export_transcript()
        # Into acp-tui's exports folder, never the project (its git status stays clean).
        folder = tmp_path / ".data" / "exports"
        await wait_for(
            pilot,
            lambda: not [w for w in app.workers if w.group == "export" and not w.is_finished],
            "the export written",
        )
        assert not list(tmp_path.glob("acp-tui-*"))
        exported = list(folder.glob("acp-tui-*.md"))
        assert len(exported) == 1
        assert stat.S_IMODE(exported[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        # The person is told where it went.
        await wait_for(
            pilot, lambda: any(str(exported[0]) in message for message in toasts), "the toast"
        )
        text = exported[0].read_text()
        assert text.startswith("# Refactor the greeting")
        assert "## You\n\nconversation" in text
        assert "```diff" in text and "+def greet(name: str) -> str:" in text
        assert "- [~] Add tests" in text


async def test_the_agent_crashing_keeps_transcript_and_draft_and_restart_reopens(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "first message")
        await wait_for(
            pilot, lambda: "first message" in last_reply(screen) and not screen.busy, "a reply"
        )
        session_id = screen.session_id
        await send(pilot, "/crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to exit")
        editor = screen.query_one("#prompt")
        editor.set_draft("unsent draft")  # type: ignore[attr-defined]
        banner = screen.query_one("#banner")
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        assert "exit code 3" in str(banner.render())
        assert any(
            isinstance(e, AgentMessage) and "first message" in e.text
            for e in screen.store.get(session_id).transcript
        )
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.agent_alive
                and screen.session_id == session_id
                and screen.controller.current_session_id == session_id
            ),
            "the restart",
            limit=15,
        )  # type: ignore[union-attr]
        assert editor.draft == "unsent draft"  # type: ignore[attr-defined]
        await send(pilot, "after restart")
        await wait_for(
            pilot, lambda: "after restart" in last_reply(screen), "a reply after the restart"
        )


async def test_typing_during_a_stream_keeps_every_key_and_the_transcript_moving(
    tmp_path: Path,
) -> None:
    """Input has priority over output, but does not freeze it: while keys keep arriving (one
    every 30 ms, as a fast typist's do) the transcript still shows the agent's new lines (the
    demo's slow turn adds one every 0.5 s); every key ends up in the prompt."""
    import itertools

    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/slow 60")
        transcript = screen.query_one(Transcript)

        def drawn_reply() -> str:
            lines = list(transcript.query(MarkdownLines))
            return lines[-1].source if lines and lines[-1].is_drawn else ""

        await wait_for(pilot, lambda: "(1/" in drawn_reply(), "the slow reply to start")
        area = screen.query_one("#prompt").text_area  # type: ignore[attr-defined]
        area.focus()
        keys = itertools.cycle("the quick brown fox jumps over the lazy dog ")
        typed = ""
        seen: set[int] = {drawn_reply().count("\n")}
        # Type without a break until two more of the agent's lines have been drawn. If typing
        # held the transcript, they never would: the key budget (a minute of typing on an
        # idle machine) ends that.
        while len(seen) < 3:
            assert len(typed) < 2000, "the transcript stood still while keys arrived"
            char = next(keys)
            await pilot.press("space" if char == " " else char)
            typed += char
            seen.add(drawn_reply().count("\n"))
            await pilot.pause(0.03)  # the typist's rhythm, not a wait
        assert area.text == typed
