"""The transcript's views of subagents: a child's card where its parent announced it (title,
state, how long it has worked, its last line; Enter or a click opens its own transcript,
Delete cancels it when the agent allows), and a message between sessions (a parent's task,
a child's report), named by who sent it.

Every string in them is the agent's: shown through :func:`~acp_tui.ui.agent_text.line_of`
and :func:`~acp_tui.ui.widgets.entry_view.safe`, never markup."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.store.entries import SessionMessage, SubagentCard
from acp_tui.store.session import SessionState
from acp_tui.text.relative_time import elapsed_text
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.widgets.entry_view import RAW_LIMIT, EntryView, safe

__all__ = [
    "SessionLookup",
    "SessionMessageView",
    "SubagentCardView",
    "cancellable",
    "session_lookup_of",
    "status_label",
]

#: Finds a session of the agent by id (a subagent, the parent of one); None if unknown.
SessionLookup = Callable[[str], SessionState | None]

TITLE_LIMIT = 200
LINE_LIMIT = 200
#: Statuses whose elapsed time still grows.
_GOING = ("running", "requires_action", "unknown")


def status_label(card: SubagentCard, now: float) -> str:
    """``● working 12 s``, ``▲ waiting for you``, ``✓ done in 34 s``, ``✗ cancelled``..."""
    started = card.started_at
    took = ""
    if started is not None:
        end = card.ended_at if card.ended_at is not None else now
        took = elapsed_text(max(0.0, end - started))
    status = card.status
    if status == "running":
        return f"● working {took}".rstrip()
    if status == "requires_action":
        return "▲ waiting for you"
    if status == "unknown":
        return "? not known"
    if status == "idle":
        reason = card.stop_reason
        if reason == "cancelled":
            return "✗ cancelled"
        if reason in ("error", "refusal"):
            return f"✗ {reason}"
        return f"✓ done in {took}" if took else "✓ done"
    if status is None:
        return "○ started"
    return f"● {line_of(status, 30)}"


def cancellable(card: SubagentCard) -> bool:
    """Whether the subagent can be cancelled now: its agent allows it and it still works."""
    return card.can_cancel and card.status in _GOING


def session_lookup_of(view: EntryView) -> SessionLookup | None:
    """The transcript's way to find a session (given to it by the screen)."""
    for node in view.ancestors:
        lookup = getattr(node, "session_lookup", None)
        if callable(lookup):
            return lookup
    return None


class SubagentCardView(EntryView, can_focus=True):
    """A subagent, where its parent started it. Its state's class (``-running``,
    ``-waiting``, ``-done``, ``-failed``) colours it; the elapsed time ticks while it works."""

    DEFAULT_CSS = """
    SubagentCardView {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $accent;
        background: $surface;
    }
    SubagentCardView:focus { background: $boost; border-left: thick $primary; }
    SubagentCardView.-running { border-left: thick $warning; }
    SubagentCardView.-waiting { border-left: thick $error; }
    SubagentCardView.-done { border-left: thick $success; }
    SubagentCardView .header { text-style: bold; }
    SubagentCardView .last { color: $text-muted; }
    SubagentCardView .hint { color: $text-muted; display: none; }
    SubagentCardView:focus .hint { display: block; }
    """

    BINDINGS = [
        Binding("enter", "open", "Open", id="subagent-open"),
        Binding("delete", "cancel_subagent", "Cancel subagent", id="subagent-cancel"),
    ]

    class Open(Message):
        """The person wants the subagent's own transcript."""

        def __init__(self, view: SubagentCardView, child_id: str) -> None:
            super().__init__()
            self.view = view
            self.child_id = child_id

        @property
        def control(self) -> SubagentCardView:
            return self.view

    class Cancel(Message):
        """The person cancels the subagent's work (``session/cancel`` on it)."""

        def __init__(self, view: SubagentCardView, child_id: str) -> None:
            super().__init__()
            self.view = view
            self.child_id = child_id

        @property
        def control(self) -> SubagentCardView:
            return self.view

    _ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="header")
        yield Static(classes="last")
        yield Static(classes="hint")

    @property
    def card(self) -> SubagentCard:
        entry = self.entry
        assert isinstance(entry, SubagentCard)
        return entry

    async def redraw(self) -> None:
        card = self.card
        status = card.status
        self.set_class(status == "running", "-running")
        self.set_class(status == "requires_action", "-waiting")
        self.set_class(status == "idle" and card.stop_reason in (None, "end_turn"), "-done")
        self.draw_state()
        last = self.query_one(".last", Static)
        last.update(Text(line_of(card.last_line, LINE_LIMIT)) if card.last_line else "")
        last.display = bool(card.last_line)
        hint = "Enter opens its transcript" + (" · Delete cancels it" if self._cancellable else "")
        self.query_one(".hint", Static).update(Text(hint))
        going = status in _GOING and card.started_at is not None
        if going and self._ticker is None:
            self._ticker = self.set_interval(1.0, self.draw_state)
        elif not going and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    @property
    def _cancellable(self) -> bool:
        return cancellable(self.card)

    def draw_state(self) -> None:
        """The header: what it is, and how it is doing (the elapsed time, once a second)."""
        if not self.is_mounted:
            return
        card = self.card
        header = Text("⧉ ")
        header.append(line_of(card.label, TITLE_LIMIT))
        header.append("  " + status_label(card, time.time()), style="dim")
        self.query_one(".header", Static).update(header)

    def action_open(self) -> None:
        self.post_message(self.Open(self, self.card.child_id))

    def action_cancel_subagent(self) -> None:
        if self._cancellable:
            self.post_message(self.Cancel(self, self.card.child_id))
        else:
            self.notify("This subagent cannot be cancelled now.", markup=False)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_open()


class SessionMessageView(EntryView):
    """A message between sessions: who sent it (or to whom it went), then its words."""

    DEFAULT_CSS = """
    SessionMessageView {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $accent;
    }
    SessionMessageView .who { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="who")
        yield Static(classes="text")

    def _session_name(self, session_id: str | None, lookup: SessionLookup | None) -> str:
        if session_id is None:
            return "another session"
        found = lookup(session_id) if lookup is not None else None
        if found is not None and found.card is not None:
            return line_of(found.card.label, TITLE_LIMIT)
        if found is not None:
            return line_of(found.display_title, TITLE_LIMIT)
        return line_of(session_id, 80)

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, SessionMessage)
        lookup = session_lookup_of(self)
        if entry.sender_id is not None:
            who = f"📨 from {self._session_name(entry.sender_id, lookup)}"
        else:
            who = f"📨 to {self._session_name(entry.recipient_id, lookup)}"
        self.query_one(".who", Static).update(Text(who))
        self.query_one(".text", Static).update(Text(safe(entry.text, RAW_LIMIT)))
