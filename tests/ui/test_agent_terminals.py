"""A command the agent runs in a terminal of its own (codex-acp: a ``terminal`` content item
naming a terminal the client never made, its output in the updates' ``_meta``) shows its
output in the tool block, live, and its exit; one the agent reports nothing of says so
plainly, instead of "terminal <id> (released)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.ui.widgets.transcript import ToolCallView
from tests.ui.chat_helpers import chat, demo_app, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def update(session_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionId": session_id, "update": {"toolCallId": "call_1", **fields}}


def block_text(app) -> str:  # type: ignore[no-untyped-def]
    views = list(chat(app).query(ToolCallView))
    return "\n".join(str(static.render()) for view in views for static in view.query(Static))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_the_output_codex_reports_in_meta_shows_live(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        sid = screen.session_id
        assert sid is not None
        store = screen.store
        store.apply(
            update(
                sid,
                sessionUpdate="tool_call",
                title="ls -la",
                kind="execute",
                status="in_progress",
                rawInput={"command": ["bash", "-lc", "ls -la"]},
                content=[{"type": "terminal", "terminalId": "call_1"}],
                _meta={"terminal_info": {"terminal_id": "call_1", "cwd": str(tmp_path)}},
            )
        )
        await settle(pilot)
        assert "no output sent yet" in block_text(app)
        for data in ("file-a\n", "file-b\n"):
            store.apply(
                update(
                    sid,
                    sessionUpdate="tool_call_update",
                    _meta={"terminal_output": {"terminal_id": "call_1", "data": data}},
                )
            )
        await wait_for(pilot, lambda: "file-b" in block_text(app), "the output, live")
        store.apply(
            update(
                sid,
                sessionUpdate="tool_call_update",
                status="completed",
                _meta={"terminal_exit": {"terminal_id": "call_1", "exit_code": 2, "signal": None}},
            )
        )
        await wait_for(pilot, lambda: "[exit 2]" in block_text(app), "the exit")
        text = block_text(app)
        assert "file-a\nfile-b" in text and "released" not in text


async def test_a_terminal_the_agent_says_nothing_of_is_said_plainly(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        sid = screen.session_id
        assert sid is not None
        screen.store.apply(
            update(
                sid,
                sessionUpdate="tool_call",
                title="make",
                kind="execute",
                status="completed",
                content=[{"type": "terminal", "terminalId": "term-9"}],
            )
        )
        await wait_for(pilot, lambda: "term-9" in block_text(app), "the block")
        assert "sent no output to show" in block_text(app)
        assert "(released)" not in block_text(app)


async def test_the_tui_says_it_shows_them_and_ask_does_not(tmp_path: Path) -> None:
    """``_meta.terminal_output`` at initialize: codex-acp then sends the output in ``_meta``
    alone, so only a face that shows it (the TUI's tool blocks) may say so."""
    from acp_tui.session.agent.controller import SessionController
    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.store import SessionStore
    from tests.ui.test_prompt_suggestions import sent

    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        (init,) = sent(app, "initialize")
        assert init["clientCapabilities"]["_meta"]["terminal_output"] is True
    # A face that does not show them (acp-tui ask's): not advertised.
    plain = SessionController(AgentSpec(["agent"], cwd=str(tmp_path)), store=SessionStore())
    assert "tool_call.agent_terminal" not in plain.client_setup()["abilities"]


async def test_an_agent_terminal_is_drawn_as_a_terminal_draws_it(tmp_path: Path) -> None:
    """The same emulator as shell mode (issue 42): a progress bar keeps its last state, and
    colours are the program's, never an escape sequence in the text."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_for_session(pilot)
        sid = screen.session_id
        assert sid is not None
        screen.store.apply(
            update(
                sid,
                sessionUpdate="tool_call",
                title="npm install",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "call_1"}],
                _meta={"terminal_info": {"terminal_id": "call_1", "cwd": str(tmp_path)}},
            )
        )
        data = "fetching  10%\rfetching 100%\n\x1b[31mwarn\x1b[0m deprecated\n"
        screen.store.apply(
            update(
                sid,
                sessionUpdate="tool_call_update",
                _meta={"terminal_output": {"terminal_id": "call_1", "data": data}},
            )
        )
        await wait_for(pilot, lambda: "deprecated" in block_text(app), "the output")
        text = block_text(app)
        assert "fetching 100%\nwarn deprecated" in text
        assert "10%" not in text and "\x1b" not in text
        rendered = [
            static.render()
            for view in chat(app).query(ToolCallView)
            for static in view.query(Static)
        ]
        # The warning in the program's red (ANSI colour 1), not as text.
        assert any(
            "warn" in str(part) and "ansi=1" in repr(getattr(part, "spans", ""))
            for part in rendered
        ), rendered
