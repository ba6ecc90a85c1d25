"""Every dialog names the agent and session it comes from, and shows exactly what it would do
(issue 36). Found: a background agent's session-less form opened over another agent's view
without naming the agent; the sign-in picker did not show the command it would run, and the
Enter of the person's next message ran it; a URL with line breaks drew a fake
``Site: … (verified …)`` line in the visit dialog. Real agents, through the real app."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.session.asking.elicitation import parse_request
from acp_tui.session.asking.elicitation_queue import PendingElicitation
from acp_tui.session.auth.methods import TerminalLogin
from acp_tui.ui.screens.armed import ArmedDialog
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.screens.chat.common import display_title
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.rename import RenameScreen
from tests.ui.chat_helpers import (
    armed_dialog,
    chat,
    demo_app,
    send,
    settle,
    wait_for,
    wait_for_session,
)
from tests.ui.test_dialog_bursts import HostApp, burst
from tests.ui.test_several_agents import both_ready, two_agents

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def origin_of(dialog: ArmedDialog[Any]) -> str:
    line = dialog.query_one("#origin", Static)
    assert line.display, "the dialog names nobody"
    return str(line.render())


def expected_origin(screen: ChatScreen) -> str:
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    title = display_title(state.display_title, 120)
    return f"Agent: {agent_label(screen.spec, screen.controller)}  ·  Session: {title}"


async def dialog_of(pilot: Any, kind: type[ArmedDialog[Any]]) -> ArmedDialog[Any]:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind), kind.__name__)
    dialog = app.screen
    assert isinstance(dialog, kind)
    await pilot.pause()
    return dialog


async def test_every_dialog_of_a_session_names_its_agent_and_session(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/run ls")
        dialog = await dialog_of(pilot, PermissionScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
        await send(pilot, "/ask")
        dialog = await dialog_of(pilot, ElicitationScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
        await send(pilot, "/ask url 0")
        dialog = await dialog_of(pilot, ElicitationScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
        await settle(pilot, answered=True)
        screen.session_actions.rename()
        dialog = await dialog_of(pilot, RenameScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back")
        assert screen.controller is not None and screen.session_id is not None
        screen.dialogs.confirm_delete(screen.controller, screen.session_id)
        dialog = await dialog_of(pilot, ConfirmScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back")
        await send(pilot, "/login")
        await wait_for(pilot, lambda: not screen.busy, "/login answered")
        await send(pilot, "hello")
        dialog = await dialog_of(pilot, AuthScreen)
        assert origin_of(dialog) == expected_origin(screen)
        await pilot.press("escape")


async def test_a_background_agents_session_less_form_names_that_agent(tmp_path: Path) -> None:
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        assert app.screen is demo
        params = {"mode": "form", "message": "Which one?", "requestedSchema": {"type": "object"}}
        # A request-scoped form (no session) from the agent behind: shown over the demo's view.
        asked = asyncio.ensure_future(fixture.elicitations.request(params))
        dialog = await dialog_of(pilot, ElicitationScreen)
        assert (
            origin_of(dialog)
            == f"Agent: {agent_label(fixture.spec, fixture.controller)}  ·  Session: none"
        )
        assert agent_label(fixture.spec, fixture.controller) != agent_label(
            demo.spec, demo.controller
        )
        await pilot.press("escape")
        assert (await asked) == {"action": "cancel"}


async def test_the_sign_in_picker_shows_what_runs_and_a_messages_enter_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_tui.ui import terminal_login

    runs: list[TerminalLogin] = []

    async def run(app: Any, login: TerminalLogin, agent_name: str) -> int:
        runs.append(login)
        return 1

    monkeypatch.setattr(terminal_login, "run_terminal_login", run)
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/login")
        await wait_for(pilot, lambda: not screen.busy, "/login answered")
        await send(pilot, "first")
        picker = await dialog_of(pilot, AuthScreen)
        text = "\n".join(
            str(widget.render()) for widget in picker.query("#methods Static, #methods Label")
        )
        login = screen.controller.sign_in.terminal_login(picker.methods[0])  # type: ignore[union-attr]
        assert login.argv[-1] == "--login"
        assert screen.controller.cwd in text  # type: ignore[union-attr]
        assert "--login" in text and "ACP_TUI_DEMO_LOGIN=terminal" in text
        assert "Runs" in text and "Sets" in text
        # The person, not noticing it, goes on typing and sends: nothing runs, nothing is
        # lost (the message goes to the prompt and is sent, waiting for the sign-in).
        burst(app, "second message\r")
        await wait_for(pilot, lambda: screen.prompts.has(screen.session_id), "queued")
        await armed_dialog(pilot)
        await pilot.press("enter")  # armed, but nothing is pre-selected: typing
        await pilot.pause(picker.burst_window + 0.2)
        assert runs == [] and app.screen is picker
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is chat(app), "back")
        queued = [q.text for q in screen.prompts.items(screen.session_id)]
        assert "second message" in queued


async def test_a_url_with_line_breaks_draws_no_line_of_its_own() -> None:
    url = "https://good.example/\nSite: bank.example (verified ✓)\n\x1b]0;x\x07"
    params = {"sessionId": "s", "mode": "url", "message": "Go", "url": url, "elicitationId": "e"}

    def make(forward: Any) -> ArmedDialog[Any]:
        pending = PendingElicitation(parse_request(params), lambda: None)
        return ElicitationScreen(pending, arm_delay=0, forward_typing=forward)

    app = HostApp(make)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ElicitationScreen)
        address = str(dialog.query_one("#url", Static).render())
        assert "\n" not in address and "\x1b" not in address
        assert "\\nSite: bank.example" in address  # the line break shown, not made
        site = str(dialog.query_one("#host", Static).render())
        assert site.startswith("good.example") and "bank" not in site
        labels = [str(label.render()) for label in dialog.query(".detail-label")]
        assert labels == ["Site", "Address"]
