"""Rewind: pick the turn and what to rewind, then see what will change and confirm.

- :class:`RewindPicker` lists the session's checkpointed turns (the message's first line,
  the time, the files the turn changed) and the rewinds made (each can be undone). Enter on a
  row asks what to rewind: code and conversation, the code only, the conversation only, or
  "edit this message" (the conversation goes back to before it, its text in the prompt), or
  that turn's own changes (to take back files or hunks). It changes nothing itself.
- :class:`ReviewDialog` shows the plan: the files that will be restored, made again or
  deleted, each with its diff (:class:`~acp_tui.ui.widgets.change_review.ChangeReview`:
  files and hunks kept or left out; a conflict, a file the person changed after the turn,
  starts left out and is put back only if they keep it). Nothing is written until the person
  confirms; the dialog arms like every dialog that acts (:mod:`acp_tui.ui.screens.armed`)
  and names the agent and session. It dismisses with the choices, or None.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.services.checkpoints.journal import TurnRecord
from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import ArmedButton, ArmedDialog, DialogOrigin, HintLine
from acp_tui.ui.widgets.change_review import ChangeReview, ReviewFile

__all__ = ["REWIND_WHAT", "Pick", "ReviewDialog", "RewindPicker", "Scope"]

Scope = Literal["both", "code", "conversation", "edit", "edit-code", "changes"]

#: What can be rewound, in the order offered.
REWIND_WHAT: tuple[tuple[Scope, str], ...] = (
    ("both", "Code and conversation"),
    ("code", "Code only: put the files back, keep talking here"),
    ("conversation", "Conversation only: a new session from before this turn, files as they are"),
    ("edit", "Edit this message: the conversation from before it, its text in the prompt"),
    ("edit-code", "Edit this message, and put the files back to before it too"),
    ("changes", "Changes of this turn: its own changes, to take back files or hunks"),
)


@dataclass(frozen=True, slots=True)
class Pick:
    """The turn chosen (the journal's number) and what to rewind."""

    turn: int
    scope: Scope


def _when(started: float) -> str:
    return time.strftime("%H:%M", time.localtime(started))


def turn_row(record: TurnRecord) -> Text:
    """``Turn 3 · fix the parser · 14:02 · 2 files`` (the message is the person's, shown
    literally on one line)."""
    files = len(record.files)
    if record.kind == "rewind":
        row = Text("↶ ", style="bold")
        row.append(f"{record.prompt} · {_when(record.started)}", style="italic")
        row.append(f" · undo it: {files} file{'s' if files != 1 else ''}", style="dim")
        return row
    row = Text(f"Turn {record.number} · ", style="bold")
    row.append_text(agent_line(record.first_line() or "(no text)", 70))
    row.append(f" · {_when(record.started)}", style="dim")
    changed = f"{files} file{'s' if files != 1 else ''}" if record.ended else "running"
    row.append(f" · {changed}", style="dim")
    return row


class RewindPicker(ModalScreen[Pick | None]):
    """The turns to rewind to, newest last; then what to rewind (see the module docstring)."""

    DEFAULT_CSS = """
    RewindPicker { align: center middle; }
    RewindPicker > Vertical {
        width: 100; max-width: 96%; height: auto; max-height: 90%; padding: 1 2;
        background: $panel; border: thick $primary;
    }
    RewindPicker #origin { color: $text-muted; margin: 0 0 1 0; }
    RewindPicker .title { text-style: bold; }
    RewindPicker OptionList { height: auto; max-height: 20; margin: 1 0 0 0; }
    RewindPicker #hint { color: $text-muted; margin: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
    ]

    def __init__(
        self,
        turns: list[TurnRecord],
        *,
        origin: DialogOrigin,
        preselect: int | None = None,
        scopes: tuple[Scope, ...] = (
            "both",
            "code",
            "conversation",
            "edit",
            "edit-code",
            "changes",
        ),
    ) -> None:
        super().__init__()
        self.turns = turns
        self.origin = origin
        self.preselect = preselect
        self.scopes = scopes
        self._turn: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.origin.text(), id="origin")
            yield Label("Rewind to before…", classes="title", id="rewind-title")
            yield OptionList(
                *(Option(turn_row(t), id=f"turn-{t.number}") for t in self.turns),
                id="rewind-turns",
            )
            yield Static(KeyHints(["↑↓ choose", "Enter this turn", "Esc close"]), id="hint")

    def on_mount(self) -> None:
        turns = self.query_one("#rewind-turns", OptionList)
        if self.turns:
            wanted = len(self.turns) - 1
            if self.preselect is not None:
                wanted = next(
                    (i for i, t in enumerate(self.turns) if t.number == self.preselect), wanted
                )
            turns.highlighted = wanted
        turns.focus()
        if self.preselect is not None:
            record = next((t for t in self.turns if t.number == self.preselect), None)
            if record is not None:
                self._ask_what(record)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id.startswith("turn-"):
            record = next(t for t in self.turns if f"turn-{t.number}" == option_id)
            if record.kind == "rewind":
                self.dismiss(Pick(record.number, "code"))
                return
            self._ask_what(record)
        elif option_id.startswith("what-") and self._turn is not None:
            self.dismiss(Pick(self._turn, option_id.removeprefix("what-")))  # type: ignore[arg-type]

    def _ask_what(self, record: TurnRecord) -> None:
        self._turn = record.number
        title = self.query_one("#rewind-title", Label)
        heading = Text(f"Turn {record.number}: ", style="bold")
        heading.append_text(agent_line(record.first_line() or "(no text)", 70))
        heading.append(" — rewind what?")
        title.update(heading)
        options = self.query_one("#rewind-turns", OptionList)
        options.clear_options()
        options.add_options(
            [
                Option(label, id=f"what-{scope}")
                for scope, label in REWIND_WHAT
                if scope in self.scopes
            ]
        )
        options.highlighted = 0
        self.query_one("#hint", Static).update(
            KeyHints(["↑↓ choose", "Enter next: see what changes", "Esc close"])
        )


class ReviewDialog(ArmedDialog[list[frozenset[int] | bool | None]]):
    """What a rewind (or a revert) will do, to confirm (see the module docstring)."""

    DEFAULT_CSS = """
    ReviewDialog { align: center middle; }
    ReviewDialog > Vertical {
        width: 96%; height: 90%; padding: 0 1;
        background: $panel; border: thick $warning;
    }
    ReviewDialog #origin { margin: 0 0 0 0; }
    ReviewDialog .title { text-style: bold; }
    ReviewDialog #notes { color: $text-muted; height: auto; max-height: 4; }
    ReviewDialog #buttons { height: auto; align-horizontal: right; }
    ReviewDialog ArmedButton { margin: 0 0 0 2; }
    ReviewDialog #hint { color: $text-muted; height: auto; }
    ReviewDialog.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="close-dialog"),
    ]
    AUTO_FOCUS = "#review-files"

    def __init__(
        self,
        title: str,
        files: list[ReviewFile],
        *,
        confirm_label: str = "Rewind",
        notes: list[str] | None = None,
        kept: bool = True,
        origin: DialogOrigin | None = None,
        arm_delay: float | None = None,
    ) -> None:
        super().__init__(origin=origin, arm_delay=arm_delay)
        self._title = title
        self.files = files
        self._kept = kept
        self._confirm = confirm_label
        self._notes = notes or []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.origin_line()
            yield Label(Text(self._title), classes="title")
            conflicts = sum(1 for f in self.files if f.conflict)
            if conflicts:
                yield Static(
                    Text(
                        f"▲ {conflicts} file{'s' if conflicts != 1 else ''} changed by you "
                        "after that turn: left as they are unless you keep them (Space).",
                        style="bold",
                    ),
                    id="conflicts",
                )
            if not self.files:
                yield Static("Nothing to put back: the files are as they were.", id="nothing")
            yield ChangeReview(self.files, kept=self._kept, id="review")
            if self._notes:
                yield Static(Text("\n".join(self._notes)), id="notes")
            with Horizontal(id="buttons"):
                yield ArmedButton("Cancel", "cancel", id="cancel")
                yield ArmedButton(self._confirm, "apply", variant="warning", id="apply")
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", "Esc cancel"])
        return KeyHints(
            [
                "Space keep/leave out",
                "→ hunks",
                "a all",
                "n none",
                "y " + self._confirm.lower(),
                "Esc cancel",
            ]
        )

    def dialog_key(self, event: events.Key) -> None:
        review = self.query_one(ChangeReview)
        key = event.key
        if key == "y":
            self.answer_key(event, partial(self.answer_button, "apply", 0.0))
        elif key == "space":
            self.answer_key(event, review.action_keep, hold=False)
        elif key in ("a", "n"):
            self.answer_key(event, partial(review.action_all, key == "a"))
        elif key == "enter" and not isinstance(self.focused, ArmedButton):
            self.answer_key(event, review.action_hunks, hold=False)
        elif event.is_printable or key == "backspace":
            self.pass_on_key(event)

    def answer_button(self, name: str, at: float) -> None:
        if name == "apply":
            self.settle(self.query_one(ChangeReview).choices())
        else:
            self.settle(None)

    async def action_dismiss(self, result: object = None) -> None:
        """Escape: nothing is written (at any time: leaving is never an accident)."""
        self.settle(None)
