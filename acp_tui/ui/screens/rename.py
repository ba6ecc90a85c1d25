"""Name a session: one line, the current title to edit, Enter saves, Escape leaves it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from acp_tui.session.agent.ops import TITLE_LIMIT
from acp_tui.ui.agent_text import agent_lines
from acp_tui.ui.widgets.safe_input import SafeInput


class RenameScreen(ModalScreen[str | None]):
    """Dismisses with the title typed (Enter), or None (Escape, or nothing typed)."""

    DEFAULT_CSS = """
    RenameScreen { align: center middle; }
    RenameScreen > Vertical {
        width: 76; max-width: 95%; height: auto; padding: 1 2;
        background: $panel; border: thick $primary;
    }
    RenameScreen .title { text-style: bold; margin: 0 0 1 0; }
    RenameScreen #rename-note { color: $text-muted; margin: 1 0 0 0; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="close-dialog")]
    # Focused as the screen opens: keys typed right after the key that opened it land here.
    AUTO_FOCUS = "#rename-input"

    def __init__(self, current: str, note: str) -> None:
        super().__init__()
        self._current = current
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Rename session"), classes="title")
            yield SafeInput(
                self._current,
                placeholder="A title for this session",
                max_length=TITLE_LIMIT,
                id="rename-input",
            )
            yield Static(agent_lines(self._note), id="rename-note")

    def on_mount(self) -> None:
        self.set_focus(self.query_one(Input))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        title = event.value.strip()
        self.dismiss(title or None)
