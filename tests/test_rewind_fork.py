"""A conversation rewound by an exact fork, over real pipes: where the agent forks at a
message (``sessionCapabilities.fork.atMessageId``), ``session/fork`` carries the agent's id of
the last message before the turn and the new session is the agent's own conversation up to
there; where it does not (the official SDK's agent, the demo agent told so), or the fork
fails, the labelled reconstruction."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.demo_agent.sessions import SessionStore as DemoSessions
from acp_tui.session.agent.controller import ControllerEvents, SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.agent.rewind_talk import fork_point, rewind_conversation
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, Notice, ToolCall, UserMessage
from tests.demo_agent.schema_check import check_message
from tests.test_session_ops import running, sent, turn

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]
EXACT = "Rewound conversation (an exact fork)"
RECONSTRUCTION = "Rewound conversation (a reconstruction)"


@asynccontextmanager
async def running_v(
    argv: list[str], cwd: Path, errors: list[str], version: int
) -> AsyncIterator[SessionController]:
    """The controller on ``argv`` speaking protocol ``version``, no session opened."""
    controller = SessionController(
        AgentSpec(argv, cwd=str(cwd), protocol_version=version),
        store=SessionStore(),
        face=FaceHooks(events=ControllerEvents(on_error=errors.append)),
    )

    async def open_nothing(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, open_nothing)
        with anyio.fail_after(30):
            await controller.ready.wait()
        try:
            yield controller
        finally:
            controller.request_stop()


def text(words: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": words}]


async def two_turns(controller: SessionController) -> tuple[str, int, str]:
    """A session of two turns: its id, the entry of turn 2's message, turn 1's last agent
    message id."""
    source = await controller.new_session()
    await turn(controller, source, text("hello there"))
    await turn(controller, source, text("and a second thing"))
    state = controller.store.get(source)
    assert state is not None
    users = [e for e in state.transcript if isinstance(e, UserMessage)]
    second = users[1].id
    before = [e for e in state.transcript if e.id < second and isinstance(e, AgentMessage)]
    assert before and before[-1].message_id
    return source, second, before[-1].message_id


def notices(controller: SessionController, session_id: str) -> list[Notice]:
    state = controller.store.get(session_id)
    assert state is not None
    return [e for e in state.transcript if isinstance(e, Notice)]


@pytest.mark.parametrize("version", [1, 2], ids=["v1", "v2"])
async def test_an_agent_that_forks_at_a_message_rewinds_exactly(
    tmp_path: Path, version: int
) -> None:
    errors: list[str] = []
    state_dir = tmp_path / "state"
    argv = demo_agent_argv(state_dir=str(state_dir), chunk_delay=0)
    async with running_v(argv, tmp_path, errors, version) as controller:
        assert controller.agent is not None and controller.agent.can_fork_at_message
        source, second, fork_at = await two_turns(controller)
        controller.store.pin_title(source, "Plans")

        new = await rewind_conversation(controller, source, 2, second)

        assert new != source and controller.store.get(source) is not None  # the old is kept
        state = controller.store.get(new)
        assert state is not None and state.display_title == "Plans (rewound to turn 2)"
        assert [n.title for n in notices(controller, new)] == [EXACT]
        shown = [e.text for e in state.transcript if isinstance(e, UserMessage)]
        assert shown == ["hello there"]  # the copy ends before turn 2
        # On the wire: the fork at turn 1's last agent message, nothing carried as context.
        forks = [m for m in sent(controller) if m["method"] == "session/fork"]
        assert [f["params"]["messageId"] for f in forks] == [fork_at]
        for message in sent(controller):
            check_message(message, version)
        # The agent's own history of the branch ends with that message.
        record = DemoSessions(state_dir).load(new)
        assert record is not None and record.history[-1]["messageId"] == fork_at
        assert [i["text"] for i in record.history if i["kind"] == "user"] == ["hello there"]
        reply = await turn(controller, new, text("instead, this"))
        assert "This is turn 2 of this session" in reply
        prompt = [m for m in sent(controller) if m["method"] == "session/prompt"][-1]
        assert "reconstructed" not in str(prompt["params"]["prompt"])
    assert errors == []


async def test_a_failing_fork_falls_back_to_the_reconstruction_and_says_so(
    tmp_path: Path,
) -> None:
    errors: list[str] = []
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    async with running(argv, tmp_path, errors) as controller:
        source, second, _ = await two_turns(controller)
        state = controller.store.get(source)
        assert state is not None
        # An id the agent does not know: it refuses the fork.
        for entry in state.transcript:
            if isinstance(entry, AgentMessage):
                entry.message_id = "not-a-message-of-this-session"

        new = await rewind_conversation(controller, source, 2, second)

        [note] = notices(controller, new)
        assert note.title == RECONSTRUCTION
        assert "could not fork at that message" in (note.description or "")
        assert "not-a-message-of-this-session" in (note.description or "")
        assert any(m["method"] == "session/fork" for m in sent(controller))
        reply = await turn(controller, new, text("go on"))
        assert "This is turn 1 of this session" in reply  # a new session, context carried
        prompt = [m for m in sent(controller) if m["method"] == "session/prompt"][-1]
        assert "hello there" in str(prompt["params"]["prompt"])


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(SDK_AGENT, id="sdk-agent"),
        pytest.param(None, id="demo-whole-forks-only"),
    ],
)
async def test_an_agent_that_does_not_fork_at_a_message_gets_the_reconstruction(
    tmp_path: Path, argv: list[str] | None
) -> None:
    errors: list[str] = []
    if argv is None:
        argv = demo_agent_argv(
            state_dir=str(tmp_path / "state"), chunk_delay=0, whole_forks_only=True
        )
    async with running(argv, tmp_path, errors) as controller:
        assert controller.agent is not None and not controller.agent.can_fork_at_message
        source = await controller.new_session()
        await turn(controller, source, text("hello there"))
        await turn(controller, source, text("and a second thing"))
        state = controller.store.get(source)
        assert state is not None
        second = [e for e in state.transcript if isinstance(e, UserMessage)][1].id

        new = await rewind_conversation(controller, source, 2, second)

        assert [n.title for n in notices(controller, new)] == [RECONSTRUCTION]
        assert not any(m["method"] == "session/fork" for m in sent(controller))
        await turn(controller, new, text("go on"))
        prompt = [m for m in sent(controller) if m["method"] == "session/prompt"][-1]
        assert "hello there" in str(prompt["params"]["prompt"])
        assert "and a second thing" not in str(prompt["params"]["prompt"])


def test_the_fork_point_is_the_last_message_before_the_turn_with_nothing_after_it() -> None:
    def agent(entry_id: int, mid: str | None) -> AgentMessage:
        message = AgentMessage(entry_id, mid)
        message.append_text("a reply")
        return message

    user = UserMessage(1, "u1")
    call = ToolCall(3, "call-1")
    later = UserMessage(5, "u2")
    assert fork_point([user, agent(2, "a1"), later], 5) == ("a1", 5)
    assert fork_point([user, agent(2, "a1"), call, later], 5) is None  # the call would be lost
    assert fork_point([user, agent(2, None), later], 5) is None  # no id the agent knows
    assert fork_point([user, later], 5) == ("u1", 5)
    assert fork_point([later], 5) is None  # nothing before it
    assert fork_point([user, agent(2, "a1"), later], None) is None
