"""How ``session/update`` changes a transcript: message chunks and whole messages, tool
calls, plans, notices and compactions (the reducer routes each update here by its kind)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from acp_tui.store.fields import MISSING, opt_str, req_str, type_error
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.session import SessionState

__all__ = ["TranscriptUpdates", "pending_local_user"]

Handler = Callable[[SessionState, dict[str, Any]], None]


class TranscriptUpdates:
    """The handlers of the updates that add to or change a session's transcript."""

    __slots__ = ("_registry", "_tracker")

    def __init__(self, registry: SessionRegistry) -> None:
        self._registry = registry
        self._tracker: ChangeTracker = registry.tracker

    def handlers(self) -> dict[str, Handler]:
        """``sessionUpdate`` kind -> handler."""
        return {
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
            "notice": self._on_notice,
            "compaction_update": self._on_compaction,
            "compaction_summary_chunk": self._on_compaction_chunk,
        }

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
            raise type_error("content", "an object", content)
        text = None
        ctype = content.get("type")
        if ctype == "text":
            text = content.get("text")
            if text.__class__ is not str:
                raise type_error("content.text", "a string", text)
        elif ctype.__class__ is not str:
            raise type_error("content.type", "a string", ctype)
        mid = u.get("messageId")
        if mid is not None and mid.__class__ is not str:
            raise type_error("messageId", "a string or null", mid)

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

    def _on_user_message(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, UserMessage)

    def _on_agent_message(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, AgentMessage)

    def _on_agent_thought(self, s: SessionState, u: dict[str, Any]) -> None:
        self._upsert_message(s, u, AgentThought)

    def _upsert_message(self, s: SessionState, u: dict[str, Any], cls: type[MessageEntry]) -> None:
        mid = req_str(u, "messageId")
        content = u.get("content", MISSING)
        if content is not MISSING and content is not None:
            content = self._registry.left_out.objects(content, "content")
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
        if content is not MISSING:
            e.set_content(content or [])
        self._tracker.touch_entry(s, e)

    # -- tool calls ------------------------------------------------------------------------------
    def _on_tool_call(self, s: SessionState, u: dict[str, Any]) -> None:
        """``tool_call`` creates, ``tool_call_update`` patches; both upsert by ``toolCallId``.

        Only fields present are changed; ``null`` leaves a field unchanged (v1 semantics)."""
        tcid = req_str(u, "toolCallId")
        title = opt_str(u, "title")
        name = opt_str(u, "name")
        kind = opt_str(u, "kind")
        status = opt_str(u, "status")
        objects = self._registry.left_out.objects
        content = u.get("content")
        if content is not None:
            content = objects(content, "content")
        locations = u.get("locations")
        if locations is not None:
            locations = objects(locations, "locations")
        meta = u.get("_meta")
        if meta is not None and not isinstance(meta, dict):
            raise type_error("_meta", "an object or null", meta)

        e = self._tool_entry(s, tcid)
        if title is not MISSING and title is not None:
            e.title = title
        if name is not MISSING and name is not None:
            e.name = name
        if kind is not MISSING and kind is not None:
            e.tool_kind = kind
        if status is not MISSING and status is not None:
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
        if self._registry.protocol_version >= 2:
            self._clear_tool_fields(e, u)
        self._tracker.touch_entry(s, e)

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
            e = ToolCall(self._registry.next_id(), tcid)
            s.tool_index[tcid] = e
            s.transcript.append(e)
        else:
            e.version += 1
        return e

    def _on_tool_content_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        tcid = req_str(u, "toolCallId")
        content = u["content"]
        if not isinstance(content, dict):
            raise type_error("content", "an object", content)
        e = self._tool_entry(s, tcid)
        e.content.append(content)
        self._tracker.touch_entry(s, e)

    # -- plan --------------------------------------------------------------------------------
    def _on_plan(self, s: SessionState, u: dict[str, Any]) -> None:
        entries = self._registry.left_out.objects(u["entries"], "entries")
        self._set_plan(s, list(entries), None)

    def _on_plan_update(self, s: SessionState, u: dict[str, Any]) -> None:
        """Unstable ``plan_update``: the plan with this ``planId`` is replaced in place
        (structured entries, Markdown or a file URI), or starts here."""
        plan = u["plan"]
        if not isinstance(plan, dict):
            raise type_error("plan", "an object", plan)
        plan_id = req_str(plan, "planId")
        kind = plan.get("type")
        entries: list[dict[str, Any]] = []
        if kind == "items":
            entries = list(self._registry.left_out.objects(plan["entries"], "plan.entries"))
        elif kind == "markdown":
            req_str(plan, "content")
        elif kind == "file":
            req_str(plan, "uri")
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

    def _set_plan(self, s: SessionState, entries: list[dict[str, Any]], raw: Any) -> None:
        s.plan = entries
        tr = s.transcript
        last = tr[-1] if tr else None
        if isinstance(last, PlanSnapshot) and last.plan_id is None:
            last.entries = entries
            last.raw = raw
            last.version += 1
        else:
            last = PlanSnapshot(self._registry.next_id(), entries, raw)
            tr.append(last)
        self._tracker.touch_entry(s, last)
        self._tracker.touch(s, PART_PLAN)

    def _on_plan_removed(self, s: SessionState, u: dict[str, Any]) -> None:
        plan_id = req_str(u, "planId")
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

    def _on_notice(self, s: SessionState, u: dict[str, Any]) -> None:
        """A live event, not history: one replayed with a session (load) is not shown again.
        ``description`` is dropped, not fatal, when malformed (the schema's default-on-error)."""
        title = req_str(u, "title")
        if not title.strip():
            raise ValueError("title: empty (a notice's title must not be)")
        severity = req_str(u, "severity") or "info"
        description = u.get("description")
        if not isinstance(description, str) or not description.strip():
            description = None
        if s.replaying or s.shadow:
            return
        e = Notice(
            self._registry.next_id(),
            title,
            severity=severity,
            description=description,
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

    def _on_compaction(self, s: SessionState, u: dict[str, Any]) -> None:
        """Upsert by id. ``summary``, ``error`` and ``_meta`` patch: absent leaves the value,
        ``null`` (or ``summary: []``) clears it, a value replaces it; a malformed one is
        ignored (the schema's default-on-error) rather than losing the status."""
        compaction_id = req_str(u, "compactionId")
        status = req_str(u, "status")
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
        self._tracker.touch_entry(s, e)

    def _on_compaction_chunk(self, s: SessionState, u: dict[str, Any]) -> None:
        """A block appended to a compaction's summary; a first-seen id starts one."""
        compaction_id = req_str(u, "compactionId")
        content = u["content"]
        if not isinstance(content, dict):
            raise type_error("content", "an object", content)
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
