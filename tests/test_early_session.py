"""The new session opened before the first message (issue 42), in the session layer, on real
agent processes: an unused session is closed and deleted as the person leaves (as far as the
agent advertises either), a close the agent never answers does not hold the quit, a
``session/new`` still on its way is waited for, and what the person chose while the session
was being made is set before its first prompt."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.errors import AuthRequired
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.launch.start import NewSessionChoices
from acp_tui.session.workspace import workspace as workspace_module
from acp_tui.session.workspace.workspace import Workspace

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]
LIMIT = 60


def sent(controller: SessionController) -> list[tuple[str, Any]]:
    """The requests the client sent, in order: (method, params)."""
    client = controller.client
    assert client is not None
    out = []
    for record in client.connection.traffic:
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


async def started(
    group: anyio.abc.TaskGroup, workspace: Workspace, spec: AgentSpec
) -> SessionController:
    async def open_nothing(_: SessionController) -> None:
        return None

    controller = workspace.start(AgentParts(spec))
    group.start_soon(controller.run, open_nothing)
    with anyio.fail_after(LIMIT):
        await controller.ready.wait()
    return controller


async def until(condition: Any, what: str) -> None:
    with anyio.fail_after(LIMIT):
        while not condition():
            await anyio.sleep(0.02)


def sdk_sessions(state_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((state_dir / "sdk_agent_sessions.json").read_text())
    return data


async def test_leaving_closes_and_deletes_the_unused_session_only(tmp_path: Path) -> None:
    spec = AgentSpec(demo_agent_argv(str(tmp_path / "state"), chunk_delay=0), cwd=str(tmp_path))
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        used = await controller.new_session()
        controller.send_prompt(used, "hello")
        await until(lambda: not controller.is_busy(used), "the reply")
        unused = await controller.new_session()
        assert controller.unused_sessions() == [unused]
        await workspace.stop(spec.key, grace=30)
    calls = [(method, (params or {}).get("sessionId")) for method, params in sent(controller)]
    assert ("session/close", unused) in calls and ("session/delete", unused) in calls
    assert calls.index(("session/close", unused)) < calls.index(("session/delete", unused))
    assert not any(
        method in ("session/close", "session/delete") and s == used for method, s in calls
    )
    assert controller.store.get(unused) is None and controller.store.get(used) is not None


async def test_a_session_with_a_message_waiting_is_not_unused(tmp_path: Path) -> None:
    spec = AgentSpec(demo_agent_argv(str(tmp_path / "state"), chunk_delay=0), cwd=str(tmp_path))
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        session_id = await controller.new_session()
        controller.prompts.add(session_id, "waits for a sign-in")
        assert controller.unused_sessions() == []
        await workspace.stop(spec.key, grace=30)
    assert "session/close" not in [method for method, _ in sent(controller)]


@pytest.mark.parametrize("closes", [True, False], ids=["close", "neither"])
async def test_the_sdk_agent_keeps_no_empty_session_where_it_can_close(
    tmp_path: Path, closes: bool
) -> None:
    """The official SDK's agent lists a session from ``session/new`` on: one that can close
    forgets it when closed; one that cannot is sent nothing (its sessions are made by the
    first message instead, see the chat model)."""
    env = {"SDK_AGENT_STATE_DIR": str(tmp_path)}
    if closes:
        env["SDK_AGENT_CLOSE"] = "1"
    spec = AgentSpec(SDK_AGENT, cwd=str(tmp_path), env=env)
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        session_id = await controller.new_session()
        assert session_id in sdk_sessions(tmp_path)
        await workspace.stop(spec.key, grace=30)
    assert (session_id in sdk_sessions(tmp_path)) is not closes
    methods = [method for method, _ in sent(controller)]
    assert ("session/close" in methods) is closes and "session/delete" not in methods


async def test_a_close_never_answered_does_not_hold_the_quit(tmp_path: Path) -> None:
    env = {"SDK_AGENT_CLOSE": "1", "SDK_AGENT_CLOSE_GATE": str(tmp_path / "never")}
    spec = AgentSpec(SDK_AGENT, cwd=str(tmp_path), env=env)
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        await controller.new_session()
        began = time.monotonic()
        await workspace.stop(spec.key, grace=30)
        took = time.monotonic() - began
    assert "session/close" in [method for method, _ in sent(controller)]
    assert controller.finished.is_set()
    # The discard's bound, then an agent that ends at EOF (a loaded machine adds a little).
    assert took < workspace_module.DISCARD_GRACE + 5, took


async def test_a_session_new_on_its_way_as_the_person_leaves_is_waited_for_and_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workspace_module, "DISCARD_GRACE", 30.0)  # a loaded machine
    gate = tmp_path / "new-gate"
    env = {
        "SDK_AGENT_CLOSE": "1",
        "SDK_AGENT_STATE_DIR": str(tmp_path),
        "SDK_AGENT_NEW_GATE": str(gate),
    }
    spec = AgentSpec(SDK_AGENT, cwd=str(tmp_path), env=env)
    workspace = Workspace()
    made: list[str] = []

    async def make() -> None:
        made.append(await controller.new_session())

    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        group.start_soon(make)
        await until(lambda: "session/new" in [m for m, _ in sent(controller)], "session/new")
        stopping = anyio.Event()

        async def stop() -> None:
            await workspace.stop(spec.key, grace=30)
            stopping.set()

        group.start_soon(stop)
        await anyio.sleep(0.3)
        assert not stopping.is_set()  # waits for the session on its way
        gate.touch()
        with anyio.fail_after(LIMIT):
            await stopping.wait()
    assert len(made) == 1
    closed = [p["sessionId"] for m, p in sent(controller) if m == "session/close"]
    assert closed == made and made[0] not in sdk_sessions(tmp_path)


async def test_choices_made_while_the_session_is_made_go_out_before_its_first_prompt(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "new-gate"
    env = {"SDK_AGENT_MODES": "1", "SDK_AGENT_NEW_GATE": str(gate)}
    spec = AgentSpec(SDK_AGENT, cwd=str(tmp_path), env=env)
    workspace = Workspace()
    choices = NewSessionChoices()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        made: list[str] = []

        async def make() -> None:
            made.append(await controller.new_session(adopt=True, choices=choices.take))

        group.start_soon(make)
        await until(lambda: "session/new" in [m for m, _ in sent(controller)], "session/new")
        # Chosen and sent while the agent is still making the session.
        choices.mode = "plan"
        controller.prompts.add(None, "hi")
        gate.touch()
        await until(lambda: made and controller.store.get(made[0]) is not None, "the session")
        session_id = made[0]
        await until(
            lambda: (
                "session/prompt" in [m for m, _ in sent(controller)]
                and not controller.is_busy(session_id)
            ),
            "the reply",
        )
        await workspace.stop(spec.key, grace=30)
    methods = [m for m, _ in sent(controller) if m.startswith("session/") and m != "session/list"]
    assert methods[:3] == ["session/new", "session/set_mode", "session/prompt"]
    assert [p["modeId"] for m, p in sent(controller) if m == "session/set_mode"] == ["plan"]
    state = controller.store.get(session_id)
    assert state is not None and state.current_mode_id == "plan"
    replies = [getattr(e, "text", "") for e in state.transcript]
    assert any(text.startswith("(plan mode) You said: hi") for text in replies), replies
    assert choices.mode is None  # taken: it was this session's


async def test_a_session_made_without_a_sign_in_fails_instead_of_asking(tmp_path: Path) -> None:
    spec = AgentSpec(SDK_AGENT, cwd=str(tmp_path), env={"SDK_AGENT_AUTH": "1"})
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        controller = await started(group, workspace, spec)
        with pytest.raises(AuthRequired):
            await controller.new_session(sign_in=False)
        await workspace.stop(spec.key, grace=30)
    assert "authenticate" not in [m for m, _ in sent(controller)]
