"""What `acp-tui ask` prints: the store's changes, as text or as JSON Lines.

The :class:`~acp_tui.session.agent.controller.SessionController` feeds the
:class:`~acp_tui.store.SessionStore`; a renderer takes the store's change sets
(:meth:`SessionStore.take_changes`) and prints what changed in the one session `ask` works in:

- :class:`TextRenderer`: the agent's reply on stdout, one-line notes on stderr (tool calls,
  plan, notices, mode changes, permission answers). Agent text is sanitised for the terminal.
- :class:`JsonRenderer` (``--json``): one JSON object per line on stdout for each change, then
  a ``result`` object. The event shape is documented in the README ("Scripting with --json").

Both are fed the same way: :meth:`Renderer.begin` once the session is open, :meth:`Renderer.render`
for each change set, :meth:`Renderer.permission` for each permission answer. Each says what it
does with every kind of entry (an :class:`~acp_tui.store.entries.EntryVisitor`, given what
was rendered of the entry before).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from acp_tui.cli.headless_output import Output
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.asking.permissions import PendingPermission
from acp_tui.session.asking.rule_requests import question_kinds
from acp_tui.session.asking.rules import Rule
from acp_tui.store import SessionStore
from acp_tui.store.changes import PART_CONFIG, PART_MODES, Changes
from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Compaction,
    Entry,
    MessageEntry,
    Notice,
    PlanSnapshot,
    SessionMessage,
    ShellRun,
    SubagentCard,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.session import SessionState, TurnUsage
from acp_tui.text.safety import one_line
from acp_tui.wire.updates import JsonObject

__all__ = ["JsonRenderer", "Renderer", "TextRenderer", "json_line", "scrub_surrogates"]

TITLE_WIDTH = 100


def _label(value: Any, limit: int = TITLE_WIDTH) -> str:
    return one_line(value if isinstance(value, str) else "", limit)


@dataclass(slots=True)
class _Seen:
    """What was already rendered of one entry."""

    text: str = ""
    blocks: int = 0  # non-text content blocks of a message
    status: str | None = None
    version: int = 0  # of the entry when last rendered; 0: never

    @property
    def new(self) -> bool:
        """Nothing of the entry was rendered yet."""
        return self.version == 0


@dataclass
class Renderer(ABC):
    """Diffs the store's entries of one session against what was rendered."""

    store: SessionStore
    output: Output
    session_id: str | None = None
    _seen: dict[int, _Seen] = field(default_factory=dict)
    _mode: str | None = None
    _config: list[JsonObject] | None = None
    #: The turn has ended: what acp-tui notes about the end (cancelled, refused, failed) is
    #: said by the command's last line on stderr instead.
    turn_over: bool = False
    #: Whether the session's subagents' own transcripts are rendered too (nested: each
    #: event names its session and its parent's).
    nested = False
    #: The session whose entries are being rendered (the one ``ask`` works in, or a
    #: subagent of it).
    _rendering: SessionState | None = None

    def begin(
        self,
        session_id: str,
        *,
        replayed: bool,
        method: str = "new",
        agent: dict[str, Any] | None = None,
    ) -> None:
        """The session is open (``method``: new, resume or load; ``agent``: who answers).
        ``replayed``: its transcript so far is history (a load or resume), not part of this
        run's answer: only what changes from now on is rendered."""
        self.session_id = session_id
        self.store.take_changes()
        self.started(method, agent or {})
        state = self.store.get(session_id)
        if state is None:
            return
        self._mode = state.current_mode_id
        self._config = state.config_options
        if replayed:
            for entry in state.transcript:
                self._seen[entry.id] = self._snapshot(entry)
        else:  # updates that came with or before session/new are this run's
            self._entries(state, [e.id for e in state.transcript])

    def render(self, changes: Changes | None = None) -> None:
        """Render a change set (by default, whatever changed since the last one)."""
        if self.session_id is None:
            return  # nothing is taken before the session is known: begin() takes it all
        changes = changes if changes is not None else self.store.take_changes()
        state = self.store.get(self.session_id)
        if state is None:
            return
        ids = changes.entries.get(self.session_id)
        if ids:
            self._entries(state, sorted(ids))
        if self.nested:
            for sid, child_ids in changes.entries.items():
                child = self.store.get(sid)
                if sid != self.session_id and child is not None and self._descends(child):
                    self._entries(child, sorted(child_ids))
        parts = changes.parts(self.session_id)
        if PART_MODES in parts and state.current_mode_id != self._mode:
            self._mode = state.current_mode_id
            if self._mode is not None:
                self.mode_changed(state, self._mode)
        if PART_CONFIG in parts and state.config_options != self._config:
            self._config = state.config_options
            self.config_changed(state)

    def _descends(self, s: SessionState) -> bool:
        """Whether ``s`` is a subagent of the session rendered (at any depth)."""
        hops = 0
        while s.parent_id is not None and hops < 64:
            if s.parent_id == self.session_id:
                return True
            parent = self.store.get(s.parent_id)
            if parent is None:
                return False
            s, hops = parent, hops + 1
        return False

    def _entries(self, state: SessionState, ids: list[int]) -> None:
        wanted = set(ids)
        self._rendering = state
        try:
            for entry in state.transcript:
                if entry.id in wanted:
                    seen = self._seen.get(entry.id)
                    if seen is None:
                        seen = self._seen[entry.id] = _Seen()
                    if entry.version != seen.version:
                        entry.accept(self, seen)
                    seen.version = entry.version
        finally:
            self._rendering = None

    @staticmethod
    def _snapshot(entry: Entry) -> _Seen:
        seen = _Seen(version=entry.version)
        if isinstance(entry, MessageEntry):
            seen.text = entry.text
            seen.blocks = sum(1 for b in entry.content if b.get("type") != "text")
        elif isinstance(entry, ToolCall | Compaction):
            seen.status = entry.status
        elif isinstance(entry, SubagentCard):
            seen.status = entry.status
        return seen

    # What each renderer does with a change: with an entry of each kind (``seen``: what was
    # rendered of it before), and with the session.

    @abstractmethod
    def user_message(self, entry: UserMessage, seen: _Seen, /) -> None: ...
    @abstractmethod
    def agent_message(self, entry: AgentMessage, seen: _Seen, /) -> None: ...
    @abstractmethod
    def agent_thought(self, entry: AgentThought, seen: _Seen, /) -> None: ...
    @abstractmethod
    def tool_call(self, entry: ToolCall, seen: _Seen, /) -> None: ...
    @abstractmethod
    def plan(self, entry: PlanSnapshot, seen: _Seen, /) -> None: ...
    @abstractmethod
    def notice(self, entry: Notice, seen: _Seen, /) -> None: ...
    @abstractmethod
    def compaction(self, entry: Compaction, seen: _Seen, /) -> None: ...
    @abstractmethod
    def subagent(self, entry: SubagentCard, seen: _Seen, /) -> None: ...
    @abstractmethod
    def session_message(self, entry: SessionMessage, seen: _Seen, /) -> None: ...
    @abstractmethod
    def shell_run(self, entry: ShellRun, seen: _Seen, /) -> None: ...
    @abstractmethod
    def unknown(self, entry: UnknownUpdate, seen: _Seen, /) -> None: ...

    @abstractmethod
    def started(self, method: str, agent: dict[str, Any]) -> None:
        """The session is open: said before anything of it is rendered."""

    @abstractmethod
    def mode_changed(self, state: SessionState, mode_id: str) -> None: ...
    @abstractmethod
    def config_changed(self, state: SessionState) -> None: ...
    @abstractmethod
    def permission(
        self, pending: PendingPermission, result: dict[str, Any], allow: bool
    ) -> None: ...
    @abstractmethod
    def question_ruled(self, request: OutsideRequest, rule: Rule, line: str) -> None:
        """One of the client's own questions (a file or a command outside the project) was
        answered by a permission rule; ``line`` says so."""

    @abstractmethod
    def note(self, kind: str, text: str) -> None:
        """A line of acp-tui's own about the run (a question declined, a path refused)."""

    @abstractmethod
    def finish(self, result: dict[str, Any]) -> None:
        """The run is over (``result``: the ``result`` event's fields)."""


