"""The transcript: one view per store entry, refreshed at most once per frame.

The store says which entries changed (:class:`acp_tui.store.Changes`); each view compares the
entry's ``version`` with the one it drew and only then re-renders. Agent messages are drawn by
:class:`~acp_tui.ui.widgets.markdown_lines.MarkdownLines`, which renders each top-level block
once, so a streamed reply costs about what rendering it once costs.

Long sessions and huge replies stay cheap because the widget tree stays bounded and only what
is on screen is drawn: the transcript mounts views for the last :data:`WINDOW` entries only
(older ones wait behind a "show earlier" row, and a session that keeps growing while followed at
the bottom drops its oldest views), and a reply of any size is laid out as it arrives and drawn
where it is seen (:class:`MarkdownLines`). Nothing of a reply is ever folded away.

Every string from the agent is shown literally (``rich.text.Text``, never markup) after
:func:`acp_tui.text.safety.sanitize_terminal_text` removes escape sequences.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Compaction,
    Entry,
    Notice,
    PlanSnapshot,
    SessionMessage,
    SubagentCard,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.tool_content import FileDiff, SessionRef, TerminalRef
from acp_tui.text.fences import unfenced
from acp_tui.text.safety import clean_cut, sanitize_terminal_text
from acp_tui.text.titles import plain_title
from acp_tui.ui.agent_text import agent_content, line_of
from acp_tui.ui.keymap import key_label
from acp_tui.ui.textual_patches import access
from acp_tui.ui.textual_patches.tall import with_coarse_grid
from acp_tui.ui.widgets.attachment_chips import attachment_chips
from acp_tui.ui.widgets.entry_view import RAW_LIMIT, EntryView, pretty_json, safe
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.subagent_views import (
    SessionLookup,
    SessionMessageView,
    SubagentCardView,
    session_lookup_of,
)

log = logging.getLogger(__name__)

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
#: A fold's marks: Textual's own (▶, ▼) is an emoji some terminals draw two cells wide.
FOLD_CLOSED, FOLD_OPEN = "▸", "▾"
PLAN_MARKS: dict[str, str] = {"pending": "○", "in_progress": "◐", "completed": "●"}
TITLE_LIMIT = 500
#: A tool call's command line, shown on one row under its title (the dialog shows it whole).
COMMAND_LIMIT = 500
#: Characters of a reply's new text sanitised per step (a few milliseconds each).
SANITIZE_SLICE = 256_000
#: Entries with a mounted view at most, while the person follows the bottom.
WINDOW = 60
#: How far past :data:`WINDOW` the view count may grow before the oldest views are dropped
#: (dropping in steps keeps it off the per-frame path).
WINDOW_SLACK = 40
#: Entries a "show earlier" press mounts.
EARLIER_STEP = 50
#: Entries with a view when a session is first shown: a screen's worth and more. The rest
#: of the window is mounted above them after the first frame, :data:`FILL_STEP` at a time, so
#: a resumed session of thousands of entries shows its last ones at once (mounting and laying
#: out all :data:`WINDOW` first took half a second on a 2-core machine).
FIRST_SHOWN = 12
#: Entries mounted per frame while the rest of the window fills in above.
FILL_STEP = 12


class UserMessageView(EntryView, can_focus=True):
    """One of the person's messages. Focused (Alt+Up from the prompt), Enter asks to rewind
    to before it (:class:`UserMessageView.RewindAsked`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "rewind", "Rewind to here", id="rewind-message"),
    ]

    class RewindAsked(Message):
        """Rewind to before this message (``entry_id``: its store entry)."""

        def __init__(self, entry_id: int) -> None:
            super().__init__()
            self.entry_id = entry_id

    DEFAULT_CSS = """
    UserMessageView {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    UserMessageView:focus { border-left: thick $accent; background: $accent 20%; }
    UserMessageView > .attachments { display: none; }
    UserMessageView > .attachments.-some { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="text")
        yield Static(classes="attachments")

    def action_rewind(self) -> None:
        self.post_message(self.RewindAsked(self.entry.id))

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, UserMessage)
        self.query_one(".text", Static).update(Text(safe(entry.text)))
        chips = attachment_chips(entry.content)
        shelf = self.query_one(".attachments", Static)
        shelf.update(chips)
        shelf.set_class(bool(chips), "-some")


class FoldedText(Static, can_focus=True):
    """A row standing for content that is not mounted: Enter or a click shows it."""

    DEFAULT_CSS = """
    FoldedText { color: $text-muted; text-style: italic; padding: 0 1; }
    FoldedText:hover, FoldedText:focus { background: $boost; color: $text; }
    """
    BINDINGS = [Binding("enter", "unfold", "Show", id="show-folded")]

    class Unfold(Message):
        def __init__(self, row: FoldedText) -> None:
            super().__init__()
            self.row = row

    def on_click(self) -> None:
        self.action_unfold()

    def action_unfold(self) -> None:
        self.post_message(self.Unfold(self))


class GrowingMarkdownView(EntryView):
    """Markdown that grows, every word of it: drawn by :class:`MarkdownLines` (the one with
    the ``live`` class, which a subclass composes), which lays the text out as it arrives and
    draws only the rows on screen (and the last ones), so a text of any size, however fast it
    came, is readable from its first word to its last."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry)
        #: The raw text last shown, and how much of it is known to hold no control
        #: character (so it is its own sanitised form).
        self._raw = ""
        self._plain_chars = 0

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, AgentMessage | AgentThought)
        text = entry.text
        await self.render_text(text if isinstance(text, str) else str(text))

    async def render_text(self, text: str) -> None:
        """Show ``text`` (the agent's, made inert here)."""
        await self.query_one(".live", MarkdownLines).stream(
            await self._sanitized(text), self._expected_width()
        )

    async def _sanitized(self, text: str) -> str:
        """:func:`sanitize_terminal_text` of ``text``, scanning only what is new, a slice at a
        time (other tasks run between slices). Text that sanitising leaves as it is ends no
        escape sequence; cut after an ASCII character (:func:`clean_cut`), it is sanitised
        the same apart from what follows, so the known-plain start is never scanned again,
        and never copied: a reply of 50 MB costs one scan, not one per frame."""
        if not text.startswith(self._raw):
            self._plain_chars = 0  # replaced, not grown
        self._raw = text
        plain = self._plain_chars
        while plain < len(text):
            piece = text[plain : plain + SANITIZE_SLICE]
            clean = sanitize_terminal_text(piece)
            if clean is not piece and clean != piece:
                break  # something removed: from here on, scanned whole each time
            cut = clean_cut(piece)
            if not cut:
                break
            plain += cut
            if plain < len(text):
                await asyncio.sleep(0)
        self._plain_chars = plain
        if plain == len(text):
            return text
        return text[:plain] + sanitize_terminal_text(text[plain:])

    def _expected_width(self) -> int | None:
        """The width the text will get, for a view not laid out yet: its container's width
        less its own padding and border (a wrong guess only costs estimates again)."""
        if self.size.width:
            return self.size.width
        container = self.parent
        if not isinstance(container, Widget):
            return None
        available = container.scrollable_content_region.width
        return available - self.styles.gutter.width if available > 0 else None


