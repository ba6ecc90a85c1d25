"""The agent's unstable status methods in the app, on the real demo agent: the header says who
is signed in as the agent reports it, a pushed "not signed in" turns it to the warning colour
and offers "Sign in" in the palette (no polling: one ``auth/status`` in all), "open elsewhere"
marks a session another client holds, and ``session/options`` fills the new session's
selectors before any session exists."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.protocol.client import AcpClient
from acp_tui.session.agent.turns import NOT_SIGNED_IN
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.widgets.chat_bar import ChatBar
from tests.ui.chat_helpers import (
    agent_app,
    armed_dialog,
    chat,
    demo_app,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def sent_methods(screen: Any) -> list[str]:
    """What the chat ``screen``'s agent was sent, by method, in order."""
    controller = screen.controller
    assert controller is not None and controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append(message["method"])
    return out


def account(screen: Any) -> Label:
    return screen.query_one("ChatHeader #account", Label)


def shown(label: Label) -> str:
    return str(label.render()) if label.has_class("-on") else ""


async def test_the_header_follows_the_pushed_sign_in_and_the_palette_signs_in(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await settle(pilot)
        assert shown(account(screen)) == ""  # no sign-in needed: nothing to say
        await send(pilot, "/signout")
        await wait_for(pilot, lambda: account(screen).has_class("-signed-out"), "signed out, shown")
        assert shown(account(screen)) == "○ not signed in"
        await wait_for(pilot, lambda: not screen.busy, "/signout answered")
        await run_palette_command(pilot, "Sign in")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        await armed_dialog(pilot)
        await pilot.press("2")  # the demo's own sign-in (the terminal one is first)
        await wait_for(pilot, lambda: not account(screen).has_class("-signed-out"), "signed in")
        await settle(pilot)
        assert shown(account(screen)) == "● Demo sign-in (demo user)"
        tooltip = str(account(screen).tooltip)
        assert "authenticated" in tooltip and "Demo sign-in (demo user) (in use)" in tooltip
        methods = sent_methods(screen)
    # Asked once after initialize; the rest the agent pushed.
    assert methods.count("auth/status") == 1
    assert methods.count("authenticate") == 1


async def test_a_pushed_sign_out_signs_in_before_the_next_message(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/signout")
        await wait_for(pilot, lambda: account(screen).has_class("-signed-out"), "signed out")
        await wait_for(pilot, lambda: not screen.busy, "/signout answered")
        await send(pilot, "still there?")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        picker = app.screen
        assert isinstance(picker, AuthScreen)
        assert picker.reason == NOT_SIGNED_IN
        await armed_dialog(pilot)
        await pilot.press("2")
        await wait_for(
            pilot, lambda: app.screen is screen and not screen.busy, "the message answered"
        )
        await settle(pilot)
        prompts = [m for m in sent_methods(screen) if m == "session/prompt"]
    assert len(prompts) == 2  # the message went once: no refusal first


async def test_a_session_another_client_holds_is_marked_open_elsewhere(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    first = demo_app(tmp_path, state_dir)
    async with first.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy, "answered")
        sid = screen.session_id
        elsewhere = screen.query_one("ChatHeader #elsewhere", Label)
        assert sid is not None and not elsewhere.has_class("-on")
    # Another client has the session open in its agent; this one reopens it.
    async with AcpClient.launch(
        demo_agent_argv(str(state_dir), chunk_delay=0), cwd=tmp_path
    ) as other:
        await other.initialize()
        await other.load_session(sid, str(tmp_path))
        second = demo_app(tmp_path, state_dir, resume=sid)
        async with second.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot,
                lambda: isinstance(second.screen, type(screen)) and chat(second).session_id == sid,
                "the session reopened",
            )
            label = chat(second).query_one("ChatHeader #elsewhere", Label)
            await wait_for(pilot, lambda: label.has_class("-on"), "open elsewhere, shown")
            assert "another client" in str(label.tooltip)
            methods = sent_methods(chat(second))
    assert methods.index("session/status") < methods.index("session/load")


async def test_session_options_fill_the_new_session_before_it_exists(tmp_path: Path) -> None:
    """A first run: nothing remembered of this agent, yet the selectors show at once. (An
    agent that cannot close a session: one that can has its new session opened at start.)"""
    app = agent_app(
        demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, no_close=True), tmp_path
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: bool(bar.options), "the options shown")
        names = {option.name for option in bar.options}
        methods = sent_methods(screen)
        assert screen.session_id is None
    assert {"Model", "Speed"} <= names
    assert "session/options" in methods and "session/new" not in methods


async def test_each_agent_process_says_its_sign_in_again(tmp_path: Path) -> None:
    """The header's account is the running agent's: gone with it when it exits, asked of
    the restarted one (once, as at any start)."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/signout")
        await wait_for(pilot, lambda: account(screen).has_class("-signed-out"), "signed out")
        await wait_for(pilot, lambda: not screen.busy, "/signout answered")
        first = screen.controller
        assert first is not None and first.process is not None
        os.kill(first.process.pid, signal.SIGKILL)  # a message now would ask for a sign-in
        await wait_for(pilot, lambda: not screen.model.agent_alive, "the agent gone")
        await wait_for(pilot, lambda: shown(account(screen)) == "", "the account cleared")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: screen.controller is not first and screen.model.agent_alive,
            "the agent restarted",
        )
        await wait_for(pilot, lambda: account(screen).has_class("-signed-out"), "said again")
        # The session reopens after the restart: the sign-in is offered before it.
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        assert app.screen.reason == NOT_SIGNED_IN  # type: ignore[attr-defined]
        methods = sent_methods(screen)
    assert methods.count("auth/status") == 1  # the new process's own
    assert "session/load" not in methods  # not before the sign-in
