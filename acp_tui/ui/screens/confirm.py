"""A yes/no question, for decisions the agent cannot make for the person."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True only on the confirm button; Escape means no."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 70; max-width: 90%; height: auto; padding: 1 2;
        background: $panel; border: thick $warning;
    }
    ConfirmScreen .title { text-style: bold; margin: 0 0 1 0; }
    ConfirmScreen Horizontal { height: auto; margin: 1 0 0 0; align-horizontal: right; }
    ConfirmScreen Button { margin: 0 0 0 2; }
    """
    BINDINGS = [Binding("escape", "dismiss(False)", "No")]

    def __init__(
        self, title: str, message: str, confirm_label: str = "Yes", cancel_label: str = "No"
    ) -> None:
        super().__init__()
        self._title = title
        self._message = message
        self._confirm_label = confirm_label
        self._cancel_label = cancel_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title), classes="title")
            yield Static(Text(self._message))
            with Horizontal():
                yield Button(self._cancel_label, id="no", variant="default")
                yield Button(self._confirm_label, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
