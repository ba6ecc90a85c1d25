"""The transcript's view of each kind of entry but tool calls
(:mod:`~acp_tui.ui.widgets.tool_call_view`) and subagents
(:mod:`~acp_tui.ui.widgets.subagent_views`), and :func:`view_for`, which picks the view of an
entry through the store's :class:`~acp_tui.store.entries.EntryVisitor`, so that a new kind of
entry without a view is a type error. Every string from the agent is shown literally."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
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
    ShellRun,
    SubagentCard,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.text.safety import clean_cut, sanitize_terminal_text
from acp_tui.ui.agent_text import agent_content, line_of
from acp_tui.ui.widgets.attachment_chips import attachment_chips
from acp_tui.ui.widgets.entry_view import (
    FOLD_CLOSED,
    FOLD_OPEN,
    RAW_LIMIT,
    TITLE_LIMIT,
    EntryView,
    pretty_json,
    safe,
)
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.shell_view import ShellRunView
from acp_tui.ui.widgets.subagent_views import (
    SessionMessageView,
    SubagentCardView,
)
from acp_tui.ui.widgets.tool_call_view import TerminalLookup, ToolCallView

PLAN_MARKS: dict[str, str] = {"pending": "○", "in_progress": "◐", "completed": "●"}
#: Characters of a reply's new text sanitised per step (a few milliseconds each).
SANITIZE_SLICE = 256_000


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

    def shell_run(self, entry: ShellRun, lookup: TerminalLookup | None, /) -> EntryView:
        return ShellRunView(entry)

    def unknown(self, entry: UnknownUpdate, lookup: TerminalLookup | None, /) -> EntryView:
        return UnknownView(entry)


_VIEWS = _Views()


def view_for(entry: Entry, terminal_lookup: TerminalLookup | None = None) -> EntryView:
    return entry.accept(_VIEWS, terminal_lookup)
