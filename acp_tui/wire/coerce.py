"""The one tolerant step between raw ``session/update`` JSON and its typed shape
(:mod:`acp_tui.wire.updates`): a coercer per kind checks the fields its handler reads.

A coercer either returns the update as its shape, or raises: ``KeyError`` for a required
field that is missing, ``TypeError``/``ValueError`` (their message names the field) for one
that is wrong; the store turns that into an ``UnknownUpdate`` and nothing else changes. A
malformed item of an array is left out and the rest taken (:class:`LeftOut`); a malformed
optional field the schema lets a client ignore (a notice's description, a compaction's
error) is taken as absent. An update with nothing to clean is returned as it came, not
copied: this is on the path of every streamed update.
"""

from __future__ import annotations

from typing import Any

from acp_tui.wire.fields import MISSING, LeftOut, opt_str, req_str, type_error
from acp_tui.wire.updates import (
    AgentMessage,
    AvailableCommandsUpdate,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    ContentChunk,
    CurrentModeUpdate,
    JsonObject,
    Notice,
    Plan,
    PlanRemoved,
    PlanUpdate,
    PromptSuggestionsUpdate,
    ReplayComplete,
    SessionInfoUpdate,
    SessionMessage,
    SessionMessageChunk,
    StateUpdate,
    SubagentUpdate,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    UsageUpdate,
)

__all__ = [
    "available_commands",
    "compaction",
    "compaction_summary_chunk",
    "config_options",
    "content_chunk",
    "current_mode",
    "message",
    "notice",
    "plan",
    "plan_removed",
    "plan_update",
    "prompt_suggestions",
    "replay_complete",
    "session_info",
    "session_message",
    "session_message_chunk",
    "state",
    "subagent",
    "terminal_output_chunk",
    "terminal_update",
    "tool_call",
    "tool_call_content_chunk",
    "usage",
]


def _object(u: Any, name: str) -> JsonObject:
    value = u[name]
    if not isinstance(value, dict):
        raise type_error(name, "an object", value)
    return value


def _optional_object(u: Any, name: str) -> None:
    value = u.get(name)
    if value is not None and not isinstance(value, dict):
        raise type_error(name, "an object or null", value)


def content_chunk(u: Any, left_out: LeftOut) -> ContentChunk:
    content = u["content"]
    if content.__class__ is not dict:
        raise type_error("content", "an object", content)
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
    checked: ContentChunk = u
    return checked


def message(u: Any, left_out: LeftOut) -> AgentMessage:
    req_str(u, "messageId")
    content = u.get("content")
    if content is not None:
        kept = left_out.objects(content, "content")
        if kept is not content:
            u = {**u, "content": kept}
    checked: AgentMessage = u
    return checked


def tool_call(u: Any, left_out: LeftOut) -> ToolCallUpdate:
    """Inline, not through the field helpers: tool calls stream their updates."""
    if u.get("toolCallId").__class__ is not str:
        req_str(u, "toolCallId")  # says what is wrong
    get = u.get
    for name in ("title", "name", "kind", "status"):
        value = get(name)
        if value is not None and value.__class__ is not str:
            raise type_error(name, "a string or null", value)
    content = get("content")
    if content is not None:
        kept = left_out.objects(content, "content")
        if kept is not content:
            u = {**u, "content": kept}
    locations = get("locations")
    if locations is not None:
        kept = left_out.objects(locations, "locations")
        if kept is not locations:
            u = {**u, "locations": kept}
    meta = get("_meta")
    if meta is not None and not isinstance(meta, dict):
        raise type_error("_meta", "an object or null", meta)
    capabilities = get("capabilities")
    if capabilities is not None and not isinstance(capabilities, dict):
        # The schema: a malformed value falls back to no controls (never a request the agent
        # did not advertise); the rest of the update still counts.
        u = {**u, "capabilities": None}
    checked: ToolCallUpdate = u
    return checked


def tool_call_content_chunk(u: Any, left_out: LeftOut) -> ToolCallContentChunk:
    req_str(u, "toolCallId")
    _object(u, "content")
    checked: ToolCallContentChunk = u
    return checked


def plan(u: Any, left_out: LeftOut) -> Plan:
    entries = u["entries"]
    kept = left_out.objects(entries, "entries")
    if kept is not entries:
        u = {**u, "entries": kept}
    checked: Plan = u
    return checked


def plan_update(u: Any, left_out: LeftOut) -> PlanUpdate:
    """The field the plan's ``type`` names must be there and right; a type not known here
    is a plan with no entries (shown by its id)."""
    content = _object(u, "plan")
    req_str(content, "planId")
    kind = content.get("type")
    if kind == "items":
        entries = content["entries"]
        kept = left_out.objects(entries, "plan.entries")
        if kept is not entries:
            u = {**u, "plan": {**content, "entries": kept}}
    elif kind == "markdown":
        req_str(content, "content")
    elif kind == "file":
        req_str(content, "uri")
    checked: PlanUpdate = u
    return checked


def plan_removed(u: Any, left_out: LeftOut) -> PlanRemoved:
    req_str(u, "planId")
    checked: PlanRemoved = u
    return checked


def notice(u: Any, left_out: LeftOut) -> Notice:
    title = req_str(u, "title")
    if not title.strip():
        raise ValueError("title: empty (a notice's title must not be)")
    severity = req_str(u, "severity") or "info"
    description = u.get("description")
    if not isinstance(description, str) or not description.strip():
        description = None
    return {
        "sessionUpdate": "notice",
        "title": title,
        "severity": severity,
        "description": description,
    }


