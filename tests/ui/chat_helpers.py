"""Building the real app on a real agent process, and waiting for it, with a Pilot (the tests
and scripts/screenshots.py)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.settings import AppSettings

AGENTS = Path(__file__).resolve().parent.parent / "agents"
FIXTURE_AGENT = [sys.executable, str(AGENTS / "fixture_agent.py")]


def agent_app(agent_argv: list[str], cwd: Path, **overrides: object) -> AcpTuiApp:
    """The real app on ``agent_argv`` in ``cwd`` (its data kept in ``cwd/.data``)."""
    settings = AppSettings(
        agent_argv=agent_argv, cwd=str(cwd), data_dir=cwd / ".data", theme="textual-dark"
    )
    for name, value in overrides.items():
        setattr(settings, name, value)
    return make_app(settings)


def fixture_app(cwd: Path, **overrides: object) -> AcpTuiApp:
    return agent_app(FIXTURE_AGENT, cwd, **overrides)


def demo_app(cwd: Path, state_dir: Path, **overrides: object) -> AcpTuiApp:
    settings = AppSettings(
        agent_argv=demo_agent_argv(state_dir=str(state_dir), chunk_delay=0),
        cwd=str(cwd),
        data_dir=cwd / ".data",
        theme="textual-dark",
    )
    for name, value in overrides.items():
        setattr(settings, name, value)
    return make_app(settings)


def chat(app: AcpTuiApp) -> ChatScreen:
    screen = app.screen
    assert isinstance(screen, ChatScreen), f"expected the chat screen, got {screen!r}"
    return screen


async def wait_for(
    pilot: Pilot, condition: Callable[[], bool], what: str, limit: float = 10.0
) -> None:
    """Let the app run until ``condition()`` holds; fail with ``what`` after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if condition():
                await pilot.pause()
                return
        except Exception:
            pass
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for: {what}")


async def wait_for_ready(pilot: Pilot) -> ChatScreen:
    """The chat screen once the agent has answered initialize (no session yet: the first
    message, or Ctrl+N, creates it)."""
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, ChatScreen) and chat(pilot.app).agent_alive,
        "the agent to be ready",
    )
    return chat(pilot.app)


async def wait_for_session(pilot: Pilot) -> ChatScreen:
    """A session open and shown: the agent ready, then a new session asked for (Ctrl+N),
    unless one opened by itself (``--continue``, ``--resume ID``)."""
    screen = await wait_for_ready(pilot)
    if screen.session_id is None and screen.settings.resume is None:
        screen.action_new_session()
    await wait_for(pilot, lambda: chat(pilot.app).session_id is not None, "a session")
    return chat(pilot.app)


async def send(pilot: Pilot, text: str) -> None:
    screen = chat(pilot.app)
    editor = screen.query_one("#prompt")
    editor.set_draft(text)  # type: ignore[attr-defined]
    editor.focus()
    await pilot.pause()
    await pilot.press("enter")


async def answer_permission(pilot: Pilot, key: str, limit: float = 10.0) -> None:
    """Wait for a permission dialog to be on screen and armed, then press ``key``."""
    from acp_tui.ui.screens.permission import PermissionScreen

    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, PermissionScreen) and pilot.app.screen.armed,
        "an armed permission dialog",
        limit,
    )
    await pilot.press(key)
