"""Elicitation, notices and compaction in the app, against the demo agent over real pipes:
``/ask`` (a form, a url), ``/notice``, ``/compact``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Collapsible, Input

from acp_tui.session.export.markdown import transcript_markdown
from acp_tui.store import AgentMessage, Compaction, Notice
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.widgets.transcript_views import CompactionView, NoticeView
from tests.ui.chat_helpers import chat, demo_app, send, settle, wait_for, wait_for_session
from tests.ui.test_resilience import screen_text

pytestmark = pytest.mark.anyio

SIZE = (100, 36)


def transcript(screen: ChatScreen) -> list[Any]:
    state = screen.store.get(screen.session_id or "")
    return state.transcript if state is not None else []


def agent_said(screen: ChatScreen, words: str) -> bool:
    return any(isinstance(e, AgentMessage) and words in e.text for e in transcript(screen))


def notices(screen: ChatScreen) -> list[str]:
    return [e.title for e in transcript(screen) if isinstance(e, Notice)]


async def armed_dialog(pilot: Pilot) -> ElicitationScreen:
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, ElicitationScreen) and pilot.app.screen.armed,
        "an armed elicitation dialog",
    )
    dialog = pilot.app.screen
    assert isinstance(dialog, ElicitationScreen)
    return dialog


async def test_a_filled_in_form_reaches_the_agent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/ask")
        dialog = await armed_dialog(pilot)
        assert isinstance(dialog.focused, Input)
        await pilot.press(*"Ada", "tab", *"ada@example.com", "ctrl+s")
        await wait_for(pilot, lambda: agent_said(screen, "Every answer fits the schema"), "echo")
        assert agent_said(screen, '"Ada"') and agent_said(screen, '"ada@example.com"')
        assert "Answered: About you" in notices(screen)
        assert not isinstance(app.screen, ElicitationScreen)
        await send(pilot, "and then")
        await wait_for(pilot, lambda: agent_said(screen, "and then"), "a second turn")


async def test_escape_cancels_the_form_and_its_turn(tmp_path: Path) -> None:
    """Escape in a form is the chat's Escape: the turn is cancelled, and its questions with
    it (issue 36: a storm of forms took an Escape each, the turn uncancellable meanwhile)."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/ask")
        dialog = await armed_dialog(pilot)
        assert "Esc cancel the turn" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the dialog to close")
        assert await dialog.wait_for_answer() == {"action": "cancel"}
        state = screen.store.get(screen.session_id or "")
        await wait_for(pilot, lambda: state is not None and state.stop_reason == "cancelled", "end")
        await settle(pilot, answered=True)


async def test_cancelling_the_turn_cancels_the_open_form(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/ask")
        dialog = await armed_dialog(pilot)
        screen.action_cancel_turn()  # Escape in the chat, or a cancel from the palette
        await wait_for(pilot, lambda: app.screen is screen, "the dialog to close")
        assert await dialog.wait_for_answer() == {"action": "cancel"}
        state = screen.store.get(screen.session_id or "")
        await wait_for(pilot, lambda: state is not None and state.stop_reason == "cancelled", "end")
        await settle(pilot, answered=True)


async def test_a_url_request_waits_for_complete_then_closes(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/ask url 0.3")
        dialog = await armed_dialog(pilot)
        url = dialog.request.url or ""
        assert url.startswith("https://example.com/")
        await pilot.press("i")  # "I'll open it myself": nothing is opened here
        await wait_for(pilot, lambda: app.screen is screen, "elicitation/complete to close it")
        assert dialog.waiting
        await wait_for(pilot, lambda: agent_said(screen, "The site reported back"), "reply")
        assert f"Agreed to visit: {url}" in notices(screen)
        assert f"Done (the agent says): {url}" in notices(screen)


async def test_a_notice_is_shown_in_its_colour_and_not_exported(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/notice warning Rate limit close | Slow down a little")
        await wait_for(pilot, lambda: agent_said(screen, "Sent a **warning** notice"), "reply")
        await settle(pilot)
        views = [v for v in screen.query(NoticeView) if v.has_class("-agent")]
        assert len(views) == 1 and views[0].has_class("-warning")
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        exported = transcript_markdown(state)
        assert "_Rate limit close_" not in exported and "Slow down a little_" not in exported
        assert "Rate limit close" in exported, "only as the prompt typed, not as the notice"


async def test_compaction_shows_its_status_and_summary_and_the_gauge_follows(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "tell me something long enough to fill the context a little")
        await wait_for(pilot, lambda: not screen.busy, "the first turn")
        state = chat(app).store.get(screen.session_id or "")
        assert state is not None and state.context is not None
        before = state.context.used
        await send(pilot, "/compact")
        await wait_for(pilot, lambda: agent_said(screen, "Compacted the context"), "reply")
        await settle(pilot)
        (entry,) = [e for e in state.transcript if isinstance(e, Compaction)]
        assert entry.status == "completed" and entry.summary_text.startswith("Summary of")
        (view,) = screen.query(CompactionView)
        assert view.has_class("-completed")
        collapsible = view.query_one(Collapsible)
        assert collapsible.collapsed and not collapsible.has_class("-empty")
        said = next(
            e.text
            for e in state.transcript
            if isinstance(e, AgentMessage) and "Compacted the context" in e.text
        )
        agent_before = int(said.split("from ")[1].split(" to ")[0].replace(",", ""))
        assert before is not None and agent_before >= before
        assert state.context.used is not None
        assert state.context.used < agent_before, "the gauge follows the usage_update after it"
