"""Escape while the turn's snapshot is still being taken: the prompt never goes out. Before,
the session/cancel went first (to no turn) and the prompt after it, so the turn ran whole
while the screen said "cancelling…"."""

from __future__ import annotations

import shutil
import threading

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.checkpoints.book import Checkpoints
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.entries import AgentMessage

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is needed"),
]


async def test_a_cancel_during_the_snapshot_sends_no_prompt(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("notes\n")
    snapshot_started = threading.Event()
    release = threading.Event()
    original = Checkpoints.begin_turn

    def slow_begin_turn(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        snapshot_started.set()
        release.wait(30)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Checkpoints, "begin_turn", slow_begin_turn)
    spec = AgentSpec(
        tuple(demo_agent_argv()),
        cwd=str(project),
        checkpoints=CheckpointSettings(store=tmp_path / "store", enabled=True),
    )
    controller = AgentParts(spec, policy="ask").controller()
    async with anyio.create_task_group() as group:
        group.start_soon(controller.run)
        with anyio.fail_after(60):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
            session_id = controller.current_session_id
            controller.send_prompt(session_id, "/slow 20")
            while not snapshot_started.is_set():
                await anyio.sleep(0.01)
            assert controller.is_busy(session_id)
            await controller.cancel(session_id)
            release.set()
            while controller.is_busy(session_id):
                await anyio.sleep(0.02)
        state = controller.store.get(session_id)
        assert state is not None
        assert state.stop_reason == "cancelled"
        said = [e for e in state.transcript if isinstance(e, AgentMessage)]
        assert not said, f"the agent ran the turn: {said}"
        # The session goes on: the next prompt runs.
        with anyio.fail_after(60):
            controller.send_prompt(session_id, "hello")
            while not any(isinstance(e, AgentMessage) for e in state.transcript):
                await anyio.sleep(0.02)
            while controller.is_busy(session_id):
                await anyio.sleep(0.02)
        assert state.stop_reason == "end_turn"
        controller.request_stop()