def _message_delta(entry: MessageEntry, seen: _Seen) -> tuple[str, bool]:
    """The text to add since last time, and whether the agent rewrote what was shown."""
    text = entry.text
    if text.startswith(seen.text):
        delta, rewritten = text[len(seen.text) :], False
    else:
        delta, rewritten = text, True
    seen.text = text
    return delta, rewritten


def _new_blocks(entry: MessageEntry, seen: _Seen) -> list[JsonObject]:
    blocks = [b for b in entry.content if b.get("type") != "text"]
    fresh = blocks[seen.blocks :]
    seen.blocks = len(blocks)
    return fresh


def plan_line(entries: list[JsonObject]) -> str:
    entries = [e for e in entries if isinstance(e, dict)]
    done = sum(1 for e in entries if e.get("status") == "completed")
    current = next((e for e in entries if e.get("status") == "in_progress"), None)
    line = f"[plan] {done}/{len(entries)} done"
    if current is not None:
        line += f"; now: {_label(current.get('content'))}"
    return line


class TextRenderer(Renderer):
    """The reply on stdout; tool calls, plan, notices and answers as one line each on stderr.
    Thoughts, the user's own message, usage and unknown updates are not printed (the TUI
    shows them; a script wants the answer)."""

    def _note(self, line: str) -> None:
        self.output.break_line()
        self.output.note(line)

    def agent_message(self, entry: AgentMessage, seen: _Seen, /) -> None:
        first = not seen.text
        delta, rewritten = _message_delta(entry, seen)
        if rewritten:  # show the new version on its own line
            self.output.finish_text()
        elif first and delta:
            # Another message (a new messageId, or text after a tool call): the TUI shows
            # it as its own block; here it is a paragraph of its own.
            self.output.paragraph_break()
        self.output.text(delta)
        for block in _new_blocks(entry, seen):
            self._note(f"[{_label(block.get('type'), 20) or 'content'}]")

    def user_message(self, entry: UserMessage, seen: _Seen, /) -> None:
        pass  # the person's own words

    def agent_thought(self, entry: AgentThought, seen: _Seen, /) -> None:
        pass  # not the answer

    def tool_call(self, entry: ToolCall, seen: _Seen, /) -> None:
        status = _label(entry.status, 20) or "pending"
        if not seen.new and status == seen.status:
            return  # content-only progress: not worth a line
        seen.status = status
        name = _label(entry.title) or _label(entry.tool_kind, 20) or "tool"
        self._note(f"[tool] {name} ({status})")

    def plan(self, entry: PlanSnapshot, seen: _Seen, /) -> None:
        if entry.removed:
            self._note("[plan] removed")
        elif entry.markdown is not None or entry.file_uri is not None:
            self._note("[plan] updated")
        else:
            self._note(plan_line(entry.entries))

    def compaction(self, entry: Compaction, seen: _Seen, /) -> None:
        status = _label(entry.status, 20)
        if seen.new or status != seen.status:
            seen.status = status
            self._note(f"[compaction] {status}")

    def notice(self, entry: Notice, seen: _Seen, /) -> None:
        if not seen.new:
            return
        # acp-tui's own errors, and how the turn ended, are said once: by the last line.
        if entry.source == "client" and (entry.severity == "error" or self.turn_over):
            return
        severity = _label(entry.severity, 20) or "info"
        description = _label(entry.description, 200)
        self._note(
            f"[{severity}] {_label(entry.title, 200)}" + (f": {description}" if description else "")
        )

    def subagent(self, entry: SubagentCard, seen: _Seen, /) -> None:
        status = _label(entry.status, 20) or "started"
        if seen.new or status != seen.status:
            seen.status = status
            self._note(f"[subagent] {_label(entry.label)} ({status.replace('_', ' ')})")

    def session_message(self, entry: SessionMessage, seen: _Seen, /) -> None:
        """A subagent's report to this session, once it has words: its first line."""
        if seen.text or not entry.text.strip():
            return
        seen.text = entry.text
        child = self.store.get(entry.sender_id) if entry.sender_id else None
        sender = child.card.label if child is not None and child.card is not None else None
        first = entry.text.strip().splitlines()[0]
        self._note(f"[from {_label(sender or entry.sender_id or 'a session', 60)}] {_label(first)}")

    def shell_run(self, entry: ShellRun, seen: _Seen, /) -> None:
        pass  # shell mode is the TUI's: a session headless never holds one

    def unknown(self, entry: UnknownUpdate, seen: _Seen, /) -> None:
        pass  # the TUI shows it; a script wants the answer

    def started(self, method: str, agent: dict[str, Any]) -> None:
        pass  # the reply is what is printed

    def mode_changed(self, state: SessionState, mode_id: str) -> None:
        self._note(f"[mode] {_label(mode_id, 40)}")

    def config_changed(self, state: SessionState) -> None:
        pass

    def finish(self, result: dict[str, Any]) -> None:
        pass  # the command's last line on stderr says how the run ended

    def permission(self, pending: PendingPermission, result: dict[str, Any], allow: bool) -> None:
        what = pending.label
        outcome = result.get("outcome") if isinstance(result, dict) else None
        option_id = outcome.get("optionId") if isinstance(outcome, dict) else None
        choice = pending.option(option_id) if isinstance(option_id, str) else None
        if choice is None:
            wanted = "allow" if allow else "reject"
            self._note(f"[permission] {what}: no {wanted} option offered, answered cancelled")
            return
        verb = "allowed" if choice.is_allow else "rejected" if choice.is_reject else "chose"
        if pending.rule is not None:
            by = f" by rule: {pending.rule.describe()}"
            self._note(f"[permission] {what}: {verb} ({_label(choice.name, 40)}){by}")
            return
        hint = "" if allow else " (use --allow to allow)"
        self._note(f"[permission] {what}: {verb} ({_label(choice.name, 40)}){hint}")

    def question_ruled(self, request: OutsideRequest, rule: Rule, line: str) -> None:
        self._note(f"[rule] {_label(line, 400)}")

    def note(self, kind: str, text: str) -> None:
        self._note(f"[{kind}] {text}")


