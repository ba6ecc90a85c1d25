"""Subagents and background work through the session controller, against the demo agent
over real pipes: children become sessions of the store under their parent (cards live, their
permission requests theirs), a child is cancelled with ``session/cancel`` on it alone, and
every piece of background work is cancelled with the protocol's own cancel (a child, a v2
terminal, a v2 tool call, a tool call a v1 agent left running), each seen on the wire and
each seen to stop. Every message the client writes fits the schema of its version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.errors import NotSupported
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace import background as workspace_background
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store import SessionStore, SubagentCard
from acp_tui.store.background import WORK_SUBAGENT, WORK_TERMINAL, WORK_TOOL_CALL
from tests.test_protocol_v2 import check_client_messages, requests, wait

pytestmark = pytest.mark.anyio


def link_for(
    tmp_path: Path, store: SessionStore, version: int = 1, permission: Any = None
) -> SessionController:
    return SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0),
            cwd=str(tmp_path),
            protocol_version=version,
        ),
        store=store,
        face=FaceHooks(permission_handler=permission),
    )


def cards(store: SessionStore, sid: str) -> list[SubagentCard]:
    state = store.get(sid)
    assert state is not None
    return [e for e in state.transcript if isinstance(e, SubagentCard)]


def sent(controller: SessionController, method: str) -> list[Any]:
    return [params for m, params in requests(controller) if m == method]


@pytest.mark.parametrize("version", [1, 2])
async def test_children_are_sessions_under_their_parent(tmp_path: Path, version: int) -> None:
    store = SessionStore()
    asked: list[dict[str, Any]] = []

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    controller = link_for(tmp_path, store, version, permission)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/subagents")
        await wait(lambda: not controller.is_busy(sid) and store.get(sid).children, "the turn")  # type: ignore[union-attr]
        await wait(lambda: all(c.status == "idle" for c in cards(store, sid)), "both idle")
        parent = store.get(sid)
        assert parent is not None
        children = store.children(sid)
        controller.request_stop()
    assert [c.label for c in cards(store, sid)] == ["Research the code", "Check the tests"]
    assert [c.parent_id for c in children] == [sid, sid]
    assert [s.id for s in store.catalog()] == [sid]  # children are not sessions of their own
    for child in children:
        assert child.transcript and child.card is not None and child.card.last_line
        assert child.card.started_at is not None and child.card.ended_at is not None
    # The permission request was the child's, answered for the child.
    assert [p["sessionId"] for p in asked] == [children[1].id]
    assert children[1].activity == "idle"
    # A child takes no prompt from the person.
    with pytest.raises(NotSupported):
        controller.send_prompt(children[0].id, "hello")
    check_client_messages(controller, version)


async def test_cancelling_a_child_sends_session_cancel_on_it_alone(tmp_path: Path) -> None:
    store = SessionStore()
    waiting = anyio.Event()
    released = anyio.Event()

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        waiting.set()
        await anyio.sleep_forever()  # answered cancelled when the child is cancelled
        raise AssertionError

    controller = link_for(tmp_path, store, 1, permission)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/subagents")
        await waiting.wait()
        research, tests = store.children(sid)
        assert tests.activity == "requires_action"  # the person is asked: the child waits
        assert controller.can_cancel_child(tests.id)
        await controller.cancel_child(tests.id)
        released.set()
        await wait(lambda: not controller.is_busy(sid), "the parent's turn")
        controller.request_stop()
    assert sent(controller, "session/cancel") == [{"sessionId": tests.id}]
    assert tests.card is not None and tests.card.stop_reason == "cancelled"
    assert research.card is not None and research.card.stop_reason == "end_turn"
    assert store.get(sid).stop_reason == "end_turn"  # type: ignore[union-attr]
    check_client_messages(controller, 1)


async def test_the_panel_cancels_each_piece_with_its_own_cancel_v2(tmp_path: Path) -> None:
    """The workspace's rows of a v2 agent: a terminal, a tool call and a child, each
    cancelled from its row (terminal/cancel, tool_call/cancel, session/cancel on the
    child), each confirmed on the wire and by the agent's own update; then none is left."""
    workspace = Workspace()
    spec = AgentSpec(
        demo_agent_argv(str(tmp_path / "state"), chunk_delay=0),
        cwd=str(tmp_path),
        protocol_version=2,
    )
    controller = workspace.start(AgentParts(spec))
    workspace.labels[spec.key] = "demo agent"
    store = controller.store
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/background 60")
        await wait(lambda: not controller.is_busy(sid), "the turn")
        await wait(lambda: len(workspace_background.running_work(workspace)) == 3, "3 rows")
        rows = {r.work.kind: r for r in workspace_background.running_work(workspace)}
        assert {r.agent_label for r in rows.values()} == {"demo agent"}
        assert {r.session_id for r in rows.values()} == {sid}
        assert all(r.work.cancel is not None for r in rows.values())
        for kind in (WORK_TERMINAL, WORK_TOOL_CALL, WORK_SUBAGENT):
            await workspace_background.cancel(workspace, rows[kind])
            await wait(
                lambda kind=kind: (  # type: ignore[misc]
                    kind not in {r.work.kind for r in workspace_background.running_work(workspace)}
                ),
                f"the {kind} to stop",
            )
        state = store.get(sid)
        assert state is not None
        await wait(lambda: state.background == [], "an empty list")
        controller.request_stop()
    terminal, tool, child = rows[WORK_TERMINAL], rows[WORK_TOOL_CALL], rows[WORK_SUBAGENT]
    assert sent(controller, "terminal/cancel") == [
        {"sessionId": sid, "terminalId": terminal.work.ref_id}
    ]
    assert sent(controller, "tool_call/cancel") == [
        {"sessionId": sid, "toolCallId": tool.work.ref_id}
    ]
    assert sent(controller, "session/cancel") == [{"sessionId": child.work.ref_id}]
    assert state.tool_index[tool.work.ref_id].status == "failed"
    check_client_messages(controller, 2)


async def test_a_v1_tool_call_left_running_is_cancelled_with_session_cancel(
    tmp_path: Path,
) -> None:
    store = SessionStore()
    controller = link_for(tmp_path, store, 1)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        controller.send_prompt(sid, "/background 60")
        await wait(lambda: not controller.is_busy(sid), "the turn")
        work = {w.kind: w for w in controller.background_work()}
        assert set(work) == {WORK_TOOL_CALL, WORK_SUBAGENT}  # v1: no terminal of its own
        tool = work[WORK_TOOL_CALL]
        assert tool.session_id == sid and tool.started_at is not None
        await controller.cancel_work(tool)
        await wait(
            lambda: WORK_TOOL_CALL not in {w.kind for w in controller.background_work()}, "gone"
        )
        controller.request_stop()
    assert sent(controller, "session/cancel") == [{"sessionId": sid}]
    assert store.get(sid).tool_index[tool.ref_id].status == "failed"  # type: ignore[union-attr]
    check_client_messages(controller, 1)
