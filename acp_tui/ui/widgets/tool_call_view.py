"""A tool call's view in the transcript: its kind, title, status and command on top, its
content (text, diffs, terminals, raw input and output) in a fold. Agent text is shown inert
(:func:`~acp_tui.ui.widgets.entry_view.safe`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.store.entries import (
    Entry,
    ToolCall,
)
from acp_tui.store.tool_content import FileDiff, SessionRef, TerminalRef
from acp_tui.text.fences import unfenced
from acp_tui.text.terminal_screen import render_text
from acp_tui.text.titles import plain_title
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.widgets.entry_view import (
    FOLD_CLOSED,
    FOLD_OPEN,
    RAW_LIMIT,
    TITLE_LIMIT,
    EntryView,
    pretty_json,
    safe,
)
from acp_tui.ui.widgets.shell_view import terminal_text
from acp_tui.ui.widgets.subagent_views import (
    session_lookup_of,
)

#: A terminal's state by its id (live, or its last state once released); None if unknown.
TerminalLookup = Callable[[str], Any]

TOOL_KIND_ICONS: dict[str, str] = {
    "read": "📖",
    "edit": "📝",
    "delete": "❌",
    "move": "📦",
    "search": "🔍",
    "execute": "⚡",
    "think": "💭",
    "fetch": "🌐",
    "switch_mode": "🔀",
    "other": "🔧",
}
STATUS_LABELS: dict[str, str] = {
    "pending": "pending",
    "in_progress": "running",
    "completed": "done",
    "failed": "failed",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
    "rejected": "rejected",
    "allowed": "allowed",
    "not_run": "not run",
}
#: A tool call's command line, shown on one row under its title (the dialog shows it whole).
COMMAND_LIMIT = 500


class ToolCallView(EntryView):
    """A compact block: icon, title, live status, locations, diffs, terminal, raw output."""

    DEFAULT_CSS = """
    ToolCallView {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $secondary;
        background: $surface;
    }
    ToolCallView .header { text-style: bold; }
    ToolCallView .locations { color: $text-muted; }
    ToolCallView .command { color: $text-muted; }
    ToolCallView .body { height: auto; }
    ToolCallView .terminal { background: $background; color: $text; padding: 0 1; max-height: 20; overflow-y: auto; }
    ToolCallView .status-pending .header { color: $text-muted; }
    ToolCallView.-status-failed { border-left: thick $error; }
    ToolCallView.-status-completed { border-left: thick $success; }
    ToolCallView.-status-in-progress { border-left: thick $warning; }
    ToolCallView Collapsible { border: none; padding: 0; background: transparent; }
    ToolCallView.-expanded .terminal { max-height: 1000; }
    """

    def __init__(self, entry: Entry, terminal_lookup: TerminalLookup | None = None) -> None:
        super().__init__(entry)
        #: Given by the transcript (attributes down): the terminals' output comes from there.
        self.terminal_lookup = terminal_lookup

    @property
    def expanded(self) -> bool:
        """Whether the whole output shows: the terminal's every line and the raw output."""
        return self.has_class("-expanded")

    def set_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        for raw in self.query(Collapsible):
            raw.collapsed = not expanded

    def compose(self) -> ComposeResult:
        yield Static(classes="header")
        yield Static(classes="command")
        yield Static(classes="locations")
        yield Vertical(classes="body")

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, ToolCall)
        status = entry.status or "pending"
        for name in ("pending", "in-progress", "completed", "failed"):
            self.set_class(status.replace("_", "-") == name, f"-status-{name}")
        icon = TOOL_KIND_ICONS.get(entry.tool_kind or "other", "🔧")
        header = Text(f"{icon} ")
        header.append(line_of(plain_title(entry.title or entry.tool_call_id), TITLE_LIMIT))
        header.append(f"  [{STATUS_LABELS.get(status) or line_of(status, 40)}]", style="dim")
        self.query_one(".header", Static).update(header)
        command = self._command_shown(entry)
        command_view = self.query_one(".command", Static)
        command_view.update(Text(f"$ {line_of(command, COMMAND_LIMIT)}") if command else "")
        command_view.display = command is not None
        locations = [line_of(location.label, 300) for location in entry.file_locations]
        location_view = self.query_one(".locations", Static)
        location_view.update(Text("  ".join(locations)))
        location_view.display = bool(locations)
        await self._draw_body(entry)

    @staticmethod
    def _command_shown(entry: ToolCall) -> str | None:
        """The command the call runs (from its ``rawInput``), unless the title already says it
        or a terminal below shows it: an agent may title an ``execute`` call "execute" only
        (fast-agent), and the command was then in the permission dialog and nowhere else."""
        if any(isinstance(output, TerminalRef) for output in entry.outputs):
            return None
        return entry.command_untitled

    async def _draw_body(self, entry: ToolCall) -> None:
        body = self.query_one(".body", Vertical)
        await body.remove_children()
        widgets: list[Widget] = []
        for output in entry.outputs:
            if isinstance(output, FileDiff):
                widgets.append(make_diff_widget(output))
            elif isinstance(output, TerminalRef):
                widgets.append(Static(self._terminal_text(output.terminal_id), classes="terminal"))
            elif isinstance(output, SessionRef):
                lookup = session_lookup_of(self)
                child = lookup(output.session_id) if lookup is not None else None
                name = child.card.label if child is not None and child.card else output.session_id
                line = f"⧉ subagent: {line_of(name, 120)} (its card below)"
                widgets.append(Static(Text(line, style="dim")))
            elif output.block_type == "text":
                widgets.append(Static(Text(safe(unfenced(output.text or ""), RAW_LIMIT))))
            else:
                widgets.append(
                    Static(Text(f"[{line_of(output.block_type, 40)} content]", style="dim"))
                )
        if entry.raw_output is not None:
            raw = Collapsible(
                Static(Text(pretty_json(entry.raw_output))),
                title="raw output",
                collapsed=not self.expanded,
                collapsed_symbol=FOLD_CLOSED,
                expanded_symbol=FOLD_OPEN,
            )
            widgets.append(raw)
        if widgets:
            await body.mount_all(widgets)

    def _terminal_text(self, terminal_id: Any) -> Text:
        lookup = self.terminal_lookup
        state = lookup(terminal_id) if lookup is not None and isinstance(terminal_id, str) else None
        if state is None:
            return self._agent_terminal_text(terminal_id)
        text = Text(f"$ {line_of(state.command_line, 2000)}\n", style="bold")
        # Drawn as a terminal draws it (colours, carriage returns), as shell mode's output.
        text.append(terminal_text(render_text(state.output[-RAW_LIMIT:])))
        if state.exit_status is not None:
            text.append(f"\n[{line_of(state.exit_status.describe(), 40)}]", style="dim")
        return text

    def _agent_terminal_text(self, terminal_id: Any) -> Text:
        """A terminal this client does not run (the agent's own, or one released): what the
        tool call's updates reported of it, or plainly that the agent showed nothing."""
        entry = self.entry
        assert isinstance(entry, ToolCall)
        report = entry.agent_terminal
        if report is None or (report.terminal_id and report.terminal_id != terminal_id):
            return Text(
                f"terminal {line_of(terminal_id, 80)}: run by the agent in a terminal of its "
                "own; it sent no output to show",
                style="dim",
            )
        text = Text()
        if entry.command:
            text.append(f"$ {line_of(entry.command, 2000)}\n", style="bold")
        if report.output:
            text.append(terminal_text(render_text(report.output[-RAW_LIMIT:])))
        elif report.exited:
            text.append("(the agent sent no output of it)", style="dim")
        else:
            text.append("(running in the agent's own terminal; no output sent yet)", style="dim")
        if report.exited:
            text.append(f"\n[{line_of(report.describe_exit(), 40)}]", style="dim")
        return text

    def refresh_terminal(self) -> None:
        entry = self.entry
        assert isinstance(entry, ToolCall)
        terminals = entry.terminal_ids
        views = list(self.query(".terminal").results(Static))
        for view, terminal_id in zip(views, terminals, strict=False):
            view.update(self._terminal_text(terminal_id))


def make_diff_widget(diff: FileDiff) -> Widget:
    from acp_tui.ui.widgets.diff_view import DiffView

    return DiffView(path=line_of(diff.path, 500), old_text=diff.old_text, new_text=diff.new_text)
