"""Checkpoints taken by the controller around real agents' turns, over real pipes: the demo
agent (``/change``) and the official SDK's agent (``writefiles``) edit, create and delete
files, through the client and directly on disk; a rewind (code) puts every file back byte
for byte, and the project's own git state is untouched."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.entries import Notice
from tests.checkpoints.helpers import git_state, make_project, tree_bytes

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is needed"),
]

SDK_AGENT = [sys.executable, str(Path(__file__).parents[1] / "agents" / "sdk_agent.py")]


async def run_turn_and_rewind(project: Path, store: Path, argv: list[str], prompt: str) -> None:
    spec = AgentSpec(
        tuple(argv),
        cwd=str(project),
        checkpoints=CheckpointSettings(store=store, enabled=True),
    )
    parts = AgentParts(spec, policy="yolo")
    controller = parts.controller()
    state = git_state(project)
    before = tree_bytes(project)
    async with anyio.create_task_group() as group:
        group.start_soon(controller.run)
        with anyio.fail_after(30):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
        session_id = controller.current_session_id
        controller.send_prompt(session_id, prompt)
        turns: list = []
        with anyio.move_on_after(90):
            while True:
                turns = await controller.checkpoints.turns(session_id)
                if turns and turns[-1].ended is not None:
                    break
                await anyio.sleep(0.05)
        if not turns or turns[-1].ended is None:
            state = controller.store.get(session_id)
            said = [
                f"{e.title}: {e.description}"
                for e in (state.transcript if state else [])
                if isinstance(e, Notice)
            ]
            activity = state.activity if state else None
            raise AssertionError(f"no ended turn in 90 s: {turns}; {activity}; notices {said}")
        record = turns[-1]
        changed = {Path(f.path).name: f.change for f in record.files}
        assert record.writes, "the client-served write was recorded"
        assert record.writes[0].tool_call_id is not None
        plan = await controller.checkpoints.plan_rewind(session_id, record.number)
        result = await controller.checkpoints.apply(plan, {p.path: None for p in plan.files})
        assert not result.left
        controller.request_stop()
    return_state = git_state(project)
    after = tree_bytes(project)
    assert after == before
    assert return_state == state
    return changed


async def test_the_demo_agents_changes_are_rewound(tmp_path):
    project = make_project(tmp_path / "project")
    (project / "delete-me.txt").write_text("please keep me\n")
    (project / "notes.txt").write_text("my notes\n")
    changed = await run_turn_and_rewind(project, tmp_path / "store", demo_agent_argv(), "/change")
    assert changed == {
        "notes.txt": "modified",
        "created.txt": "created",
        "delete-me.txt": "deleted",
    }


async def test_the_sdk_agents_changes_are_rewound(tmp_path):
    project = make_project(tmp_path / "project")
    (project / "sdk-delete-me.txt").write_text("keep\n")
    (project / "sdk-notes.txt").write_text("notes\n")
    changed = await run_turn_and_rewind(
        project, tmp_path / "store", SDK_AGENT, "please writefiles now"
    )
    assert changed == {
        "sdk-notes.txt": "modified",
        "sdk-created.txt": "created",
        "sdk-delete-me.txt": "deleted",
    }
