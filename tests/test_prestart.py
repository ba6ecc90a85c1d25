"""The agent started before the UI (acp_tui.session.launch.prestart): handed over once, only to the
launch it was made for; a failed start is left to the controller; an unused one is ended."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.process import AgentProcess
from acp_tui.session.launch.prestart import PrestartedAgent

pytestmark = pytest.mark.anyio

AGENT = [sys.executable, "-c", "import sys; sys.stdin.read()"]


async def test_the_early_process_goes_to_the_first_matching_launch_only(tmp_path: Path) -> None:
    early = await PrestartedAgent.start(AGENT, cwd=str(tmp_path), env=None, log_dir=tmp_path)
    assert early is not None
    try:
        first = early.factory(AGENT, cwd=str(tmp_path), env=None, log_dir=tmp_path)
        assert first.pid is not None, "the early process is already running"
        assert early.taken
        second = early.factory(AGENT, cwd=str(tmp_path), env=None, log_dir=tmp_path)
        assert second is not first and second.pid is None, "a restart spawns anew"
    finally:
        await first.shutdown(grace=1)


@pytest.mark.parametrize(
    "change",
    [
        {"argv": [*AGENT, "--other"]},
        {"cwd": "/"},
        {"env": {"EXTRA": "1"}},
        {"log_dir": None},
    ],
    ids=["argv", "cwd", "env", "log_dir"],
)
async def test_a_launch_that_differs_in_anything_gets_a_new_process(
    tmp_path: Path, change: dict[str, object]
) -> None:
    early = await PrestartedAgent.start(AGENT, cwd=str(tmp_path), env=None, log_dir=tmp_path)
    assert early is not None
    asked: dict[str, object] = {
        "argv": AGENT,
        "cwd": str(tmp_path),
        "env": None,
        "log_dir": tmp_path,
        **change,
    }
    argv = asked.pop("argv")
    made = early.factory(argv, **asked)  # type: ignore[arg-type]
    assert made.pid is None and not early.taken
    await early.discard()
    assert early.taken


async def test_an_unused_early_agent_is_ended(tmp_path: Path) -> None:
    early = await PrestartedAgent.start(AGENT, cwd=str(tmp_path), env=None, log_dir=None)
    assert early is not None
    process: AgentProcess | None = early._process
    assert process is not None and process.returncode is None
    await early.discard()
    assert process.returncode is not None


async def test_an_agent_that_cannot_start_is_left_to_the_controller(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-agent")
    assert await PrestartedAgent.start([missing], cwd=None, env=None, log_dir=None) is None


async def test_a_launch_connects_to_the_early_process(tmp_path: Path) -> None:
    """Over real pipes: the demo agent started early answers initialize through the launch."""
    from acp_tui.demo_agent import demo_agent_argv

    argv = demo_agent_argv(state_dir=str(tmp_path / "state"))
    early = await PrestartedAgent.start(argv, cwd=str(tmp_path), env=None, log_dir=None)
    assert early is not None
    pid = early._process.pid if early._process else None
    with anyio.fail_after(60):
        async with AcpClient.launch(
            argv, cwd=str(tmp_path), process_factory=early.factory
        ) as client:
            assert client.process.pid == pid
            info = await client.initialize()
            assert info.name


async def test_the_settings_log_dir_is_the_one_both_the_early_start_and_the_app_use(
    tmp_path: Path,
) -> None:
    """The command line starts the agent with the settings' log dir and the app's controller
    asks for the same one, so the early process is handed over (a default computed in two
    places could differ and waste it). The default is the platform's log dir."""
    from acp_tui.config import locations
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.session.launch.spec import AgentSpec

    spec = AgentSpec(argv=tuple(AGENT), cwd=str(tmp_path))
    settings = AppSettings(agent=spec)
    assert settings.log_dir == locations.log_dir()
    settings.log_dir = tmp_path
    early = await PrestartedAgent.start(
        spec.argv, cwd=spec.cwd, env=spec.env_dict(), log_dir=settings.log_dir
    )
    assert early is not None
    made = early.factory(spec.argv, cwd=spec.cwd, env=spec.env_dict(), log_dir=settings.log_dir)
    try:
        assert early.taken and made.pid is not None
        assert made.log_path is not None and made.log_path.parent == tmp_path
    finally:
        await made.shutdown(grace=1)
