"""Transcript entries: what a session's conversation is made of.

Every entry has:

- ``id``: an ``int`` unique within the :class:`~acp_tui.store.SessionStore` that created it
  (a global sequence, so ids never repeat across sessions or after a replay reset);
- ``version``: an ``int`` bumped on every change, so a UI can re-render only entries whose
  version differs from the one it last drew;
- ``kind``: a short class-level string (``"user"``, ``"agent"``, ``"thought"``, ``"tool_call"``,
  ``"plan"``, ``"notice"``, ``"shell"``, ``"unknown"``).

Entries are plain ``__slots__`` classes mutated only by the store. ``to_dict()`` gives plain
data (used by :meth:`SessionStore.snapshot`).

A face that renders entries (the transcript's views, the Markdown export, the headless text
and JSON renderers) implements :class:`EntryVisitor`, one method per kind, and reaches them
through :meth:`Entry.accept`: a new kind is a new method there, and mypy then names every
face that does not render it.

Message text is accumulated in amortised O(1): chunks are appended to a list of parts and joined
lazily (the joined text is cached until the next append).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar

from acp_tui.store.plan_items import PlanItem
from acp_tui.store.terminal_report import AgentTerminalReport
from acp_tui.store.tool_content import (
    TOOL_ALLOWED,
    TOOL_CANCELLED,
    TOOL_INTERRUPTED,
    TOOL_NOT_RUN,
    TOOL_REJECTED,
    FileDiff,
    FileLocation,
    TerminalRef,
    ToolOutput,
    command_line,
    file_locations,
    tool_call_fields,
    tool_outputs,
)
from acp_tui.text.terminal_screen import TerminalScreen
from acp_tui.wire.updates import JsonObject, PlanUpdateContent

__all__ = [
    "TOOL_ALLOWED",
    "TOOL_CANCELLED",
    "TOOL_INTERRUPTED",
    "TOOL_NOT_RUN",
    "TOOL_REJECTED",
    "AgentMessage",
    "AgentThought",
    "Compaction",
    "Entry",
    "EntryVisitor",
    "MessageEntry",
    "Notice",
    "PlanItem",
    "PlanSnapshot",
    "SessionMessage",
    "ShellRun",
    "SubagentCard",
    "ToolCall",
    "UnknownUpdate",
    "UserMessage",
]


C = TypeVar("C", contravariant=True)
R = TypeVar("R", covariant=True)
_C = TypeVar("_C")
_R = TypeVar("_R")


class EntryVisitor(Protocol[C, R]):
    """What renders every kind of entry: one method per kind, each given the entry and the
    face's ``context`` (what it needs besides the entry), returning what the face makes of
    it. :meth:`Entry.accept` calls the method of the entry's kind."""

    def user_message(self, entry: UserMessage, context: C, /) -> R: ...
    def agent_message(self, entry: AgentMessage, context: C, /) -> R: ...
    def agent_thought(self, entry: AgentThought, context: C, /) -> R: ...
    def tool_call(self, entry: ToolCall, context: C, /) -> R: ...
    def plan(self, entry: PlanSnapshot, context: C, /) -> R: ...
    def notice(self, entry: Notice, context: C, /) -> R: ...
    def compaction(self, entry: Compaction, context: C, /) -> R: ...
    def subagent(self, entry: SubagentCard, context: C, /) -> R: ...
    def session_message(self, entry: SessionMessage, context: C, /) -> R: ...
    def shell_run(self, entry: ShellRun, context: C, /) -> R: ...
    def unknown(self, entry: UnknownUpdate, context: C, /) -> R: ...


class Entry:
    """Base of all transcript entries."""

    __slots__ = ("id", "version")
    kind: ClassVar[str] = "entry"

    def __init__(self, entry_id: int) -> None:
        self.id = entry_id
        self.version = 1

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        """``visitor``'s method for this kind of entry, with ``context``."""
        raise NotImplementedError(f"{type(self).__name__} is no kind of entry")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "version": self.version}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} id={self.id} v{self.version}>"


