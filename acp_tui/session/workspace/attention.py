"""What needs the person, across every session of every agent of the workspace (issue 19).

Each view reports the live state of the sessions of its agent as it changes
(:meth:`AttentionBoard.note`, the store's :func:`~acp_tui.store.live_state`); the board says
which change is worth telling the person about (a session started waiting for them, a turn
finished, a turn failed), which session has waited longest (the key that jumps there), and what
the terminal's title says (``acp-tui · 1 waiting``).

No Textual here: the views ring, notify and write the title.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

from acp_tui.store import LIVE_ERROR, LIVE_UNREAD, LIVE_WAITING, LIVE_WORKING

__all__ = ["APP_TITLE", "AttentionBoard", "Event", "Waiting"]

APP_TITLE = "acp-tui"

#: A change worth telling: the agent waits for the person; a turn ended; a turn failed.
Event = Literal["waiting", "finished", "failed"]

_RUNNING = (LIVE_WORKING, LIVE_WAITING)


@dataclass(frozen=True, slots=True)
class Waiting:
    """A session that waits for the person."""

    agent_key: str
    session_id: str
    #: Order of arrival (the oldest waits first).
    since: int


class AttentionBoard:
    """Live states by (agent key, session id); read by the views of every agent."""

    def __init__(self) -> None:
        self._live: dict[tuple[str, str], str] = {}
        self._waiting: dict[tuple[str, str], Waiting] = {}
        self._order = itertools.count()

    def note(self, agent_key: str, session_id: str, live: str | None) -> Event | None:
        """The session's live state is now ``live``: the event this change is, if any."""
        key = (agent_key, session_id)
        before = self._live.get(key)
        if live is None:
            self._live.pop(key, None)
        else:
            self._live[key] = live
        if live == LIVE_WAITING:
            if key not in self._waiting:
                self._waiting[key] = Waiting(agent_key, session_id, next(self._order))
        else:
            self._waiting.pop(key, None)
        if before == live:
            return None
        if live == LIVE_WAITING:
            return "waiting"
        if before in _RUNNING and live == LIVE_ERROR:
            return "failed"
        if before in _RUNNING and live in (None, LIVE_UNREAD):
            return "finished"
        return None

    def forget_agent(self, agent_key: str) -> None:
        """The agent's view is gone: its sessions need nobody any more."""
        for key in [k for k in self._live if k[0] == agent_key]:
            self._live.pop(key, None)
            self._waiting.pop(key, None)

    def waiting(self) -> list[Waiting]:
        """Every session that waits for the person, the one that waited longest first."""
        return sorted(self._waiting.values(), key=lambda w: w.since)

    def oldest_waiting(self, *, besides: tuple[str, str | None] | None = None) -> Waiting | None:
        """The session that has waited longest (other than ``besides``: the one on screen)."""
        for waiting in self.waiting():
            if besides is None or (waiting.agent_key, waiting.session_id) != besides:
                return waiting
        return None

    def count(self, live: str) -> int:
        return sum(1 for state in self._live.values() if state == live)

    def title(self) -> str:
        """The terminal's title: what needs the person, else plain ``acp-tui``."""
        parts = [APP_TITLE]
        waiting = len(self._waiting)
        if waiting:
            parts.append(f"{waiting} waiting")
        unread = self.count(LIVE_UNREAD)
        if unread:
            parts.append(f"{unread} done")
        return " · ".join(parts)
