"""Permission rules in the app, on real agents (the demo agent and the official SDK's): a rule
made from the dialog answers the next matching request with no dialog, says so in the
transcript and survives a restart; deny beats allow; a broad rule never answers a request
outside the project; the rules screen edits and deletes; a malformed file is said and applies
nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from acp_tui.config import locations
from acp_tui.store.entries import AgentMessage, Notice
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.rule_editor import RuleEditorScreen
from acp_tui.ui.screens.rules import RulesScreen, RulesTable
from tests.ui.chat_helpers import (
    AGENTS,
    agent_app,
    armed_dialog,
    chat,
    demo_app,
    record_notifications,
    run_palette_command,
    send,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]


def rules_file() -> Path:
    return locations.rules_file()


def write_rules(text: str) -> None:
    rules_file().parent.mkdir(parents=True, exist_ok=True)
    rules_file().write_text(text)


def notices(screen: ChatScreen) -> list[str]:
    state = screen.store.get(screen.session_id or "")
    return [e.title for e in state.transcript if isinstance(e, Notice)] if state else []


def replies(screen: ChatScreen) -> list[str]:
    state = screen.store.get(screen.session_id or "")
    return [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []


def asked(app: AcpTuiApp) -> list[PermissionScreen]:
    """Every permission dialog the app shows from now on."""
    shown: list[PermissionScreen] = []
    push = app.push_screen

    def recording(screen: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(screen, PermissionScreen):
            shown.append(screen)
        return push(screen, *args, **kwargs)

    app.push_screen = recording  # type: ignore[method-assign]
    return shown


async def turn_over(pilot: Any, screen: ChatScreen, reply: str) -> None:
    await wait_for(
        pilot,
        lambda: not screen.busy and any(reply in text for text in replies(screen)),
        f"a reply with {reply!r}",
    )


async def make_rule_from_dialog(pilot: Any, key: str) -> RuleEditorScreen:
    """The dialog's "Always allow/deny…": the editor, pre-filled; saved once armed."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed,
        "an armed permission dialog",
    )
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, RuleEditorScreen), "the rule editor")
    editor = app.screen
    assert isinstance(editor, RuleEditorScreen)
    return editor


async def save(pilot: Any, editor: RuleEditorScreen) -> None:
    await armed_dialog(pilot)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: pilot.app.screen is not editor, "the editor to close")