class MessageEntry(Entry):
    """A message made of content blocks; consecutive text blocks are merged into one run.

    ``text`` is the concatenation of all text blocks; ``content`` lists the blocks with each run
    of consecutive text chunks merged into one ``{"type": "text", "text": ...}`` block, and
    non-text blocks (images, resource links, ...) kept as received.
    """

    __slots__ = ("_segments", "_text", "local_pending", "message_id")

    def __init__(self, entry_id: int, message_id: str | None = None) -> None:
        super().__init__(entry_id)
        self.message_id = message_id
        # Each segment is either a list[str] (a run of text parts) or a dict (a non-text block).
        self._segments: list[list[str] | JsonObject] = []
        self._text: str | None = ""
        # True for a user message the client recorded itself (prompt_sent) that the agent has not
        # echoed yet; the first echo replaces its content instead of duplicating it.
        self.local_pending = False

    def append_text(self, text: str) -> None:
        segs = self._segments
        if segs:
            last = segs[-1]
            if last.__class__ is list:
                last.append(text)
                self._text = None
                return
        segs.append([text])
        self._text = None

    @property
    def last_text(self) -> str | None:
        """The last text part, when the message ends with text (else None)."""
        segs = self._segments
        last = segs[-1] if segs else None
        return last[-1] if last.__class__ is list and last else None

    def append_block(self, block: JsonObject) -> None:
        if block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                self.append_text(text)
                return
        self._segments.append(block)
        self._text = None

    def clear(self) -> None:
        self._segments = []
        self._text = ""

    def set_content(self, blocks: list[JsonObject]) -> None:
        self.clear()
        for block in blocks:
            self.append_block(block)

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            out: list[str] = []
            for seg in self._segments:
                if seg.__class__ is list:
                    if len(seg) > 1:  # collapse the run: later reads join fewer parts
                        seg[:] = ["".join(seg)]
                    out.extend(seg)
            text = self._text = "".join(out)
        return text

    @property
    def content(self) -> list[JsonObject]:
        blocks: list[JsonObject] = []
        for seg in self._segments:
            if isinstance(seg, list):
                blocks.append({"type": "text", "text": "".join(seg)})
            else:
                blocks.append(seg)
        return blocks

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["message_id"] = self.message_id
        d["text"] = self.text
        d["content"] = self.content
        d["local_pending"] = self.local_pending
        return d


class UserMessage(MessageEntry):
    __slots__ = ()
    kind: ClassVar[str] = "user"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.user_message(self, context)


class AgentMessage(MessageEntry):
    __slots__ = ()
    kind: ClassVar[str] = "agent"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.agent_message(self, context)


class AgentThought(MessageEntry):
    __slots__ = ()
    kind: ClassVar[str] = "thought"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.agent_thought(self, context)


class ToolCall(Entry):
    """A tool call; ``tool_call_update`` patches only the fields present.

    ``content`` is the raw list of ``ToolCallContent`` dicts: ``{"type": "content", "content":
    block}``, ``{"type": "diff", "path", "oldText", "newText"}``, ``{"type": "terminal",
    "terminalId"}``. Helpers: :attr:`diffs`, :attr:`terminal_ids`, :attr:`text`."""

    __slots__ = (
        "agent_terminal",
        "content",
        "locations",
        "meta",
        "name",
        "raw_input",
        "raw_output",
        "status",
        "title",
        "tool_call_id",
        "tool_kind",
    )
    kind: ClassVar[str] = "tool_call"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.tool_call(self, context)

    def __init__(self, entry_id: int, tool_call_id: str) -> None:
        super().__init__(entry_id)
        self.tool_call_id = tool_call_id
        self.title: str = ""
        self.name: str | None = None
        self.tool_kind: str = "other"
        self.status: str = "pending"
        self.content: list[JsonObject] = []
        self.locations: list[JsonObject] = []
        self.raw_input: Any = None
        self.raw_output: Any = None
        self.meta: JsonObject | None = None
        #: What the agent reported in ``_meta`` of a terminal of its own (codex-acp), if anything.
        self.agent_terminal: AgentTerminalReport | None = None

    # -- typed views (see acp_tui.store.tool_content); none of them raises --

    @property
    def outputs(self) -> list[ToolOutput]:
        """The ``content`` items in order, typed (unknown or malformed items left out)."""
        return list(tool_outputs(self.content))

    @property
    def diffs(self) -> list[FileDiff]:
        return [o for o in tool_outputs(self.content) if isinstance(o, FileDiff)]

    @property
    def terminal_ids(self) -> list[str]:
        return [o.terminal_id for o in tool_outputs(self.content) if isinstance(o, TerminalRef)]

    @property
    def file_locations(self) -> list[FileLocation]:
        """The ``locations`` that name a file."""
        return file_locations(self.locations)

    @property
    def command(self) -> str | None:
        """The command line the tool call runs, when its ``rawInput`` says (``execute`` tools
        and others that send ``command``/``args``)."""
        return command_line(self.raw_input, executes=self.tool_kind == "execute")

    @property
    def command_untitled(self) -> str | None:
        """:attr:`command` when the title does not say it (fast-agent titles every shell call
        "execute"): what a view shows beside the title; None when there is none to add."""
        command = self.command
        if not command or command in (self.title or ""):
            return None
        return command

    @property
    def command_cwd(self) -> str | None:
        """The directory the command runs in, when ``rawInput`` has a ``cwd``."""
        raw = self.raw_input
        cwd = raw.get("cwd") if isinstance(raw, Mapping) else None
        return cwd if isinstance(cwd, str) and cwd else None

    @property
    def label(self) -> str:
        """What a person calls it: the title, else the tool's name, else its id ("" if none)."""
        for value in (self.title, self.name, self.tool_call_id):
            if isinstance(value, str) and value.strip():
                return value
        return ""

    def with_fields(self, fields: object) -> ToolCall:
        """A detached copy with the wire ``ToolCallUpdate`` ``fields`` over it (a permission
        request's ``toolCall``): the fields present, not ``null`` and of the right type replace
        the known ones; others are ignored. The entry itself is not changed."""
        merged = copy.copy(self)
        for attribute, value in tool_call_fields(fields).items():
            setattr(merged, attribute, value)
        return merged

    @classmethod
    def from_fields(cls, fields: object) -> ToolCall:
        """A detached tool call made of wire ``ToolCall``/``ToolCallUpdate`` ``fields`` alone
        (one the store never heard of)."""
        tool_call_id = fields.get("toolCallId") if isinstance(fields, Mapping) else None
        blank = cls(0, tool_call_id if isinstance(tool_call_id, str) else "")
        return blank.with_fields(fields)

    @property
    def text(self) -> str:
        """Concatenated text of the plain ``content`` items."""
        out: list[str] = []
        for c in self.content:
            if c.get("type") == "content":
                block = c.get("content")
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    out.append(block["text"])
        return "".join(out)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(
            tool_call_id=self.tool_call_id,
            title=self.title,
            name=self.name,
            tool_kind=self.tool_kind,
            status=self.status,
            content=self.content,
            locations=self.locations,
            raw_input=self.raw_input,
            raw_output=self.raw_output,
            meta=self.meta,
        )
        return d


