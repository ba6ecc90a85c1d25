"""The protocol inspector (raw JSON-RPC traffic) and a plain log viewer (agent stderr)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RichLog

from acp_tui.protocol.jsonrpc import Connection, TrafficRecord
from acp_tui.protocol.recording import write_traffic
from acp_tui.services.path_gate import PathRefused, create_new, private_directory
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.agent_text import agent_line, line_of
from acp_tui.ui.keymap import key_label
from acp_tui.ui.render.hints import KeyHints

LINE_LIMIT = 4000


class TextLogScreen(ModalScreen[None]):
    """Lines of text, shown literally."""

    DEFAULT_CSS = """
    TextLogScreen { align: center middle; }
    TextLogScreen > Vertical { width: 95%; height: 90%; background: $panel; border: thick $accent; }
    TextLogScreen .title { text-style: bold; padding: 0 1; }
    TextLogScreen RichLog { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="close-dialog")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self._title = title
        self._lines = lines

    def compose(self) -> ComposeResult:
        with Vertical() as panel:
            # As the other panels say it: the agent's log had no word of how to leave it.
            panel.border_subtitle = f"{key_label(self, 'close-dialog')} to close"
            yield Label(agent_line(self._title, 300), classes="title")
            yield RichLog(wrap=True, markup=False, highlight=False, max_lines=10_000)

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        if not self._lines:
            log.write(Text("(nothing yet)", style="dim"))
        for line in self._lines:
            log.write(Text(sanitize_terminal_text(line)[:LINE_LIMIT]))


class InspectorScreen(ModalScreen[None]):
    """Every line in and out of this connection, live; junk lines flagged with why. ``s``
    saves the traffic as a recording (the ``--record`` format, for ``acp-tui replay``) in
    ``folder`` (acp-tui's recordings folder: never the project), through the path gate."""

    DEFAULT_CSS = """
    InspectorScreen { align: center middle; }
    InspectorScreen > Vertical { width: 95%; height: 90%; background: $panel; border: thick $accent; }
    InspectorScreen .title { text-style: bold; padding: 0 1; width: 100%; }
    InspectorScreen RichLog { height: 1fr; }
    InspectorScreen .keys { color: $text-muted; padding: 0 1; width: 100%; }
    """
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="close-dialog"),
        Binding("s", "save", "Save", id="inspector-save"),
    ]

    def __init__(
        self,
        connection: Connection,
        *,
        agent_argv: Sequence[str] = (),
        cwd: str = "",
        folder: Path | None = None,
    ) -> None:
        super().__init__()
        self.connection = connection
        self.agent_argv = list(agent_argv)
        self.cwd = cwd
        self.folder = folder
        self._pending: list[TrafficRecord] = []
        #: Where the last save went.
        self.saved_to: Path | None = None

    def compose(self) -> ComposeResult:
        stats = self.connection.stats
        # Wrapped between counts at any width (at 80 columns the last was cut mid-word).
        title = KeyHints(
            [
                f"Protocol inspector — in {stats.lines_in:,}",
                f"out {stats.lines_out:,}",
                f"skipped {stats.skipped_lines:,}",
                f"invalid {stats.invalid_messages:,}",
                f"unknown responses {stats.unknown_responses:,}",
            ],
            separator=" · ",
        )
        with Vertical():
            yield Label(title, classes="title")
            yield RichLog(wrap=False, markup=False, highlight=False, max_lines=5_000)
            save, close = key_label(self, "inspector-save"), key_label(self, "close-dialog")
            yield Label(
                KeyHints([f"{save} save as a recording (for acp-tui replay)", f"{close} close"]),
                classes="keys",
            )

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        for record in list(self.connection.traffic):
            log.write(self._format(record))
        self.connection.traffic_listeners.append(self._on_record)
        self.set_interval(0.2, self._flush)

    def on_unmount(self) -> None:
        if self._on_record in self.connection.traffic_listeners:
            self.connection.traffic_listeners.remove(self._on_record)

    def action_save(self) -> None:
        traffic = self.connection.traffic
        complete = traffic.maxlen is None or len(traffic) < traffic.maxlen
        name = time.strftime("acp-tui-wire-%Y%m%d-%H%M%S.jsonl")
        if self.folder is None:
            self.notify("Could not save the traffic: no folder to save in", severity="error")
            return
        try:
            path, file = create_new(private_directory(self.folder), name)
            with file:
                count = write_traffic(
                    file, list(traffic), argv=self.agent_argv, cwd=self.cwd, complete=complete
                )
        except (OSError, PathRefused) as error:
            failure = error.strerror if isinstance(error, OSError) and error.strerror else error
            self.notify(
                f"Could not save the traffic in {self.folder}: {failure}",
                severity="error",
                markup=False,
            )
            return
        self.saved_to = path
        older = "" if complete else " (the oldest lines were no longer kept)"
        self.notify(
            f"Saved {count:,} lines of traffic{older} to {path}\n"
            f"Replay it with: acp-tui replay {path}",
            title="Protocol inspector",
            timeout=15,
            markup=False,
        )

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
            text.append(f"[{line_of(record.note)}] ", style="italic")
        text.append(sanitize_terminal_text(record.text)[:LINE_LIMIT])
        return text