async def test_a_rule_from_the_dialog_answers_the_next_request_of_the_demo_agent(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        shown = asked(app)
        await send(pilot, "/run echo first")
        editor = await make_rule_from_dialog(pilot, "a")
        values = editor.values()
        assert values["kind"] == "execute" and values["command"] == "echo first*"
        assert values["decision"] == "allow" and values["project"] == str(tmp_path)
        await save(pilot, editor)
        await turn_over(pilot, screen, "first")
        assert f"Allowed by rule: execute `echo first*` in {tmp_path} — Run `echo first`" in (
            notices(screen)
        )
        await send(pilot, "/run echo first again")
        await turn_over(pilot, screen, "first again")
        assert len(shown) == 1  # no dialog the second time
        assert sum("Allowed by rule" in n for n in notices(screen)) == 2
        # What the rule does not cover is asked.
        await send(pilot, "/run echo first; echo second")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "a dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
    # A restart: a new app reads the rule from its file.
    again = demo_app(tmp_path, tmp_path / "state")
    async with again.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        shown = asked(again)
        await send(pilot, "/run echo first, after a restart")
        await turn_over(pilot, screen, "after a restart")
        assert shown == []
        assert any(n.startswith("Allowed by rule") for n in notices(screen))


async def test_a_rule_from_the_dialog_answers_the_sdk_agent_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    app = agent_app(SDK_AGENT, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        shown = asked(app)
        await send(pilot, "needs permission")
        editor = await make_rule_from_dialog(pilot, "a")
        # A request with no command and no files: its kind and title.
        assert editor.values()["kind"] == "edit"
        assert editor.values()["title"] == "Edit src/app.py"
        await save(pilot, editor)
        await turn_over(pilot, screen, "outcome: allow")  # allow_once, not "always"
        await send(pilot, "permission again")
        await wait_for(
            pilot,
            lambda: not screen.busy and replies(screen).count("outcome: allow") == 2,
            "the second answer",
        )
        assert len(shown) == 1
        assert sum(n.startswith("Allowed by rule: edit titled") for n in notices(screen)) == 2
    again = agent_app(SDK_AGENT, tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        shown = asked(again)
        await send(pilot, "permission after restart")
        await turn_over(pilot, screen, "outcome: allow")
        assert shown == []


async def test_always_deny_from_the_dialog_rejects_once(tmp_path: Path) -> None:
    app = agent_app(SDK_AGENT, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "needs permission")
        editor = await make_rule_from_dialog(pilot, "d")
        assert editor.values()["decision"] == "deny"
        await save(pilot, editor)
        await turn_over(pilot, screen, "outcome: reject")
        assert any(n.startswith("Denied by rule: edit") for n in notices(screen))
        assert 'decision = "deny"' in rules_file().read_text()


async def test_a_rule_that_does_not_fit_keeps_the_editor_open(tmp_path: Path) -> None:
    app = agent_app(SDK_AGENT, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "needs permission")
        editor = await make_rule_from_dialog(pilot, "a")
        field = editor.query_one("#field-kind", Input)
        field.value = "edit, exec"
        await armed_dialog(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is editor
        problem = str(editor.query_one("#rule-problem").render())
        assert "unknown kind 'exec'" in problem
        assert not rules_file().exists()
        await pilot.press("escape")  # back to the dialog, which still asks
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        await pilot.press("escape")
        await turn_over(pilot, screen, "outcome: reject")


async def test_a_deny_rule_wins_over_an_allow_rule(tmp_path: Path) -> None:
    write_rules(
        '[[rule]]\ndecision = "allow"\nkind = "edit"\n\n'
        '[[rule]]\ndecision = "deny"\ntitle = "Edit src/*"\n'
    )
    app = agent_app(SDK_AGENT, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        shown = asked(app)
        await send(pilot, "needs permission")
        await turn_over(pilot, screen, "outcome: reject")
        assert shown == []
        assert any(
            n.startswith("Denied by rule: any tool titled `Edit src/*`") for n in notices(screen)
        )


async def test_a_broad_rule_never_answers_outside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    write_rules(
        '[[rule]]\ndecision = "allow"\n\n[[rule]]\ndecision = "allow"\nkind = "edit"\n'
        'paths = "**"\n'
    )
    app = demo_app(project, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        # Inside: the rule answers.
        await send(pilot, "/edit inside.txt")
        await turn_over(pilot, screen, "Wrote")
        assert (project / "inside.txt").exists()
        # Outside: the client's own question (reading a file outside), then the agent's
        # request: both asked, whatever the broad rules say.
        await send(pilot, "/edit ../outside.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the outside question")
        await armed_dialog(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")
        assert not (tmp_path / "outside.txt").exists()


async def test_a_rule_naming_the_question_answers_it(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (tmp_path / "notes.txt").write_text("notes\n")
    write_rules(
        f'[[rule]]\ndecision = "allow"\nkind = "read-outside"\npaths = "{tmp_path}/notes.txt"\n'
    )
    app = demo_app(project, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/edit ../notes.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        assert any(n.startswith("Allowed by rule: read-outside") for n in notices(screen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the turn over")


async def test_the_rules_screen_edits_moves_and_deletes(tmp_path: Path) -> None:
    write_rules(
        '[[rule]]\ndecision = "allow"\nkind = "execute"\ncommand = "make*"\n\n'
        '[[rule]]\ndecision = "deny"\nkind = "delete"\n'
    )
    app = agent_app(SDK_AGENT, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await run_palette_command(pilot, "Permission rules")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules screen")
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        table = rules.query_one(RulesTable)
        assert table.row_count == 2
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[1] == "allow" and row[2] == "everywhere" and "`make*`" in row[3]
        assert row[4] == "0" and row[5] == "never"
        # Edit the first: its command.
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, RuleEditorScreen), "the editor")
        editor = app.screen
        assert isinstance(editor, RuleEditorScreen)
        editor.query_one("#field-command", Input).value = "make test*"
        await save(pilot, editor)
        assert 'command = "make test*"' in rules_file().read_text()
        assert "`make test*`" in str(table.get_row_at(0)[3])
        # Move it down: the file's order changes.
        await pilot.press("shift+down")
        await pilot.pause()
        text = rules_file().read_text()
        assert text.index('decision = "deny"') < text.index('decision = "allow"')
        assert table.cursor_row == 1
        # Delete it (asks first).
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is rules, "back to the list")
        assert "make" not in rules_file().read_text()
        assert table.row_count == 1
        # Add one.
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, RuleEditorScreen), "the editor")
        editor = app.screen
        assert isinstance(editor, RuleEditorScreen)
        editor.query_one("#field-kind", Input).value = "read, search"
        await save(pilot, editor)
        assert 'kind = ["read", "search"]' in rules_file().read_text()
        assert table.row_count == 2


async def test_a_malformed_rules_file_is_said_and_applies_nothing(tmp_path: Path) -> None:
    write_rules('[[rule]]\ndecision = "allow"\nkind = "edit"\n\n[[rule]]\ndecision = "alow"\n')
    app = agent_app(SDK_AGENT, tmp_path)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: any("rules.toml, line 6" in s for s in seen), "the toast")
        assert any("None of its rules apply" in s for s in seen)
        await send(pilot, "needs permission")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        await pilot.press("escape")
        await turn_over(pilot, screen, "outcome: reject")
        # The app will not rewrite a file it cannot read.
        await run_palette_command(pilot, "Permission rules")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules screen")
        notes = str(app.screen.query_one("#rules-notes").render())
        assert "line 6" in notes
        assert chat  # the helper stays imported for the next test writer
