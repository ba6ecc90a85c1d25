""" "Send now" in the session layer, over real pipes: into the running turn with
``session/inject`` where the agent advertises it (the demo agent, v1 and v2), else the turn
cancelled and the message first once it has ended (the official SDK's agent); with no turn
running, a turn of its own at once, before what waits in the queue."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.protocol import v2
from acp_tui.protocol.agent_info import parse_agent_info
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.queue import PromptQueue
from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, UserMessage

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]


def sent(controller: SessionController) -> list[tuple[str, Any]]:
    assert controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


async def until(condition: Any, what: str, limit: float = 60) -> None:
    with anyio.fail_after(limit):
        while not condition():
            await anyio.sleep(0.02)


def user_texts(store: SessionStore, session_id: str) -> list[str]:
    state = store.get(session_id)
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, UserMessage)]


def agent_text(store: SessionStore, session_id: str) -> str:
    state = store.get(session_id)
    assert state is not None
    return "\n".join(e.text for e in state.transcript if isinstance(e, AgentMessage))


class Running:
    def __init__(self, controller: SessionController, session_id: str) -> None:
        self.controller = controller
        self.session_id = session_id
        self.cancels: list[str] = []

    def cancel_turn(self, session_id: str) -> None:
        """The face's cancel, as the chat view's: begin, then session/cancel."""
        self.cancels.append(session_id)
        controller = self.controller
        controller.begin_cancel(session_id)
        controller.spawn(lambda: controller.cancel(session_id), "cancel")


async def running(argv: list[str], tmp_path: Path, version: int = 1) -> AsyncIterator[Running]:
    store = SessionStore()
    spec = AgentSpec(argv, cwd=str(tmp_path), protocol_version=version)
    controller = SessionController(spec, store=store)

    async def open_nothing(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, open_nothing)
        with anyio.fail_after(60):
            await controller.ready.wait()
        session_id = await controller.new_session()
        yield Running(controller, session_id)
        controller.request_stop()


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[Running]:
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0.005)
    async for run in running(argv, tmp_path):
        yield run


@pytest.fixture
async def demo_v2(tmp_path: Path) -> AsyncIterator[Running]:
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0.005)
    async for run in running(argv, tmp_path, version=2):
        yield run


@pytest.fixture
async def sdk(tmp_path: Path) -> AsyncIterator[Running]:
    async for run in running(SDK_AGENT, tmp_path):
        yield run


async def test_the_demo_agent_takes_the_message_into_its_running_turn(demo: Running) -> None:
    controller, session_id = demo.controller, demo.session_id
    assert controller.can_inject()
    controller.send_prompt(session_id, "/slow 20")
    await until(lambda: "(2/" in agent_text(controller.store, session_id), "the turn to run")
    controller.prompts.add(session_id, "waits its turn")
    how = controller.send_now(session_id, "steer this way", None, demo.cancel_turn)
    assert how == "injecting"
    await until(
        lambda: (
            "Steered mid-turn: you said “steer this way”"
            in agent_text(controller.store, session_id)
        ),
        "the turn to take it",
    )
    # On the wire: one session/inject, no cancel, no second prompt; the turn goes on.
    methods = [method for method, _ in sent(controller)]
    injects = [params for method, params in sent(controller) if method == "session/inject"]
    assert injects == [
        {
            "sessionId": session_id,
            "mode": "steer",
            "content": [{"type": "text", "text": "steer this way"}],
        }
    ]
    assert "session/cancel" not in methods and methods.count("session/prompt") == 1
    assert demo.cancels == [] and controller.is_busy(session_id)
    assert user_texts(controller.store, session_id) == ["/slow 20", "steer this way"]
    # The queue is as it was: the normal way stays the default.
    assert [item.text for item in controller.queue(session_id)] == ["waits its turn"]


async def test_v2_the_agents_echo_of_the_injected_message_is_not_shown_twice(
    demo_v2: Running,
) -> None:
    controller, session_id = demo_v2.controller, demo_v2.session_id
    controller.send_prompt(session_id, "/slow 20")
    await until(lambda: "(2/" in agent_text(controller.store, session_id), "the turn")
    assert controller.send_now(session_id, "steer v2", None, demo_v2.cancel_turn) == "injecting"
    await until(
        lambda: "you said “steer v2”" in agent_text(controller.store, session_id),
        "the turn to take it",
    )
    await anyio.sleep(0.3)  # the echo (user_message) has come by now
    assert user_texts(controller.store, session_id) == ["/slow 20", "steer v2"]
    assert "session/inject" in [method for method, _ in sent(controller)]


async def test_without_inject_the_turn_is_cancelled_and_the_message_goes_first(
    sdk: Running,
) -> None:
    controller, session_id = sdk.controller, sdk.session_id
    assert not controller.can_inject()
    controller.send_prompt(session_id, "slow please")
    await until(lambda: "." in agent_text(controller.store, session_id), "the turn to run")
    controller.send_prompt(session_id, "queued before")
    how = controller.send_now(session_id, "right now", None, sdk.cancel_turn)
    assert how == "cancelled" and sdk.cancels == [session_id]
    await until(
        lambda: "You said: right now" in agent_text(controller.store, session_id),
        "the message answered",
    )
    prompts = [p["prompt"][0]["text"] for m, p in sent(controller) if m == "session/prompt"]
    methods = [m for m, _ in sent(controller)]
    assert "session/inject" not in methods
    # Cancel, then the message sent now, before the one queued earlier.
    second_prompt = [i for i, m in enumerate(methods) if m == "session/prompt"][1]
    assert methods.index("session/cancel") < second_prompt
    assert prompts[:2] == ["slow please", "right now"]
    await until(lambda: len(user_texts(controller.store, session_id)) == 3, "the queue to drain")
    assert user_texts(controller.store, session_id) == ["slow please", "right now", "queued before"]
    state = controller.store.get(session_id)
    assert state is not None
    assert any(
        getattr(e, "title", "") == "Cancelled the turn to send your message now"
        for e in state.transcript
    )


async def test_with_no_turn_running_it_goes_at_once_before_what_waits(sdk: Running) -> None:
    controller, session_id = sdk.controller, sdk.session_id
    controller.prompts.add(session_id, "waiting")
    item = controller.prompts.begin_edit(session_id, controller.queue(session_id)[0].queue_id)
    assert item is not None  # held by its edit: nothing goes
    assert controller.send_now(session_id, "now please", None, sdk.cancel_turn) == "sent"
    await until(lambda: not controller.is_busy(session_id), "the turn to end")
    prompts = [p["prompt"][0]["text"] for m, p in sent(controller) if m == "session/prompt"]
    assert prompts == ["now please"] and sdk.cancels == []


def test_the_capability_is_read_from_v1_and_v2_answers() -> None:
    v1 = parse_agent_info(
        {
            "protocolVersion": 1,
            "agentCapabilities": {"sessionCapabilities": {"inject": {"modes": ["steer"]}}},
        }
    )
    assert v1.can_steer
    queue_only = parse_agent_info(
        {
            "protocolVersion": 1,
            "agentCapabilities": {"sessionCapabilities": {"inject": {"modes": ["queue"]}}},
        }
    )
    assert not queue_only.can_steer
    assert not parse_agent_info({"protocolVersion": 1, "agentCapabilities": {}}).can_steer
    translated = v2.agent_capabilities(
        {"capabilities": {"session": {"inject": {"modes": ["queue", "steer"]}}}}
    )
    assert translated["sessionCapabilities"]["inject"] == {"modes": ["queue", "steer"]}


def test_a_message_sent_now_goes_first_and_a_queued_one_can_be_moved_first() -> None:
    queue = PromptQueue()
    queue.add("s", "a")
    b = queue.add("s", "b")
    queue.add("s", "now", first=True)
    assert [item.text for item in queue.items("s")] == ["now", "a", "b"]
    assert queue.move_first("s", b.queue_id)
    assert [item.text for item in queue.items("s")] == ["b", "now", "a"]
    assert not queue.move_first("s", 999)


async def test_a_message_sent_now_right_after_a_prompt_reaches_the_agent_after_it(
    demo: Running,
) -> None:
    """The turn runs for the client before its prompt is on the wire (a snapshot is taken
    first): the inject waits for the prompt, or the agent would hear of no turn to steer."""
    controller, session_id = demo.controller, demo.session_id
    checkpoints = controller.turns.checkpoints
    snapshot = checkpoints.before_prompt

    async def slow_snapshot(*args: Any, **kwargs: Any) -> Any:
        await anyio.sleep(0.5)  # as on a loaded machine, or a big project
        return await snapshot(*args, **kwargs)

    checkpoints.before_prompt = slow_snapshot  # type: ignore[method-assign]
    controller.send_prompt(session_id, "/slow 20")
    assert controller.send_now(session_id, "right behind", None, demo.cancel_turn) == "injecting"
    await until(
        lambda: "you said “right behind”" in agent_text(controller.store, session_id),
        "the turn to take it",
    )
    methods = [method for method, _ in sent(controller)]
    assert methods.index("session/prompt") < methods.index("session/inject")
    assert "session/cancel" not in methods and demo.cancels == []
