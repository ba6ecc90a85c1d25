"""A mode that skips the permission questions (issue 36): one Shift+Tab from "Auto" landed in
claude-agent-acp's "Bypass permissions" or Qwen Code's "YOLO" with no warning and no mark.
Now a cycling key enters such a mode only with a yes (the question arms like every dialog
that acts), "no" passes it over to the next mode that asks, and the header marks the mode
while it is in force. A pick in the mode selector is deliberate: no question, the same mark.
On the demo agent, whose "YOLO" mode really runs tools unasked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label

from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.chat_header import ChatHeader
from tests.ui.chat_helpers import armed_dialog, demo_app, send, wait_for, wait_for_session
from tests.ui.test_session_options import option_value, sent

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def mark(screen: ChatScreen) -> str:
    label = screen.query_one(ChatHeader).query_one("#mode-warning", Label)
    return str(label.render()) if label.has_class("-on") else ""


def confirm_text(app: Any) -> str:
    dialog = app.screen
    assert isinstance(dialog, ConfirmScreen)
    return "\n".join(str(widget.render()) for widget in dialog.query("Label, Static"))


async def shift_tab_to_the_question(pilot: Any, screen: ChatScreen) -> ConfirmScreen:
    assert option_value(screen, "mode") == "code"
    screen.focus_prompt()
    await pilot.press("shift+tab")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
    dialog = pilot.app.screen
    assert isinstance(dialog, ConfirmScreen)
    return dialog


async def test_shift_tab_asks_before_the_mode_and_no_passes_it_over(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await shift_tab_to_the_question(pilot, screen)
        text = confirm_text(app)
        assert "skips the permission questions" in text
        assert "YOLO" in text and "without asking first" in text  # the agent's words
        assert "Agent: " in text and "Session: " in text
        assert option_value(screen, "mode") == "code"  # nothing changed while it asks
        assert sent(screen, "session/set_config_option") == []
        await armed_dialog(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: option_value(screen, "mode") == "ask", "passed over")
        assert mark(screen) == ""


async def test_yes_enters_it_and_the_header_marks_it_while_in_force(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await shift_tab_to_the_question(pilot, screen)
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: option_value(screen, "mode") == "yolo", "the mode")
        await wait_for(pilot, lambda: "YOLO" in mark(screen), "the mark")
        # In force: the demo runs its tool without asking.
        await send(pilot, "/run echo hi")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
        assert not isinstance(app.screen, PermissionScreen)
        # Out of it (Shift+Tab on to the next mode, which asks): the mark goes.
        screen.focus_prompt()
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: option_value(screen, "mode") == "ask", "the next mode")
        await wait_for(pilot, lambda: mark(screen) == "", "the mark gone")


async def test_a_typed_burst_does_not_say_yes(tmp_path: Path) -> None:
    """The question comes up under the person's fingers: "yes, and..." typed is a message."""
    from tests.ui.test_dialog_bursts import burst

    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        dialog = await shift_tab_to_the_question(pilot, screen)
        await armed_dialog(pilot)
        burst(app, "yes and more")
        await pilot.pause(dialog.burst_window + 0.3)
        assert option_value(screen, "mode") == "code" and app.screen is dialog
        await pilot.press("escape")  # left: the mode stays what it was
        await wait_for(pilot, lambda: app.screen is screen, "back")
        await pilot.pause()
        assert option_value(screen, "mode") == "code"
        assert sent(screen, "session/set_config_option") == []


async def test_a_pick_in_the_selector_is_deliberate_and_marked(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        screen.options.choose("config:mode", "yolo")  # what the bar's select does
        await wait_for(pilot, lambda: option_value(screen, "mode") == "yolo", "the mode")
        assert not isinstance(app.screen, ConfirmScreen)
        await wait_for(pilot, lambda: "YOLO" in mark(screen), "the mark")
        screen.options.choose("config:mode", "code")
        await wait_for(pilot, lambda: mark(screen) == "", "the mark gone")
