"""v2 preview ``idempotencyKey`` on ``session/prompt``
(https://agentclientprotocol.com/rfds/v2/idempotency-keys) and the forced reconnect, in the
app on the demo agent over real pipes (acp_tui.session.agent.reconnect): every v2 prompt
carries a key of its own; when the agent dies with work in flight (it took a prompt and
exited or was killed before answering it, or died mid-turn) acp-tui starts it again on its
own, resumes the session, and a prompt whose answer was lost goes again with the same key:
the agent, which had taken it, answers with the message it made then and runs nothing
twice (its state says so); the transcript shows the message once. A prompt that was
answered is not sent again. Bounded; v1 never reconnects on its own, and carries no key."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from acp_tui.demo_agent.prompting import STALL_PID_FILE
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.reconnect import Reconnects
from acp_tui.store.entries import Notice, UserMessage
from tests.ui.chat_helpers import chat, demo_app, send, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def wire(controller: SessionController | None, direction: str) -> list[dict[str, Any]]:
    assert controller is not None and controller.client is not None
    return [
        json.loads(r.text)
        for r in list(controller.client.connection.traffic)
        if r.direction == direction and r.text
    ]


def sent(controller: SessionController | None, method: str) -> list[dict[str, Any]]:
    return [m for m in wire(controller, "out") if m.get("method") == method]


def prompts(app: Any) -> list[dict[str, Any]]:
    return [m["params"] for m in sent(chat(app).controller, "session/prompt")]


def answer_to(controller: SessionController | None, request: dict[str, Any]) -> Any:
    found = [
        m for m in wire(controller, "in") if m.get("id") == request["id"] and "method" not in m
    ]
    return found[0].get("result") if found else None


def users(app: Any) -> list[str]:
    screen = chat(app)
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, UserMessage)]


def notices(app: Any) -> list[str]:
    screen = chat(app)
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [e.title for e in state.transcript if isinstance(e, Notice)]


def demo_history(state_dir: Path, session_id: str) -> list[dict[str, Any]]:
    history = json.loads((state_dir / f"{session_id}.json").read_text())["history"]
    assert isinstance(history, list)
    return history


async def test_a_prompt_whose_answer_was_lost_goes_again_on_its_own_and_runs_once(
    tmp_path: Path,
) -> None:
    """``/drop``: the demo takes the prompt and exits before answering it."""
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and len(users(app)) == 1, "the first turn")
        first_key = prompts(app)[0]["idempotencyKey"]
        first = chat(app).controller
        await send(pilot, "/drop")
        await wait_for(pilot, lambda: chat(app).controller is not first, "the reconnect")
        dropped = [m["params"] for m in sent(first, "session/prompt")][-1]
        assert dropped["idempotencyKey"] != first_key  # a key per prompt
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
        assert any("reconnecting (attempt 1 of 3)" in text for text in notices(app))


async def test_an_agent_killed_before_it_answered_is_reconnected_and_runs_it_once(
    tmp_path: Path,
) -> None:
    """The forced reconnect: ``/stall`` takes the prompt and never answers it; the agent is
        killed (SIGKILL). On the wire: the prompt went with a key and was never answered, then
        (a new process) the session was resumed, and the same prompt with the same
        key was answered with the message id the agent's state holds (the transcript on screen
    stays: a resume without replay). In that state: one user
        message with the key, one retry that ran nothing."""
    state_dir = tmp_path / "state"
    app = demo_app(tmp_path, state_dir, protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        sid = screen.session_id
        assert sid is not None
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and len(users(app)) == 1, "the first turn")
        first = chat(app).controller
        assert first is not None and first.process is not None
        await send(pilot, "/stall")
        pid_file = state_dir / STALL_PID_FILE
        await wait_for(pilot, pid_file.exists, "the agent to take the prompt")
        assert int(pid_file.read_text()) == first.process.pid
        os.kill(first.process.pid, signal.SIGKILL)
        await wait_for(pilot, lambda: chat(app).controller is not first, "the reconnect")
        second = chat(app).controller
        await wait_for(pilot, lambda: len(sent(second, "session/prompt")) == 1, "the retry")
        await wait_for(pilot, lambda: not screen.busy, "the retry answered")
        await settle(pilot)

        [lost] = [
            m for m in sent(first, "session/prompt") if m["params"]["prompt"][0]["text"] == "/stall"
        ]
        assert answer_to(first, lost) is None  # killed before it answered
        [resume] = sent(second, "session/resume")
        assert resume["params"]["sessionId"] == sid
        # The transcript is on screen: resumed without a replay.
        assert resume["params"].get("replayFrom") is None
        [retry] = sent(second, "session/prompt")
        assert retry["params"]["idempotencyKey"] == lost["params"]["idempotencyKey"]
        assert retry["params"]["prompt"] == lost["params"]["prompt"]
        taken = [
            item
            for item in demo_history(state_dir, sid)
            if item.get("idempotencyKey") == lost["params"]["idempotencyKey"]
        ]
        assert len(taken) == 1 and taken[0]["retries"] == 1
        assert answer_to(second, retry) == {"messageId": taken[0]["messageId"]}
        assert [i["text"] for i in demo_history(state_dir, sid) if i["kind"] == "user"] == [
            "hello",
            "/stall",
        ]
        assert screen.session_id == sid and screen.agent_alive
        assert users(app) == ["hello", "/stall"]
        assert screen.prompts.items(sid) == []
        # The same session goes on.
        await send(pilot, "after the reconnect")
        await wait_for(pilot, lambda: "after the reconnect" in users(app), "the next turn")


async def test_an_answered_prompt_is_not_sent_again_after_a_reconnect(tmp_path: Path) -> None:
    """Killed mid-turn after it answered the prompt (it was taken): the turn ends as an
    error, the session is resumed, and nothing is sent again."""
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        first = chat(app).controller
        assert first is not None and first.process is not None
        await send(pilot, "/slow 60")
        [slow] = await _prompt_answered(pilot, first)
        os.kill(first.process.pid, signal.SIGKILL)
        await wait_for(pilot, lambda: chat(app).controller is not first, "the reconnect")
        second = chat(app).controller
        await wait_for(pilot, lambda: len(sent(second, "session/resume")) == 1, "the resume")
        await wait_for(pilot, lambda: screen.agent_alive and not screen.busy, "the session back")
        await settle(pilot)
        assert sent(second, "session/prompt") == []
        assert answer_to(first, slow) is not None
        assert users(app) == ["/slow 60"]


async def _prompt_answered(pilot: Any, controller: SessionController) -> list[dict[str, Any]]:
    await wait_for(
        pilot,
        lambda: any(answer_to(controller, m) for m in sent(controller, "session/prompt")),
        "the prompt answered",
    )
    return sent(controller, "session/prompt")


def _replaced(app: Any, controller: SessionController) -> Any:
    return lambda: chat(app).controller is not controller


async def test_reconnects_are_bounded(tmp_path: Path) -> None:
    """One attempt allowed: the second death in a row shows the banner and says why."""
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        screen.agent.reconnects = Reconnects(delays=(0.1,))
        for attempt in range(2):
            controller = chat(app).controller
            assert controller is not None and controller.process is not None
            await send(pilot, f"/slow 60 {attempt}")
            await _prompt_answered(pilot, controller)
            os.kill(controller.process.pid, signal.SIGKILL)
            if attempt == 0:
                await wait_for(pilot, _replaced(app, controller), "the reconnect")
                await wait_for(pilot, lambda: screen.agent_alive and not screen.busy, "back")
        await wait_for(
            pilot, lambda: any("Not reconnecting" in t for t in notices(app)), "the give-up"
        )
        await settle(pilot)
        assert not screen.agent_alive and screen.agent.reconnect_due is None
        assert screen.query_one("AgentBanner").display


async def test_v1_never_reconnects_on_its_own_and_carries_no_key(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy and len(users(app)) == 1, "the turn")
        assert "idempotencyKey" not in prompts(app)[0]
        controller = chat(app).controller
        assert controller is not None and controller.process is not None
        await send(pilot, "/slow 60")
        await wait_for(pilot, lambda: screen.busy, "the slow turn")
        os.kill(controller.process.pid, signal.SIGKILL)
        await wait_for(pilot, lambda: not screen.agent_alive, "the exit")
        await settle(pilot)
        assert screen.agent.reconnect_due is None
        assert chat(app).controller is controller and controller.finished.is_set()
        assert screen.query_one("AgentBanner").display