class AgentMessageView(GrowingMarkdownView):
    """A reply."""

    DEFAULT_CSS = """
    AgentMessageView { margin: 1 0 0 0; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield MarkdownLines(classes="live")


class ThoughtView(GrowingMarkdownView):
    """The agent's reasoning, collapsed by default: Markdown, drawn as a reply is (agents
    write their thoughts in it: Codex starts each with a ``**bold**`` title), muted."""

    DEFAULT_CSS = """
    ThoughtView { margin: 1 0 0 0; padding: 0; color: $text-muted; }
    ThoughtView Collapsible { border: none; padding: 0; background: transparent; }
    ThoughtView MarkdownLines { color: $text-muted; padding: 0 0 0 2; }
    """

    def compose(self) -> ComposeResult:
        with Collapsible(
            title="💭 Thinking",
            collapsed=True,
            collapsed_symbol=FOLD_CLOSED,
            expanded_symbol=FOLD_OPEN,
        ):
            yield MarkdownLines(classes="live thought")

    def set_expanded(self, expanded: bool) -> None:
        for fold in self.query(Collapsible):  # none yet while the view mounts
            fold.collapsed = not expanded

    @property
    def expanded(self) -> bool:
        return any(not fold.collapsed for fold in self.query(Collapsible))


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
        if lookup is None or not isinstance(terminal_id, str):
            return Text(f"terminal {line_of(terminal_id, 80)}", style="dim")
        state = lookup(terminal_id)
        if state is None:
            return Text(f"terminal {line_of(terminal_id, 80)} (released)", style="dim")
        text = Text(f"$ {line_of(state.command_line, 2000)}\n", style="bold")
        text.append(safe(state.output[-RAW_LIMIT:]))
        if state.exit_status is not None:
            text.append(f"\n[{line_of(state.exit_status.describe(), 40)}]", style="dim")
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


class PlanView(EntryView):
    DEFAULT_CSS = """
    PlanView { margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; }
    PlanView.-removed { color: $text-muted; border-left: thick $panel; }
    """

    def compose(self) -> ComposeResult:
        yield Static()

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, PlanSnapshot)
        text = Text()
        text.append("Plan", style="bold")
        self.set_class(entry.removed, "-removed")
        if entry.removed:
            text.append(" (removed by the agent)", style="italic")
        if entry.markdown is not None:
            text.append("\n" + safe(entry.markdown, RAW_LIMIT))
        elif entry.file_uri is not None:
            text.append(" in ", style="italic")
            text.append(line_of(entry.file_uri, TITLE_LIMIT), style="underline")
        for item in entry.items:
            status = item.status
            mark = PLAN_MARKS.get(status, "○")
            style = (
                "dim strike"
                if status == "completed"
                else ("bold" if status == "in_progress" else "")
            )
            text.append(f"\n {mark} ")
            text.append(safe(item.content, 1000), style=style)
        self.query_one(Static).update(text)


class NoticeView(EntryView):
    """A notice: the client's own (muted) or a live one from the agent (marked, in its
    severity's colour; an unknown severity shows as info)."""

    DEFAULT_CSS = """
    NoticeView { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    NoticeView.-warning { color: $warning; }
    NoticeView.-error { color: $error; }
    NoticeView.-agent { border-left: outer $primary; color: $text-primary; }
    NoticeView.-agent.-warning { border-left: outer $warning; color: $text-warning; }
    NoticeView.-agent.-error { border-left: outer $error; color: $text-error; }
    """

    MARKS: ClassVar[dict[str, str]] = {"info": "●", "warning": "▲", "error": "✗"}

    def compose(self) -> ComposeResult:
        yield Static()

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, Notice)
        severity = entry.severity if entry.severity in ("info", "warning", "error") else "info"
        for name in ("info", "warning", "error"):
            self.set_class(severity == name, f"-{name}")
        from_agent = entry.source == "agent"
        self.set_class(from_agent, "-agent")
        mark = self.MARKS[severity] if from_agent else "•"
        text = Text(f"{mark} " + safe(entry.title, TITLE_LIMIT))
        if entry.description:
            text.append("\n  " + safe(entry.description, 4000), style="dim")
        self.query_one(Static).update(text)


