"""The session store: applies raw ``session/update`` params and client lifecycle events.

See the package docstring (:mod:`acp_tui.store`) for the contract.
"""

from __future__ import annotations

import copy as copy_module
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from acp_tui.store.agent_terminals import PART_TERMINALS, AgentTerminal
from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_INFO,
    PART_META,
    PART_MODES,
    PART_PLAN,
    PART_RESET,
    PART_STATE,
    PART_TITLE,
    PART_TRANSCRIPT,
    PART_USAGE,
    Changes,
)
from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Compaction,
    Entry,
    MessageEntry,
    Notice,
    PlanSnapshot,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.session import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    ContextUsage,
    SessionState,
    TurnUsage,
    merge_meta,
    parse_iso,
)

__all__ = ["ListState", "SessionStore"]

_MISSING: Any = object()

Wake = Callable[[], None]
Handler = Callable[[SessionState, dict[str, Any]], None]


#: Pages in a row that bring no session not already listed before paging stops: an agent
#: that hands out fresh cursors forever over the same rows must not be paged forever.
MAX_STALE_PAGES = 3


class ListState:
    """Pagination state of ``session/list`` for one scope (a cwd, or ``None`` for all).

    ``stopped`` says why paging ended early when the agent's cursors would never end it (a
    cursor sent before, so a cycle; or pages that bring nothing new)."""

    __slots__ = (
        "_seen_cursors",
        "_seen_ids",
        "_stale",
        "complete",
        "next_cursor",
        "pages",
        "stopped",
    )

    def __init__(self) -> None:
        self.next_cursor: str | None = None
        self.complete = False
        self.pages = 0
        self.stopped: str | None = None
        self._seen_cursors: set[str] = set()
        self._seen_ids: set[str] = set()
        self._stale = 0

    def __repr__(self) -> str:
        return f"ListState(next_cursor={self.next_cursor!r}, complete={self.complete}, pages={self.pages})"


def _type_error(name: str, expected: str, value: Any) -> TypeError:
    return TypeError(f"{name}: expected {expected}, got {type(value).__name__}")


def _req_str(u: dict[str, Any], name: str) -> str:
    if name not in u:
        raise KeyError(name)
    v = u[name]
    if v.__class__ is not str:
        raise _type_error(name, "a string", v)
    return v


