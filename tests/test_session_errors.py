"""The session layer's vocabulary (issue 37): what a controller call could not do reaches a face
as a :mod:`acp_tui.session.errors` error, never as the wire's. Each kind from a real agent
process over real pipes, and the mapping of every wire error."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.protocol.errors import AcpError, AgentExitedError, NotAnAgentError, NotSupportedError
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.auth.signin import AuthNotDone
from acp_tui.session.errors import (
    AgentGone,
    AgentRefused,
    AuthRequired,
    NotSupported,
    SessionError,
    session_error,
)
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore

pytestmark = pytest.mark.anyio

AGENTS = Path(__file__).resolve().parent / "agents"
RECORDING_AGENT = [sys.executable, str(AGENTS / "recording_agent.py")]


@pytest.mark.parametrize(
    ("wire", "kind", "text"),
    [
        (AgentExitedError("the agent exited (exit code 3)"), AgentGone, "exit code 3"),
        (NotSupportedError("it does not support session/list"), NotSupported, "session/list"),
        (AuthNotDone("no sign-in method was chosen"), AuthRequired, "no sign-in"),
        (
            RpcError(AUTH_REQUIRED, "Authentication required", {"details": "log in"}),
            AuthRequired,
            "log in",
        ),
        (
            RpcError(INTERNAL_ERROR, "Internal error", {"details": "disk full"}),
            AgentRefused,
            "disk full (code -32603)",
        ),
        (NotAnAgentError("not an ACP agent"), SessionError, "not an ACP agent"),
        (AcpError("an answer without a sessionId"), SessionError, "without a sessionId"),
    ],
)
def test_every_wire_error_has_a_word_of_the_session_layer(
    wire: Exception, kind: type[SessionError], text: str
) -> None:
    said = session_error(wire)
    assert type(said) is kind and text in str(said)
    assert session_error(ValueError("not the wire's")) is None


def test_a_refusal_keeps_the_agents_code_message_and_reason() -> None:
    said = session_error(RpcError(INTERNAL_ERROR, "Internal error", {"details": "disk full"}))
    assert isinstance(said, AgentRefused)
    assert (said.code, said.message, said.data) == (
        INTERNAL_ERROR,
        "Internal error",
        {"details": "disk full"},
    )
    assert said.reason == "Internal error: disk full"
    assert str(said) == "Internal error: disk full (code -32603)"  # as the wire said it


async def with_agent(
    argv: list[str], tmp_path: Path, act: Callable[[SessionController], Awaitable[Any]], **face: Any
) -> BaseException | None:
    """Run the agent, ``act`` on its controller once it is ready; what ``act`` raised."""
    controller = SessionController(
        AgentSpec(tuple(argv), cwd=str(tmp_path)), store=SessionStore(), face=FaceHooks(**face)
    )
    raised: BaseException | None = None

    async def opener(_: SessionController) -> None:
        nonlocal raised
        try:
            await act(controller)
        except BaseException as error:
            raised = error
        controller.request_stop()

    with anyio.fail_after(60):
        await controller.run(opener)
    return raised


async def test_a_call_to_an_agent_that_is_not_running_is_agent_gone(tmp_path: Path) -> None:
    controller = SessionController(
        AgentSpec(tuple(RECORDING_AGENT), cwd=str(tmp_path)), store=SessionStore()
    )
    with pytest.raises(AgentGone, match="not running"):
        await controller.new_session()
    with pytest.raises(AgentGone):
        await controller.cancel("s")


async def test_what_the_agent_cannot_do_is_not_supported(tmp_path: Path) -> None:
    async def act(controller: SessionController) -> None:
        await controller.close_session("recorded-1")  # it does not advertise session/close

    assert isinstance(await with_agent(RECORDING_AGENT, tmp_path, act), NotSupported)


async def test_an_error_answer_is_the_agent_refusing_with_its_code(tmp_path: Path) -> None:
    async def act(controller: SessionController) -> None:
        session_id = await controller.new_session()
        await controller.set_mode(session_id, "fast")  # it knows no session/set_mode

    raised = await with_agent(RECORDING_AGENT, tmp_path, act)
    assert isinstance(raised, AgentRefused) and raised.code == METHOD_NOT_FOUND
    assert isinstance(raised.__cause__, RpcError)  # the wire's error is kept as the cause


async def test_a_sign_in_that_does_not_happen_is_auth_required(tmp_path: Path) -> None:
    argv = demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, require_auth=True)

    async def act(controller: SessionController) -> None:
        await controller.new_session()

    raised = await with_agent(argv, tmp_path, act, choose_auth=None)
    assert isinstance(raised, AuthRequired)