COMPACTION_TITLES: dict[str, str] = {
    "in_progress": "≡ Compacting context…",
    "completed": "≡ Context compacted",
    "failed": "≡ Context compaction failed",
    "cancelled": "≡ Context compaction cancelled",
}


class CompactionView(EntryView):
    """A context compaction: its status on one line, and the summary collapsed (like a
    thought) once there is one."""

    DEFAULT_CSS = """
    CompactionView { margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; color: $text-muted; }
    CompactionView .status { color: $text; }
    CompactionView.-in-progress .status { color: $text-warning; }
    CompactionView.-failed .status { color: $text-error; }
    CompactionView Collapsible { border: none; padding: 0; background: transparent; }
    CompactionView Collapsible.-empty { display: none; }
    CompactionView .summary { color: $text-muted; padding: 0 0 0 2; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="status")
        with Collapsible(
            title="Summary",
            collapsed=True,
            classes="-empty",
            collapsed_symbol=FOLD_CLOSED,
            expanded_symbol=FOLD_OPEN,
        ):
            yield Static(classes="summary")

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, Compaction)
        status = entry.status
        for name in ("in-progress", "completed", "failed", "cancelled"):
            self.set_class(status.replace("_", "-") == name, f"-{name}")
        title = COMPACTION_TITLES.get(status)
        line = Text(title if title else "≡ Context compaction: " + line_of(status, 40))
        if entry.error:
            line.append(": " + line_of(entry.error, 1000))
        self.query_one(".status", Static).update(line)
        summary = entry.summary_text
        self.query_one(Collapsible).set_class(not summary, "-empty")
        self.query_one(".summary", Static).update(Text(safe(summary, RAW_LIMIT)))

    def set_expanded(self, expanded: bool) -> None:
        for fold in self.query(Collapsible):  # none yet while the view mounts
            fold.collapsed = not expanded

    @property
    def expanded(self) -> bool:
        return any(not fold.collapsed for fold in self.query(Collapsible))


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
        title = f"unknown update: {line_of(kind, 80)}" + (
            f" ({line_of(entry.error, 200)})" if entry.error else ""
        )
        # A Collapsible reads a str title as markup: the variant's name is the agent's.
        with Collapsible(
            title=agent_content(title, 400),  # type: ignore[arg-type]
            collapsed=True,
            collapsed_symbol=FOLD_CLOSED,
            expanded_symbol=FOLD_OPEN,
        ):
            yield Static(Text(pretty_json(entry.raw)))

    async def redraw(self) -> None:
        return None


class _Views:
    """The view of each kind of entry (an :class:`~acp_tui.store.entries.EntryVisitor`; the
    context is the terminal lookup a tool call's view shows its terminals with)."""

    def user_message(self, entry: UserMessage, lookup: TerminalLookup | None, /) -> EntryView:
        return UserMessageView(entry)

    def agent_message(self, entry: AgentMessage, lookup: TerminalLookup | None, /) -> EntryView:
        return AgentMessageView(entry)

    def agent_thought(self, entry: AgentThought, lookup: TerminalLookup | None, /) -> EntryView:
        return ThoughtView(entry)

    def tool_call(self, entry: ToolCall, lookup: TerminalLookup | None, /) -> EntryView:
        return ToolCallView(entry, lookup)

    def plan(self, entry: PlanSnapshot, lookup: TerminalLookup | None, /) -> EntryView:
        return PlanView(entry)

    def notice(self, entry: Notice, lookup: TerminalLookup | None, /) -> EntryView:
        return NoticeView(entry)

    def compaction(self, entry: Compaction, lookup: TerminalLookup | None, /) -> EntryView:
        return CompactionView(entry)

    def subagent(self, entry: SubagentCard, lookup: TerminalLookup | None, /) -> EntryView:
        return SubagentCardView(entry)

    def session_message(self, entry: SessionMessage, lookup: TerminalLookup | None, /) -> EntryView:
        return SessionMessageView(entry)

    def unknown(self, entry: UnknownUpdate, lookup: TerminalLookup | None, /) -> EntryView:
        return UnknownView(entry)


_VIEWS = _Views()


def view_for(entry: Entry, terminal_lookup: TerminalLookup | None = None) -> EntryView:
    return entry.accept(_VIEWS, terminal_lookup)


class Transcript(VerticalScroll):
    """The conversation of one session. Follows the bottom unless the person scrolled up.

    Only the last :data:`WINDOW` entries have views when a session is shown; a "show earlier"
    row on top mounts :data:`EARLIER_STEP` more at a time. While the person follows the
    bottom, views of entries older than the window are dropped again as the session grows."""

    # The scrollbar is always there: one that appears when the transcript first overflows
    # narrows every message by a column, and everything would be wrapped and drawn again.
    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-y: scroll; }
    Transcript.-hide-thoughts ThoughtView { display: none; }
    Transcript > .empty-hint { color: $text-muted; margin: 1 0; }
    Transcript > FoldedText.earlier-entries { margin: 1 0 0 0; display: none; }
    Transcript > FoldedText.earlier-entries.-folded { display: block; }
    """

    class Behind(Message):
        """New output arrived below the view (``behind``), or the view caught up again."""

        def __init__(self, transcript: Transcript, behind: bool) -> None:
            super().__init__()
            self.transcript = transcript
            self.behind = behind

        @property
        def control(self) -> Transcript:
            return self.transcript

    def __init__(
        self, *, id: str | None = None, terminal_lookup: TerminalLookup | None = None
    ) -> None:
        super().__init__(id=id)
        self.session_id: str | None = None
        #: Where tool calls find their terminals' output (handed to each tool call view).
        self.terminal_lookup = terminal_lookup
        #: Finds a session by id, for who sent a message between sessions (the screen's).
        self.session_lookup: SessionLookup | None = None
        self._views: dict[int, EntryView] = {}
        self._busy = False
        #: The entries last synced, and how many of the first ones have no view.
        self._entries: list[Entry] = []
        self._hidden = 0
        self._thoughts_expanded: bool | None = None
        self._earlier = FoldedText(classes="earlier-entries")
        #: Mounting awaits, and the screen syncs from its own task: one change at a time.
        self._lock = asyncio.Lock()
        #: Output arrived while the person was reading further up.
        self._behind = False
        #: Entries still to mount above, after a session was shown (see FIRST_SHOWN), and
        #: which showing they belong to (another one stops them).
        self._to_fill = 0
        self._shown_count = 0

    def compose(self) -> ComposeResult:
        yield self._earlier

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # As tall as every reply shown: see acp_tui.ui.textual_patches.tall.
        return with_coarse_grid(self, super().arrange(size, optimal))

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        """Whether the view sticks to the bottom (the person has not scrolled up)."""
        return self.is_anchored and not access.anchor_released(self)

    @property
    def behind(self) -> bool:
        """Whether output arrived below the view since the person scrolled up."""
        return self._behind

    def _set_behind(self, behind: bool) -> None:
        if behind != self._behind:
            self._behind = behind
            self.post_message(self.Behind(self, behind))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._behind and self.following:
            self._set_behind(False)

    def page(self, pages: int) -> None:
        """Scroll by ``pages`` screens (negative: up), as PgUp / PgDn do in the transcript."""
        if pages < 0:
            self.release_anchor()
        height = max(1, self.scrollable_content_region.height - 1)
        self.scroll_to(y=self.scroll_y + pages * height, animate=False, immediate=True)

    def to_top(self) -> None:
        self.release_anchor()
        self.scroll_home(animate=False, immediate=True)

    def to_bottom(self) -> None:
        """Jump to the newest output and follow it again."""
        self.anchor()
        self._set_behind(False)

    def action_scroll_home(self) -> None:
        """Home: the top at once (Textual animates Home for a second, through every row of a
        reply of megabytes on the way)."""
        self.to_top()

    def action_scroll_end(self) -> None:
        """End: the newest output at once, followed again."""
        self.to_bottom()

    def toggle_latest(self, kind: type[ThoughtView] | type[ToolCallView]) -> bool | None:
        """Expand the latest thought (or tool call's output) if collapsed, else collapse it.
        Returns whether it is now expanded; None when there is none."""
        for view in reversed(self._views.values()):
            if isinstance(view, kind):
                expanded = not view.expanded
                view.set_expanded(expanded)
                if not self.following:
                    self.call_after_refresh(view.scroll_visible, animate=False)
                return expanded
        return None

    async def show_session(self, session_id: str | None, entries: list[Entry]) -> None:
        """Replace everything with the transcript of ``session_id``."""
        async with self._lock:
            await self._show_session(session_id, entries)

    async def _show_session(self, session_id: str | None, entries: list[Entry]) -> None:
        self.session_id = session_id
        self.to_bottom()  # another session: nothing of it was read yet
        self._views.clear()
        await self.remove_children([c for c in self.children if c is not self._earlier])
        self._shown_count += 1
        self._hidden = max(0, len(entries) - FIRST_SHOWN)
        await self._sync_entries(entries, set())
        self.to_bottom()
        self._to_fill = min(self._hidden, WINDOW - FIRST_SHOWN)
        if self._to_fill:
            self.call_after_refresh(self._fill_step, self._shown_count)

    @property
    def filling(self) -> bool:
        """Whether views are still being mounted above those shown first."""
        return bool(self._to_fill)

    async def _fill_step(self, shown: int) -> None:
        """Mount up to :data:`FILL_STEP` more views above, while the person follows the
        bottom (content added above would move what someone reading further up sees: the
        rest stays behind the "earlier entries" row then)."""
        async with self._lock:
            if shown != self._shown_count:
                return  # another session (or this one again) was shown since: its own fill
            if not self.following or not self._hidden:
                self._to_fill = 0
                return
            step = min(FILL_STEP, self._to_fill)
            await self._show_earlier(step, follow=True)
            self._to_fill -= step
        if self._to_fill:
            self.call_after_refresh(self._fill_step, shown)

    async def sync_entries(self, entries: list[Entry], changed: set[int] | None) -> None:
        """Mount views for new entries and redraw changed ones (``None``: check all)."""
        async with self._lock:
            await self._sync_entries(entries, changed)

    async def _sync_entries(self, entries: list[Entry], changed: set[int] | None) -> None:
        # The store keeps changing while we await mounts: work on a snapshot of the list.
        entries = list(entries)
        if not self.following and self.session_id is not None:
            self._set_behind(True)
        self._entries = entries
        hidden = min(self._hidden, len(entries))
        if self.following and len(entries) - hidden > WINDOW + WINDOW_SLACK:
            hidden = len(entries) - WINDOW
        self._hidden = hidden
        shown = entries[hidden:]
        new_views: list[EntryView] = []
        for entry in shown:
            view = self._views.get(entry.id)
            if view is None:
                view = view_for(entry, self.terminal_lookup)
                self._views[entry.id] = view
                new_views.append(view)
        if new_views:
            with self.app.batch_update():
                await self.mount_all(new_views)
        fresh = set(new_views)
        failure = await _sync_each(
            (entry, self._views[entry.id])
            for entry in shown
            if self._views[entry.id] in fresh or changed is None or entry.id in changed
        )
        if fresh:
            self._apply_thought_state(fresh)
        if len(self._views) != len(shown):
            alive = {entry.id for entry in shown}
            gone = [key for key in self._views if key not in alive]
            await self.remove_children([self._views.pop(key) for key in gone])
        self._update_earlier()
        if failure is not None:
            raise failure

    async def show_earlier(self, count: int = EARLIER_STEP) -> None:
        """Mount views for up to ``count`` more of the entries before the first shown."""
        async with self._lock:
            await self._show_earlier(count)

    async def _show_earlier(self, count: int, follow: bool = False) -> None:
        """``follow``: keep following the bottom (views added above, out of sight), else the
        view stays where it is (at the top, where "show earlier" was pressed)."""
        if not self._hidden:
            return
        if not follow:
            self._to_fill = 0
            self.release_anchor()
        start = max(0, self._hidden - count)
        entries = self._entries[start : self._hidden]
        views = [view_for(entry, self.terminal_lookup) for entry in entries]
        first = next(
            (c for c in self.children if isinstance(c, EntryView)),
            None,
        )
        # In the transcript's order (the earlier ones first): "the latest" of Ctrl+T and
        # Ctrl+O is the last of them, and views added at the end would be taken for it.
        later = dict(self._views)
        self._views.clear()
        for entry, view in zip(entries, views, strict=True):
            self._views[entry.id] = view
        self._views.update(later)
        self._hidden = start
        with self.app.batch_update():
            if first is not None:
                await self.mount_all(views, before=first)
            else:
                await self.mount_all(views)
        failure = await _sync_each(zip(entries, views, strict=True))
        self._apply_thought_state(set(views))
        self._update_earlier()
        if failure is not None:
            raise failure

    def _update_earlier(self) -> None:
        row = self._earlier
        if self._hidden:
            row.update(
                Text(
                    f"⋯ {self._hidden:,} earlier entries: "
                    f"{key_label(row, 'show-folded', owner=FoldedText)} or click to show "
                    f"{min(self._hidden, EARLIER_STEP)} more"
                )
            )
        row.set_class(bool(self._hidden), "-folded")

    async def on_folded_text_unfold(self, event: FoldedText.Unfold) -> None:
        if event.row is self._earlier:
            event.stop()
            await self.show_earlier()

    def on_markdown_lines_shifted(self, event: MarkdownLines.Shifted) -> None:
        """Rows above the view became exact as they were drawn: move by as much, so what
        the person is reading stays where it is (at the bottom, the anchor does that)."""
        event.stop()
        if self.following or self._scrolling():
            return  # an animated scroll (Home, PgUp) goes where it was sent
        rows = event.rows

        def keep_still() -> None:
            if not self._scrolling():
                self.scroll_to(y=self.scroll_y + rows, animate=False, immediate=True)

        self.call_after_refresh(keep_still)

    def _scrolling(self) -> bool:
        return self.app.animator.is_being_animated(self, "scroll_y")

    def refresh_terminals(self) -> None:
        for view in self._views.values():
            if isinstance(view, ToolCallView):
                view.refresh_terminal()

    def set_thoughts_visible(self, visible: bool) -> None:
        self.set_class(not visible, "-hide-thoughts")

    def expand_thoughts(self, expanded: bool) -> None:
        self._thoughts_expanded = expanded
        for view in self._views.values():
            if isinstance(view, ThoughtView):
                view.set_expanded(expanded)

    def _apply_thought_state(self, views: set[EntryView]) -> None:
        if self._thoughts_expanded is None:
            return
        for view in views:
            if isinstance(view, ThoughtView):
                view.set_expanded(self._thoughts_expanded)


async def _sync_each(pairs: Iterable[tuple[Entry, EntryView]]) -> Exception | None:
    """Draw each entry into its view; one that cannot draw (a bug, an input nobody foresaw)
    never leaves the entries after it blank. The first failure is returned, for the caller to
    raise once the rest is drawn (the screen logs it and tells the person)."""
    failure: Exception | None = None
    for entry, view in pairs:
        try:
            await view.sync(entry)
        except Exception as error:
            failure = failure or error
    return failure
