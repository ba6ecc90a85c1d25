"""v2 preview ``idempotencyKey`` on ``session/prompt``
(https://agentclientprotocol.com/rfds/v2/idempotency-keys), in the app on the demo agent over
real pipes: every v2 prompt carries a key of its own; when the agent takes a prompt and exits
before answering it (``/drop``), the message waits in the queue, and after Ctrl+R it goes again
with the same key: the agent, which had taken it, answers with the message it made then and
runs nothing twice; the transcript shows the message once. A v1 prompt carries no key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.store.entries import UserMessage
from tests.ui.chat_helpers import chat, demo_app, send, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def prompts(app: Any) -> list[dict[str, Any]]:
    controller = chat(app).controller
    assert controller is not None and controller.client is not None
    found = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text and '"session/prompt"' in record.text:
            message = json.loads(record.text)
            if message.get("method") == "session/prompt":
                found.append(message["params"])
    return found


def users(app: Any) -> list[str]:
    screen = chat(app)
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, UserMessage)]


async def test_a_prompt_whose_answer_was_lost_goes_again_and_runs_once(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and len(users(app)) == 1, "the first turn")
        first_key = prompts(app)[0]["idempotencyKey"]
        await send(pilot, "/drop")
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to exit")
        await wait_for(
            pilot,
            lambda: [q.text for q in screen.prompts.items(screen.session_id)] == ["/drop"],
            "the message kept in the queue",
        )
        dropped = prompts(app)[-1]
        assert dropped["idempotencyKey"] != first_key  # a key per prompt
        assert users(app) == ["hello"]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.agent_alive, "the restart")
        await wait_for(pilot, lambda: len(prompts(app)) == 1, "the message sent again")
        await wait_for(pilot, lambda: not screen.busy, "the retry answered")
        await settle(pilot)
        again = prompts(app)[0]
        assert again["idempotencyKey"] == dropped["idempotencyKey"]
        assert again["prompt"] == dropped["prompt"]
        # Taken once: the agent is still up (it did not run /drop again), and the message
        # shows once, from the replay.
        assert screen.agent_alive
        assert users(app) == ["hello", "/drop"]
        assert screen.prompts.items(screen.session_id) == []


async def test_v1_prompts_carry_no_key(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and len(users(app)) == 1, "the turn")
        assert "idempotencyKey" not in prompts(app)[0]
