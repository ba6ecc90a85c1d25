"""The store's feed of the search index: what each session's transcript says, as it grows.

A :class:`SearchFeed` follows one agent's :class:`~acp_tui.store.store.SessionStore`. When the
store changes (its ``wake``), a scan is scheduled on the running event loop, at most once
every :data:`INTERVAL` seconds (and once after the last change): it compares each entry of
each transcript with what it handed over last (by entry and version) and hands the changed
ones, as plain rows, to the :class:`~acp_tui.store.search_writer.SearchWriter`, whose thread
writes them. A stream of chunks costs one look at the transcript per interval; a replay (load
or resume) is indexed as it arrives; nothing waits on SQLite.

What is kept of an entry (:func:`entry_text`): the person's messages, the agent's replies and
thoughts and messages between sessions (the first :data:`MESSAGE_CHARS` characters), a tool
call's title, command and the first :data:`TOOL_OUTPUT_CHARS` characters of its output.
Plans, notices and the rest are not indexed.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Sequence

from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Entry,
    SessionMessage,
    ToolCall,
    UserMessage,
)
from acp_tui.store.search_index import EntryRow, SessionRow
from acp_tui.store.search_writer import SearchWriter
from acp_tui.store.session import SessionState
from acp_tui.store.store import SessionStore

__all__ = [
    "INTERVAL",
    "MESSAGE_CHARS",
    "TOOL_OUTPUT_CHARS",
    "SearchFeed",
    "entry_text",
    "locate",
]

#: Seconds between two scans of a store that keeps changing.
INTERVAL = 1.0
#: What is indexed of one message, at most (characters).
MESSAGE_CHARS = 32_000
#: What is indexed of one tool call's output, at most (characters).
TOOL_OUTPUT_CHARS = 2_000

_KINDS: dict[type, str] = {
    UserMessage: "user",
    AgentMessage: "agent",
    AgentThought: "thought",
    SessionMessage: "message",
}


def entry_text(entry: Entry) -> tuple[str, str] | None:
    """``(kind, text)`` of ``entry`` as indexed, or None when it is not indexed."""
    kind = _KINDS.get(type(entry))
    if kind is not None:
        text = entry.text[:MESSAGE_CHARS]  # type: ignore[attr-defined]
        return (kind, text) if text.strip() else None
    if isinstance(entry, ToolCall):
        parts = [entry.label, entry.command_untitled or "", entry.text[:TOOL_OUTPUT_CHARS]]
        text = "\n".join(part for part in parts if part)
        return ("tool", text) if text.strip() else None
    return None


class SearchFeed:
    """Feeds ``writer`` with the transcripts of ``store``'s sessions, as agent ``agent``
    (its key) named ``label()``."""

    def __init__(
        self,
        store: SessionStore,
        writer: SearchWriter,
        *,
        agent: str,
        label: Callable[[], str],
        clock: Callable[[], float] = time.time,
        interval: float = INTERVAL,
    ) -> None:
        self.store = store
        self.writer = writer
        self.agent = agent
        self.label = label
        self.clock = clock
        self.interval = interval
        #: Per session: (entry id, version) at each position handed over, and the session row.
        self._seen: dict[str, list[tuple[int, int]]] = {}
        self._rows: dict[str, SessionRow] = {}
        self._last = 0.0
        self._scheduled: asyncio.TimerHandle | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self) -> SearchFeed:
        """Follow the store's changes (a scan runs on the event loop the store is fed on)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.store.subscribe(self._woken)
        return self

    def detach(self) -> None:
        """Stop following, after indexing what the store holds now."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        self.scan()

    def _woken(self) -> None:
        # Inside a mutation of the store: only schedule.
        if self._scheduled is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test feeding the store by hand): scan() when it wants
        delay = max(0.0, self._last + self.interval - time.monotonic())
        # In a context of its own: a pending scan holds nothing of whoever fed the store.
        self._scheduled = loop.call_later(
            delay, self._scheduled_scan, context=contextvars.Context()
        )

    def _scheduled_scan(self) -> None:
        self._scheduled = None
        self._last = time.monotonic()
        self.scan()
        if self.store.dirty and self._unsubscribe is not None:
            # Changes nobody has taken yet wake no one again: look once more later.
            self._woken()

    def scan(self) -> int:
        """Hand over what changed in every session since the last scan; returns how many
        entries went."""
        sent = 0
        for session in list(self.store.sessions.values()):
            if session.transcript or session.id in self._seen:
                sent += self.scan_session(session)
        return sent

    def scan_session(self, session: SessionState) -> int:
        if session.shadow or session.replaying:
            return 0  # a replay is indexed once it has ended
        transcript = session.transcript
        seen = self._seen.get(session.id)
        first = seen is None
        if seen is None:
            seen = self._seen[session.id] = []
        now = self.clock()
        at = session.updated_ts if first and session.updated_ts else now
        rows: list[EntryRow] = []
        for position, entry in enumerate(transcript):
            mark = (entry.id, entry.version)
            if position < len(seen):
                if seen[position] == mark:
                    continue
                seen[position] = mark
            else:
                seen.append(mark)
            indexed = entry_text(entry)
            if indexed is not None:
                rows.append(EntryRow(position, indexed[0], min(at, now), indexed[1]))
        keep: int | None = None
        if len(seen) > len(transcript):
            del seen[len(transcript) :]
            keep = len(transcript)
        row = SessionRow(
            agent=self.agent,
            label=self.label(),
            session_id=session.id,
            project=session.cwd or "",
            title=session.display_title,
            updated=session.updated_ts,
        )
        if rows or keep is not None or row != self._rows.get(session.id):
            self._rows[session.id] = row
            self.writer.put(row, rows, keep)
        return len(rows)

    def forget(self, session_id: str) -> None:
        """Take ``session_id`` out of the index; only what it says from now on goes in
        again."""
        session = self.store.get(session_id)
        if session is not None:
            self._seen[session_id] = [(e.id, e.version) for e in session.transcript]
        else:
            self._seen.pop(session_id, None)
        self._rows.pop(session_id, None)
        self.writer.forget(self.agent, session_id)


def locate(transcript: Sequence[Entry], position: int, words: Sequence[str]) -> int | None:
    """Where the entry indexed at ``position`` is in ``transcript`` now: there, when it
    still holds ``words`` (the words found), else the nearest entry that holds them all (a
    replay can leave out what the client added, such as notices, and move the rest); None
    when no entry does."""
    wanted = [word.casefold() for word in words if word.strip()]

    def holds(index: int) -> bool:
        indexed = entry_text(transcript[index])
        if indexed is None:
            return False
        text = indexed[1].casefold()
        return all(word in text for word in wanted)

    if 0 <= position < len(transcript) and holds(position):
        return position
    found = [index for index in range(len(transcript)) if holds(index)]
    if not found:
        return None
    return min(found, key=lambda index: abs(index - position))
