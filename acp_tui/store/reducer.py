"""The reducer: routes each ``session/update`` to its session and its handler, holds updates
for sessions not registered yet, turns bad input into unknown entries, and applies the updates
that change a session rather than its transcript (those that do are in
:mod:`acp_tui.store.transcript_updates`).

Every update takes one way to its handler (:meth:`Reducer._apply_to`): its kind picks a
route, the route's coercer (:mod:`acp_tui.wire.coerce`) checks it into the kind's typed
shape, and whatever the coercer or handler raises becomes an ``UnknownUpdate`` in the
transcript. A streamed text chunk that continues the message being shown takes a shorter
way (:meth:`Reducer.apply`) that makes the same checks inline."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from acp_tui.store.agent_terminals import PART_TERMINALS, AgentTerminal
from acp_tui.store.changes import (
    PART_BACKGROUND,
    PART_COMMANDS,
    PART_CONFIG,
    PART_META,
    PART_MODES,
    PART_STATE,
    PART_SUGGESTIONS,
    PART_TITLE,
    PART_USAGE,
    ChangeTracker,
)
from acp_tui.store.entries import AgentMessage, AgentThought, MessageEntry, UnknownUpdate
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.routes import Route, route
from acp_tui.store.session import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    BackgroundRef,
    ContextUsage,
    SessionState,
    TurnUsage,
    merge_meta,
    parse_iso,
)
from acp_tui.store.subagents import Subagents
from acp_tui.store.suggestions import suggestions_of
from acp_tui.store.transcript_updates import TranscriptUpdates
from acp_tui.text.safety import escaped_line
from acp_tui.wire import coerce
from acp_tui.wire import updates as wire
from acp_tui.wire.constants import UpdateKind

__all__ = ["Reducer"]


#: Updates that change the session, not its transcript: during a kept replay they apply to the
#: session itself (modes, commands, usage... are the agent's current ones either way).
_SESSION_STATE_UPDATES = frozenset(
    {
        UpdateKind.AVAILABLE_COMMANDS_UPDATE,
        UpdateKind.CURRENT_MODE_UPDATE,
        UpdateKind.CONFIG_OPTION_UPDATE,
        UpdateKind.SESSION_INFO_UPDATE,
        UpdateKind.USAGE_UPDATE,
        UpdateKind.STATE_UPDATE,
        UpdateKind.STATE_CHANGE,
        UpdateKind.REPLAY_COMPLETE,
    }
)


def line_of_kind(kind: Any) -> str:
    return escaped_line(kind, 60) if isinstance(kind, str) else "?"


class Reducer:
    """Applies ``session/update`` params to the sessions of a :class:`SessionRegistry`."""

    __slots__ = (
        "_held",
        "_registry",
        "_routes",
        "_sessions",
        "_tracker",
        "agent_terminals",
        "held_dropped",
        "max_held_per_session",
        "max_held_sessions",
        "replay_completed",
        "unrouted",
    )

    def __init__(self, registry: SessionRegistry, *, max_held_per_session: int) -> None:
        self._registry = registry
        #: The registry's map (never replaced), one lookup nearer for the hot path.
        self._sessions = registry.sessions
        self._tracker: ChangeTracker = registry.tracker
        self._held: dict[str, list[Any]] = {}
        self.max_held_per_session = max_held_per_session
        #: At most this many distinct unregistered session ids are held (the rest are dropped
        #: and counted in ``held_dropped``), so a misbehaving agent cannot exhaust memory.
        self.max_held_sessions = 1000
        self.held_dropped = 0
        #: v2 ``replay_complete`` on a session: its replay ends there (set by the Turns).
        self.replay_completed: Callable[[SessionState], None] | None = None
        #: Updates that could not be routed to a session (bad params), newest last.
        self.unrouted: deque[UnknownUpdate] = deque(maxlen=1000)
        #: The agent's own terminals (v2), by terminal id.
        self.agent_terminals: dict[str, AgentTerminal] = {}
        self._routes: dict[str, Route] = {
            **TranscriptUpdates(registry).routes(),
            **Subagents(registry, self.flush_held).routes(),
            UpdateKind.AVAILABLE_COMMANDS_UPDATE: route(
                coerce.available_commands, self._on_commands
            ),
            UpdateKind.CURRENT_MODE_UPDATE: route(coerce.current_mode, self._on_current_mode),
            UpdateKind.CONFIG_OPTION_UPDATE: route(coerce.config_options, self._on_config_options),
            UpdateKind.SESSION_INFO_UPDATE: route(coerce.session_info, self._on_session_info),
            UpdateKind.USAGE_UPDATE: route(coerce.usage, self._on_usage),
            UpdateKind.PROMPT_SUGGESTIONS_UPDATE: route(
                coerce.prompt_suggestions, self._on_suggestions
            ),
            UpdateKind.REPLAY_COMPLETE: route(coerce.replay_complete, self._on_replay_complete),
            UpdateKind.STATE_UPDATE: route(coerce.state, self._on_state),
            UpdateKind.STATE_CHANGE: route(coerce.state, self._on_state),
            UpdateKind.TERMINAL_UPDATE: route(coerce.terminal_update, self._on_terminal_update),
            UpdateKind.TERMINAL_OUTPUT_CHUNK: route(
                coerce.terminal_output_chunk, self._on_terminal_output
            ),
        }

    @property
    def update_kinds(self) -> frozenset[str]:
        return frozenset(self._routes)

    @property
    def routes(self) -> Mapping[str, Route]:
        """Each kind's coercer and handler (read only)."""
        return MappingProxyType(self._routes)

    def apply(self, params: Any) -> None:
        """Apply the ``params`` of one ``session/update`` notification (raw decoded JSON:
        ``{"sessionId": ..., "update": {"sessionUpdate": ..., ...}}``). Never raises."""
        try:
            sid = params["sessionId"]
            update = params["update"]
        except Exception as exc:
            self._unrouted(params, f"bad notification params: {type(exc).__name__}: {exc}")
            return
        if sid.__class__ is not str:
            self._unrouted(params, f"sessionId: expected a string, got {type(sid).__name__}")
            return
        s = self._sessions.get(sid)
        if s is None or not s.live:
            self._hold(sid, update)
            return
        # The hot path (issue 20's wire target): a text chunk that continues the agent message
        # being streamed. It does exactly what _apply_to, coerce.content_chunk and
        # TranscriptUpdates._chunk do for it (the same checks, inline), without the calls
        # between; a thought's chunk takes a short way of the same kind (_continued). Anything
        # else takes the full way.
        if update.__class__ is dict and s._replay is None:
            if update.get("sessionUpdate") == "agent_message_chunk":
                content = update.get("content")
                if content.__class__ is dict and content.get("type") == "text":
                    text = content.get("text")
                    transcript = s.transcript
                    if text.__class__ is str and transcript:
                        e = transcript[-1]
                        if e.__class__ is AgentMessage and not e.local_pending:
                            mid = update.get("messageId")
                            if mid is None or mid == e.message_id:
                                e.version += 1
                                e.append_text(text)
                                if e is not self._tracker.last_marked:
                                    self._tracker.touch_entry(s, e)
                                if s.parent_id is not None:
                                    self._child_changed(s)
                                return
            elif update.get("sessionUpdate") == "agent_thought_chunk" and self._continued(
                s, update, AgentThought
            ):
                return
        self._apply_to(s, update)
        if s.parent_id is not None:
            self._child_changed(s)

    def _child_changed(self, s: SessionState) -> None:
        """A subagent's transcript changed: its card in its parent's says so."""
        child_changed = self._registry.child_changed
        if child_changed is not None:
            child_changed(s)

    def _continued(self, s: SessionState, update: Any, cls: type[MessageEntry]) -> bool:
        """Whether ``update``, a chunk of a ``cls`` message, was a text chunk that continues
        the last entry, and was applied to it (the hot path's way, for other streams)."""
        content = update.get("content")
        if content.__class__ is not dict or content.get("type") != "text":
            return False
        text = content.get("text")
        transcript = s.transcript
        if text.__class__ is not str or not transcript:
            return False
        e = transcript[-1]
        if e.__class__ is not cls or e.local_pending:
            return False
        mid = update.get("messageId")
        if mid is not None and mid != e.message_id:
            return False
        e.version += 1
        e.append_text(text)
        if e is not self._tracker.last_marked:
            self._tracker.touch_entry(s, e)
        return True

    def apply_update(self, session_id: str, update: Any) -> None:
        """Same as :meth:`apply` with the two fields passed separately."""
        self.apply({"sessionId": session_id, "update": update})

    def apply_many(self, params_list: Iterable[Any]) -> None:
        for params in params_list:
            self.apply(params)

    def _apply_to(self, s: SessionState, update: Any) -> None:
        if s._replay is not None and not (
            isinstance(update, dict) and update.get("sessionUpdate") in _SESSION_STATE_UPDATES
        ):
            s = s._replay  # a replay next to the kept transcript: built apart, judged at the end
        try:
            found = self._routes.get(update["sessionUpdate"])
        except Exception as exc:
            self._unknown(s, update, f"bad update: {type(exc).__name__}: {exc}")
            return
        if found is None:
            self._unknown(s, update, None)
            return
        left_out = self._registry.left_out
        coerce_update, handle = found
        try:
            handle(s, coerce_update(update, left_out))
        except KeyError as exc:
            left_out.items.clear()  # the update as a whole was not taken: said as such
            self._unknown(s, update, f"missing field {exc}")
        except Exception as exc:
            left_out.items.clear()
            self._unknown(s, update, f"{type(exc).__name__}: {exc}")
        else:
            if left_out.items:
                kind = line_of_kind(update.get("sessionUpdate"))
                left_out.report(f"session/update {kind} of session {escaped_line(s.id, 80)}")

    def _unknown(self, s: SessionState, raw: Any, error: str | None) -> None:
        e = UnknownUpdate(self._registry.next_id(), raw, error)
        s.transcript.append(e)
        self._tracker.touch_entry(s, e)

    def _unrouted(self, raw: Any, error: str) -> None:
        self.unrouted.append(UnknownUpdate(self._registry.next_id(), raw, error))
        self._tracker.touch_unrouted()

    def _hold(self, sid: str, update: Any) -> None:
        held = self._held.get(sid)
        if held is None:
            if len(self._held) >= self.max_held_sessions:
                self.held_dropped += 1
                return
            held = self._held[sid] = []
        if len(held) >= self.max_held_per_session:
            self.held_dropped += 1
            return
        held.append(update)

    def flush_held(self, s: SessionState) -> None:
        """Apply, in order, the updates held for ``s`` until it was registered."""
        held = self._held.pop(s.id, None)
        if held:
            for update in held:
                self._apply_to(s, update)

    def drop_held(self, session_id: str) -> None:
        self._held.pop(session_id, None)

    def held_count(self, session_id: str | None = None) -> int:
        if session_id is not None:
            return len(self._held.get(session_id, ()))
        return sum(len(v) for v in self._held.values())

    def held_snapshot(self) -> dict[str, list[Any]]:
        return {sid: list(v) for sid, v in self._held.items()}

    # -- session state -------------------------------------------------------------------------
    def _on_commands(self, s: SessionState, u: wire.AvailableCommandsUpdate) -> None:
        s.commands = list(u["availableCommands"])
        self._tracker.touch(s, PART_COMMANDS)

    def _on_current_mode(self, s: SessionState, u: wire.CurrentModeUpdate) -> None:
        s.current_mode_id = u["currentModeId"]
        self._tracker.touch(s, PART_MODES)

    def _on_config_options(self, s: SessionState, u: wire.ConfigOptionUpdate) -> None:
        s.config_options = list(u["configOptions"])
        self._tracker.touch(s, PART_CONFIG)

    def _on_suggestions(self, s: SessionState, u: wire.PromptSuggestionsUpdate) -> None:
        """The agent's list replaces the session's; a replay's is history's and not taken."""
        if s.replaying:
            return
        s.suggestions = suggestions_of(u["suggestions"])
        self._tracker.touch(s, PART_SUGGESTIONS)

    def _on_replay_complete(self, s: SessionState, u: wire.ReplayComplete) -> None:
        """v2: the replay is whole; what follows is live (see Turns.replay_completed)."""
        if self.replay_completed is not None:
            self.replay_completed(s)

    def _on_usage(self, s: SessionState, u: wire.UsageUpdate) -> None:
        context = ContextUsage.from_update(u)
        known = s.context
        if "cost" not in u and known is not None:
            # The cost is the session's so far and optional in each update: one that leaves
            # it out does not make it unknown (claude-agent-acp sends it at a turn's end
            # only, and the gauge lost its "$" during every turn); an explicit null does.
            context.cost_amount, context.cost_currency = known.cost_amount, known.cost_currency
        s.context = context
        self._tracker.touch(s, PART_USAGE)

    def _on_session_info(self, s: SessionState, u: wire.SessionInfoUpdate) -> None:
        """Omitted: unchanged; ``null``: cleared; ``_meta``: recursive merge (``null`` leaf
        deletes the key, ``_meta: null`` clears all)."""
        now = self._registry.clock()
        if "title" in u and not s.title_pinned:
            s.title = u["title"]
            s._live_at["title"] = now
            s._search_key = None
            self._tracker.touch(s, PART_TITLE)
            self._tracker.touch_catalog()
        if "updatedAt" in u:
            updated = u["updatedAt"]
            self._registry.set_updated(s, updated, parse_iso(updated))
        if "_meta" in u:
            meta = u["_meta"]
            s.meta = None if meta is None else merge_meta(s.meta, meta)
            s._live_at["meta"] = now
            self._tracker.touch(s, PART_META)
            self._tracker.touch_catalog()

    def _on_terminal_update(self, s: SessionState, u: wire.TerminalUpdate) -> None:
        terminal_id = u["terminalId"]
        terminal = self.agent_terminals.get(terminal_id)
        if terminal is None:
            terminal = self.agent_terminals[terminal_id] = AgentTerminal(
                terminal_id, s.id, self._registry.clock()
            )
        terminal.upsert(u)
        self._tracker.touch(s, PART_TERMINALS)

    def _on_terminal_output(self, s: SessionState, u: wire.TerminalOutputChunk) -> None:
        terminal_id = u["terminalId"]
        terminal = self.agent_terminals.get(terminal_id)
        if terminal is None:
            terminal = self.agent_terminals[terminal_id] = AgentTerminal(
                terminal_id, s.id, self._registry.clock()
            )
        if not terminal.append(u["data"]):
            raise TypeError("data: expected base64 text")
        self._tracker.touch(s, PART_TERMINALS)

    def _on_state(self, s: SessionState, u: wire.StateUpdate) -> None:
        """v2 ``state_update`` (RFD spelling: ``state_change``)."""
        state = u["state"]
        s.state_detail = u
        if "background" in u:
            self._background(s, u["background"])
        if self._registry.protocol_version < 2:
            # v1: the prompt's answer owns the turn (its number, stop reason and usage); a
            # state update the agent sends anyway only changes the activity shown.
            if state in (ACTIVITY_RUNNING, ACTIVITY_IDLE, ACTIVITY_REQUIRES_ACTION):
                self._registry.set_activity(s, state)
            self._tracker.touch(s, PART_STATE)
            return
        if state == ACTIVITY_RUNNING:
            if s.activity == ACTIVITY_IDLE:
                s.turn += 1
                s.stop_reason = None
            self._registry.set_activity(s, ACTIVITY_RUNNING)
        elif state == ACTIVITY_IDLE:
            reason = u.get("stopReason")
            if reason is None:
                reason = u.get("stop_reason")
            if isinstance(reason, str):
                s.stop_reason = reason
            usage = u.get("usage")
            if usage is not None:
                try:
                    s.last_turn_usage = TurnUsage.from_wire(usage)
                    self._tracker.touch(s, PART_USAGE)
                except (TypeError, ValueError):
                    pass  # a malformed usage is "not reported"; the state change still counts
            self._registry.set_activity(s, ACTIVITY_IDLE)
        elif state == ACTIVITY_REQUIRES_ACTION:
            self._registry.set_activity(s, ACTIVITY_REQUIRES_ACTION)
        self._tracker.touch(s, PART_STATE)

    def _background(self, s: SessionState, items: list[wire.JsonObject] | None) -> None:
        """A whole snapshot of the session's background work (``null``: not reported). An
        item listed before keeps when it was first listed; one without its id is left out."""
        if items is None:
            s.background = None
        else:
            ids = {"terminal": "terminalId", "tool_call": "toolCallId", "subagent": "sessionId"}
            before = {(b.kind, b.ref_id): b.since for b in s.background or ()}
            now = self._registry.clock()
            kept: list[BackgroundRef] = []
            for item in items:
                kind = item.get("type")
                ref = item.get(ids.get(kind, "id")) if isinstance(kind, str) else None
                if isinstance(kind, str) and isinstance(ref, str) and ref:
                    kept.append(BackgroundRef(kind, ref, before.get((kind, ref), now)))
            s.background = kept
        self._tracker.touch(s, PART_BACKGROUND)
