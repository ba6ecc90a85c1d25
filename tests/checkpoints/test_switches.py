"""Checkpoints are on by default and off with ``--no-checkpoints``, an agent's
``checkpoints = false`` or ``[checkpoints] enabled = false``; the section's bounds reach the
settings; and an agent with checkpoints off snapshots nothing in a real turn."""

from __future__ import annotations

import shutil

import anyio
import pytest

from acp_tui.cli.agents import launch_options
from acp_tui.cli.parse import parse
from acp_tui.config.schema import Config
from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.spec import AgentSource, AgentSpec
from acp_tui.store.entries import AgentMessage
from tests.checkpoints.helpers import git_state, make_project

DEMO = AgentSource.command(["demo-agent"])


def settings(argv: list[str], config: Config | None, source: AgentSource = DEMO):
    options = launch_options(parse(argv).options)
    return resolve_agent(source, config, options).spec.checkpoints


def test_on_by_default_and_off_by_each_switch(tmp_path):
    assert settings([], None).enabled
    assert settings([], Config()).enabled
    assert not settings(["--no-checkpoints"], Config()).enabled
    off = Config.model_validate({"checkpoints": {"enabled": False}})
    assert not settings([], off).enabled
    agents = Config.model_validate(
        {"agents": {"quiet": {"command": "x", "checkpoints": False}, "loud": {"command": "y"}}}
    )
    assert not settings([], agents, AgentSource.configured("quiet")).enabled
    assert settings([], agents, AgentSource.configured("loud")).enabled
    assert not settings(["--no-checkpoints"], agents, AgentSource.configured("loud")).enabled


def test_the_sections_bounds_reach_the_settings():
    config = Config.model_validate(
        {
            "checkpoints": {
                "max_file_kb": 7,
                "max_files": 1234,
                "keep_per_session": 3,
                "keep_total": 9,
            }
        }
    )
    got = settings([], config)
    assert (got.max_file_bytes, got.max_files, got.keep_per_session, got.keep_total) == (
        7 * 1024,
        1234,
        3,
        9,
    )


@pytest.mark.anyio
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")
async def test_an_agent_with_checkpoints_off_snapshots_nothing(tmp_path):
    project = make_project(tmp_path / "project")
    state = git_state(project)
    store = tmp_path / "store"
    spec = AgentSpec(
        tuple(demo_agent_argv()),
        cwd=str(project),
        checkpoints=CheckpointSettings(store=store, enabled=False),
    )
    controller = AgentParts(spec, policy="yolo").controller()
    async with anyio.create_task_group() as group:
        group.start_soon(controller.run)
        with anyio.fail_after(60):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
            session_id = controller.current_session_id
            controller.send_prompt(session_id, "/change")
            while not any(
                isinstance(entry, AgentMessage) and "Rewind with" in entry.text
                for entry in controller.state.store.get(session_id).transcript
            ):
                await anyio.sleep(0.05)
        assert not controller.checkpoints.enabled
        assert await controller.checkpoints.turns(session_id) == []
        controller.request_stop()
    assert not store.exists()
    assert git_state(project)["head"] == state["head"]
