"""How ``session/update`` changes a transcript: message chunks and whole messages, tool
calls, plans, notices and compactions. The reducer routes each update here by its kind,
coerced to its shape (:mod:`acp_tui.wire.updates`): a handler reads only what that shape
declares, already checked."""

from __future__ import annotations

from collections.abc import Mapping

from acp_tui.store.changes import PART_INFO, PART_PLAN, ChangeTracker
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
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.routes import Route, route
from acp_tui.store.session import SessionState
from acp_tui.store.terminal_report import take_terminal_meta
from acp_tui.wire import coerce
from acp_tui.wire import updates as wire
from acp_tui.wire.constants import UpdateKind
from acp_tui.wire.updates import JsonObject

__all__ = ["TranscriptUpdates", "pending_local_user"]


class TranscriptUpdates:
    """The handlers of the updates that add to or change a session's transcript."""

    __slots__ = ("_registry", "_tracker")

    def __init__(self, registry: SessionRegistry) -> None:
        self._registry = registry
        self._tracker: ChangeTracker = registry.tracker

    def routes(self) -> dict[str, Route]:
        """``sessionUpdate`` kind -> its coercer and handler."""
        return {
            UpdateKind.AGENT_MESSAGE_CHUNK: route(coerce.content_chunk, self._on_agent_chunk),
            UpdateKind.USER_MESSAGE_CHUNK: route(coerce.content_chunk, self._on_user_chunk),
            UpdateKind.AGENT_THOUGHT_CHUNK: route(coerce.content_chunk, self._on_thought_chunk),
            UpdateKind.USER_MESSAGE: route(coerce.message, self._on_user_message),
            UpdateKind.AGENT_MESSAGE: route(coerce.message, self._on_agent_message),
            UpdateKind.AGENT_THOUGHT: route(coerce.message, self._on_agent_thought),
            UpdateKind.TOOL_CALL: route(coerce.tool_call, self._on_tool_call),
            UpdateKind.TOOL_CALL_UPDATE: route(coerce.tool_call, self._on_tool_call),
            UpdateKind.TOOL_CALL_CONTENT_CHUNK: route(
                coerce.tool_call_content_chunk, self._on_tool_content_chunk
            ),
            UpdateKind.PLAN: route(coerce.plan, self._on_plan),
            UpdateKind.PLAN_UPDATE: route(coerce.plan_update, self._on_plan_update),
            UpdateKind.PLAN_REMOVED: route(coerce.plan_removed, self._on_plan_removed),
            UpdateKind.NOTICE: route(coerce.notice, self._on_notice),
            UpdateKind.COMPACTION_UPDATE: route(coerce.compaction, self._on_compaction),
            UpdateKind.COMPACTION_SUMMARY_CHUNK: route(
                coerce.compaction_summary_chunk, self._on_compaction_chunk
            ),
        }

    # -- messages ------------------------------------------------------------------------------
    def _on_agent_chunk(self, s: SessionState, u: wire.ContentChunk) -> None:
        self._chunk(s, u, AgentMessage)

    def _on_user_chunk(self, s: SessionState, u: wire.ContentChunk) -> None:
        self._chunk(s, u, UserMessage)

    def _on_thought_chunk(self, s: SessionState, u: wire.ContentChunk) -> None:
        self._chunk(s, u, AgentThought)

    def _chunk(self, s: SessionState, u: wire.ContentChunk, cls: type[MessageEntry]) -> None:
        content = u["content"]
        text: str | None = content["text"] if content.get("type") == "text" else None
        mid = u.get("messageId")

        tr = s.transcript
        e = tr[-1] if tr else None
        if e.__class__ is UnknownUpdate:  # unknown updates do not end the current message
            e = self._last_known(tr)
        if e is None or e.__class__ is not cls:
            e = self._message_for(s, cls, mid)
        elif e.local_pending:
            e = self._adopt_echo(s, e, mid)
        elif mid is not None and mid != e.message_id:
            e = self._message_for(s, cls, mid)
        else:
            e.version += 1
            if text and cls is UserMessage and mid is None and (s.replaying or s.shadow):
                text = _apart_from(e.last_text, text)
        if text is not None:
            e.append_text(text)
        else:
            e.append_block(content)
        self._tracker.touch_entry(s, e)

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
        e = cls(self._registry.next_id(), mid)
        if mid is not None:
            s.msg_index[mid] = e
        s.transcript.append(e)
        if cls is UserMessage and s._first_user is None:
            self._set_first_user(s, e)
        return e

    def _set_first_user(self, s: SessionState, e: MessageEntry) -> None:
        s._first_user = e
        if s._first_prompt is None:
            self._tracker.touch(s, PART_INFO)
            if s.title is None:
                self._tracker.touch_catalog()

    def _on_user_message(self, s: SessionState, u: wire.AgentMessage) -> None:
        self._upsert_message(s, u, UserMessage)

    def _on_agent_message(self, s: SessionState, u: wire.AgentMessage) -> None:
        self._upsert_message(s, u, AgentMessage)

    def _on_agent_thought(self, s: SessionState, u: wire.AgentMessage) -> None:
        self._upsert_message(s, u, AgentThought)

    def _upsert_message(
        self, s: SessionState, u: wire.AgentMessage, cls: type[MessageEntry]
    ) -> None:
        mid = u["messageId"]
        e = s.msg_index.get(mid)
        if e is not None and e.__class__ is not cls:
            e = None
        if e is None and cls is UserMessage:
            pending = pending_local_user(s)
            if pending is not None:
                e = pending
                e.message_id = mid
                s.msg_index[mid] = e
                e.local_pending = False
        if e is None:
            e = cls(self._registry.next_id(), mid)
            s.msg_index[mid] = e
            s.transcript.append(e)
            if cls is UserMessage and s._first_user is None:
                self._set_first_user(s, e)
        else:
            e.local_pending = False
            e.version += 1
        if "content" in u:
            e.set_content(u["content"] or [])
        self._tracker.touch_entry(s, e)

    # -- tool calls ------------------------------------------------------------------------------
    def _on_tool_call(self, s: SessionState, u: wire.ToolCallUpdate) -> None:
        """``tool_call`` creates, ``tool_call_update`` patches; both upsert by ``toolCallId``.

        Only fields present are changed; ``null`` leaves a field unchanged (v1 semantics)."""
        e = self._tool_entry(s, u["toolCallId"])
        title = u.get("title")
        if title is not None:
            e.title = title
        name = u.get("name")
        if name is not None:
            e.name = name
        kind = u.get("kind")
        if kind is not None:
            e.tool_kind = kind
        status = u.get("status")
        if status is not None:
            e.status = status
        content = u.get("content")
        if content is not None:
            e.content = list(content)
        locations = u.get("locations")
        if locations is not None:
            e.locations = list(locations)
        raw_input = u.get("rawInput")
        if raw_input is not None:
            e.raw_input = raw_input
        raw_output = u.get("rawOutput")
        if raw_output is not None:
            e.raw_output = raw_output
        meta = u.get("_meta")
        if meta is not None:
            e.meta = meta
            e.agent_terminal = take_terminal_meta(e.agent_terminal, meta)
        if "capabilities" in u:  # v2: what the client may do to it now (tool_call/cancel)
            caps = u["capabilities"]
            if isinstance(caps, dict) and isinstance(caps.get("cancel"), dict):
                s.tool_cancel.add(e.tool_call_id)
            else:
                s.tool_cancel.discard(e.tool_call_id)
        if self._registry.protocol_version >= 2:
            self._clear_tool_fields(e, u)
        self._tracker.touch_entry(s, e)

    @staticmethod
    def _clear_tool_fields(e: ToolCall, u: wire.ToolCallUpdate) -> None:
        """v2 patch semantics: an explicit ``null`` resets a field to its start value (v1
        reads ``null`` as "unchanged")."""
        fields: Mapping[str, object] = u
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
            if key in fields and fields[key] is None:
                setattr(e, attribute, list(start) if isinstance(start, list) else start)

    def _tool_entry(self, s: SessionState, tcid: str) -> ToolCall:
        e = s.tool_index.get(tcid)
        if e is None:
            e = ToolCall(self._registry.next_id(), tcid)
            s.tool_index[tcid] = e
            s.tool_started.setdefault(tcid, self._registry.clock())
            s.transcript.append(e)
        else:
            e.version += 1
        return e

    def _on_tool_content_chunk(self, s: SessionState, u: wire.ToolCallContentChunk) -> None:
        e = self._tool_entry(s, u["toolCallId"])
        e.content.append(u["content"])
        self._tracker.touch_entry(s, e)

    # -- plan --------------------------------------------------------------------------------
    def _on_plan(self, s: SessionState, u: wire.Plan) -> None:
        self._set_plan(s, list(u["entries"]))

    def _on_plan_update(self, s: SessionState, u: wire.PlanUpdate) -> None:
        """Unstable ``plan_update``: the plan with this ``planId`` is replaced in place
        (structured entries, Markdown or a file URI), or starts here."""
        plan = u["plan"]
        plan_id = plan["planId"]
        entries = list(plan.get("entries", ())) if plan.get("type") == "items" else []
        s.plan = entries
        snapshot = self._plan_snapshot(s, plan_id)
        if snapshot is None:
            snapshot = PlanSnapshot(self._registry.next_id(), entries, plan, plan_id)
            s.transcript.append(snapshot)
        else:
            snapshot.entries = entries
            snapshot.raw = plan
            snapshot.removed = False
            snapshot.version += 1
        self._tracker.touch_entry(s, snapshot)
        self._tracker.touch(s, PART_PLAN)

    @staticmethod
    def _plan_snapshot(s: SessionState, plan_id: str) -> PlanSnapshot | None:
        for entry in reversed(s.transcript):
            if entry.__class__ is PlanSnapshot and entry.plan_id == plan_id:
                return entry
        return None

    def _set_plan(self, s: SessionState, entries: list[JsonObject]) -> None:
        s.plan = entries
        tr = s.transcript
        last = tr[-1] if tr else None
        if isinstance(last, PlanSnapshot) and last.plan_id is None:
            last.entries = entries
            last.raw = None
            last.version += 1
        else:
            last = PlanSnapshot(self._registry.next_id(), entries)
            tr.append(last)
        self._tracker.touch_entry(s, last)
        self._tracker.touch(s, PART_PLAN)

    def _on_plan_removed(self, s: SessionState, u: wire.PlanRemoved) -> None:
        plan_id = u["planId"]
        snapshot = self._plan_snapshot(s, plan_id)
        if snapshot is not None and not snapshot.removed:
            snapshot.removed = True
            snapshot.version += 1
            self._tracker.touch_entry(s, snapshot)
        # The plan shown goes when it is the one removed, or when the id is one never seen
        # (an agent that sent it as a plain ``plan``).
        latest = next((e for e in reversed(s.transcript) if e.__class__ is PlanSnapshot), None)
        if snapshot is None or latest is snapshot:
            s.plan = None
            self._tracker.touch(s, PART_PLAN)

    def _on_notice(self, s: SessionState, u: wire.Notice) -> None:
        """A live event, not history: one replayed with a session (load) is not shown again."""
        if s.replaying or s.shadow:
            return
        e = Notice(
            self._registry.next_id(),
            u["title"],
            severity=u["severity"],
            description=u["description"],
            source="agent",
        )
        s.transcript.append(e)
        self._tracker.touch_entry(s, e)

    def _compaction(self, s: SessionState, compaction_id: str) -> Compaction:
        # Compactions are few and the one being updated is near the end: search from there.
        for e in reversed(s.transcript):
            if e.__class__ is Compaction and e.compaction_id == compaction_id:
                e.version += 1
                return e
        e = Compaction(self._registry.next_id(), compaction_id)
        s.transcript.append(e)
        return e

    def _on_compaction(self, s: SessionState, u: wire.CompactionUpdate) -> None:
        """Upsert by id. ``summary``, ``error`` and ``_meta`` patch: absent leaves the value,
        ``null`` (or ``summary: []``) clears it, a value replaces it (a malformed one came
        as absent: the schema's default-on-error, rather than losing the status)."""
        e = self._compaction(s, u["compactionId"])
        e.status = u["status"]
        if "summary" in u:
            e.summary = u["summary"] or []
        if "error" in u:
            e.error = u["error"]
        if "_meta" in u:
            e.meta = u["_meta"]
        self._tracker.touch_entry(s, e)

    def _on_compaction_chunk(self, s: SessionState, u: wire.CompactionSummaryChunk) -> None:
        """A block appended to a compaction's summary; a first-seen id starts one."""
        content = u["content"]
        e = self._compaction(s, u["compactionId"])
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
        self._tracker.touch_entry(s, e)


def _apart_from(before: str | None, text: str) -> str:
    """A replayed user text chunk that follows another with no message id: ``text``, set a
    paragraph apart unless either side already breaks the line. A conversation's history
    comes a whole block a chunk, and two prompts in a row (Codex replays a cancelled turn's
    prompt with no reply after it) were glued into one: "slowsecond turn"."""
    if not before or before.endswith("\n") or text.startswith("\n"):
        return text
    return "\n\n" + text


def pending_local_user(s: SessionState) -> UserMessage | None:
    """The oldest message sent and not yet echoed: an agent inserts prompts in the order they
    were sent (v2 accepts several at once), so its echoes bind in that order."""
    for e in s.transcript[-64:]:
        if e.__class__ is UserMessage and e.local_pending:
            return e
    return None
