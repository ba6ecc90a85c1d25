"""The rules' screens on their own: the dialog's rule rows pass the arming gate like its
options; the editor saves only once armed and says what is wrong; the rules list; their look
(snapshots)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static

from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.asking.rules import Decision, Rule
from acp_tui.ui.models.rules import RulesModel
from acp_tui.ui.screens.armed import DialogOrigin
from acp_tui.ui.screens.permission import PermissionOptions, PermissionScreen, RuleOffer
from acp_tui.ui.screens.rule_editor import RuleEditorScreen
from acp_tui.ui.screens.rules import RulesScreen, RulesTable
from tests.ui.test_permission_dialog import shell_params, wait_armed

pytestmark = pytest.mark.anyio

ORIGIN = DialogOrigin("demo agent", "Fix the tests")


class Host(App[None]):
    """Pushes one screen on mount; keeps what it was dismissed with."""

    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make
        self.results: list[Any] = []
        self.shown: Screen[Any] | None = None

    def compose(self) -> ComposeResult:
        yield Static("the chat would be here")

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.shown = self.make()
        self.push_screen(self.shown, callback=self.results.append)


def dialog_with_offer(made: list[Decision], arm_delay: float | None = 0.3) -> PermissionScreen:
    return PermissionScreen(
        shell_params(),
        offer=RuleOffer(make=made.append, note="Asked by rule: execute `git push*` everywhere"),
        origin=ORIGIN,
        arm_delay=arm_delay,
        forward_typing=lambda key, text: None,
    )


async def test_a_rule_row_opens_the_editor_only_once_armed() -> None:
    made: list[Decision] = []
    typed: list[str] = []
    app = Host(lambda: dialog_with_offer(made, arm_delay=30.0))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        dialog = app.shown
        assert isinstance(dialog, PermissionScreen)
        dialog.forward_typing = lambda key, text: typed.append(text)
        await pilot.press("a")
        await pilot.pause(0.5)
        assert made == [] and typed == ["a"]  # typing, for the prompt
        dialog.arm_delay = 0.05
        dialog._arm_later()
        await wait_armed(pilot, dialog)
        await pilot.press("d")
        await pilot.pause(dialog.burst_window + 0.3)
        assert made == ["deny"]
        # The rows follow the options: the arrows reach them (End stops at the agent's last
        # option), Enter opens the editor.
        await pilot.press("end", "down", "down", "enter")
        await pilot.pause()
        assert made == ["deny", "deny"]
        await pilot.press("up", "enter")
        await pilot.pause()
        assert made == ["deny", "deny", "allow"]
        assert not dialog.answered  # the dialog waits for the rule


async def test_a_click_on_a_rule_row_passes_the_gate() -> None:
    made: list[Decision] = []
    app = Host(lambda: dialog_with_offer(made, arm_delay=0.0))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        dialog = app.shown
        assert isinstance(dialog, PermissionScreen)
        options = dialog.query_one(PermissionOptions)
        top = 1 if options.styles.border_top[0] else 0
        await pilot.click(options, offset=(30, top + len(dialog.options)))
        await pilot.pause()
        assert made == ["allow"]


async def test_no_offer_no_rows_and_letters_type() -> None:
    app = Host(lambda: PermissionScreen(shell_params(), arm_delay=0.0))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        dialog = app.shown
        assert isinstance(dialog, PermissionScreen)
        assert dialog.query_one(PermissionOptions).option_count == len(dialog.options)
        assert not dialog.query("#rule-note")


async def test_the_editor_saves_once_armed_and_says_what_is_wrong() -> None:
    saved: list[tuple[dict[str, str], bool]] = []

    def save(values: dict[str, str], to_project: bool) -> str | None:
        if "exec" in values["kind"].split(", "):
            return "rule 1: unknown kind 'exec'"
        saved.append((values, to_project))
        return None

    rule = Rule("allow", kinds=("execute",), command="npm test*", project="/home/me/app")
    app = Host(
        lambda: RuleEditorScreen(
            rule, save, project_label="/home/me/app/.acp-tui/rules.toml", arm_delay=30.0
        )
    )
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        editor = app.shown
        assert isinstance(editor, RuleEditorScreen)
        assert isinstance(editor.focused, Input) and editor.focused.id == "field-kind"
        await pilot.press(",", "space", "e", "x", "e", "c")  # typing goes to the field
        await pilot.press("ctrl+s")  # not armed: nothing saved
        await pilot.pause()
        assert saved == [] and app.screen is editor
        editor.arm_delay = 0.05
        editor._arm_later()
        await pilot.pause(0.3)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "unknown kind 'exec'" in str(editor.query_one("#rule-problem").render())
        editor.query_one("#field-kind", Input).value = "execute"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert saved and saved[0][0]["command"] == "npm test*" and saved[0][1] is False
        assert app.results == [rule]


# ---------------------------------------------------------------------------------- the look

SNAP_DIR = Path("/tmp/acp-tui-rules-snapshot")


def snapshot_book() -> RuleBook:
    shutil.rmtree(SNAP_DIR, ignore_errors=True)
    book = RuleBook(SNAP_DIR / "rules.toml", SNAP_DIR / "state.json", clock=lambda: 1_000_000.0)
    book.add(Rule("allow", kinds=("execute",), command="npm test*", project="/home/me/app"))
    fired = book.add(Rule("deny", kinds=("execute",), command="git push*"))
    book.add(Rule("allow", kinds=("read", "search"), paths=("src/**", "docs/*.md")))
    book.add(Rule("ask", kinds=("edit",), paths=(".github/**",), project="/home/me/app"))
    for _ in range(3):
        book.fired(fired)
    return book


def test_snapshot_dialog_with_rule_rows(snap_compare: Any) -> None:
    """The long shell command's dialog, a warning-coloured line under the title "Asked by rule:
    execute `git push*` everywhere", the three options, then "a  ✓ rule  Always allow this for
    this project…" (green mark) and "d  ✗ rule  Always deny…" (red), and in the hint
    "a/d always allow/deny… (a rule)"."""

    async def armed(pilot: Any) -> None:
        await pilot.pause()
        dialog = pilot.app.shown
        await wait_armed(pilot, dialog)

    app = Host(lambda: dialog_with_offer([], arm_delay=None))
    assert snap_compare(app, terminal_size=(100, 32), run_before=armed)


def test_snapshot_rule_editor(snap_compare: Any) -> None:
    """ "Always allow…" in the border, the origin line, Decision "allow", Kinds "execute",
    Command "npm test*", the empty fields with their placeholders in dim text, Project
    "/home/me/app", "Save in" your rules, the sentence about the rule, Cancel and Save, and the
    hint "Ctrl+S save · Enter next field · Esc cancel"; the cursor at the end of "execute"
    (it does not blink here: a blink made the picture differ from run to run)."""

    async def armed(pilot: Any) -> None:
        await pilot.pause()
        await wait_armed(pilot, pilot.app.shown)
        for field in pilot.app.shown.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    rule = Rule("allow", kinds=("execute",), command="npm test*", project="/home/me/app")
    app = Host(
        lambda: RuleEditorScreen(
            rule,
            lambda values, to_project: None,
            heading="Always allow…",
            about="Requests like this one will be allowed without asking (once each).",
            project_label="/home/me/app/.acp-tui/rules.toml",
            origin=ORIGIN,
            arm_delay=None,
        )
    )
    assert snap_compare(app, terminal_size=(100, 32), run_before=armed)


def test_snapshot_rules_list(snap_compare: Any) -> None:
    """ "Permission rules": the order sentence, "Your rules: /tmp/acp-tui-rules-snapshot/
    rules.toml", and four rows: allow (green) /home/me/app execute `npm test*` 0 never; deny
    (red) everywhere execute `git push*` 3 and a date; allow everywhere read/search `src/**`,
    `docs/*.md`; ask /home/me/app edit `.github/**`; the key hints at the bottom."""
    book = snapshot_book()
    model = RulesModel(book, lambda: None, now=lambda: 1_000_000.0 + 7 * 86400)
    app = Host(lambda: RulesScreen(model))
    assert snap_compare(app, terminal_size=(110, 24))


async def test_the_list_shows_counts_and_a_project_file_not_in_use(tmp_path: Path) -> None:
    book = RuleBook(tmp_path / "rules.toml", tmp_path / "state.json")
    project = tmp_path / "proj"
    (project / ".acp-tui").mkdir(parents=True)
    (project / ".acp-tui" / "rules.toml").write_text('[[rule]]\ndecision = "allow"\n')
    model = RulesModel(book, lambda: project)
    app = Host(lambda: RulesScreen(model))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        screen = app.shown
        assert isinstance(screen, RulesScreen)
        table = screen.query_one(RulesTable)
        assert table.row_count == 1
        assert str(table.get_row_at(0)[1]) == "allow (off)"
        notes = str(screen.query_one("#rules-notes").render())
        assert "not in use" in notes
        await pilot.press("t")
        await pilot.pause()
        from acp_tui.ui.screens.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
