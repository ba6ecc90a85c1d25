"""The reactive session store: one truth for every session, fed by the wire.

Pure Python: imports nothing from Textual, Rich or ``acp_tui.protocol``. It consumes raw decoded
JSON (dicts), routes on the raw ``sessionUpdate`` string, and never raises on agent input: an
unknown variant, or a known one with wrong types, becomes an
:class:`~acp_tui.store.entries.UnknownUpdate` transcript entry (``raw`` kept, ``error`` set for
malformed ones) for a protocol inspector.

Inside
------
:class:`SessionStore` is a thin façade over parts with one job each, all reporting to one
:class:`~acp_tui.store.changes.ChangeTracker`: ``reducer`` (routes ``session/update``, holds
early updates, session-level updates) with ``transcript_updates`` (messages, tool calls, plans,
notices, compactions); ``turns`` (open, replay, prompt lifecycle, the client's edits);
``catalog`` (``session/list``, the local index, order, search, capabilities); ``registry`` (the
sessions by id and what the parts share). Only the store writes store state: callers call the
façade (a test guard fails any test during which acp_tui writes it from elsewhere).

Feeding the store (what the client calls, in order)
----------------------------------------------------
``store = SessionStore(protocol_version=1)`` (2 for a v2 connection: the link sets it from the
agent's ``initialize`` answer; on 1 a ``state_update`` only changes the activity), then:

- after ``initialize``: ``store.set_agent_capabilities(result["agentCapabilities"])``
  (drives ``SessionState.resumable`` and :meth:`SessionStore.open_method`).
- every ``session/update`` notification, in arrival order: ``store.apply(params)``.
  Updates for a session id not yet live (they can precede the ``session/new`` response) are
  held and applied in order when the session is registered.
- ``session/new`` / ``session/resume`` response: ``store.register_session(sid, cwd=cwd,
  response=result)`` (modes, config options; flushes held updates).
- ``session/load``: ``store.begin_replay(sid, cwd=cwd)`` *before* sending the request (clears the
  transcript; the replayed updates rebuild it, so loading twice never duplicates), then
  ``store.end_replay(sid, result)`` when the response (or an error: ``result=None``) arrives.
- ``session/prompt``: ``turn = store.prompt_sent(sid, prompt_blocks)`` when sending (records the
  user message, activity -> running); ``store.prompt_finished(sid, result, turn=turn)`` on the
  response, or ``store.prompt_finished(sid, error="...", turn=turn)`` on failure. In v1 the
  response ends the turn (idle + stopReason + usage); in v2 it only means "accepted" and
  ``state_update`` / ``state_change`` drive the activity. Updates arriving while idle are
  applied and never restart a finished turn.
- the client's own events: ``store.add_notice(sid, "Allowed once: Write src/app.py")``,
  ``store.set_current_mode``, ``store.set_config_options``, ``store.set_activity``.
- the session on screen: ``store.set_viewing(sid)``; a turn that ends elsewhere leaves its
  session ``unread`` until it is viewed (:func:`live_state` reads working / waiting /
  unread / error for a session's row).
- ``session/list`` pages: ``store.apply_list_page(result, cwd=scope_cwd, cursor=cursor_sent)``;
  the next cursor is ``store.list_state(scope_cwd).next_cursor`` (``None`` + ``complete`` when
  done). Local index rows: ``store.apply_index_records(index.sessions())``.

Reading it
----------
``store.get(sid)`` / ``store.sessions`` -> :class:`SessionState`; ``store.catalog(cwd=None)``
(newest ``updatedAt`` first, missing last); ``store.search(text, cwd=None)`` (title, cwd, id;
case-insensitive); ``store.snapshot()`` (plain data, comparable with ``==``).

Change notification contract
----------------------------
1. ``unsubscribe = store.subscribe(wake)``: ``wake()`` (no arguments) is called **once** when the
   store goes from *clean* to *dirty*, synchronously inside the mutating call (so from the thread
   that feeds the store). It must be cheap and must not touch the store: schedule a refresh
   (e.g. ``app.call_later(refresh)`` or set a flag read on the next frame). Exceptions from it
   are swallowed.
2. Later (next frame), the consumer calls ``changes = store.take_changes()``, which returns a
   :class:`Changes` and makes the store clean again; the next mutation wakes again.
   So 10,000 chunks applied in one burst cause exactly one ``wake`` until taken.
3. :class:`Changes` is coarse and coalesced: ``catalog_changed`` (sidebar: set/order/titles),
   ``sessions[sid]`` = set of parts (``"transcript"``, ``"reset"``, ``"title"``, ``"meta"``,
   ``"usage"``, ``"state"``, ``"modes"``, ``"config"``, ``"commands"``, ``"plan"``, ``"info"``),
   and ``entries[sid]`` = ids of transcript entries added or changed. Each entry carries a
   ``version`` bumped on every change: re-render entries whose version differs from the one
   drawn; ids not yet drawn are new (appended in transcript order). ``"reset"`` means the
   transcript was replaced (replay): drop what was drawn and redraw ``session.transcript``.
4. The store holds no reference to the consumer beyond ``wake``; state is always read from the
   store itself (``Changes`` says *what* to look at, not the new values).
"""

from acp_tui.store.background import BackgroundWork
from acp_tui.store.changes import (
    PART_BACKGROUND,
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
    TOOL_ALLOWED,
    TOOL_CANCELLED,
    TOOL_INTERRUPTED,
    TOOL_NOT_RUN,
    TOOL_REJECTED,
    AgentMessage,
    AgentThought,
    Compaction,
    Entry,
    MessageEntry,
    Notice,
    PlanSnapshot,
    SessionMessage,
    SubagentCard,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.local_index import IndexedSession, LocalIndex
from acp_tui.store.session import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    ACTIVITY_UNKNOWN,
    LIVE_ERROR,
    LIVE_UNREAD,
    LIVE_WAITING,
    LIVE_WORKING,
    ContextUsage,
    SessionState,
    TurnUsage,
    live_state,
    merge_meta,
    parse_iso,
)
from acp_tui.store.store import ListState, SessionStore

__all__ = [
    "ACTIVITY_IDLE",
    "ACTIVITY_REQUIRES_ACTION",
    "ACTIVITY_RUNNING",
    "ACTIVITY_UNKNOWN",
    "LIVE_ERROR",
    "LIVE_UNREAD",
    "LIVE_WAITING",
    "LIVE_WORKING",
    "PART_BACKGROUND",
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
    "TOOL_ALLOWED",
    "TOOL_CANCELLED",
    "TOOL_INTERRUPTED",
    "TOOL_NOT_RUN",
    "TOOL_REJECTED",
    "AgentMessage",
    "AgentThought",
    "BackgroundWork",
    "Changes",
    "Compaction",
    "ContextUsage",
    "Entry",
    "IndexedSession",
    "ListState",
    "LocalIndex",
    "MessageEntry",
    "Notice",
    "PlanSnapshot",
    "SessionMessage",
    "SessionState",
    "SessionStore",
    "SubagentCard",
    "ToolCall",
    "TurnUsage",
    "UnknownUpdate",
    "UserMessage",
    "live_state",
    "merge_meta",
    "parse_iso",
]