# ------------------------------------------------------------------------------- JSON Lines


def scrub_surrogates(value: Any) -> Any:
    """Every string with its lone surrogates replaced by U+FFFD (they are not Unicode: a
    strict JSON parser refuses them even escaped), in nested lists and dicts too."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_surrogates(v) for v in value]
    return value


def rule_json(rule: Rule) -> dict[str, Any]:
    """A permission rule in an event: what it decided, the rule in words, where it is."""
    return {
        "decision": rule.decision,
        "rule": rule.describe(),
        "file": str(rule.source) if rule.source is not None else None,
        "line": rule.line,
    }


def json_line(event: dict[str, Any]) -> str:
    """One event as one line of ASCII JSON (so valid UTF-8 whatever stdout's encoding)."""
    return json.dumps(scrub_surrogates(event), ensure_ascii=True, default=str) + "\n"


def usage_dict(usage: TurnUsage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    fields = {
        "totalTokens": usage.total_tokens,
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "thoughtTokens": usage.thought_tokens,
        "cachedReadTokens": usage.cached_read_tokens,
        "cachedWriteTokens": usage.cached_write_tokens,
    }
    return {key: value for key, value in fields.items() if value is not None}


class JsonRenderer(Renderer):
    """``--json``: one event per line on stdout (see the README for the shape). The
    session's subagents are rendered too: their events carry their own ``sessionId`` and
    their ``parentSessionId``."""

    nested = True

    def emit(self, event_type: str, /, **fields: Any) -> None:
        event: dict[str, Any] = {"type": event_type}
        rendering = self._rendering
        if rendering is not None and rendering.parent_id is not None:
            event["sessionId"] = rendering.id
            event["parentSessionId"] = rendering.parent_id
        elif self.session_id is not None:
            event["sessionId"] = self.session_id
        event.update(fields)
        self.output.write_raw(json_line(event))

    def _message(self, kind: str, entry: MessageEntry, seen: _Seen, **extra: Any) -> None:
        delta, rewritten = _message_delta(entry, seen)
        if rewritten:
            self.emit(kind, entryId=entry.id, text=entry.text, replace=True, **extra)
        elif delta:
            self.emit(kind, entryId=entry.id, text=delta, **extra)
        for block in _new_blocks(entry, seen):
            self.emit(f"{kind}_block", entryId=entry.id, content=block, **extra)

    def agent_message(self, entry: AgentMessage, seen: _Seen, /) -> None:
        self._message("message", entry, seen)

    def agent_thought(self, entry: AgentThought, seen: _Seen, /) -> None:
        self._message("thought", entry, seen)

    def user_message(self, entry: UserMessage, seen: _Seen, /) -> None:
        if seen.new:
            self.emit("user_message", entryId=entry.id, text=entry.text)

    def tool_call(self, entry: ToolCall, seen: _Seen, /) -> None:
        self.emit(
            "tool_call" if seen.new else "tool_call_update",
            entryId=entry.id,
            toolCallId=entry.tool_call_id,
            title=entry.title,
            kind=entry.tool_kind,
            status=entry.status,
            content=entry.content,
            locations=entry.locations,
            rawInput=entry.raw_input,
            rawOutput=entry.raw_output,
        )

    def plan(self, entry: PlanSnapshot, seen: _Seen, /) -> None:
        self.emit(
            "plan",
            entryId=entry.id,
            planId=entry.plan_id,
            entries=entry.entries,
            markdown=entry.markdown,
            fileUri=entry.file_uri,
            removed=entry.removed,
        )

    def notice(self, entry: Notice, seen: _Seen, /) -> None:
        if seen.new:
            self.emit(
                "notice",
                entryId=entry.id,
                severity=entry.severity,
                title=entry.title,
                description=entry.description,
                source=entry.source,
            )

    def compaction(self, entry: Compaction, seen: _Seen, /) -> None:
        self.emit(
            "compaction",
            entryId=entry.id,
            compactionId=entry.compaction_id,
            status=entry.status,
            summary=entry.summary_text,
        )

    def subagent(self, entry: SubagentCard, seen: _Seen, /) -> None:
        """When it is announced and when what it is or how it does changes (its words come
        as its own session's events)."""
        fields = {
            "childSessionId": entry.child_id,
            "title": entry.title,
            "description": entry.description,
            "status": entry.status,
            "stopReason": entry.stop_reason,
            "canCancel": entry.can_cancel,
        }
        said = json.dumps(fields, sort_keys=True, default=str)
        if said != seen.text:
            seen.text = said
            self.emit("subagent", entryId=entry.id, **fields)

    def session_message(self, entry: SessionMessage, seen: _Seen, /) -> None:
        self._message(
            "session_message",
            entry,
            seen,
            senderSessionId=entry.sender_id,
            recipientSessionId=entry.recipient_id,
        )

    def shell_run(self, entry: ShellRun, seen: _Seen, /) -> None:
        pass  # shell mode is the TUI's: a session headless never holds one

    def unknown(self, entry: UnknownUpdate, seen: _Seen, /) -> None:
        self.emit("unknown", entryId=entry.id, update=entry.raw, error=entry.error)

    def started(self, method: str, agent: dict[str, Any]) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        self.emit("session", method=method, cwd=state.cwd if state else None, agent=agent)

    def mode_changed(self, state: SessionState, mode_id: str) -> None:
        self.emit("mode", modeId=mode_id)

    def config_changed(self, state: SessionState) -> None:
        self.emit("config_options", configOptions=state.config_options or [])

    def permission(self, pending: PendingPermission, result: dict[str, Any], allow: bool) -> None:
        outcome = result.get("outcome") if isinstance(result, dict) else None
        option_id = outcome.get("optionId") if isinstance(outcome, dict) else None
        choice = pending.option(option_id) if isinstance(option_id, str) else None
        self.emit(
            "permission",
            toolCallId=pending.tool_call_id,
            title=pending.label,
            outcome="selected" if choice is not None else "cancelled",
            optionId=choice.option_id if choice else None,
            optionKind=choice.kind if choice else None,
            optionName=choice.name if choice else None,
            rule=rule_json(pending.rule) if pending.rule is not None else None,
        )

    def question_ruled(self, request: OutsideRequest, rule: Rule, line: str) -> None:
        self.emit(
            "question",
            kinds=sorted(question_kinds(request)),
            text=line,
            allowed=rule.decision == "allow",
            rule=rule_json(rule),
        )

    def note(self, kind: str, text: str) -> None:
        self.emit("client_note", kind=kind, text=text)

    def finish(self, result: dict[str, Any]) -> None:
        self.emit("result", **result)
