"""The transcript: one view per store entry, refreshed at most once per frame.

The store says which entries changed (:class:`acp_tui.store.Changes`); each view compares the
entry's ``version`` with the one it drew and only then re-renders. Agent messages stream
through Textual's incremental ``Markdown.append`` with only the new text, so a long reply
costs about what rendering it once costs.

Every string from the agent is shown literally (``rich.text.Text``, never markup) after
:func:`acp_tui.text_safety.sanitize_terminal_text` removes escape sequences.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Entry,
    Notice,
    PlanSnapshot,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.text_safety import sanitize_terminal_text

TOOL_KIND_ICONS: dict[str, str] = {
    "read": "📖",
    "edit": "✏️",
    "delete": "🗑",
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
}
PLAN_MARKS: dict[str, str] = {"pending": "○", "in_progress": "◐", "completed": "●"}
TITLE_LIMIT = 500
RAW_LIMIT = 20_000


def safe(text: Any, limit: int | None = None) -> str:
    """Agent text made inert for the terminal, optionally cut with an ellipsis."""
    value = sanitize_terminal_text(text if isinstance(text, str) else str(text))
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return value


def pretty_json(value: Any, limit: int = RAW_LIMIT) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
    return safe(text)


class EntryView(Widget):
    """Base: a view of one store entry that redraws when the entry's version moves."""

    DEFAULT_CSS = """
    EntryView { height: auto; }
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes=f"entry -{entry.kind.replace('_', '-')}")
        self.entry = entry
        self.drawn_version = -1

    async def sync(self, entry: Entry) -> None:
        """Bring the view up to date with ``entry`` (the same object, or its replacement)."""
        self.entry = entry
        if entry.version != self.drawn_version:
            self.drawn_version = entry.version
            await self.redraw()

    async def redraw(self) -> None:
        raise NotImplementedError


class UserMessageView(EntryView):
    DEFAULT_CSS = """
    UserMessageView {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    UserMessageView > .attachments { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="text")

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, UserMessage)
        text = Text(safe(entry.text))
        links = [
            block
            for block in entry.content
            if isinstance(block, dict)
            and block.get("type") in ("resource_link", "resource", "image")
        ]
        for block in links:
            name = block.get("name") or block.get("uri") or block.get("type")
            text.append(f"\n📎 {safe(name, 200)}", style="dim")
        self.query_one(".text", Static).update(text)


