"""Subagents: child sessions an agent starts and shows (``subagent_update``), the messages
between sessions (``session_message``, ``session_message_chunk``), and each child's card in
its parent's transcript, kept as the child changes. Spec:
https://agentclientprotocol.com/protocol/v1/subagents (v2: a baseline,
https://agentclientprotocol.com/protocol/v2/subagents).

A child is a session of the store like any other (its own transcript, activity, tool calls,
permission requests), with a ``parent_id``; it is left out of the catalog (the sidebar shows
it under its parent). The first ``subagent_update`` for an id announces it; later ones patch
it and never move it to another parent. Its card (:class:`SubagentCard`) is refreshed by
:meth:`Subagents.refresh` whenever the child's transcript or activity changes: the reducer and
the registry call it for every session that has a parent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from acp_tui.store.changes import PART_INFO, PART_TITLE, ChangeTracker
from acp_tui.store.entries import (
    AgentMessage,
    MessageEntry,
    Notice,
    SessionMessage,
    SubagentCard,
    ToolCall,
)
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.routes import Route, route
from acp_tui.store.session import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    ACTIVITY_UNKNOWN,
    SessionState,
)
from acp_tui.wire import coerce
from acp_tui.wire import updates as wire
from acp_tui.wire.constants import UpdateKind

__all__ = ["LINE_LIMIT", "Subagents", "last_line", "tail_line"]

#: The longest last line a card keeps (a card shows one line).
LINE_LIMIT = 200
#: How far back from a child's last entry its last line is looked for.
_LOOK_BACK = 32
_ACTIVITIES = (ACTIVITY_RUNNING, ACTIVITY_IDLE, ACTIVITY_REQUIRES_ACTION, ACTIVITY_UNKNOWN)


def tail_line(entry: MessageEntry, limit: int = LINE_LIMIT) -> str:
    """The last non-blank line of a message's text, read from its end: never the whole text
    (a child's card is refreshed with each chunk it streams)."""
    tail = ""
    for segment in reversed(entry._segments):
        if not isinstance(segment, list):
            if tail.strip():
                break
            continue
        for part in reversed(segment):
            tail = part + tail
            stripped = tail.rstrip()
            if "\n" in stripped or len(stripped) > limit:
                return stripped.rsplit("\n", 1)[-1][-limit:]
    return tail.strip().rsplit("\n", 1)[-1][-limit:]


def last_line(child: SessionState) -> str:
    """What a child's card shows of it: the last line of its last message (to anyone), else
    the tool call or notice it is at; "" before anything."""
    transcript = child.transcript
    for entry in reversed(transcript[-_LOOK_BACK:]):
        if isinstance(entry, AgentMessage | SessionMessage):
            line = tail_line(entry)
            if line:
                return line
        elif isinstance(entry, ToolCall) and entry.label:
            return entry.label[:LINE_LIMIT]
        elif isinstance(entry, Notice):
            return entry.title[:LINE_LIMIT]
    return ""


class Subagents:
    """The handlers of the subagent updates, and the cards kept up to date."""

    __slots__ = ("_flush_held", "_registry", "_tracker")

    def __init__(
        self, registry: SessionRegistry, flush_held: Callable[[SessionState], None]
    ) -> None:
        self._registry = registry
        self._tracker: ChangeTracker = registry.tracker
        self._flush_held = flush_held
        registry.child_changed = self.refresh

    def routes(self) -> dict[str, Route]:
        """``sessionUpdate`` kind -> its coercer and handler."""
        return {
            UpdateKind.SUBAGENT_UPDATE: route(coerce.subagent, self._on_subagent),
            UpdateKind.SESSION_MESSAGE: route(coerce.session_message, self._on_message),
            UpdateKind.SESSION_MESSAGE_CHUNK: route(
                coerce.session_message_chunk, self._on_message_chunk
            ),
        }

    # -- children ------------------------------------------------------------------------------
    def _on_subagent(self, s: SessionState, u: wire.SubagentUpdate) -> None:
        """Announce (first time) or patch (omitted unchanged, ``null`` cleared) a child of
        ``s``. A child another session owns, or ``s`` itself, is refused: ownership never
        moves."""
        child_id = u["sessionId"]
        sessions = self._registry.sessions
        child = sessions.get(child_id)
        if child_id == s.id or (child is not None and child.parent_id not in (None, s.id)):
            raise ValueError(f"sessionId: {child_id!r} is not a subagent this session can own")
        if child is not None and child.parent_id is None and child.live:
            raise ValueError(f"sessionId: {child_id!r} is a session of its own")
        announced = child is None or child.parent_id is None
        child = self._registry.ensure(child_id)
        card: SubagentCard | None = None
        if s.replaying or s.shadow:  # a replay rebuilds the transcript: a card of its own
            card = next(
                (
                    e
                    for e in reversed(s.transcript)
                    if isinstance(e, SubagentCard) and e.child_id == child_id
                ),
                None,
            )
        elif not announced:
            card = child.card
        if card is None:
            card = self._card(s, child)
        if announced:
            parent = sessions.get(s.id, s)  # the session itself, also while a replay is built
            child.parent_id = s.id
            parent.children.append(child_id)
            self._registry.ordered = None  # a child leaves the catalog
            self._tracker.touch(parent, PART_INFO)
            self._tracker.touch_catalog()
        if "title" in u:
            card.title = u["title"]
            if not child.title_pinned:
                child.title = u["title"]
                child._search_key = None
                self._tracker.touch(child, PART_TITLE)
        if "description" in u:
            card.description = u["description"]
        if "capabilities" in u:
            caps = u["capabilities"]
            card.can_cancel = isinstance(caps, dict) and isinstance(caps.get("cancel"), dict)
        cwd = u.get("cwd")
        self._registry.make_live(child, cwd if cwd else (child.cwd or s.cwd))
        if "state" in u:
            self._state(child, card, u["state"])
        card.version += 1
        self._tracker.touch_entry(s, card)
        if announced:
            self._flush_held(child)
        self.refresh(child)

    def _card(self, parent: SessionState, child: SessionState) -> SubagentCard:
        card = SubagentCard(self._registry.next_id(), child.id)
        if child.card is not None:  # announced again (a replay): the card as it stood
            for name in ("title", "description", "status", "stop_reason", "can_cancel"):
                setattr(card, name, getattr(child.card, name))
        child.card = card
        parent.transcript.append(card)
        return card

    def _state(
        self, child: SessionState, card: SubagentCard, state: wire.JsonObject | None
    ) -> None:
        """v1: the parent's report of the child's work (a whole ``StateUpdate``); ``null``:
        not known now. An idle one may say why the work stopped."""
        if state is None:
            card.status = None
            self._registry.set_activity(child, ACTIVITY_IDLE, ended=False)
            return
        name = state.get("state")
        activity = name if name in _ACTIVITIES else ACTIVITY_UNKNOWN
        card.status = activity
        if activity == ACTIVITY_IDLE:
            reason = state.get("stopReason")
            child.stop_reason = reason if isinstance(reason, str) else None
            card.stop_reason = child.stop_reason
        elif activity == ACTIVITY_RUNNING:
            child.stop_reason = card.stop_reason = None
        self._registry.set_activity(child, activity)

    def refresh(self, child: SessionState) -> None:
        """The child changed: its card says so (state, timing, last line)."""
        card = child.card
        parent = self._registry.sessions.get(child.parent_id) if child.parent_id else None
        if card is None or parent is None:
            return
        activity = child.activity
        status = card.status if card.status is None and activity == ACTIVITY_IDLE else activity
        line = last_line(child)
        started, ended = card.started_at, card.ended_at
        if child.turn_started is not None:
            started, ended = child.turn_started, None
        elif started is not None and ended is None:
            ended = self._registry.clock()
        stop = child.stop_reason if activity == ACTIVITY_IDLE else None
        now = (status, line, started, ended, stop)
        if now == (card.status, card.last_line, card.started_at, card.ended_at, card.stop_reason):
            return
        card.status, card.last_line, card.started_at, card.ended_at, card.stop_reason = now
        card.version += 1
        self._tracker.touch_entry(parent, card)

    # -- messages between sessions ---------------------------------------------------------------
    def _message(self, s: SessionState, message_id: str) -> SessionMessage:
        e = s.msg_index.get(message_id)
        if isinstance(e, SessionMessage):
            e.version += 1
            return e
        e = SessionMessage(self._registry.next_id(), message_id)
        s.msg_index[message_id] = e
        s.transcript.append(e)
        return e

    def _on_message(self, s: SessionState, u: wire.SessionMessage) -> None:
        """Upsert by ``messageId``: who sent it and to whom, and its content (omitted
        unchanged, ``null`` or ``[]`` cleared, an array replaces)."""
        e = self._message(s, u["messageId"])
        fields: Mapping[str, object] = u
        if "senderSessionId" in fields:
            e.sender_id = u["senderSessionId"]
        if "recipientSessionId" in fields:
            e.recipient_id = u["recipientSessionId"]
        if "content" in fields:
            e.set_content(u["content"] or [])
        self._tracker.touch_entry(s, e)

    def _on_message_chunk(self, s: SessionState, u: wire.SessionMessageChunk) -> None:
        e = self._message(s, u["messageId"])
        e.append_block(u["content"])
        self._tracker.touch_entry(s, e)
