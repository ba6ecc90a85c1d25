"""Stopping happens once: quitting asks each agent to stop once (the app and each view both
reach the workspace), and a stopped agent's leftovers are swept once (a sweep reads every
process's environment under /proc: some 20 ms)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol import reaper
from acp_tui.protocol.client import AcpClient
from acp_tui.session.agent.controller import SessionController
from tests.ui.chat_helpers import demo_app, wait_for_ready

pytestmark = pytest.mark.anyio

AGENTS = Path(__file__).resolve().parent / "agents"


def count_sweeps(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    swept: list[str | None] = []
    real = reaper.sweep

    def sweep(tag: str | None = None) -> int:
        swept.append(tag)
        return real(tag)

    monkeypatch.setattr(reaper, "sweep", sweep)
    return swept


async def test_a_launched_agent_is_shut_down_and_swept_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    swept = count_sweeps(monkeypatch)
    argv = [sys.executable, str(AGENTS / "sdk_agent.py")]
    async with AcpClient.launch(argv, cwd=tmp_path) as client:
        await client.initialize()
        tag = client.process.tag
    assert swept == [tag]


async def test_quitting_asks_each_agent_to_stop_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: list[SessionController] = []
    real = SessionController.request_stop

    def request_stop(self: SessionController) -> None:
        asked.append(self)
        real(self)

    monkeypatch.setattr(SessionController, "request_stop", request_stop)
    swept = count_sweeps(monkeypatch)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_for_ready(pilot)
        controller: Any = screen.controller
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert asked == [controller]
    assert swept.count(controller.process.tag) == 1
