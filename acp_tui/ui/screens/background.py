"""The background-work panel (Ctrl+P → Background work): everything still running anywhere in
the workspace, across sessions and agents (subagents at work, v2 background terminals and
tool calls, tool calls an agent left running after its turn). A row a piece of work: its
agent, its session, what it is and for how long it has run. Delete (or ``c``) cancels the
highlighted row with the protocol's own cancel (``session/cancel`` on a subagent,
``terminal/cancel``, ``tool_call/cancel``; on a v1 agent ``session/cancel`` on its session),
Enter goes to it. The rows follow the work, once a second.

Every name in a row is the agent's: shown literally (:func:`~acp_tui.ui.agent_text.agent_line`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from acp_tui.session.workspace.background import RunningWork
from acp_tui.store.background import (
    CANCEL_SESSION,
    CANCEL_TERMINAL,
    CANCEL_TOOL_CALL,
    WORK_SUBAGENT,
    WORK_TERMINAL,
)
from acp_tui.text.relative_time import elapsed_text
from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.keymap import key_label

__all__ = ["BackgroundScreen", "cancel_words", "what_words"]

#: How each kind of work is named in its row.
KINDS = {WORK_SUBAGENT: "subagent", WORK_TERMINAL: "terminal"}
COLUMNS = ("Agent", "Session", "What", "Running", "Cancel")


def what_words(row: RunningWork) -> str:
    return f"{KINDS.get(row.work.kind, 'tool call')}: {row.work.what}"


def cancel_words(row: RunningWork) -> str:
    """How the row is cancelled, in the protocol's words."""
    cancel = row.work.cancel
    if cancel == CANCEL_SESSION and row.work.kind == WORK_SUBAGENT:
        return "session/cancel"
    if cancel == CANCEL_SESSION:
        return "session/cancel (its whole session)"
    if cancel == CANCEL_TERMINAL:
        return "terminal/cancel"
    if cancel == CANCEL_TOOL_CALL:
        return "tool_call/cancel"
    return "not offered"


class BackgroundScreen(ModalScreen[None]):
    """What still runs, a row each (see the module docstring). ``rows`` reads them (the
    workspace's), ``cancel`` cancels one (None, or why it could not), ``jump`` goes to one."""

    DEFAULT_CSS = """
    BackgroundScreen { align: center middle; }
    BackgroundScreen > #background-panel {
        width: 110; max-width: 95%; height: auto; max-height: 90%;
        padding: 0 1; background: $panel; border: round $primary;
        border-title-style: bold; border-subtitle-color: $text-muted;
    }
    BackgroundScreen DataTable { height: auto; max-height: 20; margin: 1 0 0 0; }
    BackgroundScreen #background-empty { color: $text-muted; margin: 1 0; }
    BackgroundScreen #background-note { color: $text-muted; margin: 1 0 0 0; }
    BackgroundScreen #background-note.-error { color: $text-error; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("q", "dismiss", "Close", show=False, id="close-dialog"),
        Binding("delete,c", "cancel_row", "Cancel it", id="background-cancel"),
        Binding("enter", "jump", "Go to it", id="background-jump"),
    ]

    def __init__(
        self,
        rows: Callable[[], list[RunningWork]],
        *,
        cancel: Callable[[RunningWork], Awaitable[str | None]],
        jump: Callable[[RunningWork], object],
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.read_rows = rows
        self.cancel = cancel
        self.jump_to = jump
        self.clock = clock
        #: The rows shown, in order (their keys are the table's row keys).
        self.shown: list[RunningWork] = []
        #: Rows whose cancel went out, until their work stops.
        self.cancelling: set[tuple[str, str, str, str]] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="background-panel") as panel:
            panel.border_title = "Background work"
            panel.border_subtitle = (
                f"{key_label(self, 'background-jump')} go to it · "
                f"{key_label(self, 'background-cancel')} cancel it · "
                f"{key_label(self, 'close-dialog')} close"
            )
            table: DataTable[Text] = DataTable(id="background-table", cursor_type="row")
            table.add_columns(*COLUMNS)
            yield table
            yield Static("Nothing is running in the background.", id="background-empty")
            yield Static("", id="background-note")

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(1.0, self.refresh_rows)
        self.query_one(DataTable).focus()

    def _cells(self, row: RunningWork) -> tuple[Text, ...]:
        started = row.work.started_at
        running = elapsed_text(max(0.0, self.clock() - started)) if started is not None else "—"
        cancel = "cancelling…" if row.key in self.cancelling else cancel_words(row)
        return (
            agent_line(row.agent_label, 24),
            agent_line(row.session_title, 30),
            agent_line(what_words(row), 60),
            Text(running),
            Text(cancel, style="dim" if row.work.cancel is None else ""),
        )

    def refresh_rows(self) -> None:
        """The rows as the work is now: new work added, ended work gone, clocks moved."""
        rows = self.read_rows()
        table: DataTable[Text] = self.query_one(DataTable)
        keys = [str(row.key) for row in rows]
        highlighted = self.highlighted
        if [str(row.key) for row in self.shown] != keys:
            table.clear()
            for row in rows:
                table.add_row(*self._cells(row), key=str(row.key))
            if highlighted is not None and str(highlighted.key) in keys:
                table.move_cursor(row=keys.index(str(highlighted.key)))
        else:
            for row in rows:
                for column, cell in zip(table.columns, self._cells(row), strict=True):
                    table.update_cell(str(row.key), column, cell)
        self.shown = rows
        self.cancelling &= {row.key for row in rows}
        self.query_one("#background-empty").display = not rows
        table.display = bool(rows)

    @property
    def highlighted(self) -> RunningWork | None:
        table: DataTable[Text] = self.query_one(DataTable)
        if not self.shown or table.cursor_row < 0 or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def _say(self, text: str, *, error: bool = False) -> None:
        note = self.query_one("#background-note", Static)
        note.update(Text(text))
        note.set_class(error, "-error")

    def action_cancel_row(self) -> None:
        row = self.highlighted
        if row is None:
            return
        if row.work.cancel is None:
            self._say("Its agent offers no way to cancel this one.", error=True)
            return
        self.cancelling.add(row.key)
        self._cancel(row)
        self.refresh_rows()

    @work(exclusive=False, exit_on_error=False)
    async def _cancel(self, row: RunningWork) -> None:
        why = await self.cancel(row)
        if why is not None:
            self.cancelling.discard(row.key)
            self._say(f"Not cancelled: {why}", error=True)
        else:
            self._say(f"Sent {cancel_words(row)}: the row goes once its work has stopped.")
        self.refresh_rows()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter on the table (it takes the key before the screen's binding)
        self.action_jump()

    def action_jump(self) -> None:
        row = self.highlighted
        if row is None:
            return
        self.dismiss(None)
        self.jump_to(row)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:  # a click outside the panel closes it
            self.dismiss(None)
