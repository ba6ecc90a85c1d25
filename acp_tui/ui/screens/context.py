"""Context details: the gauge's exact numbers in a panel that stays until dismissed.

Opened from the palette ("Context details"), by a click on the gauge, or Enter on it. It reads
the gauge while it is open, so the numbers move with the session.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.ui.keymap import key_label
from acp_tui.ui.widgets.gauge import ContextGauge

__all__ = ["ContextDetailsScreen"]


class ContextDetailsScreen(ModalScreen[None]):
    """Token usage, cost and the last turn of the session the gauge shows."""

    DEFAULT_CSS = """
    ContextDetailsScreen { align: center middle; }
    ContextDetailsScreen > #context-panel {
        width: 64; max-width: 90%; height: auto; max-height: 90%;
        padding: 0 2; background: $panel; border: round $primary;
        border-title-style: bold; border-subtitle-color: $text-muted;
    }
    ContextDetailsScreen #context-line { text-style: bold; margin: 1 0; }
    ContextDetailsScreen #context-details { margin: 0 0 1 0; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("enter", "dismiss", "Close", show=False, id="close-dialog"),
        Binding("q", "dismiss", "Close", show=False, id="close-dialog"),
    ]

    def __init__(self, gauge: ContextGauge) -> None:
        super().__init__()
        self.gauge = gauge

    def compose(self) -> ComposeResult:
        with Vertical(id="context-panel") as panel:
            panel.border_title = "Context"
            panel.border_subtitle = f"{key_label(self, 'close-dialog')} to close"
            yield Static(id="context-line")
            yield Static(id="context-details")

    def on_mount(self) -> None:
        self.refresh_details()
        self.set_interval(1.0, self.refresh_details)

    def refresh_details(self) -> None:
        self.query_one("#context-line", Static).update(Text(self.gauge.gauge_line()))
        self.query_one("#context-details", Static).update(Text(self.gauge.details_text()))

    def details(self) -> str:
        """What the panel says, as plain text."""
        return f"{self.gauge.gauge_line()}\n{self.gauge.details_text()}"

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        # A click outside the panel closes it, as Escape does.
        if event.widget is self:
            self.dismiss(None)
