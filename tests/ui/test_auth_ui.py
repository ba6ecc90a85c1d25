"""Signing in and out in the app, on the real demo agent: the picker says what each method
does, a terminal method runs the agent's own command (never ``authenticate``), a prompt the
agent refused goes out once signed in, and "Log out" in the palette asks first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.session.auth import terminal_run
from acp_tui.session.auth.methods import TerminalLogin, parse_auth_methods
from acp_tui.store.entries import AgentMessage, Notice, UserMessage
from acp_tui.ui import terminal_login
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.confirm import ConfirmScreen
from tests.test_auth_methods import HOSTILE_WORD
from tests.ui.chat_helpers import (
    armed_dialog,
    chat,
    demo_app,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def sent_methods(app: Any) -> list[tuple[str, Any]]:
    controller = chat(app).controller
    assert controller is not None and controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


@pytest.fixture
def terminal_runs(monkeypatch: pytest.MonkeyPatch) -> list[TerminalLogin]:
    """Pilot has no terminal to hand over: the sign-in command runs for real, with its
    question answered on stdin, where App.suspend() would have given it the terminal."""
    runs: list[TerminalLogin] = []

    async def run(app: Any, login: TerminalLogin, agent_name: str) -> int:
        runs.append(login)
        # Blocking, as the real runner is while the app is suspended.
        completed = subprocess.run(  # noqa: ASYNC221
            login.argv,
            cwd=login.cwd,
            env=login.environment(),
            input="Pilot Person\n",
            capture_output=True,
            text=True,
            check=False,
        )
        return completed.returncode

    monkeypatch.setattr(terminal_login, "run_terminal_login", run)
    return runs


def transcript_of(app: Any) -> list[tuple[type, str]]:
    screen = chat(app)
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [(e.__class__, getattr(e, "text", getattr(e, "title", ""))) for e in state.transcript]


async def test_terminal_sign_in_from_a_refused_prompt_then_the_message_is_answered(
    tmp_path: Path, terminal_runs: list[TerminalLogin]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/login")
        await wait_for(pilot, lambda: not screen.busy, "/login answered")
        await send(pilot, "hello after sign-in")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        picker = app.screen
        assert isinstance(picker, AuthScreen)
        assert [m.kind for m in picker.methods] == ["terminal", "agent"]
        await armed_dialog(pilot)
        await pilot.press("1")  # the first: the terminal method (alone: it acts)
        await wait_for(pilot, lambda: app.screen is screen, "the picker gone")
        await wait_for(
            pilot,
            lambda: (
                any(
                    cls is AgentMessage and "hello after sign-in" in text
                    for cls, text in transcript_of(app)
                )
                and not screen.busy
            ),
            "the message answered",
        )
        await settle(pilot)
        assert len(terminal_runs) == 1
        assert terminal_runs[0].argv[-1] == "--login"
        assert ("ACP_TUI_DEMO_LOGIN", "terminal") in terminal_runs[0].method.env
        assert [m for m, _ in sent_methods(app) if m == "authenticate"] == []
        users = [text for cls, text in transcript_of(app) if cls is UserMessage]
        assert users == ["/login", "hello after sign-in"]


async def test_declining_the_sign_in_keeps_the_message_in_the_queue(
    tmp_path: Path, terminal_runs: list[TerminalLogin]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/login")
        await wait_for(pilot, lambda: not screen.busy, "/login answered")
        await send(pilot, "do not lose me")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        await pilot.press("escape")
        sid = screen.session_id
        await wait_for(pilot, lambda: screen.prompts.has(sid), "the message back in the queue")
        await settle(pilot)
        assert [q.text for q in screen.prompts.items(sid)] == ["do not lose me"]
        assert len(screen.query("QueuedItem")) == 1
        assert any(cls is Notice and "sign in" in text for cls, text in transcript_of(app))
        assert app.screen is screen and terminal_runs == []


async def test_log_out_from_the_palette_asks_first_then_says_so(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await run_palette_command(pilot, "Log out")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await armed_dialog(pilot)
        await pilot.click("#yes")
        await wait_for(
            pilot,
            lambda: any(cls is Notice and "Logged out" in text for cls, text in transcript_of(app)),
            "logged out, said",
        )
        assert [m for m, _ in sent_methods(app) if m == "logout"] == ["logout"]
        assert screen.controller is not None and screen.controller.sign_in.signed_out


def test_the_sign_in_banner_on_the_real_terminal_is_printable(tmp_path: Path) -> None:
    """Round 3 of issue 17: the method's name went raw to the real terminal (TUI suspended)."""
    hostile_word = HOSTILE_WORD
    (method,) = parse_auth_methods(
        [{"id": "t", "type": "terminal", "name": hostile_word, "args": [hostile_word]}]
    )
    login = TerminalLogin.of(method, [sys.executable, "-c", "pass"], str(tmp_path))
    written: list[str] = []
    assert terminal_run.run_login(login, "Agent\x1b]0;x\x07", written.append) == 0
    text = "".join(written)
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in text