def compaction(u: Any, left_out: LeftOut) -> CompactionUpdate:
    out: CompactionUpdate = {
        "sessionUpdate": "compaction_update",
        "compactionId": req_str(u, "compactionId"),
        "status": req_str(u, "status"),
    }
    summary = u.get("summary", MISSING)
    if summary is None:
        out["summary"] = None
    elif isinstance(summary, list):
        out["summary"] = [block for block in summary if isinstance(block, dict)]
    error = u.get("error", MISSING)
    if error is None or isinstance(error, str):
        out["error"] = error
    meta = u.get("_meta", MISSING)
    if meta is None or isinstance(meta, dict):
        out["_meta"] = meta
    return out


def compaction_summary_chunk(u: Any, left_out: LeftOut) -> CompactionSummaryChunk:
    req_str(u, "compactionId")
    _object(u, "content")
    checked: CompactionSummaryChunk = u
    return checked


def available_commands(u: Any, left_out: LeftOut) -> AvailableCommandsUpdate:
    commands = u["availableCommands"]
    kept = left_out.objects(commands, "availableCommands")
    if kept is not commands:
        u = {**u, "availableCommands": kept}
    checked: AvailableCommandsUpdate = u
    return checked


def current_mode(u: Any, left_out: LeftOut) -> CurrentModeUpdate:
    req_str(u, "currentModeId")
    checked: CurrentModeUpdate = u
    return checked


def config_options(u: Any, left_out: LeftOut) -> ConfigOptionUpdate:
    options = u["configOptions"]
    kept = left_out.objects(options, "configOptions")
    if kept is not options:
        u = {**u, "configOptions": kept}
    checked: ConfigOptionUpdate = u
    return checked


def session_info(u: Any, left_out: LeftOut) -> SessionInfoUpdate:
    opt_str(u, "title")
    opt_str(u, "updatedAt")
    _optional_object(u, "_meta")
    checked: SessionInfoUpdate = u
    return checked


def usage(u: Any, left_out: LeftOut) -> UsageUpdate:
    checked: UsageUpdate = u
    return checked


def state(u: Any, left_out: LeftOut) -> StateUpdate:
    req_str(u, "state")
    background = u.get("background")
    if background is not None:
        kept = left_out.objects(background, "background", some=False)
        if kept is not background:
            u = {**u, "background": kept}
    checked: StateUpdate = u
    return checked


def subagent(u: Any, left_out: LeftOut) -> SubagentUpdate:
    """A malformed ``capabilities`` or ``state`` is taken as ``null`` (no controls, activity
    unknown): the child is still announced, and never cancelled unasked."""
    if not req_str(u, "sessionId"):
        raise ValueError("sessionId: empty")
    opt_str(u, "title")
    opt_str(u, "description")
    opt_str(u, "cwd")
    _optional_object(u, "_meta")
    for name in ("capabilities", "state"):
        value = u.get(name)
        if value is not None and not (
            isinstance(value, dict) and (name != "state" or isinstance(value.get("state"), str))
        ):
            u = {**u, name: None}
    checked: SubagentUpdate = u
    return checked


def session_message(u: Any, left_out: LeftOut) -> SessionMessage:
    req_str(u, "messageId")
    opt_str(u, "senderSessionId")
    opt_str(u, "recipientSessionId")
    content = u.get("content")
    if content is not None:
        kept = left_out.objects(content, "content", some=False)
        if kept is not content:
            u = {**u, "content": kept}
    checked: SessionMessage = u
    return checked


def session_message_chunk(u: Any, left_out: LeftOut) -> SessionMessageChunk:
    req_str(u, "messageId")
    content = _object(u, "content")
    if content.get("type").__class__ is not str:
        raise type_error("content.type", "a string", content.get("type"))
    checked: SessionMessageChunk = u
    return checked


def terminal_update(u: Any, left_out: LeftOut) -> TerminalUpdate:
    req_str(u, "terminalId")
    checked: TerminalUpdate = u
    return checked


def terminal_output_chunk(u: Any, left_out: LeftOut) -> TerminalOutputChunk:
    req_str(u, "terminalId")
    data = u.get("data")
    if not isinstance(data, str):
        raise TypeError("data: expected base64 text")
    checked: TerminalOutputChunk = u
    return checked


def _suggestion(item: Any) -> bool:
    """A ``PromptSuggestion``: a ``prompt`` of content blocks (objects with a string
    ``type``), at least one."""
    prompt = item.get("prompt")
    return (
        isinstance(prompt, list)
        and bool(prompt)
        and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in prompt)
    )


def prompt_suggestions(u: Any, left_out: LeftOut) -> PromptSuggestionsUpdate:
    suggestions = u["suggestions"]
    kept = left_out.objects(suggestions, "suggestions", some=False)
    good = [item for item in kept if _suggestion(item)]
    if len(good) != len(kept):
        left_out.items.append(f"{len(kept) - len(good)} suggestions with no prompt blocks")
    if len(good) != len(suggestions):
        u = {**u, "suggestions": good}
    checked: PromptSuggestionsUpdate = u
    return checked


def replay_complete(u: Any, left_out: LeftOut) -> ReplayComplete:
    checked: ReplayComplete = u
    return checked
