"""The help sheet: acp-tui's keys, grouped by place, as the keymap in force has them, and the
commands of the ``/`` list (acp-tui's own, then the agent's).

Opened by F1 anywhere, ``?`` on an empty prompt, ``/help`` (or ``//help``) and the palette's
"Keys and commands". Escape or F1 closes it. Opened by ``?``, a character typed at it closes
it and goes to the prompt with the ``?`` (the person was typing a message after all).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.text.safety import one_line
from acp_tui.ui.key_sheet import SheetSection, key_sheet
from acp_tui.ui.keymap import key_label
from acp_tui.ui.models.commands import SlashCommand
from acp_tui.ui.textual_patches import access

__all__ = ["HelpScreen", "sheet_table", "sheet_text"]

#: The keys' column, at most.
KEYS_WIDTH = 26


def sheet_table(sections: Sequence[SheetSection], commands: Sequence[SlashCommand] = ()) -> Table:
    """The sheet: the commands (acp-tui's, then the agent's), then each place's keys; a
    remapped key says its default. Two columns, the second wrapping."""
    table = Table.grid(padding=(0, 2))
    table.add_column(max_width=KEYS_WIDTH, style="bold", overflow="fold")
    table.add_column(ratio=1)

    def title(text: str) -> None:
        if table.row_count:
            table.add_row("", "")
        table.add_row(Text(text, style="bold underline"), "")

    client = [row for row in commands if row.client]
    agent = [row for row in commands if not row.client]
    for heading, rows in (("acp-tui's commands", client), ("The agent's commands", agent)):
        if not rows:
            continue
        title(heading)
        for row in rows:
            hint = f" {one_line(row.hint, 30)}" if row.hint else ""
            table.add_row(
                Text(f"/{one_line(row.name, 30)}{hint}"), Text(one_line(row.description, 300))
            )
    for section in sections:
        title(section.place.capitalize())
        for key_row in section.rows:
            description = Text(key_row.description)
            if key_row.default:
                description.append(f"  (remapped; default {key_row.default})", style="italic")
            table.add_row(Text(key_row.keys), description)
    return table


def sheet_text(
    sections: Sequence[SheetSection], commands: Sequence[SlashCommand] = (), width: int = 110
) -> str:
    """The sheet as plain text, ``width`` columns wide."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(sheet_table(sections, commands))
    return console.export_text()


class HelpScreen(ModalScreen[None]):
    """The key sheet and the commands, in a panel that scrolls. ``commands`` are the ``/``
    list's rows; ``typed`` is what opened it by typing (``?``) and ``type_back`` gives it to
    the prompt with the next character typed here."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > #help-panel {
        width: 110; max-width: 96%; height: 90%;
        padding: 0 1; background: $panel; border: round $primary;
        border-title-style: bold; border-subtitle-color: $text-muted;
        scrollbar-gutter: stable;
    }
    HelpScreen > #help-panel:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("f1", "keys_help", "Close", show=False, id="keys-help"),
    ]

    def __init__(
        self,
        commands: Sequence[SlashCommand] = (),
        *,
        typed: str = "",
        type_back: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__()
        self.commands = list(commands)
        self.typed = typed
        self.type_back = type_back

    def compose(self) -> ComposeResult:
        keymap = access.keymap(self.app)
        with VerticalScroll(id="help-panel") as panel:
            panel.border_title = "acp-tui: keys and commands"
            # Plain text: a string here is read as markup, and "[keys]" vanished.
            panel.border_subtitle = Content(
                f"{key_label(self, 'close-dialog')} to close · ↑ ↓ PgUp PgDn scroll · "
                "[keys] in the config file changes them"
            )
            yield Static(sheet_table(key_sheet(keymap), self.commands), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-panel").focus()

    def text(self) -> str:
        """What the sheet says, as plain text."""
        return sheet_text(key_sheet(access.keymap(self.app)), self.commands)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def action_keys_help(self) -> None:
        """F1 opened it, F1 closes it."""
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        # Opened by "?" on an empty prompt: a character typed next is a message being typed.
        if self.type_back is not None and self.typed and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.dismiss(None)
            self.type_back(self.typed + event.character)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.dismiss(None)
