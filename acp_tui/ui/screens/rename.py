"""Name a session: one line, the current title to edit, Enter saves, Escape leaves it.

It arms like every dialog that acts (:mod:`acp_tui.ui.screens.armed`). The person opened it,
so what they type right after the key that opened it is for its field (it has the focus from
the start); what arms is the saving: an Enter typed before the dialog armed (``e`` and a word
and Enter in one burst, meant for the sidebar's filter) does not rename anything, the hint
says when Enter saves. The dialog names the session and its agent.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from acp_tui.session.agent.ops import TITLE_LIMIT
from acp_tui.ui.agent_text import agent_lines
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import ArmedDialog, DialogOrigin, HintLine
from acp_tui.ui.widgets.safe_input import SafeInput


class RenameScreen(ArmedDialog[str]):
    """Dismisses with the title typed (Enter, once armed), or None (Escape, nothing typed)."""

    DEFAULT_CSS = """
    RenameScreen { align: center middle; }
    RenameScreen > Vertical {
        width: 76; max-width: 95%; height: auto; padding: 1 2;
        background: $panel; border: thick $primary;
    }
    RenameScreen #origin { margin: 0 0 1 0; }
    RenameScreen .title { text-style: bold; margin: 0 0 1 0; }
    RenameScreen #rename-note { color: $text-muted; margin: 1 0 0 0; }
    RenameScreen #hint { color: $text-muted; }
    RenameScreen.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="close-dialog")
    ]
    # Focused as the screen opens: keys typed right after the key that opened it land here.
    AUTO_FOCUS = "#rename-input"

    def __init__(
        self,
        current: str,
        note: str,
        *,
        origin: DialogOrigin | None = None,
        arm_delay: float | None = None,
    ) -> None:
        super().__init__(origin=origin, arm_delay=arm_delay)
        self._current = current
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.origin_line()
            yield Label(Text("Rename session"), classes="title")
            yield SafeInput(
                self._current,
                placeholder="A title for this session",
                max_length=TITLE_LIMIT,
                id="rename-input",
            )
            yield Static(agent_lines(self._note), id="rename-note")
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")
        self.set_focus(self.query_one(Input))

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(["Enter saves in a moment", "Esc leave it"])
        return KeyHints(["Enter save", "Esc leave it"])

    def dialog_key(self, event: events.Key) -> None:
        # Enter reaches the screen before the field's own binding submits: it saves only
        # once the dialog is armed (by when it was typed); earlier, nothing happens.
        if event.key == "enter" and isinstance(self.focused, Input):
            event.stop()
            event.prevent_default()
            if not self.answered and self.accepts(event.time):
                title = self.focused.value.strip()
                self.settle(title or None)
