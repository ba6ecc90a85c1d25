"""The system prompt in the app: the palette shows the one in force and whether it goes with
the sessions; the demo agent, which takes it, quotes it back; an agent that does not take it
gets none and the person is told once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.session.launch.system_prompt import SystemPrompt
from acp_tui.store.entries import AgentMessage
from acp_tui.ui.screens.inspector import TextLogScreen
from tests.ui.chat_helpers import (
    chat,
    demo_app,
    fixture_app,
    record_notifications,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

PROMPT = SystemPrompt("Answer like a [b]pirate[/b].\nKeep it short.", "append", "agents.demo")


def screen_text(app: Any) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def setup_requests(app: Any) -> list[dict[str, Any]]:
    controller = chat(app).controller
    assert controller is not None and controller.client is not None
    sent = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if message.get("method") in ("session/new", "session/load", "session/resume"):
                sent.append(message["params"])
    return sent


async def test_the_palette_shows_the_prompt_in_force_and_the_demo_agent_gets_it(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state", system_prompt=PROMPT)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        assert [p.get("systemPrompt") for p in setup_requests(app)] == [PROMPT.wire()]
        await send(pilot, "/system")
        await wait_for(
            pilot,
            lambda: any(
                "Keep it short." in e.text
                for e in chat(app).store.get(screen.session_id).transcript  # type: ignore[union-attr]
                if isinstance(e, AgentMessage)
            ),
            "the demo agent to quote the system prompt",
        )
        await settle(pilot)
        await run_palette_command(pilot, "System prompt")
        await wait_for(pilot, lambda: isinstance(app.screen, TextLogScreen), "the prompt's view")
        await pilot.pause()
        shown = screen_text(app)
        assert "System prompt: append, sent with each session" in shown
        assert "From agents.demo" in shown
        # Shown literally: the markup is text.
        assert "Answer like a [b]pirate[/b]." in shown and "Keep it short." in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the chat")


async def test_an_agent_that_does_not_take_it_gets_none_and_the_person_is_told_once(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path, system_prompt=PROMPT)
    seen = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await send(pilot, "hello")
        await settle(pilot, answered=True)
        assert setup_requests(app) and all("systemPrompt" not in p for p in setup_requests(app))
        told = [text for text in seen if "system prompt" in text.lower()]
        assert told == [
            "System prompt not sent: Fixture Agent does not take one (yours: append, from "
            "agents.demo)"
        ], seen
        await run_palette_command(pilot, "System prompt")
        await wait_for(pilot, lambda: isinstance(app.screen, TextLogScreen), "the prompt's view")
        await pilot.pause()
        assert "not sent: the agent does not take it" in screen_text(app)
