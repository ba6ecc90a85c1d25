"""Permission rules (Ctrl+P → Permission rules): every rule, with what it decides, where it
applies, what it matches, how often it fired and when it last did; add, edit, delete and move.

The list reads the rules model (:mod:`acp_tui.ui.models.rules`); each edit goes through it
and the list is read again. Deleting a rule, and putting a project's rules file in use, ask
first (an armed :class:`~acp_tui.ui.screens.confirm.ConfirmScreen`); the editor arms its Save
(:mod:`acp_tui.ui.screens.rule_editor`). Moving a rule is at once (moving it back undoes it).
Every rule is the person's text, shown literally.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from acp_tui.session.asking.rules import Rule
from acp_tui.ui.agent_text import agent_line, agent_lines
from acp_tui.ui.keymap import key_label
from acp_tui.ui.models.rules import RuleRow, RulesModel
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import DialogOrigin
from acp_tui.ui.screens.rule_editor import RuleEditorScreen

__all__ = ["RulesScreen"]

ORDER_NOTE = (
    "Deny rules are checked first, then the others in this order; the first that matches "
    "decides (allow: the agent's allow-once option; deny: its reject-once; ask: the dialog)."
)
_FIXED = {"#": 3, "decision": 8, "fired": 5, "last": 11}
#: The theme variable each decision is drawn in (a table cell is a Rich renderable: the
#: variable is read from the app's theme when the list is drawn).
_DECISION_COLOURS = {"allow": "text-success", "deny": "text-error", "ask": "text-warning"}


class RulesTable(DataTable[Text]):
    """The rules, one a row."""


class RulesScreen(ModalScreen[None]):
    """The list of rules, over the view it was opened from."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > Vertical {
        width: 96%; max-width: 150; height: 90%; padding: 0 1;
        background: $panel; border: thick $primary;
        border-title-color: $text-primary; border-title-style: bold;
    }
    RulesScreen #rules-notes { color: $text-muted; height: auto; margin: 0 0 1 0; }
    RulesScreen #rules-problem { color: $text-error; height: auto; }
    RulesScreen RulesTable { height: 1fr; }
    RulesScreen #rules-empty { color: $text-muted; height: auto; }
    RulesScreen #hint { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="close-dialog"),
        Binding("a", "add", "Add", id="rules-add"),
        Binding("e", "edit", "Edit", id="rules-edit"),
        Binding("d,delete", "delete", "Delete", id="rules-delete"),
        Binding("shift+up", "move(-1)", "Move up", id="rules-move-up"),
        Binding("shift+down", "move(1)", "Move down", id="rules-move-down"),
        Binding("t", "trust", "Accept the project's file", id="rules-accept"),
    ]

    def __init__(self, model: RulesModel, *, origin: DialogOrigin | None = None) -> None:
        super().__init__()
        self.model = model
        self.origin = origin
        self._rows: list[RuleRow] = []

    def compose(self) -> ComposeResult:
        box = Vertical()
        box.border_title = "Permission rules"
        with box:
            yield Static(Text(ORDER_NOTE), id="rules-order")
            yield Static("", id="rules-notes")
            yield Static("", id="rules-problem")
            yield RulesTable(cursor_type="row", zebra_stripes=True, id="rules-table")
            yield Static(
                Text("No rules yet: a (add), or choose “Always allow…” in a permission dialog."),
                id="rules-empty",
            )
            yield Static(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.query_one("#rules-problem").display = False
        self.reload()
        self.query_one(RulesTable).focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def on_resize(self, event: events.Resize) -> None:
        self.reload(keep=self.current)

    def _key(self, action: str, fallback: str) -> str:
        return key_label(self, action, fallback)

    def _hint_text(self) -> KeyHints:
        hints = [
            f"{self._key('rules-add', 'a')} add",
            f"{self._key('rules-edit', 'e')}/Enter edit",
            f"{self._key('rules-delete', 'd')} delete",
            f"{self._key('rules-move-up', 'Shift+↑')}/{self._key('rules-move-down', 'Shift+↓')} move",
        ]
        if self.model.can_trust():
            hints.append(f"{self._key('rules-accept', 't')} accept the project's file")
        hints.append(f"{self._key('close-dialog', 'Esc')} close")
        return KeyHints(hints)

    # -- the list --

    @property
    def current(self) -> Rule | None:
        table = self.query_one(RulesTable)
        if not self._rows or table.cursor_row < 0 or table.cursor_row >= len(self._rows):
            return None
        return self._rows[table.cursor_row].rule

    def reload(self, keep: Rule | None = None) -> None:
        """Read the rules again and show them (the cursor on ``keep`` when it is there)."""
        self._rows = self.model.rows()
        notes = self.model.notes()
        self.query_one("#rules-notes", Static).update(agent_lines("\n".join(notes)))
        self.query_one("#hint", Static).update(self._hint_text())
        table = self.query_one(RulesTable)
        table.clear(columns=True)
        width = max(40, table.size.width or self.size.width - 6)
        rest = max(20, width - sum(_FIXED.values()) - 2 * 6)
        scope_width = min(28, rest // 3)
        match_width = max(12, rest - scope_width)
        table.add_column("#", width=_FIXED["#"])
        table.add_column("Decision", width=_FIXED["decision"])
        table.add_column("Scope", width=scope_width)
        table.add_column("Match", width=match_width)
        table.add_column("Fired", width=_FIXED["fired"])
        table.add_column("Last fired", width=_FIXED["last"])
        numbers: dict[str, int] = {}
        for row in self._rows:
            numbers[row.where] = numbers.get(row.where, 0) + 1
            muted = "" if row.in_use else "dim"
            decision = row.decision + ("" if row.in_use else " (off)")
            table.add_row(
                Text(str(numbers[row.where]), style=muted),
                agent_line(decision, 20, style=self._decision_style(row.decision, muted)),
                agent_line(row.scope, scope_width, style=muted),
                agent_line(row.match, match_width, style=muted),
                Text(row.fired, style=muted, justify="right"),
                Text(row.last, style=muted),
            )
        self.query_one("#rules-empty").display = not self._rows
        table.display = bool(self._rows)
        if keep is not None:
            for index, row in enumerate(self._rows):
                if row.rule == keep and row.rule.source == keep.source:
                    table.move_cursor(row=index)
                    break

    def _decision_style(self, decision: str, muted: str) -> str:
        colour = self.app.theme_variables.get(_DECISION_COLOURS.get(decision, ""), "")
        return " ".join(part for part in ("bold", colour, muted) if part)

    def _theme_changed(self) -> None:
        """Drawn again in the colours of a new theme."""
        self.reload(keep=self.current)

    def _problem(self, text: str | None) -> None:
        problem = self.query_one("#rules-problem", Static)
        problem.update(agent_lines(text or ""))
        problem.display = bool(text)
        if text:
            self.app.bell()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "trust":
            return self.model.can_trust()
        return True

    # -- actions --

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def _editor(self, rule: Rule, heading: str, old: Rule | None) -> RuleEditorScreen:
        in_project = (
            old is not None and old.source is not None and old.source != self.model.book.user_file
        )
        project = self.model.project

        def save(values: dict[str, str], to_project: bool) -> str | None:
            checked = self.model.check(values, in_project=to_project)
            if isinstance(checked, str):
                return checked
            if old is None:
                return self.model.add(checked, in_project=to_project)
            return self.model.change(old, checked, in_project=to_project)

        return RuleEditorScreen(
            rule,
            save,
            heading=heading,
            in_project=in_project,
            project_label=str(project / ".acp-tui" / "rules.toml") if project else None,
            origin=self.origin,
        )

    def action_add(self) -> None:
        project = self.model.project
        draft = Rule("allow", project=str(project) if project else None)
        self.app.push_screen(self._editor(draft, "New rule", None), lambda _: self.reload())

    def action_edit(self) -> None:
        rule = self.current
        if rule is None:
            return
        self.app.push_screen(
            self._editor(rule, "Edit rule", rule), lambda _: self.reload(keep=rule)
        )

    def action_delete(self) -> None:
        rule = self.current
        if rule is None:
            return
        from acp_tui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._problem(self.model.remove(rule))
            self.reload()

        self.app.push_screen(
            ConfirmScreen(
                "Delete rule",
                f"Delete the rule “{rule.decision}: {rule.describe()}”?",
                "Delete",
                origin=self.origin,
            ),
            answered,
        )

    def action_move(self, step: int) -> None:
        rule = self.current
        if rule is None:
            return
        self._problem(self.model.move(rule, step))
        self.reload(keep=rule)

    def action_trust(self) -> None:
        if not self.model.can_trust():
            return
        from acp_tui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._problem(self.model.trust())
            self.reload()

        project = self.model.project
        self.app.push_screen(
            ConfirmScreen(
                "Use this project's rules",
                f"Apply the rules of {project}/.acp-tui/rules.toml as they are now (listed "
                "here, marked off)? acp-tui stops applying them again if the file changes.",
                "Use them",
                origin=self.origin,
            ),
            answered,
        )
