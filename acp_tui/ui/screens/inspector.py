"""The protocol inspector (raw JSON-RPC traffic) and a plain log viewer (agent stderr)."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RichLog

from acp_tui.protocol.jsonrpc import Connection, TrafficRecord
from acp_tui.text_safety import sanitize_terminal_text

LINE_LIMIT = 4000


class TextLogScreen(ModalScreen[None]):
    """Lines of text, shown literally."""

    DEFAULT_CSS = """
    TextLogScreen { align: center middle; }
    TextLogScreen > Vertical { width: 95%; height: 90%; background: $panel; border: thick $accent; }
    TextLogScreen .title { text-style: bold; padding: 0 1; }
    TextLogScreen RichLog { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self._title = title
        self._lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title), classes="title")
            yield RichLog(wrap=True, markup=False, highlight=False, max_lines=10_000)

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        if not self._lines:
            log.write(Text("(nothing yet)", style="dim"))
        for line in self._lines:
            log.write(Text(sanitize_terminal_text(line)[:LINE_LIMIT]))


class InspectorScreen(ModalScreen[None]):
    """Every line in and out of this connection, live; junk lines flagged with why."""

    DEFAULT_CSS = """
    InspectorScreen { align: center middle; }
    InspectorScreen > Vertical { width: 95%; height: 90%; background: $panel; border: thick $accent; }
    InspectorScreen .title { text-style: bold; padding: 0 1; }
    InspectorScreen RichLog { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection
        self._pending: list[TrafficRecord] = []

    def compose(self) -> ComposeResult:
        stats = self.connection.stats
        title = (
            f"Protocol inspector — in {stats.lines_in:,} · out {stats.lines_out:,} · "
            f"skipped {stats.skipped_lines:,} · invalid {stats.invalid_messages:,} · "
            f"unknown responses {stats.unknown_responses:,}"
        )
        with Vertical():
            yield Label(Text(title), classes="title")
            yield RichLog(wrap=False, markup=False, highlight=False, max_lines=5_000)

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        for record in list(self.connection.traffic):
            log.write(self._format(record))
        self.connection.traffic_listeners.append(self._on_record)
        self.set_interval(0.2, self._flush)

    def on_unmount(self) -> None:
        if self._on_record in self.connection.traffic_listeners:
            self.connection.traffic_listeners.remove(self._on_record)

    def _on_record(self, record: TrafficRecord) -> None:
        self._pending.append(record)

    def _flush(self) -> None:
        if not self._pending:
            return
        records, self._pending = self._pending[-2000:], []
        log = self.query_one(RichLog)
        for record in records:
            log.write(self._format(record))

    @staticmethod
    def _format(record: TrafficRecord) -> Text:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.timestamp))
        arrow = "→" if record.direction == "out" else "←"
        text = Text(f"{stamp} {arrow} ", style="bold" if record.direction == "out" else "")
        if record.note:
            text.append(f"[{record.note}] ", style="italic")
        text.append(sanitize_terminal_text(record.text)[:LINE_LIMIT])
        return text
