"""The workspace of controllers (issue 16): agents by key, started, restarted and stopped,
without Textual, on real agent processes."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.session.controller import SessionController
from acp_tui.session.workspace import AgentRunning, Workspace
from acp_tui.store import SessionStore

pytestmark = pytest.mark.anyio

FIXTURE_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "fixture_agent.py")]


async def run_until_ready(group: anyio.abc.TaskGroup, controller: SessionController) -> None:
    async def opener(_: SessionController) -> None:
        return None

    group.start_soon(controller.run, opener)
    with anyio.fail_after(60):
        await controller.ready.wait()


async def test_two_agents_run_side_by_side_and_stop_together(tmp_path: Path) -> None:
    workspace = Workspace()
    async with anyio.create_task_group() as group:
        first = workspace.start("one", FIXTURE_AGENT, cwd=str(tmp_path), store=SessionStore())
        second = workspace.start("two", FIXTURE_AGENT, cwd=str(tmp_path), store=SessionStore())
        await run_until_ready(group, first)
        await run_until_ready(group, second)
        assert workspace.get("one") is first and workspace.get("two") is second
        assert list(workspace) == ["one", "two"] and len(workspace) == 2
        assert first.process is not None and second.process is not None
        assert first.process.pid != second.process.pid
        assert workspace.running() == [first, second]
        await workspace.stop_all(grace=30)
    assert first.finished.is_set() and second.finished.is_set()
    assert workspace.running() == []


async def test_a_running_agent_is_not_replaced_until_it_is_asked_to_stop(tmp_path: Path) -> None:
    workspace = Workspace()
    store = SessionStore()
    async with anyio.create_task_group() as group:
        first = workspace.start("agent", FIXTURE_AGENT, cwd=str(tmp_path), store=store)
        await run_until_ready(group, first)
        with pytest.raises(AgentRunning):
            workspace.start("agent", FIXTURE_AGENT, cwd=str(tmp_path), store=store)
        with pytest.raises(AgentRunning):
            workspace.forget("agent")
        await workspace.stop("agent", grace=30)
        assert first.finished.is_set()
        # Made as the last one was: the same command, directory and store.
        second = workspace.restart("agent")
        assert second is not first and workspace.get("agent") is second
        assert second.argv == first.argv and second.cwd == first.cwd and second.store is store
        await run_until_ready(group, second)
        await workspace.stop("agent", grace=30)
    workspace.forget("agent")
    assert "agent" not in workspace and workspace.get("agent") is None
    with pytest.raises(KeyError):
        workspace.restart("agent")


async def test_stopping_an_unknown_agent_does_nothing() -> None:
    workspace = Workspace()
    await workspace.stop("nobody", grace=0.1)
    await workspace.stop_all(grace=0.1)
    assert workspace.start_failure is None


def test_the_last_start_failure_is_the_one_reported() -> None:
    workspace = Workspace()
    workspace.note_start_failure("a", "acp-tui: cannot start `a`")
    workspace.note_start_failure("b", "acp-tui: cannot start `b`")
    assert workspace.start_failure == "acp-tui: cannot start `b`"
    workspace.note_start_failure("a", "acp-tui: cannot start `a` again")
    assert workspace.start_failure == "acp-tui: cannot start `a` again"
