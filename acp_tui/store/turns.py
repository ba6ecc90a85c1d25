"""The lifecycle of sessions and turns: a session opened (new, resume, fork) or replayed
(load), a prompt sent and finished (v1 and v2), the activity, the client's notices, and the
client's own edits of a live session (mode, options, model, directories)."""

from __future__ import annotations

import copy as copy_module
from typing import Any

from acp_tui.store.changes import (
    PART_CONFIG,
    PART_INFO,
    PART_MODES,
    PART_PLAN,
    PART_RESET,
    PART_STATE,
    PART_SUGGESTIONS,
    PART_TITLE,
    PART_TRANSCRIPT,
    PART_USAGE,
    ChangeTracker,
)
from acp_tui.store.entries import (
    AgentMessage,
    Entry,
    MessageEntry,
    Notice,
    ToolCall,
    UserMessage,
)
from acp_tui.store.reducer import Reducer
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.session import ACTIVITY_IDLE, ACTIVITY_RUNNING, SessionState, TurnUsage
from acp_tui.store.transcript_updates import pending_local_user
from acp_tui.wire.updates import JsonObject

__all__ = ["Turns"]


def _conversation(entries: list[Entry]) -> list[tuple[type, str]]:
    """What a person reads as the conversation: the user's and the agent's messages."""
    return [
        (e.__class__, e.text.strip())
        for e in entries
        if e.__class__ in (UserMessage, AgentMessage) and e.text.strip()
    ]


def _covers(replayed: list[tuple[type, str]], seen: list[tuple[type, str]]) -> bool:
    """Whether the replay holds every message that was shown, in order, from the start (the
    last one shown may have been cut short by the crash: the replay may hold more of it)."""
    if len(replayed) < len(seen):
        return False
    for index, (kind, text) in enumerate(seen):
        other_kind, other_text = replayed[index]
        if other_kind is not kind:
            return False
        last = index == len(seen) - 1
        if other_text != text and not (last and other_text.startswith(text)):
            return False
    return True


def _copied_entry(entry: Entry, entry_id: int) -> Entry:
    """A copy of ``entry`` for another session's transcript (a branch): its own id, a first
    version, nothing shared that the store mutates."""
    copy = copy_module.deepcopy(entry)
    copy.id = entry_id
    copy.version = 1
    if isinstance(copy, MessageEntry):
        copy.local_pending = False
    return copy


#: A tool call's statuses before it finished (none said counts as pending), and those of one
#: not started yet.
UNFINISHED = (None, "pending", "in_progress")
NOT_STARTED = (None, "pending")


