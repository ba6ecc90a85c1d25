"""The workspace of controllers (issue 16): agents by key, started, restarted and stopped,
without Textual, on real agent processes."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.workspace import AgentRunning, Workspace

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
    one = AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path), name="one")  # type: ignore[arg-type]
    two = AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path), name="two")  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        first = workspace.start(AgentParts(one))
        second = workspace.start(AgentParts(two))
        await run_until_ready(group, first)
        await run_until_ready(group, second)
        assert workspace.get(one.key) is first and workspace.get(two.key) is second
        assert list(workspace) == [one.key, two.key] and len(workspace) == 2
        assert first.process is not None and second.process is not None
        assert first.process.pid != second.process.pid
        assert workspace.running() == [first, second]
        await workspace.stop_all(grace=30)
    assert first.finished.is_set() and second.finished.is_set()
    assert workspace.running() == []


async def test_a_running_agent_is_not_replaced_until_it_is_asked_to_stop(tmp_path: Path) -> None:
    workspace = Workspace()
    parts = AgentParts(AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path)))  # type: ignore[arg-type]
    key = parts.spec.key
    async with anyio.create_task_group() as group:
        first = workspace.start(parts)
        await run_until_ready(group, first)
        with pytest.raises(AgentRunning):
            workspace.start(parts)
        with pytest.raises(AgentRunning):
            workspace.forget(key)
        await workspace.stop(key, grace=30)
        assert first.finished.is_set()
        # Made as the last one was: the same spec, store and queue.
        second = workspace.restart(key)
        assert second is not first and workspace.get(key) is second
        assert second.spec == first.spec and second.store is first.store is parts.store
        assert second.prompts is parts.prompts
        await run_until_ready(group, second)
        await workspace.stop(key, grace=30)
    workspace.forget(key)
    assert key not in workspace and workspace.get(key) is None
    with pytest.raises(KeyError):
        workspace.restart(key)


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
