"""A yes/no question, for decisions the agent cannot make for the person."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from acp_tui.ui.agent_text import agent_line, agent_lines


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True only on the confirm button; Escape means no.

    ``details`` are (label, value) rows shown under the question: the label is ours, the
    value the agent's (a path, a command), already made one line
    (:func:`acp_tui.text.safety.escaped_line`). A value is drawn in its own column and
    colour, so however it wraps it cannot pass for the dialog's own words."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 76; max-width: 95%; height: auto; max-height: 95%; padding: 1 2;
        background: $panel; border: thick $warning;
    }
    ConfirmScreen .title { text-style: bold; margin: 0 0 1 0; }
    ConfirmScreen #details { height: auto; max-height: 16; margin: 1 0 0 0; }
    ConfirmScreen .detail { height: auto; }
    ConfirmScreen .detail-label { width: 12; color: $text-muted; }
    ConfirmScreen .detail-value {
        width: 1fr; color: $text-warning; background: $boost;
    }
    ConfirmScreen #buttons { height: auto; margin: 1 0 0 0; align-horizontal: right; }
    ConfirmScreen Button { margin: 0 0 0 2; }
    """
    BINDINGS = [Binding("escape", "dismiss(False)", "No", id="close-dialog")]

    def __init__(
        self,
        title: str,
        message: str,
        confirm_label: str = "Yes",
        cancel_label: str = "No",
        details: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__()
        self._title = title
        self._message = message
        self._confirm_label = confirm_label
        self._cancel_label = cancel_label
        self._details = list(details)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(agent_line(self._title), classes="title")
            yield Static(agent_lines(self._message), id="message")
            if self._details:
                with VerticalScroll(id="details"):
                    for label, value in self._details:
                        with Horizontal(classes="detail"):
                            yield Label(agent_line(label), classes="detail-label")
                            yield Static(agent_lines(value), classes="detail-value")
            with Horizontal(id="buttons"):
                yield Button(self._cancel_label, id="no", variant="default")
                yield Button(self._confirm_label, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