class AgentMessageView(EntryView):
    """Markdown that grows: only the new suffix is parsed on each frame."""

    DEFAULT_CSS = """
    AgentMessageView { margin: 1 0 0 0; padding: 0 1; }
    AgentMessageView Markdown { margin: 0; padding: 0; }
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry)
        self._rendered = ""

    def compose(self) -> ComposeResult:
        yield Markdown()

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, AgentMessage | AgentThought)
        await self.render_text(safe(entry.text))

    async def render_text(self, text: str) -> None:
        markdown = self.query_one(Markdown)
        if text.startswith(self._rendered):
            delta = text[len(self._rendered) :]
            if delta:
                self._rendered = text
                await markdown.append(delta)
        else:
            # The agent replaced the message (a v2 upsert): start over.
            self._rendered = text
            await markdown.update(text)


class ThoughtView(EntryView):
    """The agent's reasoning, collapsed by default."""

    DEFAULT_CSS = """
    ThoughtView { margin: 1 0 0 0; color: $text-muted; }
    ThoughtView Collapsible { border: none; padding: 0; background: transparent; }
    ThoughtView Static { color: $text-muted; padding: 0 0 0 2; }
    """

    def compose(self) -> ComposeResult:
        with Collapsible(title="💭 Thinking", collapsed=True):
            yield Static(classes="thought")

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, AgentThought)
        self.query_one(".thought", Static).update(Text(safe(entry.text)))

    def set_expanded(self, expanded: bool) -> None:
        self.query_one(Collapsible).collapsed = not expanded


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
    ToolCallView .body { height: auto; }
    ToolCallView .terminal { background: $background; color: $text; padding: 0 1; max-height: 20; overflow-y: auto; }
    ToolCallView .status-pending .header { color: $text-muted; }
    ToolCallView.-status-failed { border-left: thick $error; }
    ToolCallView.-status-completed { border-left: thick $success; }
    ToolCallView.-status-in-progress { border-left: thick $warning; }
    ToolCallView Collapsible { border: none; padding: 0; background: transparent; }
    """

    terminal_lookup: ClassVar[Any] = None

    def compose(self) -> ComposeResult:
        yield Static(classes="header")
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
        header.append(safe(entry.title or entry.tool_call_id, TITLE_LIMIT))
        header.append(f"  [{STATUS_LABELS.get(status, safe(status, 40))}]", style="dim")
        self.query_one(".header", Static).update(header)
        locations = [
            safe(loc.get("path", ""), 300)
            + (f":{loc['line']}" if isinstance(loc.get("line"), int) else "")
            for loc in entry.locations or []
            if isinstance(loc, dict)
        ]
        location_view = self.query_one(".locations", Static)
        location_view.update(Text("  ".join(locations)))
        location_view.display = bool(locations)
        await self._draw_body(entry)

    async def _draw_body(self, entry: ToolCall) -> None:
        body = self.query_one(".body", Vertical)
        await body.remove_children()
        widgets: list[Widget] = []
        for item in entry.content or []:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "diff":
                widgets.append(make_diff_widget(item))
            elif kind == "terminal":
                terminal_id = item.get("terminalId")
                widgets.append(Static(self._terminal_text(terminal_id), classes="terminal"))
            elif kind == "content":
                block = item.get("content")
                if isinstance(block, dict) and block.get("type") == "text":
                    widgets.append(Static(Text(safe(block.get("text", ""), RAW_LIMIT))))
                elif isinstance(block, dict):
                    widgets.append(
                        Static(Text(f"[{safe(block.get('type'), 40)} content]", style="dim"))
                    )
        if entry.raw_output is not None:
            raw = Collapsible(
                Static(Text(pretty_json(entry.raw_output))), title="raw output", collapsed=True
            )
            widgets.append(raw)
        if widgets:
            await body.mount_all(widgets)

    def _terminal_text(self, terminal_id: Any) -> Text:
        lookup = type(self).terminal_lookup
        if lookup is None or not isinstance(terminal_id, str):
            return Text(f"terminal {safe(terminal_id, 80)}", style="dim")
        state = lookup(terminal_id)
        if state is None:
            return Text(f"terminal {safe(terminal_id, 80)} (released)", style="dim")
        text = Text(f"$ {safe(state.command_line, 2000)}\n", style="bold")
        text.append(safe(state.output[-RAW_LIMIT:]))
        if state.exit_status is not None:
            text.append(
                f"\n[exit: {state.exit_status.describe() if hasattr(state.exit_status, 'describe') else state.exit_status}]",
                style="dim",
            )
        return text

    def refresh_terminal(self) -> None:
        entry = self.entry
        assert isinstance(entry, ToolCall)
        terminals = [
            item.get("terminalId")
            for item in entry.content or []
            if isinstance(item, dict) and item.get("type") == "terminal"
        ]
        views = list(self.query(".terminal").results(Static))
        for view, terminal_id in zip(views, terminals, strict=False):
            view.update(self._terminal_text(terminal_id))


def make_diff_widget(item: dict[str, Any]) -> Widget:
    try:
        from acp_tui.ui.widgets.diff_view import DiffView
    except ImportError:  # pragma: no cover - the diff view ships with the package
        return Static(Text(safe(item.get("path", "diff"))))
    return DiffView(
        path=safe(item.get("path", ""), 500),
        old_text=item.get("oldText") if isinstance(item.get("oldText"), str) else None,
        new_text=item.get("newText") if isinstance(item.get("newText"), str) else "",
    )


class PlanView(EntryView):
    DEFAULT_CSS = """
    PlanView { margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; }
    """

    def compose(self) -> ComposeResult:
        yield Static()

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, PlanSnapshot)
        text = Text()
        text.append("Plan", style="bold")
        for item in entry.entries or []:
            if not isinstance(item, dict):
                continue
            status = item.get("status", "pending")
            mark = PLAN_MARKS.get(status, "○") if isinstance(status, str) else "○"
            style = (
                "dim strike"
                if status == "completed"
                else ("bold" if status == "in_progress" else "")
            )
            text.append(f"\n {mark} ")
            text.append(safe(item.get("content", ""), 1000), style=style)
        self.query_one(Static).update(text)


class NoticeView(EntryView):
    DEFAULT_CSS = """
    NoticeView { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    NoticeView.-warning { color: $warning; }
    NoticeView.-error { color: $error; }
    """

    def compose(self) -> ComposeResult:
        yield Static()

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, Notice)
        severity = entry.severity if entry.severity in ("info", "warning", "error") else "info"
        for name in ("info", "warning", "error"):
            self.set_class(severity == name, f"-{name}")
        text = Text("• " + safe(entry.title, TITLE_LIMIT))
        if entry.description:
            text.append("\n  " + safe(entry.description, 4000), style="dim")
        self.query_one(Static).update(text)


class UnknownView(EntryView):
    """An update this client does not know: kept, shown compactly, raw on demand."""

    DEFAULT_CSS = """
    UnknownView { margin: 0; padding: 0 1; color: $text-muted; }
    UnknownView Collapsible { border: none; padding: 0; background: transparent; }
    """

    def compose(self) -> ComposeResult:
        entry = self.entry
        assert isinstance(entry, UnknownUpdate)
        kind = entry.update_kind or "?"
        title = f"unknown update: {safe(kind, 80)}" + (
            f" ({safe(entry.error, 200)})" if entry.error else ""
        )
        with Collapsible(title=title, collapsed=True):
            yield Static(Text(pretty_json(entry.raw)))

    async def redraw(self) -> None:
        return None


def view_for(entry: Entry) -> EntryView:
    if isinstance(entry, UserMessage):
        return UserMessageView(entry)
    if isinstance(entry, AgentThought):
        return ThoughtView(entry)
    if isinstance(entry, AgentMessage):
        return AgentMessageView(entry)
    if isinstance(entry, ToolCall):
        return ToolCallView(entry)
    if isinstance(entry, PlanSnapshot):
        return PlanView(entry)
    if isinstance(entry, Notice):
        return NoticeView(entry)
    if isinstance(entry, UnknownUpdate):
        return UnknownView(entry)
    return UnknownView(UnknownUpdate(entry.id, {"sessionUpdate": entry.kind}, None))


class Transcript(VerticalScroll):
    """The conversation of one session. Follows the bottom unless the person scrolled up."""

    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    Transcript.-hide-thoughts ThoughtView { display: none; }
    Transcript > .empty-hint { color: $text-muted; margin: 1 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session_id: str | None = None
        self._views: dict[int, EntryView] = {}
        self._busy = False

    def on_mount(self) -> None:
        self.anchor()

    async def show_session(self, session_id: str | None, entries: list[Entry]) -> None:
        """Replace everything with the transcript of ``session_id``."""
        self.session_id = session_id
        self._views.clear()
        await self.remove_children()
        await self.sync_entries(entries, set())
        self.anchor()

    async def sync_entries(self, entries: list[Entry], changed: set[int] | None) -> None:
        """Mount views for new entries and redraw changed ones (``None``: check all)."""
        # The store keeps changing while we await mounts: work on a snapshot of the list.
        entries = list(entries)
        new_views: list[EntryView] = []
        for entry in entries:
            view = self._views.get(entry.id)
            if view is None:
                view = view_for(entry)
                self._views[entry.id] = view
                new_views.append(view)
        if new_views:
            with self.app.batch_update():
                await self.mount_all(new_views)
        for entry in entries:
            view = self._views[entry.id]
            if view in new_views or changed is None or entry.id in changed:
                await view.sync(entry)
        if len(self._views) != len(entries):
            alive = {entry.id for entry in entries}
            for entry_id in [key for key in self._views if key not in alive]:
                await self._views.pop(entry_id).remove()

    def refresh_terminals(self) -> None:
        for view in self._views.values():
            if isinstance(view, ToolCallView):
                view.refresh_terminal()

    def set_thoughts_visible(self, visible: bool) -> None:
        self.set_class(not visible, "-hide-thoughts")

    def expand_thoughts(self, expanded: bool) -> None:
        for view in self._views.values():
            if isinstance(view, ThoughtView):
                view.set_expanded(expanded)
