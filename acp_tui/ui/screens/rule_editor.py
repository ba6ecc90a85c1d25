"""The rule editor: one permission rule as fields, checked and saved by the rules model.

Opened from the permission dialog ("Always allow this for this project…", pre-filled with a
rule for the request) and from the rules screen (add, edit). What arms is the saving
(:mod:`acp_tui.ui.screens.armed`): Ctrl+S or the Save button only once the dialog is armed.
Opened over a question (``forward_typing`` given), it is the arming gate's: until it arms
nothing in it has the focus and what the person types goes on to the prompt beneath, as in
every dialog that pops up while they may be typing; once armed the first field has the focus.
From the rules screen (nothing asked) the first field has the focus at once. Enter moves to
the next field; Escape leaves it at any time, saving nothing.

A rule that is not one (an unknown kind, a relative project) is said under the fields, with
the field's name, and nothing is saved; so is a file that cannot be written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Select, Static

from acp_tui.session.asking.rules import DECISIONS, Rule
from acp_tui.ui.agent_text import agent_lines
from acp_tui.ui.keymap import key_label
from acp_tui.ui.models.rules import FORM_FIELDS, form_of
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedButton,
    ArmedDialog,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
)
from acp_tui.ui.textual_patches import access
from acp_tui.ui.widgets.safe_input import SafeInput

__all__ = ["RuleEditorScreen", "SaveRule"]

#: Saves what the editor holds: ``(rule or the fields' problem, in the project's file)`` ->
#: None when saved, else what went wrong (said under the fields).
SaveRule = Callable[[dict[str, str], bool], str | None]

SAVE = "save"
CANCEL = "cancel"
USER_FILE = "user"
PROJECT_FILE = "project"


class RuleEditorScreen(ArmedDialog[Rule]):
    """Dismisses with True once saved; None when left."""

    DEFAULT_CSS = """
    RuleEditorScreen { align: center middle; }
    RuleEditorScreen > Vertical {
        width: 90; max-width: 98%; height: auto; max-height: 100%; padding: 0 1;
        background: $panel; border: thick $primary;
        border-title-color: $text-primary; border-title-style: bold;
    }
    RuleEditorScreen #origin { margin: 0 0 1 0; }
    RuleEditorScreen .row { height: 1; margin: 0 0 0 0; }
    RuleEditorScreen .row > Label { width: 10; color: $text-muted; }
    RuleEditorScreen .row > Input { width: 1fr; }
    RuleEditorScreen .row > Select { width: 1fr; }
    RuleEditorScreen #rule-about { color: $text-muted; margin: 1 0 0 0; }
    RuleEditorScreen #rule-problem { color: $text-error; height: auto; }
    RuleEditorScreen #buttons { height: 1; margin: 1 0 0 0; align-horizontal: right; }
    RuleEditorScreen ArmedButton { margin: 0 0 0 2; }
    RuleEditorScreen #hint { color: $text-muted; }
    RuleEditorScreen.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="close-dialog"),
        Binding("ctrl+s", "save", "Save", id="rule-save"),
        # Taken as the app reads it (a priority binding), not once it bubbled up from the
        # field: by then the keys typed right after it were handed to the field it left.
        Binding(
            "enter", "next_field", "Next field", show=False, priority=True, id="rule-next-field"
        ),
    ]
    AUTO_FOCUS = ""

    def __init__(
        self,
        rule: Rule,
        save: SaveRule,
        *,
        heading: str = "Permission rule",
        about: str = "",
        in_project: bool = False,
        project_label: str | None = None,
        origin: DialogOrigin | None = None,
        arm_delay: float | None = None,
        forward_typing: TypingForwarder | None = None,
    ) -> None:
        super().__init__(origin=origin, arm_delay=arm_delay, forward_typing=forward_typing)
        self.rule = rule
        self.save = save
        self.heading = heading
        self.about = about
        self.in_project = in_project
        #: The project's file as the person reads it (None: no project to write to).
        self.project_label = project_label
        self.saved = False

    def compose(self) -> ComposeResult:
        values = form_of(self.rule)
        box = Vertical()
        box.border_title = self.heading
        with box:
            yield self.origin_line()
            with Horizontal(classes="row"):
                yield Label("Decision")
                yield Select(
                    [(f"{d}", d) for d in DECISIONS],
                    value=self.rule.decision,
                    allow_blank=False,
                    compact=True,
                    id="field-decision",
                )
            for key, label, placeholder in FORM_FIELDS:
                if key == "project" and self.in_project:
                    continue
                with Horizontal(classes="row"):
                    yield Label(label)
                    # The draft is kept as the person moves into a field (never selected,
                    # so a first key typed there adds to it).
                    yield SafeInput(
                        values[key],
                        placeholder=placeholder,
                        compact=True,
                        select_on_focus=False,
                        id=f"field-{key}",
                    )
            if self.project_label is not None:
                with Horizontal(classes="row"):
                    yield Label("Save in")
                    yield Select(
                        [
                            ("your rules (acp-tui's config folder)", USER_FILE),
                            (f"this project's file ({self.project_label})", PROJECT_FILE),
                        ],
                        value=PROJECT_FILE if self.in_project else USER_FILE,
                        allow_blank=False,
                        compact=True,
                        id="field-where",
                    )
            if self.about:
                yield Static(agent_lines(self.about), id="rule-about")
            yield Static("", id="rule-problem")
            with Horizontal(id="buttons"):
                yield ArmedButton("Cancel", CANCEL, id="cancel")
                yield ArmedButton("Save", SAVE, variant="primary", id="save")
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")
        self.show_problem("")
        if self.armed or self.forward_typing is None:
            self._focus_first()

    def _focus_first(self) -> None:
        self.set_focus(self.query(Input).first())

    def watch_armed(self, armed: bool) -> None:
        super().watch_armed(armed)
        if armed and self.focused is None:
            self._focus_first()

    def _key(self, action: str, fallback: str) -> str:
        return key_label(self, action, fallback)

    def _hint_text(self) -> KeyHints:
        save = self._key("rule-save", "Ctrl+S")
        leave = f"{self._key('close-dialog', 'Esc')} cancel"
        if not self.armed:
            return KeyHints([f"{save} saves in a moment", leave])
        following = f"{self._key('rule-next-field', 'Enter')} next field"
        return KeyHints([f"{save} save", following, leave])

    # -- what the fields hold --

    def values(self) -> dict[str, str]:
        values = {key: "" for key, _label, _placeholder in FORM_FIELDS}
        for field in self.query(Input):
            if field.id and field.id.startswith("field-"):
                values[field.id.removeprefix("field-")] = field.value
        decision = self.query_one("#field-decision", Select).value
        values["decision"] = decision if isinstance(decision, str) else ""
        return values

    @property
    def to_project(self) -> bool:
        where = self.query("#field-where")
        if not where:
            return self.in_project
        value = where.first(Select).value
        return value == PROJECT_FILE

    def show_problem(self, text: str) -> None:
        problem = self.query_one("#rule-problem", Static)
        problem.update(Text(text))
        problem.display = bool(text)

    # -- keys and answers --

    def _saves(self, key: str) -> bool:
        bindings = access.configured_bindings(self).key_to_bindings.get(key, [])
        return any(binding.action == "save" for binding in bindings)

    def dialog_key(self, event: events.Key) -> None:
        if self.focused is None and not self.armed:
            # Not armed yet, over a question: the person was typing their message (and a Tab
            # of theirs does not move their typing into a field).
            if is_typing(event):
                self.pass_on_key(event)
            elif event.key in ("tab", "shift+tab"):
                event.stop()
                event.prevent_default()
            return
        if self._saves(event.key):
            # Taken only if typed once the dialog was armed (by when it was typed).
            event.stop()
            event.prevent_default()
            if not self.answered and self.accepts(event.time):
                self._save()
            return

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The save key goes through dialog_key (gated): never as a binding. Enter moves on
        # only from a field (on a button it presses it, on a list it opens it).
        if action == "next_field":
            return isinstance(self.focused, Input)
        return action != "save"

    def action_next_field(self) -> None:
        self.focus_next()

    def answer_button(self, name: str, at: float) -> None:
        if name == SAVE:
            self._save()
        else:
            self.settle(None)

    def _save(self) -> None:
        problem = self.save(self.values(), self.to_project)
        if problem is not None:
            self.show_problem(problem)
            return
        self.saved = True
        self.settle(self.rule)
