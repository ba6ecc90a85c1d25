"""Coalesced change sets handed to the UI by :meth:`SessionStore.take_changes`, and the
tracker every mutation of the store reports to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.store.entries import Entry
    from acp_tui.store.session import SessionState

__all__ = [
    "LISTED_PARTS",
    "PART_BACKGROUND",
    "PART_COMMANDS",
    "PART_CONFIG",
    "PART_INFO",
    "PART_META",
    "PART_MODES",
    "PART_PLAN",
    "PART_RESET",
    "PART_STATE",
    "PART_SUGGESTIONS",
    "PART_TITLE",
    "PART_TRANSCRIPT",
    "PART_USAGE",
    "ChangeTracker",
    "Changes",
]

#: Entries were added to or changed in the transcript (ids in ``Changes.entries``).
PART_TRANSCRIPT = "transcript"
#: The transcript was cleared (replay started): drop everything drawn and redraw from scratch.
PART_RESET = "reset"
PART_TITLE = "title"
#: ``_meta`` of the session changed.
PART_META = "meta"
#: Context usage (``usage_update``) or last turn token usage changed.
PART_USAGE = "usage"
#: Activity (idle / running / requires_action), stop reason, or replaying flag changed.
PART_STATE = "state"
PART_MODES = "modes"
PART_CONFIG = "config"
PART_COMMANDS = "commands"
PART_PLAN = "plan"
#: The agent's report of the work it runs apart from the foreground (v2 ``background``).
PART_BACKGROUND = "background"
#: The prompts the agent suggests sending next (``prompt_suggestions_update``).
PART_SUGGESTIONS = "suggestions"
#: Other metadata: cwd, updatedAt, live flag, resumable, first prompt.
PART_INFO = "info"
#: What a list of sessions shows of a session (title, state, usage, cwd and marks, _meta).
LISTED_PARTS = frozenset({PART_TITLE, PART_META, PART_USAGE, PART_STATE, PART_INFO})


@dataclass(slots=True)
class Changes:
    """What changed since the previous :meth:`SessionStore.take_changes`.

    - ``catalog_changed``: the set or order of sessions, or a field shown in the sidebar
      (title, updatedAt, cwd, live/resumable flags), may have changed.
    - ``sessions``: session id -> set of ``PART_*`` names that changed.
    - ``entries``: session id -> ids of transcript entries added or changed (compare an
      entry's ``version`` with the one you drew; ids you do not know are new entries).
      After a ``"reset"`` part, only the ids of entries that exist now are listed.
    - ``unrouted``: updates that could not be routed to a session (no/invalid ``sessionId``)
      were recorded in ``store.unrouted``.
    """

    catalog_changed: bool = False
    sessions: dict[str, set[str]] = field(default_factory=dict)
    entries: dict[str, set[int]] = field(default_factory=dict)
    unrouted: bool = False

    def __bool__(self) -> bool:
        return self.catalog_changed or self.unrouted or bool(self.sessions)

    def parts(self, session_id: str) -> set[str]:
        """The parts changed for ``session_id`` (empty set if none)."""
        return self.sessions.get(session_id, set())


class ChangeTracker:
    """Records what each mutation of the store changed, and wakes the subscribers once per
    clean-to-dirty transition (the contract in :mod:`acp_tui.store`).

    Every part of the store that mutates state reports here; nothing else writes store state.
    A ``shadow`` session (a replay built apart, see ``SessionStore.begin_replay``) is nobody's
    to draw: its changes are not recorded."""

    __slots__ = ("_wakes", "changes", "dirty", "last_marked", "version")

    def __init__(self) -> None:
        self._wakes: list[Callable[[], None]] = []
        self.dirty = False
        self.changes = Changes()
        #: The entry marked last: a stream of chunks into one entry records it once.
        self.last_marked: Entry | None = None
        #: Counts the changes to the catalog and to what a list of sessions shows of them
        #: (:data:`LISTED_PARTS`, not a transcript): a reader that does not own the change
        #: feed (the session browser across agents) sees that its rows changed.
        self.version = 0

    def subscribe(self, wake: Callable[[], None]) -> Callable[[], None]:
        self._wakes.append(wake)

        def unsubscribe() -> None:
            try:
                self._wakes.remove(wake)
            except ValueError:
                pass

        return unsubscribe

    def take(self) -> Changes:
        changes = self.changes
        self.changes = Changes()
        self.dirty = False
        self.last_marked = None
        return changes

    def wake(self) -> None:
        self.dirty = True
        for wake in tuple(self._wakes):
            try:
                wake()
            except Exception:
                pass

    def touch(self, s: SessionState, part: str) -> None:
        """``part`` of session ``s`` (a :class:`SessionState`) changed."""
        if s.shadow:
            return
        if part in LISTED_PARTS:
            self.version += 1
        if not self.dirty:
            self.wake()
        parts = self.changes.sessions.get(s.id)
        if parts is None:
            parts = self.changes.sessions[s.id] = set()
        parts.add(part)

    def touch_entry(self, s: SessionState, e: Entry) -> None:
        """Entry ``e`` of session ``s``'s transcript was added or changed."""
        if e is self.last_marked or s.shadow:
            return
        self.last_marked = e
        self.touch(s, PART_TRANSCRIPT)
        ids = self.changes.entries.get(s.id)
        if ids is None:
            ids = self.changes.entries[s.id] = set()
        ids.add(e.id)

    def touch_catalog(self) -> None:
        self.version += 1
        if not self.dirty:
            self.wake()
        self.changes.catalog_changed = True

    def touch_unrouted(self) -> None:
        if not self.dirty:
            self.wake()
        self.changes.unrouted = True

    def reset_entries(self, session_id: str) -> None:
        """The transcript of ``session_id`` was replaced: the entry ids recorded so far name
        entries that are gone (the ``"reset"`` part says redraw it all)."""
        self.changes.entries.pop(session_id, None)
        self.last_marked = None
