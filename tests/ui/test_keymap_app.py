"""Configured keys in the running app (issue 21): a remapped key runs its action and the old one
no longer does; the footer, the status line, the palette and the permission dialog's hints show
the keys as configured; the dialog's gate and its way out hold with any keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.keymap import key_label
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.status_line import StatusLine
from tests.ui.chat_helpers import (
    chat,
    demo_app,
    fixture_app,
    send,
    settle,
    wait_for,
    wait_for_ready,
)
from tests.ui.test_permission_arming import opened
from tests.ui.test_permission_dialog import DialogApp, edit_params, wait_armed

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def footer_keys(app: AcpTuiApp) -> dict[str, str]:
    """What the footer shows: key display -> description."""
    footer = app.screen.query_one(KeyFooter)
    return {key.key_display: key.description for key in footer.entries}


def inside_sidebar(screen: ChatScreen) -> bool:
    focused = screen.focused
    return focused is not None and screen.query_one(SessionsSidebar) in focused.ancestors_with_self


async def test_a_remapped_key_runs_its_action_the_old_one_does_not_and_the_footer_shows_it(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path, keymap={"new-session": "ctrl+k", "sessions-sidebar": "f2"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(pilot, lambda: "^k" in footer_keys(app), "the footer to show ^k")
        shown = footer_keys(app)
        assert shown["^k"] == "New session" and shown["f2"] == "Sessions"
        assert "^n" not in shown and "^b" not in shown
        # The old keys do nothing now.
        await pilot.press("ctrl+n", "ctrl+b")
        await settle(pilot, answered=True)
        assert screen.session_id is None
        assert not inside_sidebar(screen)
        # The new ones do what the old ones did.
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: chat(app).session_id is not None, "a new session")
        await pilot.press("f2")
        await wait_for(pilot, lambda: inside_sidebar(screen), "the sidebar focused")
        await pilot.press("f2")
        await wait_for(pilot, lambda: not inside_sidebar(screen), "back to the prompt")


async def test_the_key_panel_lists_the_configured_keys(tmp_path: Path) -> None:
    """Textual's key panel (palette → Keys) is the app's help on keys."""
    from textual.widgets._key_panel import BindingsTable

    app = fixture_app(tmp_path, keymap={"new-session": "ctrl+k", "latest-output": "f8"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        app.action_show_help_panel()
        await wait_for(pilot, lambda: bool(screen.query(BindingsTable)), "the key panel")
        table = screen.query_one(BindingsTable).render_bindings_table()
        rows = [
            (str(key).strip(), str(what).strip())
            for key, what in zip(table.columns[0].cells, table.columns[1].cells, strict=True)
        ]
        assert ("^k", "New session") in rows and ("f8", "Output") in rows
        assert not any(key in ("^n", "^o") for key, _ in rows)


async def test_the_configured_key_wins_a_key_it_shares_in_one_place(tmp_path: Path) -> None:
    """As resolve_keymap reports it: latest-output takes Ctrl+T from latest-thought."""
    app = fixture_app(tmp_path, keymap={"latest-output": "ctrl+t"})
    notes: list[str] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_ready(pilot)
        app.notify = lambda message, **_: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: bool(notes), "a notice")
        assert notes == ["No tool call in this session yet."]
        # What the app says follows: the thought has no key left.
        screen = chat(app)
        assert key_label(screen, "latest-output") == "Ctrl+T"
        assert key_label(screen, "latest-thought") == "(no key)"


async def test_a_key_taken_from_restart_is_not_offered_for_restarting(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, keymap={"copy-reply": "ctrl+r"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        assert "Ctrl+R" not in screen.model.restart_key()
        assert screen.model.restart_key() == "the palette's Restart agent"


async def test_cancel_is_the_configured_key_and_the_status_line_says_so(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state", keymap={"cancel-turn": "ctrl+g"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "/slow 30")
        status = screen.query_one(StatusLine).query_one("#status")

        def status_text() -> str:
            return str(status.render())

        await wait_for(pilot, lambda: "working" in status_text(), "the turn to run")
        assert "(Ctrl+G to cancel)" in status_text()
        assert "^g" in footer_keys(app) and "esc" not in footer_keys(app)
        await pilot.press("escape")
        await settle(pilot)  # (the prompt's answer comes when the turn ends)
        assert screen.busy and "cancelling" not in status_text()
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: not chat(app).busy, "the turn cancelled")


async def test_the_palette_key_and_its_entries_show_the_configured_keys(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, keymap={"command-palette": "f4", "new-session": "alt+n"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(pilot, lambda: "f4" in footer_keys(app), "the palette key in the footer")
        assert "^p" not in footer_keys(app)
        helps = {command.title: command.help for command in screen.palette_commands()}
        assert helps["New session"].endswith("(Alt+N)")
        assert helps["Toggle sessions sidebar"].endswith("(Ctrl+B)")
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("f4")
        await wait_for(pilot, lambda: app.screen is not screen, "the palette")


# --- the permission dialog ------------------------------------------------------------------


def dialog_app(keymap: dict[str, str], arm_delay: float) -> DialogApp:
    app = DialogApp(edit_params(), arm_delay=arm_delay)
    app.set_keymap(keymap)
    return app


def hint(dialog: PermissionScreen) -> str:
    return str(dialog.query_one("#hint", Static).content)


async def test_the_dialog_answers_with_its_configured_keys_through_the_gate() -> None:
    keymap = {"permission-choose": "o", "permission-down": "j"}
    app = dialog_app(keymap, arm_delay=30.0)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        # Typing before the dialog arms is typing, even with an option highlighted.
        await pilot.press("down", "j", "o")
        await pilot.pause()
        assert app.results == [] and app.screen is dialog
        assert [text for _, text in app.typed] == ["j", "o"]
    app = dialog_app(keymap, arm_delay=0.2)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        await wait_armed(pilot, dialog)
        assert "↑j + o" in hint(dialog)
        await pilot.press("j", "enter")  # a letter followed at once is typing, Enter with it
        await pilot.pause()
        assert app.results == [] and dialog.highlighted is None
        assert app.typed == [("j", "j"), ("enter", "")]
        await wait_armed(pilot, dialog)  # (someone typing is not answering: it arms again)
        await pilot.press("j")  # alone: it moves once the burst window has passed
        await wait_for(pilot, lambda: dialog.highlighted == 0, "the move")
        await pilot.press("o")  # on the option moved to: at once
        await pilot.pause()
        assert app.results == ["allow"]


async def test_the_configured_reject_key_says_no_at_once_and_escape_no_longer_does() -> None:
    app = dialog_app({"permission-reject": "ctrl+g"}, arm_delay=30.0)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        assert "Ctrl+G reject" in hint(dialog) and "Esc" not in hint(dialog)
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [] and app.screen is dialog
        await pilot.press("ctrl+g")  # not armed: a "no" is never an accident
        await pilot.pause()
        assert app.results == ["reject"]


async def test_a_reject_key_that_types_is_typing_until_the_dialog_arms() -> None:
    app = dialog_app({"permission-reject": "n"}, arm_delay=30.0)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        assert app.results == [] and app.typed == [("n", "n")] and app.screen is dialog
    app = dialog_app({"permission-reject": "n"}, arm_delay=0.2)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        await wait_armed(pilot, dialog)
        await pilot.press("n")  # armed, and alone: it rejects
        await wait_for(pilot, lambda: bool(app.results), "the answer")
        assert app.results == ["reject"]


async def test_the_dialogs_hints_follow_the_keymap_everywhere() -> None:
    keymap: dict[str, Any] = {
        "permission-up": "k",
        "permission-down": "j",
        "permission-raw": "v",
        "permission-scroll-up": "ctrl+u",
        "permission-scroll-down": "ctrl+d",
    }
    app = dialog_app(keymap, arm_delay=0.0)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await opened(app, pilot)
        text = hint(dialog)
        assert "kj + Enter" in text and "v raw input" in text and "Ctrl+U/Ctrl+D scroll" in text
        assert "Raw input (v to show)" in str(dialog.query_one("#raw-toggle").render())
        await pilot.press("v")
        await pilot.pause()
        assert dialog.show_raw


# --- the prompt ----------------------------------------------------------------------------


async def test_send_and_new_line_are_the_configured_keys_and_the_placeholder_says_so() -> None:
    from tests.ui.test_prompt import PromptApp, _editor, _type

    app = PromptApp()
    app.set_keymap({"prompt-send": "alt+enter", "prompt-newline": "enter"})
    async with app.run_test(size=(100, 20)) as pilot:
        editor = _editor(app)
        assert editor.text_area.placeholder == (
            "Message the agent · Alt+Enter to send · Enter for a new line"
        )
        await _type(pilot, "one")
        await pilot.press("enter")
        await _type(pilot, "two")
        await pilot.press("ctrl+j")  # not a new line any more (nor anything else here)
        await pilot.pause()
        assert app.submitted == [] and editor.text == "one\ntwo"
        await pilot.press("alt+enter")
        await pilot.pause()
        assert [message.text for message in app.submitted] == ["one\ntwo"]
        assert editor.text == ""
        # A slash command's list still completes with Enter and Tab.
        await _type(pilot, "/pla")
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text.startswith("/plan")


def test_the_default_placeholder_names_the_default_keys() -> None:
    from acp_tui.ui.widgets.prompt import PromptEditor

    assert PromptEditor().text_area.placeholder == (
        "Message the agent · Enter to send · Shift+Enter or Ctrl+J for a new line"
    )
