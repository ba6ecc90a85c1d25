"""Coalesced change sets handed to the UI by :meth:`SessionStore.take_changes`."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "PART_COMMANDS",
    "PART_CONFIG",
    "PART_INFO",
    "PART_META",
    "PART_MODES",
    "PART_PLAN",
    "PART_RESET",
    "PART_STATE",
    "PART_TITLE",
    "PART_TRANSCRIPT",
    "PART_USAGE",
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
#: Other metadata: cwd, updatedAt, live flag, resumable, first prompt.
PART_INFO = "info"


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
