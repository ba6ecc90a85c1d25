"""The sessions the store knows and what every part of the store shares: ids, the clock, the
negotiated protocol version, the agent's capabilities, and the few mutations that all of them
make (a session heard of, opened, updated; an open answer's modes and options)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_INFO,
    PART_MODES,
    PART_STATE,
    ChangeTracker,
)
from acp_tui.store.session import ACTIVITY_IDLE, SessionState
from acp_tui.text.safety import escaped_line
from acp_tui.wire.fields import LeftOut

__all__ = ["SessionRegistry", "now_iso"]


def now_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


class SessionRegistry:
    """Every :class:`SessionState` by id, and the state shared by the reducer, the turn
    lifecycle and the catalog. Internal to the store: callers go through
    :class:`~acp_tui.store.SessionStore`."""

    __slots__ = (
        "_entry_seq",
        "_session_seq",
        "can_archive",
        "can_fork",
        "can_list",
        "can_load",
        "can_resume",
        "can_set_title",
        "capabilities_known",
        "child_changed",
        "clock",
        "left_out",
        "ordered",
        "pinned_titles",
        "protocol_version",
        "sessions",
        "tracker",
        "viewing",
    )

    def __init__(
        self, tracker: ChangeTracker, *, protocol_version: int, clock: Callable[[], float]
    ) -> None:
        self.tracker = tracker
        self.protocol_version = protocol_version
        self.clock = clock
        #: Items of the agent's arrays left out (no objects) while the rest was taken.
        self.left_out = LeftOut()
        self.sessions: dict[str, SessionState] = {}
        self._entry_seq = 0
        self._session_seq = 0
        #: The catalog's order, kept until a session comes, goes or changes its ``updatedAt``.
        self.ordered: list[SessionState] | None = None
        #: Titles the person gave (see ``SessionStore.pin_title``), for sessions heard of later.
        self.pinned_titles: dict[str, str] = {}
        self.can_load = False
        self.can_resume = False
        self.can_list = False
        self.can_fork = False
        self.can_set_title = False
        self.can_archive = False
        #: False until the agent answered ``initialize``: until then ``can_list`` and the
        #: others mean "not known yet", not "no".
        self.capabilities_known = False
        #: The session on screen (see ``SessionStore.set_viewing``): a turn that ends there
        #: is read as it ends; elsewhere it leaves the session unread.
        self.viewing: str | None = None
        #: Called with a subagent (a session with a parent) whose transcript or activity
        #: changed, for its card (``acp_tui.store.subagents``).
        self.child_changed: Callable[[SessionState], None] | None = None

    def next_id(self) -> int:
        """A transcript entry id, unique in the store."""
        self._entry_seq += 1
        return self._entry_seq

    def ensure(self, session_id: str) -> SessionState:
        """The session ``session_id``, first heard of now if need be."""
        s = self.sessions.get(session_id)
        if s is None:
            self._session_seq += 1
            s = SessionState(session_id, self._session_seq)
            s.resumable = self.can_load or self.can_resume
            pinned = self.pinned_titles.get(session_id)
            if pinned is not None:
                s.title, s.title_pinned = pinned, True
            self.sessions[session_id] = s
            self.ordered = None
            self.tracker.touch_catalog()
        return s

    def set_activity(self, s: SessionState, activity: str, *, ended: bool = True) -> None:
        """Every change of a session's activity: a turn that starts running is timed; one
        that goes idle (``ended``: a turn really ended, not a replay starting) while the
        session is not on screen leaves it unread."""
        before = s.activity
        if before == activity:
            return
        s.activity = activity
        self.tracker.touch(s, PART_STATE)
        if activity == ACTIVITY_IDLE:
            # A subagent's end is read on its parent's card, never "unread" on its own.
            if ended and s.turn_started is not None and s.id != self.viewing and not s.parent_id:
                s.unread = True
            if ended and s.turn_started is not None:
                s.last_turn_seconds = max(0.0, self.clock() - s.turn_started)
            s.turn_started = None
        elif s.turn_started is None:
            s.turn_started = self.clock()
            s.unread = False
        if s.parent_id is not None and self.child_changed is not None:
            self.child_changed(s)

    def make_live(self, s: SessionState, cwd: str | None) -> None:
        touch = self.tracker.touch
        if not s.live:
            s.live = True
            touch(s, PART_INFO)
            self.tracker.touch_catalog()
        if cwd is not None and s.cwd != cwd:
            s.cwd = cwd
            s._search_key = None
            touch(s, PART_INFO)
            self.tracker.touch_catalog()

    def set_updated(self, s: SessionState, raw: str | None, ts: float | None) -> None:
        s.updated_at = raw
        if ts != s.updated_ts:
            s.updated_ts = ts
            s._order_key = None
            self.ordered = None
        self.tracker.touch(s, PART_INFO)
        self.tracker.touch_catalog()

    def updated_now(self, s: SessionState) -> None:
        now = self.clock()
        self.set_updated(s, now_iso(now), now)

    def apply_session_response(self, s: SessionState, response: Any) -> None:
        """Modes and config options of a session/new, load or resume response (lenient)."""
        if not isinstance(response, dict):
            return
        touch = self.tracker.touch
        # As ever, an answer's arrays are taken as they are, bad items left out (an array of
        # bad items only reads as an empty one); what was left out is said now.
        left_out = self.left_out

        def objects(v: list[Any], name: str) -> list[dict[str, Any]]:
            return left_out.objects(v, name, some=False)

        modes = response.get("modes")
        if isinstance(modes, dict):
            available = modes.get("availableModes")
            if isinstance(available, list):
                s.available_modes = list(objects(available, "modes.availableModes"))
            current = modes.get("currentModeId")
            if isinstance(current, str):
                s.current_mode_id = current
            touch(s, PART_MODES)
        options = response.get("configOptions")
        if isinstance(options, list):
            s.config_options = list(objects(options, "configOptions"))
            touch(s, PART_CONFIG)
        models = response.get("models")
        if isinstance(models, dict):
            s.models = dict(models)
            available_models = models.get("availableModels")
            if isinstance(available_models, list):
                objects(available_models, "models.availableModels")  # said; skipped when read
            touch(s, PART_CONFIG)
        commands = response.get("availableCommands")  # v2: in the response, not an update
        if isinstance(commands, list):
            s.commands = list(objects(commands, "availableCommands"))
            touch(s, PART_COMMANDS)
        self.left_out.report(f"the answer opening session {escaped_line(s.id, 80)}")