class PlanSnapshot(Entry):
    """The plan as it stood at this point of the conversation (``entries`` are PlanEntry dicts).

    A plan with an id (the unstable ``plan_update``) is one entry, updated in place, and may be
    structured ``entries``, Markdown (:attr:`markdown`) or a file (:attr:`file_uri`); once
    ``plan_removed`` names it, it is marked :attr:`removed` (it stays in the history)."""

    __slots__ = ("entries", "plan_id", "raw", "removed")
    kind: ClassVar[str] = "plan"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.plan(self, context)

    def __init__(
        self,
        entry_id: int,
        entries: list[JsonObject],
        raw: PlanUpdateContent | None = None,
        plan_id: str | None = None,
    ) -> None:
        super().__init__(entry_id)
        self.entries = entries
        self.raw = raw
        self.plan_id = plan_id
        self.removed = False

    def _raw_text(self, kind: str, key: str) -> str | None:
        raw = self.raw
        if isinstance(raw, dict) and raw.get("type") == kind:
            value = raw.get(key)
            return value if isinstance(value, str) else None
        return None

    @property
    def items(self) -> list[PlanItem]:
        """The structured entries, typed (entries that are not objects are left out)."""
        entries = self.entries
        if not isinstance(entries, list):
            return []
        return [PlanItem.of(item) for item in entries if isinstance(item, Mapping)]

    @property
    def markdown(self) -> str | None:
        """The plan's Markdown, for a ``markdown`` plan."""
        return self._raw_text("markdown", "content")

    @property
    def file_uri(self) -> str | None:
        """Where the plan is, for a ``file`` plan."""
        return self._raw_text("file", "uri")

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(entries=self.entries, raw=self.raw, plan_id=self.plan_id, removed=self.removed)
        return d


class Notice(Entry):
    """A notice: from the agent (``notice`` update) or recorded by the client itself.

    ``source`` is ``"agent"`` or ``"client"``; ``severity`` is ``"info"``, ``"warning"``,
    ``"error"`` or an agent-defined string.
    """

    __slots__ = ("description", "severity", "source", "title")
    kind: ClassVar[str] = "notice"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.notice(self, context)

    def __init__(
        self,
        entry_id: int,
        title: str,
        *,
        severity: str = "info",
        description: str | None = None,
        source: str = "client",
    ) -> None:
        super().__init__(entry_id)
        self.title = title
        self.severity = severity
        self.description = description
        self.source = source

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(title=self.title, severity=self.severity, source=self.source)
        d.update(description=self.description)
        return d


