"""The protocol inspector (raw JSON-RPC traffic) and a plain log viewer (agent stderr)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, RichLog, TextArea
from textual.widgets.option_list import Option

from acp_tui.services.path_gate import PathRefused, create_new, private_directory
from acp_tui.session.agent.traffic import Traffic, TrafficRecord
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.keymap import key_label
from acp_tui.ui.models.wire import WireFilter, WireLine, WireLog, parse_filter, pretty_message
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
    """Every line in and out of this connection, live, one row each (a response named by its
    request's method; junk lines flagged with why). Enter opens the highlighted message whole
    (indented JSON, escaped, selectable to copy); the filter keeps the lines of one direction
    or with given words (a method, an id, any text). ``s`` saves the traffic as a recording
    (the ``--record`` format, for ``acp-tui replay``) in ``folder`` (acp-tui's recordings
    folder: never the project), through the path gate."""

    DEFAULT_CSS = """
    InspectorScreen { align: center middle; }
    InspectorScreen > Vertical { width: 95%; height: 90%; background: $panel; border: thick $accent; }
    InspectorScreen .title { text-style: bold; padding: 0 1; width: 100%; }
    InspectorScreen #wire-filter { height: 3; margin: 0 1; }
    InspectorScreen #wire { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    InspectorScreen #message { height: 1fr; display: none; }
    InspectorScreen.-expanded #message { display: block; }
    InspectorScreen .keys { color: $text-muted; padding: 0 1; width: 100%; }
    """
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="close-dialog"),
        Binding("s", "save", "Save", id="inspector-save"),
        Binding("enter", "expand", "Expand", id="inspector-expand"),
        Binding("slash", "filter", "Filter", id="inspector-filter"),
    ]

    def __init__(self, traffic: Traffic, *, folder: Path | None = None) -> None:
        super().__init__()
        self.traffic = traffic
        self.folder = folder
        self._stop_listening: Callable[[], None] | None = None
        self.wire = WireLog()
        self.filter = WireFilter()
        #: The lines listed now (those the filter keeps), by row.
        self.shown: list[WireLine] = []
        #: The line opened whole, if any.
        self.expanded: WireLine | None = None
        self._pending: list[TrafficRecord] = []
        #: Where the last save went.
        self.saved_to: Path | None = None

    def compose(self) -> ComposeResult:
        stats = self.traffic.stats
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
            yield Input(
                placeholder="filter: a method or any words; in or out keeps one direction",
                id="wire-filter",
            )
            yield OptionList(id="wire")
            yield TextArea(id="message", read_only=True, soft_wrap=True, show_line_numbers=False)
            save, close = key_label(self, "inspector-save"), key_label(self, "close-dialog")
            expand, find = key_label(self, "inspector-expand"), key_label(self, "inspector-filter")
            yield Label(
                KeyHints(
                    [
                        f"{expand} open or close the message",
                        f"{find} filter",
                        f"{save} save as a recording (for acp-tui replay)",
                        f"{close} close",
                    ]
                ),
                classes="keys",
            )

    def on_mount(self) -> None:
        for record in self.traffic.lines():
            self.wire.add(record)
        self._show_lines(self.wire.lines)
        wire = self.query_one("#wire", OptionList)
        if self.shown:
            wire.highlighted = len(self.shown) - 1
        wire.focus()
        self._stop_listening = self.traffic.listen(self._on_record)
        self.set_interval(0.2, self._flush)

    def on_unmount(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()

    # -- the filter and the message ------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#wire-filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter = parse_filter(event.value)
        wire = self.query_one("#wire", OptionList)
        wire.clear_options()
        self.shown = []
        self._show_lines(self.wire.lines)
        if self.shown:
            wire.highlighted = len(self.shown) - 1

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#wire", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._toggle(event.option_index)

    def action_expand(self) -> None:
        highlighted = self.query_one("#wire", OptionList).highlighted
        if highlighted is not None:
            self._toggle(highlighted)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self.expanded is not None and 0 <= event.option_index < len(self.shown):
            self._expand(self.shown[event.option_index])  # the open message follows the rows

    def _toggle(self, row: int) -> None:
        if not 0 <= row < len(self.shown):
            return
        line = self.shown[row]
        if self.expanded is line:
            self.expanded = None
            self.remove_class("-expanded")
            return
        self._expand(line)

    def _expand(self, line: WireLine) -> None:
        self.expanded = line
        message = self.query_one("#message", TextArea)
        message.load_text(pretty_message(line))
        message.border_title = line.summary(60)
        self.add_class("-expanded")

    def _show_lines(self, lines: Sequence[WireLine]) -> None:
        kept = [line for line in lines if self.filter.matches(line)]
        if not kept:
            return
        self.shown.extend(kept)
        self.query_one("#wire", OptionList).add_options(
            [Option(Content(line.summary())) for line in kept]
        )

    def action_save(self) -> None:
        complete = self.traffic.complete
        name = time.strftime("acp-tui-wire-%Y%m%d-%H%M%S.jsonl")
        if self.folder is None:
            self.notify("Could not save the traffic: no folder to save in", severity="error")
            return
        try:
            path, file = create_new(private_directory(self.folder), name)
            with file:
                count = self.traffic.save(file)
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
        records, self._pending = self._pending, []
        wire = self.query_one("#wire", OptionList)
        following = wire.highlighted is None or wire.highlighted >= len(self.shown) - 1
        self._show_lines([self.wire.add(record) for record in records])
        if following and self.shown and self.expanded is None:
            wire.highlighted = len(self.shown) - 1