class Turns:
    """Opens, replays and prompts sessions of a :class:`SessionRegistry`."""

    __slots__ = ("_kept_from", "_reducer", "_registry", "_tracker")

    def __init__(self, registry: SessionRegistry, reducer: Reducer) -> None:
        self._registry = registry
        self._tracker: ChangeTracker = registry.tracker
        self._reducer = reducer
        #: Per session replayed next to its kept transcript: where the kept part ends.
        self._kept_from: dict[str, int] = {}
        reducer.replay_completed = self.replay_completed

    # -- opening -----------------------------------------------------------------------------
    def register_session(
        self,
        session_id: str,
        *,
        cwd: str | None = None,
        response: Any = None,
        title: str | None = None,
        new: bool = False,
    ) -> SessionState:
        """A session was created (``session/new`` response, ``new=True``) or resumed
        (``session/resume``).

        Marks it live, takes modes / config options from ``response``, then applies in order
        any updates held for this id (those that arrived before the response). A new session
        is a draft, left out of :meth:`catalog` until its first prompt (:meth:`prompt_sent`)."""
        s = self._registry.ensure(session_id)
        if new and not s.transcript:
            s.draft = True
            self._tracker.touch_catalog()
        self._registry.make_live(s, cwd)
        if title is not None and s.title is None and not s.title_pinned:
            s.title = title
            s._search_key = None
            self._tracker.touch(s, PART_TITLE)
        if s.updated_ts is None:
            self._registry.updated_now(s)
        self._registry.apply_session_response(s, response)
        self._reducer.flush_held(s)
        return s

    def register_fork(
        self,
        session_id: str,
        source_id: str,
        *,
        cwd: str | None = None,
        response: Any = None,
        before_entry: int | None = None,
    ) -> SessionState:
        """``session/fork`` answered: the branch is live, with a copy of the source's
        transcript as this client knows it (the agent does not replay it); for a fork at a
        message, the entries before ``before_entry``."""
        s = self._registry.ensure(session_id)
        source = self._registry.sessions.get(source_id)
        if source is not None and not s.transcript:
            for entry in source.transcript:
                if entry.id == before_entry:
                    break
                copy = _copied_entry(entry, self._registry.next_id())
                s.transcript.append(copy)
                if isinstance(copy, MessageEntry):
                    if copy.message_id is not None:
                        s.msg_index[copy.message_id] = copy
                    if copy.__class__ is UserMessage and s._first_user is None:
                        s._first_user = copy
                elif isinstance(copy, ToolCall):
                    s.tool_index[copy.tool_call_id] = copy
                self._tracker.touch_entry(s, copy)
            s.plan = copy_module.deepcopy(source.plan)
            s.first_prompt = source._first_prompt
            s._search_key = None
            s.available_modes = source.available_modes
            s.current_mode_id = source.current_mode_id
            s.config_options = source.config_options
            s.commands = source.commands
        self._registry.make_live(s, cwd)
        self._registry.updated_now(s)
        self._registry.apply_session_response(s, response)
        self._reducer.flush_held(s)
        return s

    # -- replay (session/load) ------------------------------------------------------------
    def begin_replay(
        self, session_id: str, *, cwd: str | None = None, keep: bool = False
    ) -> SessionState:
        """Call just before sending ``session/load``: the transcript is cleared and the updates
        the agent replays rebuild it (so loading twice never duplicates).

        ``keep`` (the session's transcript is on screen, e.g. reopened after a crash): the
        transcript stays while the replay is built apart; :meth:`end_replay` takes the replay
        only if it holds everything that was shown (it may hold more), else keeps what the
        person saw and says so. An agent that lost the end of a session, or summarised it,
        never takes what the person read away."""
        s = self._registry.ensure(session_id)
        self._registry.make_live(s, cwd)
        # How the last turn ended belongs to the process that ran it (a cancel, a crash):
        # the session reopened in this one has not ended a turn yet.
        s.stop_reason = None
        if keep and s.transcript:
            replay = SessionState(s.id, s.seq)
            replay.shadow = replay.live = True
            s._replay = replay
            s.replaying = True
            self._registry.set_activity(s, ACTIVITY_IDLE, ended=False)
            self._tracker.touch(s, PART_STATE)
            self._kept_from[s.id] = len(s.transcript)
            self._reducer.flush_held(s)
            return s
        s.transcript = []
        s.msg_index = {}
        s.tool_index = {}
        s.plan = None
        s._first_user = None
        s.replaying = True
        self._registry.set_activity(s, ACTIVITY_IDLE, ended=False)
        self._tracker.reset_entries(s.id)
        for part in (PART_RESET, PART_TRANSCRIPT, PART_STATE, PART_PLAN):
            self._tracker.touch(s, part)
        self._reducer.flush_held(s)
        return s

    def end_replay(
        self, session_id: str, response: Any = None, *, resumed: bool = False
    ) -> SessionState:
        """The ``session/load`` response arrived (or failed: pass ``response=None``).
        ``resumed``: a ``session/resume`` answered, which replays nothing unless the agent
        does more than asked; nothing replayed then leaves the transcript as it was, unsaid."""
        s = self._registry.ensure(session_id)
        replay, s._replay = s._replay, None
        if replay is not None:
            self._judge_replay(s, replay, response is not None, resumed=resumed)
        elif response is None and s.replaying and s.transcript:
            # Neither the end of the history (v2: replay_complete) nor the answer came: what
            # it replayed is on screen, and is not all of it
            # (https://agentclientprotocol.com/rfds/v2/session-replay-complete).
            self.add_notice(
                s.id,
                "The replay of this session was cut short: the conversation above may lack its end",
                severity="warning",
                description="The agent stopped before it said the history was complete "
                "and before it answered. Opening the session again replays it again.",
            )
        s.replaying = False
        self._registry.apply_session_response(s, response)
        self._tracker.touch(s, PART_STATE)
        self._reducer.flush_held(s)
        return s

    def replay_completed(self, s: SessionState) -> None:
        """v2 ``replay_complete``: the history is whole, so the replay ends here, before the
        response (which still brings the session's state); every update after it is live.
        One outside a replay is a stray marker, ignored."""
        if not s.replaying:
            return
        replay, s._replay = s._replay, None
        if replay is not None:
            self._judge_replay(s, replay, True)
        s.replaying = False
        self._tracker.touch(s, PART_STATE)
        self._reducer.flush_held(s)

    def _judge_replay(
        self, s: SessionState, replay: SessionState, loaded: bool, *, resumed: bool = False
    ) -> None:
        """Take the replay if it holds all that was shown, else keep the shown transcript."""
        start = self._kept_from.pop(s.id, len(s.transcript))
        if not loaded:
            return  # the load failed: the transcript on screen is all there is
        seen = _conversation(s.transcript[:start])
        replayed = _conversation(replay.transcript)
        if resumed and replayed in ([], seen):
            # What a resume replayed adds nothing to what is shown, which may hold more (the
            # live output of a terminal the agent has since released: kimi-cli).
            return
        if _covers(replayed, seen):
            # Notices added while the replay ran follow it.
            s.transcript = replay.transcript + s.transcript[start:]
            s.msg_index = replay.msg_index
            s.tool_index = replay.tool_index
            s.plan = replay.plan
            s._first_user = replay._first_user
            self._tracker.reset_entries(s.id)
            for part in (PART_RESET, PART_TRANSCRIPT, PART_PLAN):
                self._tracker.touch(s, part)
            return
        self.add_notice(
            s.id,
            "Kept the transcript you saw: the agent's replay of this session has "
            f"{len(replayed)} messages where {len(seen)} were shown, and is not the same "
            "conversation (it may have lost or summarised part of it). What the agent "
            "remembers is its replay.",
            severity="warning",
        )

    # -- turns -------------------------------------------------------------------------------
    def prompt_sent(self, session_id: str, prompt: list[JsonObject] | str | None = None) -> int:
        """The client sent ``session/prompt``: records the user message (replaced by the agent's
        echo if it sends one), sets activity to running. Returns the turn number."""
        s = self._registry.ensure(session_id)
        self._registry.make_live(s, None)
        if s.draft:
            s.draft = False
            self._tracker.touch(s, PART_INFO)
            self._tracker.touch_catalog()
        if prompt is not None:
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else prompt
            e = UserMessage(self._registry.next_id())
            e.set_content([b for b in blocks if isinstance(b, dict)])
            e.local_pending = True
            s.transcript.append(e)
            self._tracker.touch_entry(s, e)
            if s.first_prompt is None and e.text:
                s.first_prompt = e.text
                self._tracker.touch(s, PART_INFO)
                if s.title is None:
                    s._search_key = None
                    self._tracker.touch_catalog()
        s.turn += 1
        if s.suggestions:  # they predicted this message: said, they are gone
            s.suggestions = ()
            self._tracker.touch(s, PART_SUGGESTIONS)
        self._registry.set_activity(s, ACTIVITY_RUNNING)
        s.stop_reason = None
        self._registry.updated_now(s)
        self._tracker.touch(s, PART_STATE)
        return s.turn

    def message_injected(
        self, session_id: str, prompt: list[JsonObject], message_id: str | None
    ) -> None:
        """A message the agent took into its running turn (``session/inject``): shown as
        the person's, where it went in; the turn goes on (not a turn of its own). The agent's
        ``user_message`` echo with ``message_id`` replaces it rather than adding another."""
        s = self._registry.ensure(session_id)
        if message_id is not None and message_id in s.msg_index:
            return  # its echo came first: shown already
        e = UserMessage(self._registry.next_id(), message_id)
        e.set_content([b for b in prompt if isinstance(b, dict)])
        if message_id is not None:
            s.msg_index[message_id] = e
        s.transcript.append(e)
        self._tracker.touch_entry(s, e)
        self._registry.updated_now(s)

    def prompt_finished(
        self,
        session_id: str,
        response: Any = None,
        *,
        error: str | None = None,
        turn: int | None = None,
    ) -> None:
        """The ``session/prompt`` request completed.

        - v1 (response has ``stopReason``, and ``protocol_version < 2``): the turn is over:
          activity idle, stop reason and ``usage`` (last-turn tokens) recorded.
        - v2 (no ``stopReason``, or ``protocol_version >= 2``): the prompt was only *accepted*;
          its ``messageId`` is bound to the local user message; ``state_update`` ends the turn.
        - ``error`` (the request failed): activity idle, stop reason ``"error"``, error notice.
        - ``turn``: the value :meth:`prompt_sent` returned; a stale turn's completion does not
          end a newer running turn.
        """
        s = self._registry.ensure(session_id)
        current = turn is None or turn == s.turn
        if isinstance(response, dict):
            usage = response.get("usage")
            if usage is not None:
                try:
                    s.last_turn_usage = TurnUsage.from_wire(usage)
                    self._tracker.touch(s, PART_USAGE)
                except (TypeError, ValueError):
                    pass
            reason = response.get("stopReason")
            if self._registry.protocol_version < 2 and isinstance(reason, str):
                for e in reversed(s.transcript[-64:]):
                    if e.__class__ is UserMessage and e.local_pending:
                        e.local_pending = False
                        e.version += 1
                        self._tracker.touch_entry(s, e)
                if current:
                    s.stop_reason = reason
                    self._registry.set_activity(s, ACTIVITY_IDLE)
                    self._tracker.touch(s, PART_STATE)
            else:
                mid = response.get("messageId")
                if isinstance(mid, str) and mid not in s.msg_index:
                    pending = pending_local_user(s)
                    if pending is not None and pending.message_id is None:
                        pending.message_id = mid
                        s.msg_index[mid] = pending
                        pending.version += 1
                        self._tracker.touch_entry(s, pending)
                elif isinstance(mid, str) and s.msg_index[mid].__class__ is UserMessage:
                    # A retry (its idempotency key) of a message the agent took before: it is
                    # in the transcript already (replayed), so the copy sent again goes.
                    pending = pending_local_user(s)
                    if pending is not None and pending is not s.msg_index[mid]:
                        s.transcript.remove(pending)
                        self._tracker.touch(s, PART_RESET)
                        self._tracker.touch(s, PART_TRANSCRIPT)
        if error is not None:
            self.add_notice(session_id, error, severity="error")
            if current:
                s.stop_reason = "error"
                self._registry.set_activity(s, ACTIVITY_IDLE)
                self._tracker.touch(s, PART_STATE)

    def withdraw_prompt(self, session_id: str, turn: int | None = None) -> bool:
        """The agent refused a prompt unsent (it wanted a sign-in first): its user message
        leaves the transcript (it goes out again later, and is recorded then) and the turn
        is over. Returns whether a message was removed."""
        s = self._registry.sessions.get(session_id)
        if s is None:
            return False
        removed = False
        for index in range(len(s.transcript) - 1, max(-1, len(s.transcript) - 65), -1):
            e = s.transcript[index]
            if e.__class__ is UserMessage and e.local_pending:
                del s.transcript[index]
                mid = e.message_id
                if mid is not None:
                    s.msg_index.pop(mid, None)
                removed = True
                break
        if removed:
            self._tracker.touch(s, PART_RESET)
            self._tracker.touch(s, PART_TRANSCRIPT)
        if turn is None or turn == s.turn:
            self._registry.set_activity(s, ACTIVITY_IDLE, ended=False)
            s.stop_reason = None
            self._tracker.touch(s, PART_STATE)
        return removed

    def set_activity(self, session_id: str, activity: str) -> None:
        """Client-side override (e.g. ``requires_action`` while a permission dialog is open)."""
        s = self._registry.ensure(session_id)
        self._registry.set_activity(s, activity)

    def add_notice(
        self,
        session_id: str,
        title: str,
        *,
        severity: str = "info",
        description: str | None = None,
    ) -> Notice:
        """Record a client notice in the transcript ("Allowed once: Write src/app.py",
        "Cancelled", an error...)."""
        s = self._registry.ensure(session_id)
        e = Notice(self._registry.next_id(), title, severity=severity, description=description)
        s.transcript.append(e)
        self._tracker.touch_entry(s, e)
        return e

    def end_unfinished_tool_calls(
        self, session_id: str, status: str, *, only_pending: bool = False
    ) -> int:
        """Mark the tool calls of the session's last turn that are not finished (``pending``,
        ``in_progress`` or no status) with ``status``: ``cancelled`` as the person cancels the
        turn (the spec: the client SHOULD mark them so as it sends ``session/cancel``; the
        agent's later updates still apply), ``interrupted`` when the agent exited during the
        turn (they never finish). ``only_pending``: leave those reported running (a turn
        that ended may leave one running on). Returns how many were marked."""
        s = self._registry.sessions.get(session_id)
        if s is None:
            return 0
        marked = 0
        unfinished = NOT_STARTED if only_pending else UNFINISHED
        for entry in reversed(s.transcript):
            if entry.__class__ is UserMessage:
                break  # the turn's start
            if isinstance(entry, ToolCall) and entry.status in unfinished:
                self._mark_tool_call(s, entry, status)
                marked += 1
        return marked

    def end_tool_call(
        self, session_id: str, tool_call_id: str, status: str, *, only_pending: bool = False
    ) -> bool:
        """Mark one tool call ``status`` if it is not finished (not started, with
        ``only_pending``); ``rejected`` / ``allowed``: the person answered its permission
        request; the agent's later updates still apply. Returns whether it was marked."""
        s = self._registry.sessions.get(session_id)
        entry = s.tool_index.get(tool_call_id) if s is not None else None
        unfinished = NOT_STARTED if only_pending else UNFINISHED
        if s is None or entry is None or entry.status not in unfinished:
            return False
        self._mark_tool_call(s, entry, status)
        return True

    def _mark_tool_call(self, s: SessionState, entry: ToolCall, status: str) -> None:
        entry.status = status
        entry.version += 1
        self._tracker.touch_entry(s, entry)

    # -- the client's edits of a live session ------------------------------------------------
    def set_current_mode(self, session_id: str, mode_id: str | None) -> None:
        """The client changed the mode (``session/set_mode`` succeeded); ``None``: not known
        until the agent says (a session about to be reopened)."""
        s = self._registry.ensure(session_id)
        s.current_mode_id = mode_id
        self._tracker.touch(s, PART_MODES)

    def set_config_options(self, session_id: str, options: list[JsonObject]) -> None:
        """``session/set_config_option`` returned the full option list."""
        s = self._registry.ensure(session_id)
        s.config_options = [o for o in options if isinstance(o, dict)]
        self._tracker.touch(s, PART_CONFIG)

    def set_current_model(self, session_id: str, model_id: str) -> None:
        """The client changed the model of the legacy ``models`` state (``session/set_model``
        succeeded)."""
        s = self._registry.ensure(session_id)
        s.models = {**(s.models or {}), "currentModelId": model_id}
        self._tracker.touch(s, PART_CONFIG)

    def set_additional_dirs(self, session_id: str, dirs: list[str]) -> None:
        """The additional directories a session was opened with (or the agent reported)."""
        s = self._registry.ensure(session_id)
        if s.additional_dirs != dirs:
            s.additional_dirs = list(dirs)
            self._tracker.touch(s, PART_INFO)