class Compaction(Entry):
    """A context compaction (``compaction_update`` upserts it by ``compaction_id``;
    ``compaction_summary_chunk`` appends to its summary). ``summary`` holds content blocks;
    ``status`` is ``in_progress``, ``completed``, ``failed``, ``cancelled`` or the agent's own."""

    __slots__ = ("compaction_id", "error", "meta", "status", "summary")
    kind: ClassVar[str] = "compaction"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.compaction(self, context)

    def __init__(self, entry_id: int, compaction_id: str) -> None:
        super().__init__(entry_id)
        self.compaction_id = compaction_id
        self.status = "in_progress"
        self.summary: list[JsonObject] = []
        self.error: str | None = None
        self.meta: JsonObject | None = None

    @property
    def summary_text(self) -> str:
        """The text blocks of the summary, joined (other blocks are named by type)."""
        parts: list[str] = []
        for block in self.summary:
            text = block.get("text")
            parts.append(text if isinstance(text, str) else f"[{block.get('type', 'content')}]")
        return "".join(parts)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(compaction_id=self.compaction_id, status=self.status, summary=self.summary)
        d.update(error=self.error, meta=self.meta)
        return d


class SubagentCard(Entry):
    """A child session (``subagent_update``) where its parent announced it: its title, state
    (the child's activity; None: never reported) and last line, kept as the child changes.
    ``started_at``/``ended_at`` (the store's clock) are left out of :meth:`to_dict`."""

    __slots__ = (
        "can_cancel",
        "child_id",
        "description",
        "ended_at",
        "last_line",
        "started_at",
        "status",
        "stop_reason",
        "title",
    )
    kind: ClassVar[str] = "subagent"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.subagent(self, context)

    def __init__(self, entry_id: int, child_id: str) -> None:
        super().__init__(entry_id)
        self.child_id = child_id
        self.title: str | None = None
        self.description: str | None = None
        self.status: str | None = None
        self.stop_reason: str | None = None
        self.last_line = ""
        self.can_cancel = False
        self.started_at: float | None = None
        self.ended_at: float | None = None

    @property
    def label(self) -> str:
        """What a person calls it: its title, else its description, else its session id."""
        return self.title or self.description or self.child_id

    def to_dict(self) -> dict[str, Any]:
        names = ("child_id", "title", "description", "status", "stop_reason", "last_line")
        return {**super().to_dict(), **{n: getattr(self, n) for n in (*names, "can_cancel")}}


class SessionMessage(MessageEntry):
    """A message between sessions (``session_message``, ``session_message_chunk``): a
    parent's task to its child, a child's report to its parent. ``sender_id`` and
    ``recipient_id`` are session ids (None: not said)."""

    __slots__ = ("recipient_id", "sender_id")
    kind: ClassVar[str] = "session_message"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.session_message(self, context)

    def __init__(self, entry_id: int, message_id: str | None = None) -> None:
        super().__init__(entry_id, message_id)
        self.sender_id: str | None = None
        self.recipient_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(sender_id=self.sender_id, recipient_id=self.recipient_id)
        return d


class ShellRun(Entry):
    """A command run in shell mode (``!cmd``): history, not the agent's. ``exit_code``: None
    while it runs, negative: the signal that ended it; ``attached``: sent with the next prompt."""

    __slots__ = ("after", "attached", "command", "cwd", "exit_code", "screen")
    kind: ClassVar[str] = "shell"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.shell_run(self, context)

    def __init__(self, entry_id: int, command: str, cwd: str, screen: TerminalScreen) -> None:
        super().__init__(entry_id)
        self.command, self.cwd, self.screen = command, cwd, screen
        self.exit_code: int | None = None
        self.attached, self.after = False, 0  # after: the person's messages before it

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "command": self.command, "cwd": self.cwd,
                "exit_code": self.exit_code, "output": self.screen.text()}  # fmt: skip


class UnknownUpdate(Entry):
    """An update the store did not understand: an unknown variant (``error is None``) or a
    malformed known one (``error`` says what was wrong). ``raw`` is the update as received."""

    __slots__ = ("error", "raw", "update_kind")
    kind: ClassVar[str] = "unknown"

    def accept(self, visitor: EntryVisitor[_C, _R], context: _C) -> _R:
        return visitor.unknown(self, context)

    def __init__(self, entry_id: int, raw: object, error: str | None = None) -> None:
        super().__init__(entry_id)
        self.raw = raw
        self.error = error
        kind = raw.get("sessionUpdate") if isinstance(raw, dict) else None
        self.update_kind: str | None = kind if isinstance(kind, str) else None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update(raw=self.raw, error=self.error, update_kind=self.update_kind)
        return d
