"""The Spend view (Ctrl+P → Spend): the budgets with how much of each is spent (first: what
needs the person), then what the agents reported they cost today, this week and this month,
per agent and per project, each currency on its own, and the agents that report no cost.

The numbers are read from the ledger in a thread (never on the thread that draws), when the
view opens and again after each write to the ledger while it is open.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.session.spend.budgets import BudgetState
from acp_tui.store.spend_summary import SpendSummary
from acp_tui.ui.keymap import key_label

__all__ = ["SpendScreen", "SpendText"]

#: What the view shows: the summary's lines, and the budgets' (with their level).
SpendText = tuple[list[str], list[tuple[str, str]]]


class SpendScreen(ModalScreen[None]):
    """The spend summary; ``load`` reads it (called in a thread)."""

    DEFAULT_CSS = """
    SpendScreen { align: center middle; }
    SpendScreen > #spend-panel {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        padding: 0 2; background: $panel; border: round $primary;
        border-title-style: bold; border-subtitle-color: $text-muted;
    }
    SpendScreen #spend-lines { margin: 1 0; }
    SpendScreen .budget { margin: 0; }
    SpendScreen .budget.-warn { color: $text-warning; }
    SpendScreen .budget.-over { color: $text-error; text-style: bold; }
    SpendScreen #budgets-title { text-style: bold; margin: 1 0 0 0; }
    SpendScreen #budgets-end { height: 0; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("q", "dismiss", "Close", show=False, id="close-dialog"),
    ]

    def __init__(
        self,
        load: Callable[[], tuple[SpendSummary, tuple[BudgetState, ...]]],
        render: Callable[[SpendSummary, tuple[BudgetState, ...]], SpendText],
        subscribe: Callable[[Callable[[], None]], Callable[[], None]] | None = None,
    ) -> None:
        super().__init__()
        self._load = load
        self._lines = render
        self._subscribe = subscribe
        self._unsubscribe: Callable[[], None] | None = None
        #: What the view says now, as plain text (for tests and copying).
        self.text = ""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="spend-panel") as panel:
            panel.border_title = "Spend"
            panel.border_subtitle = f"{key_label(self, 'close-dialog')} to close"
            yield Static(Text("Budgets"), id="budgets-title")
            yield Static("", id="budgets-end")
            yield Static(Text("reading the ledger…"), id="spend-lines")

    def on_mount(self) -> None:
        self.query_one("#budgets-title").display = False
        if self._subscribe is not None:
            self._unsubscribe = self._subscribe(self.reload)
        self.reload()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def reload(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="spend", exit_on_error=False)
    def _read(self) -> None:
        summary, states = self._load()
        shown = self._lines(summary, states)
        self.app.call_from_thread(self._show, shown)

    def _show(self, shown: SpendText) -> None:
        if not self.is_attached:
            return
        lines, budgets = shown
        self.query_one("#spend-lines", Static).update(Text("\n".join(lines)))
        self.query(".budget").remove()
        title = self.query_one("#budgets-title")
        title.display = bool(budgets)
        self.query_one("#spend-panel").mount_all(
            [Static(Text(line), classes=f"budget -{level}") for line, level in budgets],
            before="#budgets-end",
        )
        head = ["Budgets", *(line for line, _ in budgets), ""] if budgets else []
        self.text = "\n".join(head + lines)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.dismiss(None)