def _opt_str(u: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    """A string, ``None`` or ``default`` (when absent); anything else raises."""
    v = u.get(name, default)
    if v is default or v is None or v.__class__ is str:
        return v
    raise _type_error(name, "a string or null", v)


def _list_of_dicts(v: Any, name: str) -> list[dict[str, Any]]:
    if not isinstance(v, list):
        raise _type_error(name, "an array", v)
    for i, item in enumerate(v):
        if not isinstance(item, dict):
            raise _type_error(f"{name}[{i}]", "an object", item)
    return v


#: Updates that change the session, not its transcript: during a kept replay they apply to the
#: session itself (modes, commands, usage... are the agent's current ones either way).
_SESSION_STATE_UPDATES = frozenset(
    {
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
        "state_update",
        "state_change",
    }
)


def _conversation(entries: list[Entry]) -> list[tuple[type, str]]:
    """What a person reads as the conversation: the user's and the agent's messages."""
    return [
        (e.__class__, e.text.strip())  # type: ignore[attr-defined]
        for e in entries
        if e.__class__ in (UserMessage, AgentMessage) and e.text.strip()  # type: ignore[attr-defined]
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


def _now_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


class SessionStore:
    """Every session the client has heard of, fed by raw JSON. Pure Python, never raises on
    agent input. See :mod:`acp_tui.store` for the full contract."""

    def __init__(
        self,
        *,
        protocol_version: int = 1,
        max_held_per_session: int = 100_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.protocol_version = protocol_version
        self.max_held_per_session = max_held_per_session
        #: At most this many distinct unregistered session ids are held (the rest are dropped
        #: and counted in ``held_dropped``), so a misbehaving agent cannot exhaust memory.
        self.max_held_sessions = 1000
        self._clock = clock
        self._sessions: dict[str, SessionState] = {}
        self._held: dict[str, list[Any]] = {}
        self.held_dropped = 0
        self._entry_seq = 0
        self._session_seq = 0
        self._wakes: list[Wake] = []
        self._dirty = False
        self._changes = Changes()
        self._last_marked: Entry | None = None
        self._ordered: list[SessionState] | None = None
        #: Keyed by scope (a cwd or None), or ("archived", scope) for the archived view.
        self._list_states: dict[Any, ListState] = {}
        #: Titles the person gave (see :meth:`pin_title`), applied to sessions heard of later.
        self._pinned_titles: dict[str, str] = {}
        #: Per session replayed next to its kept transcript: where the kept part ends.
        self._kept_from: dict[str, int] = {}
        #: Updates that could not be routed to a session (bad params), newest last.
        self.unrouted: deque[UnknownUpdate] = deque(maxlen=1000)
        self.can_load = False
        self.can_resume = False
        self.can_list = False
        self.can_fork = False
        self.can_set_title = False
        self.can_archive = False
        #: False until the agent answered ``initialize``: until then ``can_list`` and the
        #: others mean "not known yet", not "no".
        self.capabilities_known = False
        self._handlers: dict[str, Handler] = {
            "agent_message_chunk": self._on_agent_chunk,
            "user_message_chunk": self._on_user_chunk,
            "agent_thought_chunk": self._on_thought_chunk,
            "user_message": self._on_user_message,
            "agent_message": self._on_agent_message,
            "agent_thought": self._on_agent_thought,
            "tool_call": self._on_tool_call,
            "tool_call_update": self._on_tool_call,
            "tool_call_content_chunk": self._on_tool_content_chunk,
            "plan": self._on_plan,
            "plan_update": self._on_plan_update,
            "plan_removed": self._on_plan_removed,
            "available_commands_update": self._on_commands,
            "current_mode_update": self._on_current_mode,
            "config_option_update": self._on_config_options,
            "session_info_update": self._on_session_info,
            "usage_update": self._on_usage,
            "notice": self._on_notice,
            "compaction_update": self._on_compaction,
            "compaction_summary_chunk": self._on_compaction_chunk,
            "state_update": self._on_state,
            "state_change": self._on_state,
            "terminal_update": self._on_terminal_update,
            "terminal_output_chunk": self._on_terminal_output,
        }
        #: The agent's own terminals (v2), by terminal id.
        self._agent_terminals: dict[str, AgentTerminal] = {}

    @property
    def update_kinds(self) -> frozenset[str]:
        """The ``sessionUpdate`` kinds this store understands (others become unknown entries)."""
        return frozenset(self._handlers)

    # =========================================================================================
    # Change notification
    # =========================================================================================
    def subscribe(self, wake: Wake) -> Callable[[], None]:
        """Call ``wake()`` each time the store goes from clean to dirty. Returns an unsubscribe
        function. ``wake`` runs synchronously inside the mutating call: keep it cheap (schedule a
        refresh); exceptions from it are swallowed."""
        self._wakes.append(wake)

        def unsubscribe() -> None:
            try:
                self._wakes.remove(wake)
            except ValueError:
                pass

        return unsubscribe

    @property
    def dirty(self) -> bool:
        return self._dirty

    def take_changes(self) -> Changes:
        """Return everything changed since the last call and mark the store clean."""
        changes = self._changes
        self._changes = Changes()
        self._dirty = False
        self._last_marked = None
        return changes

    def _wake(self) -> None:
        self._dirty = True
        for wake in tuple(self._wakes):
            try:
                wake()
            except Exception:
                pass

    def _touch(self, s: SessionState, part: str) -> None:
        if s.shadow:
            return
        if not self._dirty:
            self._wake()
        parts = self._changes.sessions.get(s.id)
        if parts is None:
            parts = self._changes.sessions[s.id] = set()
        parts.add(part)

    def _touch_entry(self, s: SessionState, e: Entry) -> None:
        if e is self._last_marked or s.shadow:
            return
        self._last_marked = e
        self._touch(s, PART_TRANSCRIPT)
        ids = self._changes.entries.get(s.id)
        if ids is None:
            ids = self._changes.entries[s.id] = set()
        ids.add(e.id)

    def _touch_catalog(self) -> None:
        if not self._dirty:
            self._wake()
        self._changes.catalog_changed = True

    # =========================================================================================
    # Read access
    # =========================================================================================
    @property
    def sessions(self) -> Mapping[str, SessionState]:
        return self._sessions

    def get(self, session_id: str) -> SessionState | None:
        return self._sessions.get(session_id)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def held_count(self, session_id: str | None = None) -> int:
        """Number of updates held for unregistered sessions (one session or all)."""
        if session_id is not None:
            return len(self._held.get(session_id, ()))
        return sum(len(v) for v in self._held.values())

    def snapshot(self) -> dict[str, Any]:
        """Plain-data view of the whole store, for equality checks (``==``) and debugging."""
        return {
            "sessions": {sid: s.snapshot() for sid, s in self._sessions.items()},
            "held": {sid: list(v) for sid, v in self._held.items()},
            "catalog": [s.id for s in self.catalog()],
            "unrouted": [u.to_dict() for u in self.unrouted],
        }

    # =========================================================================================
    # Applying session/update notifications
    # =========================================================================================
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
        self._apply_to(s, update)

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
            handler = self._handlers.get(update["sessionUpdate"])
        except Exception as exc:
            self._unknown(s, update, f"bad update: {type(exc).__name__}: {exc}")
            return
        if handler is None:
            self._unknown(s, update, None)
            return
        try:
            handler(s, update)
        except KeyError as exc:
            self._unknown(s, update, f"missing field {exc}")
        except Exception as exc:
            self._unknown(s, update, f"{type(exc).__name__}: {exc}")

    def _unknown(self, s: SessionState, raw: Any, error: str | None) -> None:
        e = UnknownUpdate(self._next_id(), raw, error)
        s.transcript.append(e)
        self._touch_entry(s, e)

    def _unrouted(self, raw: Any, error: str) -> None:
        self.unrouted.append(UnknownUpdate(self._next_id(), raw, error))
        if not self._dirty:
            self._wake()
        self._changes.unrouted = True

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

    def _flush_held(self, s: SessionState) -> None:
        held = self._held.pop(s.id, None)
        if held:
            for update in held:
                self._apply_to(s, update)

    def _next_id(self) -> int:
        self._entry_seq += 1
        return self._entry_seq

    # -- messages ------------------------------------------------------------------------------
    def _on_agent_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        self._chunk(s, u, AgentMessage)

    def _on_user_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        self._chunk(s, u, UserMessage)

    def _on_thought_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        self._chunk(s, u, AgentThought)

    def _chunk(self, s: SessionState, u: dict[str, Any], cls: type[MessageEntry]) -> None:
        content = u["content"]
        if content.__class__ is not dict:
            raise _type_error("content", "an object", content)
        text = None
        ctype = content.get("type")
        if ctype == "text":
            text = content.get("text")
            if text.__class__ is not str:
                raise _type_error("content.text", "a string", text)
        elif ctype.__class__ is not str:
            raise _type_error("content.type", "a string", ctype)
        mid = u.get("messageId")
        if mid is not None and mid.__class__ is not str:
            raise _type_error("messageId", "a string or null", mid)

        tr = s.transcript
        e = tr[-1] if tr else None
        if e.__class__ is UnknownUpdate:  # unknown updates do not end the current message
            e = self._last_known(tr)
        if e is None or e.__class__ is not cls:
            e = self._message_for(s, cls, mid)
        elif e.local_pending:  # type: ignore[union-attr]
            e = self._adopt_echo(s, e, mid)  # type: ignore[arg-type]
        elif mid is not None and mid != e.message_id:  # type: ignore[union-attr]
            e = self._message_for(s, cls, mid)
        else:
            e.version += 1
        if text is not None:
            e.append_text(text)  # type: ignore[union-attr]
        else:
            e.append_block(content)  # type: ignore[union-attr]
        self._touch_entry(s, e)

    @staticmethod
    def _last_known(tr: list[Entry]) -> Entry | None:
        for e in reversed(tr[-256:]):  # bounded: never quadratic on floods of unknowns
            if e.__class__ is not UnknownUpdate:
                return e
        return None

    def _adopt_echo(self, s: SessionState, e: MessageEntry, mid: str | None) -> MessageEntry:
        """The agent echoes a user message the client recorded locally: replace, don't duplicate."""
        if mid is not None and e.message_id is not None and e.message_id != mid:
            return self._message_for(s, type(e), mid)
        e.clear()
        e.local_pending = False
        if mid is not None and e.message_id is None:
            e.message_id = mid
            s.msg_index[mid] = e
        e.version += 1
        return e

    def _message_for(
        self, s: SessionState, cls: type[MessageEntry], mid: str | None
    ) -> MessageEntry:
        """The existing message ``mid`` of this role (interleaved streams), or a new one."""
        if mid is not None:
            e = s.msg_index.get(mid)
            if e is not None and e.__class__ is cls:
                e.version += 1
                return e
        e = cls(self._next_id(), mid)
        if mid is not None:
            s.msg_index[mid] = e
        s.transcript.append(e)
        if cls is UserMessage and s._first_user is None:
            self._set_first_user(s, e)
        return e

    def _set_first_user(self, s: SessionState, e: MessageEntry) -> None:
        s._first_user = e
        if s._first_prompt is None:
            self._touch(s, PART_INFO)
            if s.title is None:
                self._touch_catalog()

    def _on_user_message(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, UserMessage)

    def _on_agent_message(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, AgentMessage)

    def _on_agent_thought(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, AgentThought)

    def _upsert_message(self, s: SessionState, u: dict[str, Any], cls: type[MessageEntry]) -> None:
        mid = _req_str(u, "messageId")
        content = u.get("content", _MISSING)
        if content is not _MISSING and content is not None:
            _list_of_dicts(content, "content")
        e = s.msg_index.get(mid)
        if e is not None and e.__class__ is not cls:
            e = None
        if e is None and cls is UserMessage:
            pending = self._pending_local_user(s)
            if pending is not None:
                e = pending
                e.message_id = mid
                s.msg_index[mid] = e
                e.local_pending = False
        if e is None:
            e = cls(self._next_id(), mid)
            s.msg_index[mid] = e
            s.transcript.append(e)
            if cls is UserMessage and s._first_user is None:
                self._set_first_user(s, e)
        else:
            e.local_pending = False
            e.version += 1
        if content is not _MISSING:
            e.set_content(content or [])
        self._touch_entry(s, e)

    def _pending_local_user(self, s: SessionState) -> UserMessage | None:
        """The oldest message sent and not yet echoed: an agent inserts prompts in the order
        they were sent (v2 accepts several at once), so its echoes bind in that order."""
        for e in s.transcript[-64:]:
            if e.__class__ is UserMessage and e.local_pending:  # type: ignore[attr-defined]
                return e  # type: ignore[return-value]
        return None

    # -- tool calls ------------------------------------------------------------------------------
    def _on_tool_call(self, s: SessionState, u: dict[str, Any]) -> None:
        """``tool_call`` creates, ``tool_call_update`` patches; both upsert by ``toolCallId``.

        Only fields present are changed; ``null`` leaves a field unchanged (v1 semantics)."""
        tcid = _req_str(u, "toolCallId")
        title = _opt_str(u, "title")
        name = _opt_str(u, "name")
        kind = _opt_str(u, "kind")
        status = _opt_str(u, "status")
        content = u.get("content")
        if content is not None:
            _list_of_dicts(content, "content")
        locations = u.get("locations")
        if locations is not None:
            _list_of_dicts(locations, "locations")
        meta = u.get("_meta")
        if meta is not None and not isinstance(meta, dict):
            raise _type_error("_meta", "an object or null", meta)

        e = self._tool_entry(s, tcid)
        if title is not _MISSING and title is not None:
            e.title = title
        if name is not _MISSING and name is not None:
            e.name = name
        if kind is not _MISSING and kind is not None:
            e.tool_kind = kind
        if status is not _MISSING and status is not None:
            e.status = status
        if content is not None:
            e.content = list(content)
        if locations is not None:
            e.locations = list(locations)
        if "rawInput" in u and u["rawInput"] is not None:
            e.raw_input = u["rawInput"]
        if "rawOutput" in u and u["rawOutput"] is not None:
            e.raw_output = u["rawOutput"]
        if meta is not None:
            e.meta = meta
        if self.protocol_version >= 2:
            self._clear_tool_fields(e, u)
        self._touch_entry(s, e)

    @staticmethod
    def _clear_tool_fields(e: ToolCall, u: dict[str, Any]) -> None:
        """v2 patch semantics: an explicit ``null`` resets a field to its start value (v1
        reads ``null`` as "unchanged")."""
        for key, attribute, start in (
            ("title", "title", ""),
            ("name", "name", None),
            ("kind", "tool_kind", "other"),
            ("status", "status", "pending"),
            ("content", "content", []),
            ("locations", "locations", []),
            ("rawInput", "raw_input", None),
            ("rawOutput", "raw_output", None),
            ("_meta", "meta", None),
        ):
            if key in u and u[key] is None:
                setattr(e, attribute, list(start) if isinstance(start, list) else start)

    def _tool_entry(self, s: SessionState, tcid: str) -> ToolCall:
        e = s.tool_index.get(tcid)
        if e is None:
            e = ToolCall(self._next_id(), tcid)
            s.tool_index[tcid] = e
            s.transcript.append(e)
        else:
            e.version += 1
        return e

    def _on_tool_content_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        tcid = _req_str(u, "toolCallId")
        content = u["content"]
        if not isinstance(content, dict):
            raise _type_error("content", "an object", content)
        e = self._tool_entry(s, tcid)
        e.content.append(content)
        self._touch_entry(s, e)

    # -- plan --------------------------------------------------------------------------------
    def _on_plan(self, s: SessionState, u: dict[str, Any]) -> None:
        entries = _list_of_dicts(u["entries"], "entries")
        self._set_plan(s, list(entries), None)

    def _on_plan_update(self, s: SessionState, u: dict[str, Any]) -> None:
        """Unstable ``plan_update``: the plan with this ``planId`` is replaced in place
        (structured entries, Markdown or a file URI), or starts here."""
        plan = u["plan"]
        if not isinstance(plan, dict):
            raise _type_error("plan", "an object", plan)
        plan_id = _req_str(plan, "planId")
        kind = plan.get("type")
        entries: list[dict[str, Any]] = []
        if kind == "items":
            entries = list(_list_of_dicts(plan["entries"], "plan.entries"))
        elif kind == "markdown":
            _req_str(plan, "content")
        elif kind == "file":
            _req_str(plan, "uri")
        s.plan = entries
        snapshot = self._plan_snapshot(s, plan_id)
        if snapshot is None:
            snapshot = PlanSnapshot(self._next_id(), entries, plan, plan_id)
            s.transcript.append(snapshot)
        else:
            snapshot.entries = entries
            snapshot.raw = plan
            snapshot.removed = False
            snapshot.version += 1
        self._touch_entry(s, snapshot)
        self._touch(s, PART_PLAN)

    @staticmethod
    def _plan_snapshot(s: SessionState, plan_id: str) -> PlanSnapshot | None:
        for entry in reversed(s.transcript):
            if entry.__class__ is PlanSnapshot and entry.plan_id == plan_id:  # type: ignore[attr-defined]
                return entry  # type: ignore[return-value]
        return None

    def _set_plan(self, s: SessionState, entries: list[dict[str, Any]], raw: Any) -> None:
        s.plan = entries
        tr = s.transcript
        last = tr[-1] if tr else None
        if isinstance(last, PlanSnapshot) and last.plan_id is None:
            last.entries = entries
            last.raw = raw
            last.version += 1
        else:
            last = PlanSnapshot(self._next_id(), entries, raw)
            tr.append(last)
        self._touch_entry(s, last)
        self._touch(s, PART_PLAN)

    def _on_plan_removed(self, s: SessionState, u: dict[str, Any]) -> None:
        plan_id = _req_str(u, "planId")
        snapshot = self._plan_snapshot(s, plan_id)
        if snapshot is not None and not snapshot.removed:
            snapshot.removed = True
            snapshot.version += 1
            self._touch_entry(s, snapshot)
        # The plan shown goes when it is the one removed, or when the id is one never seen
        # (an agent that sent it as a plain ``plan``).
        latest = next((e for e in reversed(s.transcript) if e.__class__ is PlanSnapshot), None)
        if snapshot is None or latest is snapshot:
            s.plan = None
            self._touch(s, PART_PLAN)

    # -- session state -------------------------------------------------------------------------
    def _on_commands(self, s: SessionState, u: dict[str, Any]) -> None:
        s.commands = list(_list_of_dicts(u["availableCommands"], "availableCommands"))
        self._touch(s, PART_COMMANDS)

    def _on_current_mode(self, s: SessionState, u: dict[str, Any]) -> None:
        s.current_mode_id = _req_str(u, "currentModeId")
        self._touch(s, PART_MODES)

    def _on_config_options(self, s: SessionState, u: dict[str, Any]) -> None:
        s.config_options = list(_list_of_dicts(u["configOptions"], "configOptions"))
        self._touch(s, PART_CONFIG)

    def _on_usage(self, s: SessionState, u: dict[str, Any]) -> None:
        s.context = ContextUsage.from_update(u)
        self._touch(s, PART_USAGE)

    def _on_notice(self, s: SessionState, u: dict[str, Any]) -> None:
        """A live event, not history: one replayed with a session (load) is not shown again.
        ``description`` is dropped, not fatal, when malformed (the schema's default-on-error)."""
        title = _req_str(u, "title")
        if not title.strip():
            raise ValueError("title: empty (a notice's title must not be)")
        severity = _req_str(u, "severity") or "info"
        description = u.get("description")
        if not isinstance(description, str) or not description.strip():
            description = None
        if s.replaying or s.shadow:
            return
        e = Notice(
            self._next_id(), title, severity=severity, description=description, source="agent"
        )
        s.transcript.append(e)
        self._touch_entry(s, e)

    def _compaction(self, s: SessionState, compaction_id: str) -> Compaction:
        # Compactions are few and the one being updated is near the end: search from there.
        for e in reversed(s.transcript):
            if e.__class__ is Compaction and e.compaction_id == compaction_id:  # type: ignore[attr-defined]
                e.version += 1
                return e  # type: ignore[return-value]
        e = Compaction(self._next_id(), compaction_id)
        s.transcript.append(e)
        return e

    def _on_compaction(self, s: SessionState, u: dict[str, Any]) -> None:
        """Upsert by id. ``summary``, ``error`` and ``_meta`` patch: absent leaves the value,
        ``null`` (or ``summary: []``) clears it, a value replaces it; a malformed one is
        ignored (the schema's default-on-error) rather than losing the status."""
        compaction_id = _req_str(u, "compactionId")
        status = _req_str(u, "status")
        e = self._compaction(s, compaction_id)
        e.status = status
        if "summary" in u:
            summary = u["summary"]
            if summary is None:
                e.summary = []
            elif isinstance(summary, list):
                e.summary = [b for b in summary if isinstance(b, dict)]
        if "error" in u and (u["error"] is None or isinstance(u["error"], str)):
            e.error = u["error"]
        if "_meta" in u and (u["_meta"] is None or isinstance(u["_meta"], dict)):
            e.meta = u["_meta"]
        self._touch_entry(s, e)

    def _on_compaction_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        """A block appended to a compaction's summary; a first-seen id starts one."""
        compaction_id = _req_str(u, "compactionId")
        content = u["content"]
        if not isinstance(content, dict):
            raise _type_error("content", "an object", content)
        e = self._compaction(s, compaction_id)
        summary = e.summary
        last = summary[-1] if summary else None
        text = content.get("text")
        if (
            content.get("type") == "text"
            and isinstance(text, str)
            and last is not None
            and last.get("type") == "text"
            and isinstance(last.get("text"), str)
        ):
            summary[-1] = {"type": "text", "text": last["text"] + text}
        else:
            summary.append(content)
        self._touch_entry(s, e)

    def _on_session_info(self, s: SessionState, u: dict[str, Any]) -> None:
        """Omitted: unchanged; ``null``: cleared; ``_meta``: recursive merge (``null`` leaf
        deletes the key, ``_meta: null`` clears all)."""
        title = _opt_str(u, "title")
        updated = _opt_str(u, "updatedAt")
        meta = u.get("_meta", _MISSING)
        if meta is not _MISSING and meta is not None and not isinstance(meta, dict):
            raise _type_error("_meta", "an object or null", meta)
        now = self._clock()
        if title is not _MISSING and not s.title_pinned:
            s.title = title
            s._live_at["title"] = now
            s._search_key = None
            self._touch(s, PART_TITLE)
            self._touch_catalog()
        if updated is not _MISSING:
            self._set_updated(s, updated, parse_iso(updated))
        if meta is not _MISSING:
            s.meta = None if meta is None else merge_meta(s.meta, meta)
            s._live_at["meta"] = now
            self._touch(s, PART_META)
            self._touch_catalog()

    def _set_updated(self, s: SessionState, raw: str | None, ts: float | None) -> None:
        s.updated_at = raw
        if ts != s.updated_ts:
            s.updated_ts = ts
            s._order_key = None
            self._ordered = None
        self._touch(s, PART_INFO)
        self._touch_catalog()

    def _on_terminal_update(self, s: SessionState, u: dict[str, Any]) -> None:
        terminal_id = _req_str(u, "terminalId")
        terminal = self._agent_terminals.get(terminal_id)
        if terminal is None:
            terminal = self._agent_terminals[terminal_id] = AgentTerminal(terminal_id)
        terminal.upsert(u)
        self._touch(s, PART_TERMINALS)

    def _on_terminal_output(self, s: SessionState, u: dict[str, Any]) -> None:
        terminal_id = _req_str(u, "terminalId")
        terminal = self._agent_terminals.get(terminal_id)
        if terminal is None:
            terminal = self._agent_terminals[terminal_id] = AgentTerminal(terminal_id)
        if not terminal.append(u.get("data")):
            raise TypeError("data: expected base64 text")
        self._touch(s, PART_TERMINALS)

    def agent_terminal(self, terminal_id: str) -> AgentTerminal | None:
        """An agent-owned terminal (v2) by id, for the tool call that shows it."""
        return self._agent_terminals.get(terminal_id)

    def _on_state(self, s: SessionState, u: dict[str, Any]) -> None:
        """v2 ``state_update`` (RFD spelling: ``state_change``)."""
        state = _req_str(u, "state")
        s.state_detail = u
        if self.protocol_version < 2:
            # v1: the prompt's answer owns the turn (its number, stop reason and usage); a
            # state update the agent sends anyway only changes the activity shown.
            if state in (ACTIVITY_RUNNING, ACTIVITY_IDLE, ACTIVITY_REQUIRES_ACTION):
                s.activity = state
            self._touch(s, PART_STATE)
            return
        if state == ACTIVITY_RUNNING:
            if s.activity == ACTIVITY_IDLE:
                s.turn += 1
                s.stop_reason = None
            s.activity = ACTIVITY_RUNNING
        elif state == ACTIVITY_IDLE:
            s.activity = ACTIVITY_IDLE
            reason = u.get("stopReason")
            if reason is None:
                reason = u.get("stop_reason")
            if isinstance(reason, str):
                s.stop_reason = reason
            usage = u.get("usage")
            if usage is not None:
                try:
                    s.last_turn_usage = TurnUsage.from_wire(usage)
                    self._touch(s, PART_USAGE)
                except (TypeError, ValueError):
                    pass  # a malformed usage is "not reported"; the state change still counts
        elif state == ACTIVITY_REQUIRES_ACTION:
            s.activity = ACTIVITY_REQUIRES_ACTION
        self._touch(s, PART_STATE)

    # =========================================================================================
    # Client lifecycle
    # =========================================================================================
    def _ensure(self, session_id: str) -> SessionState:
        s = self._sessions.get(session_id)
        if s is None:
            self._session_seq += 1
            s = SessionState(session_id, self._session_seq)
            s.resumable = self.can_load or self.can_resume
            pinned = self._pinned_titles.get(session_id)
            if pinned is not None:
                s.title, s.title_pinned = pinned, True
            self._sessions[session_id] = s
            self._ordered = None
            self._touch_catalog()
        return s

    def _make_live(self, s: SessionState, cwd: str | None) -> None:
        if not s.live:
            s.live = True
            self._touch(s, PART_INFO)
            self._touch_catalog()
        if cwd is not None and s.cwd != cwd:
            s.cwd = cwd
            s._search_key = None
            self._touch(s, PART_INFO)
            self._touch_catalog()

    def _apply_session_response(self, s: SessionState, response: Any) -> None:
        """Modes and config options of a session/new, load or resume response (lenient)."""
        if not isinstance(response, dict):
            return
        modes = response.get("modes")
        if isinstance(modes, dict):
            available = modes.get("availableModes")
            if isinstance(available, list):
                s.available_modes = [m for m in available if isinstance(m, dict)]
            current = modes.get("currentModeId")
            if isinstance(current, str):
                s.current_mode_id = current
            self._touch(s, PART_MODES)
        options = response.get("configOptions")
        if isinstance(options, list):
            s.config_options = [o for o in options if isinstance(o, dict)]
            self._touch(s, PART_CONFIG)
        models = response.get("models")
        if isinstance(models, dict):
            s.models = dict(models)
            self._touch(s, PART_CONFIG)
        commands = response.get("availableCommands")  # v2: in the response, not an update
        if isinstance(commands, list):
            s.commands = [c for c in commands if isinstance(c, dict)]
            self._touch(s, PART_COMMANDS)

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
        s = self._ensure(session_id)
        if new and not s.transcript:
            s.draft = True
            self._touch_catalog()
        self._make_live(s, cwd)
        if title is not None and s.title is None and not s.title_pinned:
            s.title = title
            s._search_key = None
            self._touch(s, PART_TITLE)
        if s.updated_ts is None:
            now = self._clock()
            self._set_updated(s, _now_iso(now), now)
        self._apply_session_response(s, response)
        self._flush_held(s)
        return s

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
        s = self._ensure(session_id)
        self._make_live(s, cwd)
        if keep and s.transcript:
            replay = SessionState(s.id, s.seq)
            replay.shadow = replay.live = True
            s._replay = replay
            s.replaying = True
            s.activity = ACTIVITY_IDLE
            self._touch(s, PART_STATE)
            self._kept_from[s.id] = len(s.transcript)
            self._flush_held(s)
            return s
        s.transcript = []
        s.msg_index = {}
        s.tool_index = {}
        s.plan = None
        s._first_user = None
        s.replaying = True
        s.activity = ACTIVITY_IDLE
        self._changes.entries.pop(s.id, None)
        self._last_marked = None
        for part in (PART_RESET, PART_TRANSCRIPT, PART_STATE, PART_PLAN):
            self._touch(s, part)
        self._flush_held(s)
        return s

    def end_replay(self, session_id: str, response: Any = None) -> SessionState:
        """The ``session/load`` response arrived (or failed: pass ``response=None``)."""
        s = self._ensure(session_id)
        replay, s._replay = s._replay, None
        if replay is not None:
            self._judge_replay(s, replay, response is not None)
        s.replaying = False
        self._apply_session_response(s, response)
        self._touch(s, PART_STATE)
        self._flush_held(s)
        return s

    def _judge_replay(self, s: SessionState, replay: SessionState, loaded: bool) -> None:
        """Take the replay if it holds all that was shown, else keep the shown transcript."""
        start = self._kept_from.pop(s.id, len(s.transcript))
        if not loaded:
            return  # the load failed: the transcript on screen is all there is
        seen = _conversation(s.transcript[:start])
        replayed = _conversation(replay.transcript)
        if _covers(replayed, seen):
            # Notices added while the replay ran follow it.
            s.transcript = replay.transcript + s.transcript[start:]
            s.msg_index = replay.msg_index
            s.tool_index = replay.tool_index
            s.plan = replay.plan
            s._first_user = replay._first_user
            self._changes.entries.pop(s.id, None)
            self._last_marked = None
            for part in (PART_RESET, PART_TRANSCRIPT, PART_PLAN):
                self._touch(s, part)
            return
        self.add_notice(
            s.id,
            "Kept the transcript you saw: the agent's replay of this session has "
            f"{len(replayed)} messages where {len(seen)} were shown, and is not the same "
            "conversation (it may have lost or summarised part of it). What the agent "
            "remembers is its replay.",
            severity="warning",
        )

    def prompt_sent(self, session_id: str, prompt: list[dict[str, Any]] | str | None = None) -> int:
        """The client sent ``session/prompt``: records the user message (replaced by the agent's
        echo if it sends one), sets activity to running. Returns the turn number."""
        s = self._ensure(session_id)
        self._make_live(s, None)
        if s.draft:
            s.draft = False
            self._touch(s, PART_INFO)
            self._touch_catalog()
        if prompt is not None:
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else prompt
            e = UserMessage(self._next_id())
            e.set_content([b for b in blocks if isinstance(b, dict)])
            e.local_pending = True
            s.transcript.append(e)
            self._touch_entry(s, e)
            if s.first_prompt is None and e.text:
                s.first_prompt = e.text
                self._touch(s, PART_INFO)
                if s.title is None:
                    s._search_key = None
                    self._touch_catalog()
        s.turn += 1
        s.activity = ACTIVITY_RUNNING
        s.stop_reason = None
        now = self._clock()
        self._set_updated(s, _now_iso(now), now)
        self._touch(s, PART_STATE)
        return s.turn

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
        s = self._ensure(session_id)
        current = turn is None or turn == s.turn
        if isinstance(response, dict):
            usage = response.get("usage")
            if usage is not None:
                try:
                    s.last_turn_usage = TurnUsage.from_wire(usage)
                    self._touch(s, PART_USAGE)
                except (TypeError, ValueError):
                    pass
            reason = response.get("stopReason")
            if self.protocol_version < 2 and isinstance(reason, str):
                for e in reversed(s.transcript[-64:]):
                    if e.__class__ is UserMessage and e.local_pending:  # type: ignore[attr-defined]
                        e.local_pending = False  # type: ignore[attr-defined]
                if current:
                    s.activity = ACTIVITY_IDLE
                    s.stop_reason = reason
                    self._touch(s, PART_STATE)
            else:
                mid = response.get("messageId")
                if isinstance(mid, str) and mid not in s.msg_index:
                    pending = self._pending_local_user(s)
                    if pending is not None and pending.message_id is None:
                        pending.message_id = mid
                        s.msg_index[mid] = pending
                        pending.version += 1
                        self._touch_entry(s, pending)
        if error is not None:
            self.add_notice(session_id, error, severity="error")
            if current:
                s.activity = ACTIVITY_IDLE
                s.stop_reason = "error"
                self._touch(s, PART_STATE)

    def withdraw_prompt(self, session_id: str, turn: int | None = None) -> bool:
        """The agent refused a prompt unsent (it wanted a sign-in first): its user message
        leaves the transcript (it goes out again later, and is recorded then) and the turn
        is over. Returns whether a message was removed."""
        s = self._sessions.get(session_id)
        if s is None:
            return False
        removed = False
        for index in range(len(s.transcript) - 1, max(-1, len(s.transcript) - 65), -1):
            e = s.transcript[index]
            if e.__class__ is UserMessage and e.local_pending:  # type: ignore[attr-defined]
                del s.transcript[index]
                mid = e.message_id  # type: ignore[attr-defined]
                if mid is not None:
                    s.msg_index.pop(mid, None)
                removed = True
                break
        if removed:
            self._touch(s, PART_RESET)
            self._touch(s, PART_TRANSCRIPT)
        if turn is None or turn == s.turn:
            s.activity = ACTIVITY_IDLE
            s.stop_reason = None
            self._touch(s, PART_STATE)
        return removed

    def set_activity(self, session_id: str, activity: str) -> None:
        """Client-side override (e.g. ``requires_action`` while a permission dialog is open)."""
        s = self._ensure(session_id)
        if s.activity != activity:
            s.activity = activity
            self._touch(s, PART_STATE)

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
        s = self._ensure(session_id)
        e = Notice(self._next_id(), title, severity=severity, description=description)
        s.transcript.append(e)
        self._touch_entry(s, e)
        return e

    def set_current_mode(self, session_id: str, mode_id: str) -> None:
        """The client changed the mode (``session/set_mode`` succeeded)."""
        s = self._ensure(session_id)
        s.current_mode_id = mode_id
        self._touch(s, PART_MODES)

    def set_config_options(self, session_id: str, options: list[dict[str, Any]]) -> None:
        """``session/set_config_option`` returned the full option list."""
        s = self._ensure(session_id)
        s.config_options = [o for o in options if isinstance(o, dict)]
        self._touch(s, PART_CONFIG)

    def set_current_model(self, session_id: str, model_id: str) -> None:
        """The client changed the model of the legacy ``models`` state (``session/set_model``
        succeeded)."""
        s = self._ensure(session_id)
        s.models = {**(s.models or {}), "currentModelId": model_id}
        self._touch(s, PART_CONFIG)

    def set_additional_dirs(self, session_id: str, dirs: list[str]) -> None:
        """The additional directories a session was opened with (or the agent reported)."""
        s = self._ensure(session_id)
        if s.additional_dirs != dirs:
            s.additional_dirs = list(dirs)
            self._touch(s, PART_INFO)

    def set_agent_capabilities(self, agent_capabilities: Any) -> None:
        """From the ``initialize`` response's ``agentCapabilities``: load / resume / list."""
        caps = agent_capabilities if isinstance(agent_capabilities, dict) else {}
        sess = caps.get("sessionCapabilities")
        sess = sess if isinstance(sess, dict) else {}
        self.can_load = caps.get("loadSession") is True
        self.can_resume = sess.get("resume") is not None
        self.can_list = sess.get("list") is not None
        # Unstable: session/fork, session/set_title, session/archive + unarchive.
        self.can_fork = sess.get("fork") is not None
        self.can_set_title = sess.get("title") is not None
        self.can_archive = sess.get("archive") is not None
        self.capabilities_known = True
        resumable = self.can_load or self.can_resume
        for s in self._sessions.values():
            s.resumable = resumable
        self._touch_catalog()

    def open_method(self, session_id: str) -> str | None:
        """How the client should open a session: ``"live"`` (already open), ``"resume"``,
        ``"load"``, or ``None`` (the agent supports neither)."""
        s = self._sessions.get(session_id)
        if s is not None and s.live:
            return "live"
        if self.can_resume:
            return "resume"
        if self.can_load:
            return "load"
        return None

    def pin_title(self, session_id: str, title: str) -> None:
        """The person named the session: ``title`` wins over every title the agent reports
        (listed or live) from now on, also for a session only heard of later."""
        self._pinned_titles[session_id] = title
        s = self._sessions.get(session_id)
        if s is None:
            return
        s.title_pinned = True
        if s.title != title:
            s.title = title
            s._search_key = None
            self._touch(s, PART_TITLE)
            self._touch_catalog()

    def set_archived(self, session_id: str, archived: bool) -> None:
        """The session was archived (or unarchived) here."""
        s = self._sessions.get(session_id)
        if s is not None and s.archived != archived:
            s.archived = archived
            self._touch(s, PART_INFO)
            self._touch_catalog()

    def register_fork(
        self,
        session_id: str,
        source_id: str,
        *,
        cwd: str | None = None,
        response: Any = None,
    ) -> SessionState:
        """``session/fork`` answered: the branch is live, with a copy of the source's
        transcript as this client knows it (the agent does not replay it)."""
        s = self._ensure(session_id)
        source = self._sessions.get(source_id)
        if source is not None and not s.transcript:
            for entry in source.transcript:
                copy = _copied_entry(entry, self._next_id())
                s.transcript.append(copy)
                if isinstance(copy, MessageEntry):
                    if copy.message_id is not None:
                        s.msg_index[copy.message_id] = copy
                    if copy.__class__ is UserMessage and s._first_user is None:
                        s._first_user = copy
                elif isinstance(copy, ToolCall):
                    s.tool_index[copy.tool_call_id] = copy
                self._touch_entry(s, copy)
            s.plan = copy_module.deepcopy(source.plan)
            s.first_prompt = source._first_prompt
            s.available_modes = source.available_modes
            s.current_mode_id = source.current_mode_id
            s.config_options = source.config_options
            s.commands = source.commands
        self._make_live(s, cwd)
        now = self._clock()
        self._set_updated(s, _now_iso(now), now)
        self._apply_session_response(s, response)
        self._flush_held(s)
        return s

    # =========================================================================================
    # Catalog
    # =========================================================================================
    def list_state(self, cwd: str | None = None, *, archived: bool = False) -> ListState:
        """Pagination state of ``session/list`` for a scope (``cwd`` or ``None`` = all), of
        the archived sessions with ``archived``."""
        key: Any = ("archived", cwd) if archived else cwd
        st = self._list_states.get(key)
        if st is None:
            st = self._list_states[key] = ListState()
        return st

    def apply_list_page(
        self,
        result: Any,
        *,
        cwd: str | None = None,
        cursor: str | None = None,
        archived: bool = False,
    ) -> list[str]:
        """Merge one ``session/list`` result page. ``cwd`` is the scope the request used and
        ``cursor`` the cursor it sent (``None`` = first page, i.e. a refresh). Returns warnings
        about skipped items; never raises.

        A listed title / ``_meta`` does not override one set live by ``session_info_update``
        unless the listed ``updatedAt`` is newer than that live update."""
        warnings: list[str] = []
        st = self.list_state(cwd, archived=archived)
        if cursor is None:
            st.pages = 0
            st.complete = False
            st.stopped = None
            st._seen_cursors.clear()
            st._seen_ids.clear()
            st._stale = 0
        else:
            st._seen_cursors.add(cursor)
        if not isinstance(result, dict):
            return [f"session/list result: expected an object, got {type(result).__name__}"]
        items = result.get("sessions")
        if not isinstance(items, list):
            warnings.append("session/list result: 'sessions' is not an array")
            items = []
        new_rows = 0
        for i, item in enumerate(items):
            problem = self._merge_listed(item)
            if problem:
                warnings.append(f"sessions[{i}]: {problem}")
                continue
            if archived and not isinstance(item.get("archived"), bool):
                # Listed with the filter "only": archived, whether or not the agent says so.
                self._sessions[item["sessionId"]].archived = True
            if item["sessionId"] not in st._seen_ids:
                st._seen_ids.add(item["sessionId"])
                new_rows += 1
        nxt = result.get("nextCursor")
        st.pages += 1
        st.next_cursor = nxt if isinstance(nxt, str) and nxt else None
        st._stale = 0 if new_rows else st._stale + 1
        if st.next_cursor is not None and (
            st.next_cursor in st._seen_cursors or st.next_cursor == cursor
        ):
            # Short: it is the sidebar's last row.
            st.stopped = "stopped: agent's list loops"
            st.next_cursor = None
        elif st.next_cursor is not None and st._stale >= MAX_STALE_PAGES:
            st.stopped = "stopped: no new sessions"
            st.next_cursor = None
        st.complete = st.next_cursor is None
        self._touch_catalog()
        return warnings

    def _merge_listed(self, item: Any) -> str | None:
        if not isinstance(item, dict):
            return "not an object"
        sid = item.get("sessionId")
        if not isinstance(sid, str):
            return "sessionId is not a string"
        s = self._ensure(sid)
        s.listed = True
        cwd = item.get("cwd")
        if isinstance(cwd, str) and cwd != s.cwd and not s.live:
            s.cwd = cwd
            s._search_key = None
        created = item.get("createdAt")
        if isinstance(created, str):
            s.created_at = created
        dirs = item.get("additionalDirectories")
        if isinstance(dirs, list) and not s.live:
            # The agent's complete list for the session: what a reopen sends again.
            s.additional_dirs = [d for d in dirs if isinstance(d, str) and d]
        listed_ts: float | None = None
        if "updatedAt" in item:
            raw = item["updatedAt"]
            raw = raw if isinstance(raw, str) else None
            listed_ts = parse_iso(raw)
            if s.updated_ts is None or (listed_ts is not None and listed_ts >= s.updated_ts):
                if raw != s.updated_at or listed_ts != s.updated_ts:
                    self._set_updated(s, raw, listed_ts)

        def listed_wins(field: str) -> bool:
            live_at = s._live_at.get(field)
            return live_at is None or (listed_ts is not None and listed_ts > live_at)

        archived = item.get("archived")
        if isinstance(archived, bool):
            s.archived = archived
        if "title" in item and listed_wins("title") and not s.title_pinned:
            title = item["title"]
            title = title if isinstance(title, str) else None
            if title != s.title:
                s.title = title
                s._search_key = None
                self._touch(s, PART_TITLE)
            s._live_at.pop("title", None)
        if "_meta" in item and listed_wins("meta"):
            meta = item["_meta"]
            meta = meta if isinstance(meta, dict) else None
            if meta != s.meta:
                s.meta = meta
                self._touch(s, PART_META)
            s._live_at.pop("meta", None)
        return None

    def apply_index_records(self, records: Iterable[Any]) -> None:
        """Merge sessions remembered by the local index (:class:`LocalIndex` ``sessions()``
        rows). They fill gaps only: agent-provided and live data win. A row with neither a
        title nor a first prompt never had a conversation (older versions remembered every
        new session): the agent may not know it, so it is left out."""
        for r in records:
            if not r.title and not r.first_prompt:
                continue
            s = self._ensure(r.session_id)
            s.indexed = True
            if s.cwd is None and r.cwd:
                s.cwd = r.cwd
                s._search_key = None
            if s.title is None and r.title and not s.listed and "title" not in s._live_at:
                s.title = r.title
                s._search_key = None
            if s.first_prompt is None and r.first_prompt:
                s.first_prompt = r.first_prompt
            if s.updated_ts is None and r.updated is not None:
                self._set_updated(s, _now_iso(r.updated), r.updated)
            if s.current_mode_id is None and r.mode:
                s.current_mode_id = r.mode
            dirs = getattr(r, "additional_dirs", None)
            if s.additional_dirs is None and dirs:
                s.additional_dirs = list(dirs)
        self._touch_catalog()

    def forget(self, session_id: str) -> None:
        """Drop a session entirely (it was deleted): from the catalog and any held updates."""
        if self._sessions.pop(session_id, None) is not None:
            self._ordered = None
            self._held.pop(session_id, None)
            self._touch_catalog()

    def catalog(self, cwd: str | None = None, *, archived: bool = False) -> list[SessionState]:
        """All known sessions (live, listed, indexed) but drafts, newest ``updatedAt`` first,
        those without one last (ties: first heard of first). ``cwd`` filters to one
        directory; ``archived`` gives the archived sessions instead of the others."""
        ordered = self._ordered
        if ordered is None:
            ordered = self._ordered = sorted(self._sessions.values(), key=SessionState.order_key)
        return [
            s
            for s in ordered
            if not s.draft and (cwd is None or s.cwd == cwd) and bool(s.archived) == archived
        ]

    def search(
        self, text: str, cwd: str | None = None, *, archived: bool = False
    ) -> list[SessionState]:
        """Case-insensitive substring filter over title, cwd and id, in catalog order."""
        needle = text.casefold().strip()
        sessions = self.catalog(cwd, archived=archived)
        if not needle:
            return sessions
        return [s for s in sessions if needle in s.search_key()]
