"""The chat screen's parts talk attributes down, messages up (issue 16): the app owns the
workspace the screen takes its controller from; the screen reports a start failure to the
workspace, not onto the app; a transcript hands its terminal lookup to its tool calls (no
class attribute shared by every transcript); a queued item posts what the person asked for."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.message import Message

from acp_tui.session.prompts.queue import QueuedPrompt
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.entries import ToolCall
from acp_tui.ui.app import make_app
from acp_tui.ui.screens.chat import AgentBanner
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import Transcript

from .chat_helpers import (
    FIXTURE_AGENT,
    agent_app,
    app_settings,
    armed_dialog,
    chat,
    demo_app,
    record_notifications,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (100, 30)


async def test_the_screen_drives_the_controller_the_app_workspace_holds(tmp_path: Path) -> None:
    workspace = Workspace()
    settings, ui = app_settings(FIXTURE_AGENT, tmp_path)
    app = make_app(settings, ui=ui, workspace=workspace)
    assert app.workspace is workspace
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        assert screen.workspace is workspace
        assert app.settings.agent is not None
        controller = workspace.get(app.settings.agent.key)
        assert (
            controller is not None
            and screen.controller is controller
            and workspace.running() == [controller]
        )
        process = controller.process
        assert process is not None
    # Quitting stopped the agent the workspace held.
    assert controller.finished.is_set() and workspace.running() == []
    assert process.returncode is not None


async def test_a_start_failure_is_kept_by_the_workspace_and_read_by_the_app(
    tmp_path: Path,
) -> None:
    missing = str(tmp_path / "no-such-agent")
    app = agent_app([missing], tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        failure = app.workspace.start_failure
        assert failure is not None and missing in failure
        assert app.start_failure == failure
        # Nothing written onto the app from outside: start_failure is the app's own property.
        assert "start_failure" not in vars(app)


class TwoTranscripts(App[None]):
    def __init__(self, outputs: dict[str, str]) -> None:
        super().__init__()
        self.outputs = outputs

    def lookup_for(self, name: str) -> Any:
        def lookup(terminal_id: str) -> Any:
            return SimpleNamespace(
                command_line=f"echo {name}", output=self.outputs[name], exit_status=None
            )

        return lookup

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Transcript(id="left", terminal_lookup=self.lookup_for("left"))
            yield Transcript(id="right", terminal_lookup=self.lookup_for("right"))
            yield Transcript(id="none")


def tool_call_with_terminal() -> ToolCall:
    entry = ToolCall(1, "call-1")
    entry.title = "Run"
    entry.tool_kind = "execute"
    entry.content = [{"type": "terminal", "terminalId": "term-1"}]
    return entry


async def test_each_transcript_gives_its_own_terminal_lookup_to_its_tool_calls() -> None:
    assert "terminal_lookup" not in vars(ToolCallView), "a lookup shared by every transcript"
    app = TwoTranscripts({"left": "from the left agent", "right": "from the right agent"})
    async with app.run_test(size=(120, 30)) as pilot:
        for name in ("left", "right", "none"):
            await app.query_one(f"#{name}", Transcript).show_session(
                name, [tool_call_with_terminal()]
            )
        await pilot.pause()

        def terminal_text(name: str) -> str:
            view = app.query_one(f"#{name}", Transcript).query_one(ToolCallView)
            return str(view.query_one(".terminal").render())

        assert "from the left agent" in terminal_text("left")
        assert "from the right agent" in terminal_text("right")
        assert "from the" not in terminal_text("none") and "term-1" in terminal_text("none")


class OneQueue(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[Message] = []

    def compose(self) -> ComposeResult:
        yield QueueView(id="queue")

    def on_queued_item_requested(self, event: QueuedItem.Requested) -> None:
        self.heard.append(event)


async def test_a_queued_item_posts_edit_remove_and_send_now_with_itself_as_control() -> None:
    app = OneQueue()
    async with app.run_test(size=(80, 10)) as pilot:
        queue = app.query_one(QueueView)
        await queue.show([QueuedPrompt(1, "first", []), QueuedPrompt(2, "second", [])])
        assert queue.has_class("-visible") and len(queue.query(QueuedItem)) == 2
        second = list(queue.query(QueuedItem))[1]
        await pilot.pause()  # laid out: the buttons are where a click lands
        assert await pilot.click("#edit-2")
        await wait_for(pilot, lambda: len(app.heard) == 1, "the edit request")
        assert await pilot.click("#remove-1")
        await wait_for(pilot, lambda: len(app.heard) == 2, "the remove request")
        edit, remove = app.heard
        assert isinstance(edit, QueuedItem.Requested) and edit.control is second
        assert edit.what == "edit" and edit.control.item.queue_id == 2
        assert isinstance(remove, QueuedItem.Requested) and remove.what == "remove"
        assert remove.control.item.queue_id == 1
        assert await pilot.click("#now-1")
        await wait_for(pilot, lambda: len(app.heard) == 3, "the send-now request")
        assert app.heard[-1].what == "now"  # type: ignore[attr-defined]
        await queue.show([])
        assert not queue.has_class("-visible") and not queue.query(QueuedItem)


def sent_methods(screen: Any) -> list[str]:
    assert screen.controller is not None and screen.controller.client is not None
    methods = []
    for record in list(screen.controller.client.connection.traffic):
        if record.direction == "out" and record.text and '"method"' in record.text:
            methods.append(json.loads(record.text).get("method"))
    return methods


async def test_deleting_a_session_asks_first_in_a_dialog_of_its_own(tmp_path: Path) -> None:
    """The delete flow waits for the dialog in a worker (``push_screen_wait``): No sends
    nothing, Delete sends session/delete and says so."""
    app = demo_app(tmp_path, tmp_path / "state")
    heard = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        session_id = screen.session_id
        await send(pilot, "hello")
        await wait_for(
            pilot,
            lambda: any(s.id == session_id for s in screen.store.catalog()) and not screen.busy,
            "the session listed",
        )
        sidebar = screen.query_one(SessionsSidebar)
        sidebar.display = True
        await wait_for(
            pilot, lambda: sidebar.highlighted_session_id() == session_id, "the row highlighted"
        )
        screen.session_actions.delete(sidebar.highlighted_session_id())
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the question gone")
        await settle(pilot, answered=True)
        assert "session/delete" not in sent_methods(screen)
        screen.session_actions.delete(sidebar.highlighted_session_id())
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await armed_dialog(pilot)
        await pilot.click("#yes")
        await wait_for(pilot, lambda: any("Deleted" in m for m in heard), "the deletion said")
        assert sent_methods(screen).count("session/delete") == 1
