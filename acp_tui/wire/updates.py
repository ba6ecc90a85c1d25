"""Each ``session/update`` kind as the client takes it: the shape its handler in the store is
typed with, once :mod:`acp_tui.wire.coerce` has checked it.

A shape is named after the schema definition it is read from (v1, v1 unstable or the v2
draft) and declares only the fields the client reads, each typed as the coercion
guarantees it. That is wider than the schema where the client is tolerant of what agents
send: an enumeration the client shows as it comes (a tool's kind, a notice's severity) is a
``str``, a nested object the client keeps whole is a :data:`JsonObject`, and a field read by
a parser of its own that never fails (the usage counts, a terminal's snapshot) is
``object``. ``tests/test_schema.py`` checks every field against its schema definition.

Optional fields are ``NotRequired``: an update that leaves a field out differs from one that
sends ``null`` (v2 patch semantics: ``null`` clears). The annotations are evaluated (no
``from __future__ import annotations``) so that ``__required_keys__`` is right at run time.
"""

from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "AgentMessage",
    "AvailableCommandsUpdate",
    "CompactionSummaryChunk",
    "CompactionUpdate",
    "ConfigOptionUpdate",
    "ContentChunk",
    "CurrentModeUpdate",
    "JsonObject",
    "Notice",
    "Plan",
    "PlanRemoved",
    "PlanUpdate",
    "PlanUpdateContent",
    "PromptSuggestionsUpdate",
    "ReplayComplete",
    "SessionInfoUpdate",
    "SessionMessage",
    "SessionMessageChunk",
    "StateUpdate",
    "SubagentUpdate",
    "TerminalOutputChunk",
    "TerminalUpdate",
    "ToolCallContentChunk",
    "ToolCallUpdate",
    "UsageUpdate",
]

#: A JSON object as decoded: what the client keeps or passes on whole (a content block, a
#: config option, a location), its fields read where they are shown, tolerantly.
JsonObject = dict[str, Any]


class ContentChunk(TypedDict):
    """A streamed piece of a message (``user_message_chunk``, ``agent_message_chunk``,
    ``agent_thought_chunk``). ``content`` is a content block: its ``type`` is a string, and
    a ``text`` block's ``text`` is one. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output"""

    sessionUpdate: Literal["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]
    content: JsonObject
    messageId: NotRequired[str | None]


class AgentMessage(TypedDict):
    """A whole message, upserted by ``messageId`` (v2 ``user_message``, ``agent_message``,
    ``agent_thought``): omitted ``content`` leaves it, ``null`` clears it, an array (of
    content blocks; other items left out) replaces it. Spec:
    https://agentclientprotocol.com/protocol/v2/prompt-lifecycle#3-agent-reports-output"""

    sessionUpdate: Literal["user_message", "agent_message", "agent_thought"]
    messageId: str
    content: NotRequired[list[JsonObject] | None]


class ToolCallUpdate(TypedDict):
    """A tool call created (``tool_call``) or patched (``tool_call_update``), by
    ``toolCallId``: only the fields present change. ``content`` items are ``ToolCallContent``
    objects, ``locations`` ``ToolCallLocation`` objects (other items left out). Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#updating"""

    sessionUpdate: Literal["tool_call", "tool_call_update"]
    toolCallId: str
    title: NotRequired[str | None]
    name: NotRequired[str | None]
    kind: NotRequired[str | None]
    status: NotRequired[str | None]
    content: NotRequired[list[JsonObject] | None]
    locations: NotRequired[list[JsonObject] | None]
    rawInput: NotRequired[Any]
    rawOutput: NotRequired[Any]
    #: v2: the controls the tool call supports now (``cancel``: ``tool_call/cancel``).
    capabilities: NotRequired[JsonObject | None]
    _meta: NotRequired[JsonObject | None]


class ToolCallContentChunk(TypedDict):
    """One ``ToolCallContent`` item appended to a tool call's content (v2). Spec:
    https://agentclientprotocol.com/protocol/v2/tool-calls"""

    sessionUpdate: Literal["tool_call_content_chunk"]
    toolCallId: str
    content: JsonObject


class Plan(TypedDict):
    """The whole plan (``plan``): its ``PlanEntry`` objects (other items left out). Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan"""

    sessionUpdate: Literal["plan"]
    entries: list[JsonObject]


class PlanUpdateContent(TypedDict):
    """A plan with an id (unstable): structured ``entries`` (``type: "items"``), Markdown
    ``content`` (``"markdown"``) or a file's ``uri`` (``"file"``); the field its type names
    is there and of the right type. Spec: https://agentclientprotocol.com/protocol/v1/agent-plan"""

    planId: str
    type: NotRequired[object]
    entries: NotRequired[list[JsonObject]]
    content: NotRequired[str]
    uri: NotRequired[str]


class PlanUpdate(TypedDict):
    """A plan replaced in place by its id, or started (unstable ``plan_update``). Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan"""

    sessionUpdate: Literal["plan_update"]
    plan: PlanUpdateContent


class PlanRemoved(TypedDict):
    """The plan with this id is gone (unstable ``plan_removed``). Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan"""

    sessionUpdate: Literal["plan_removed"]
    planId: str


class Notice(TypedDict):
    """Information for the person, not history (``notice``): a non-empty ``title``, a
    ``severity`` (``info`` when empty), a ``description`` (``None`` when empty or malformed).
    Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    sessionUpdate: Literal["notice"]
    title: str
    severity: str
    description: str | None


class CompactionUpdate(TypedDict):
    """A context compaction upserted by id (``compaction_update``). ``summary``, ``error``
    and ``_meta`` patch: absent leaves, ``null`` clears, a value replaces; a malformed one is
    taken as absent. Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    sessionUpdate: Literal["compaction_update"]
    compactionId: str
    status: str
    summary: NotRequired[list[JsonObject] | None]
    error: NotRequired[str | None]
    _meta: NotRequired[JsonObject | None]


class CompactionSummaryChunk(TypedDict):
    """A content block appended to a compaction's summary (``compaction_summary_chunk``).
    Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    sessionUpdate: Literal["compaction_summary_chunk"]
    compactionId: str
    content: JsonObject


class AvailableCommandsUpdate(TypedDict):
    """The agent's commands (``available_commands_update``; items that are no objects left
    out). Spec: https://agentclientprotocol.com/protocol/v1/slash-commands"""

    sessionUpdate: Literal["available_commands_update"]
    availableCommands: list[JsonObject]


class CurrentModeUpdate(TypedDict):
    """The session's mode changed (``current_mode_update``). Spec:
    https://agentclientprotocol.com/protocol/v1/session-modes"""

    sessionUpdate: Literal["current_mode_update"]
    currentModeId: str


class ConfigOptionUpdate(TypedDict):
    """The session's config options, all of them (``config_option_update``). Spec:
    https://agentclientprotocol.com/protocol/v1/session-config-options"""

    sessionUpdate: Literal["config_option_update"]
    configOptions: list[JsonObject]


class SessionInfoUpdate(TypedDict):
    """Session metadata (``session_info_update``): omitted unchanged, ``null`` cleared,
    ``_meta`` merged. Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    sessionUpdate: Literal["session_info_update"]
    title: NotRequired[str | None]
    updatedAt: NotRequired[str | None]
    _meta: NotRequired[JsonObject | None]


class UsageUpdate(TypedDict):
    """Context window and cost (``usage_update``); each value read on its own, tolerantly
    (``acp_tui.store.session.ContextUsage``): one that is wrong is unknown, not fatal. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    sessionUpdate: Literal["usage_update"]
    used: NotRequired[object]
    size: NotRequired[object]
    cost: NotRequired[object]


class StateUpdate(TypedDict):
    """The session's foreground activity (v2 ``state_update``; the RFD spells it
    ``state_change`` and ``stop_reason``): ``state`` is ``running``, ``idle``,
    ``requires_action`` or the agent's own; an idle one may carry its turn's ``stopReason``
    and ``usage``, read tolerantly. Spec:
    https://agentclientprotocol.com/protocol/v2/prompt-lifecycle"""

    sessionUpdate: Literal["state_update", "state_change"]
    state: str
    stopReason: NotRequired[object]
    stop_reason: NotRequired[object]
    usage: NotRequired[object]
    #: The work running apart from the foreground, a whole snapshot (``BackgroundWork``
    #: objects; other items left out); absent or ``null``: not reported. Spec:
    #: https://agentclientprotocol.com/rfds/v2/background-work
    background: NotRequired[list[JsonObject] | None]


class TerminalUpdate(TypedDict):
    """An agent-owned terminal upserted by id (v2 ``terminal_update``); its fields are
    read tolerantly by ``acp_tui.store.agent_terminals.AgentTerminal.upsert``. Spec:
    https://agentclientprotocol.com/protocol/v2/terminals"""

    sessionUpdate: Literal["terminal_update"]
    terminalId: str
    command: NotRequired[object]
    cwd: NotRequired[object]
    output: NotRequired[object]
    exitStatus: NotRequired[object]
    capabilities: NotRequired[object]


class TerminalOutputChunk(TypedDict):
    """Bytes (base64 text) appended to an agent-owned terminal's output (v2
    ``terminal_output_chunk``). Spec: https://agentclientprotocol.com/protocol/v2/terminals"""

    sessionUpdate: Literal["terminal_output_chunk"]
    terminalId: str
    data: str


class SubagentUpdate(TypedDict):
    """A child session the parent created and owns (``subagent_update``, sent on the
    parent): the first one for a ``sessionId`` announces it, later ones patch it (omitted
    unchanged, ``null`` cleared). ``capabilities`` (``cancel``: ``session/cancel`` on the
    child) and ``state`` (a ``StateUpdate``, v1's report of the child's work) are objects,
    read tolerantly where they are kept. Spec:
    https://agentclientprotocol.com/protocol/v1/subagents"""

    sessionUpdate: Literal["subagent_update"]
    sessionId: str
    title: NotRequired[str | None]
    description: NotRequired[str | None]
    capabilities: NotRequired[JsonObject | None]
    state: NotRequired[JsonObject | None]
    cwd: NotRequired[str | None]
    _meta: NotRequired[JsonObject | None]


class SessionMessage(TypedDict):
    """A message between sessions, upserted by ``messageId`` (``session_message``): who sent
    it and to whom (session ids), and its content blocks (omitted unchanged, ``null`` or
    ``[]`` cleared). Spec: https://agentclientprotocol.com/protocol/v1/subagents"""

    sessionUpdate: Literal["session_message"]
    messageId: str
    senderSessionId: NotRequired[str | None]
    recipientSessionId: NotRequired[str | None]
    content: NotRequired[list[JsonObject] | None]


class SessionMessageChunk(TypedDict):
    """A content block appended to a message between sessions (``session_message_chunk``);
    who sent it comes from the ``session_message`` upserts. Spec:
    https://agentclientprotocol.com/protocol/v1/subagents"""

    sessionUpdate: Literal["session_message_chunk"]
    messageId: str
    content: JsonObject


class PromptSuggestionsUpdate(TypedDict):
    """The prompts the agent predicts the person will send next, replacing the session's
    list (``prompt_suggestions_update``, unstable: schema v1.32.0, newer than the schema kept
    here). Each item is a ``PromptSuggestion`` object whose ``prompt`` is the content blocks
    to send as they are; an empty list withdraws them. Not history. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn (RFD:
    https://agentclientprotocol.com/rfds/prompt-suggestions)"""

    sessionUpdate: Literal["prompt_suggestions_update"]
    suggestions: list[JsonObject]


class ReplayComplete(TypedDict):
    """v2 preview: the end of the history a ``session/resume`` with ``replayFrom`` replays,
    sent once per session before the response (an empty replay too). Every update before it
    is history, every one after it live; a resume that fails without it was truncated. Spec:
    https://agentclientprotocol.com/rfds/v2/session-replay-complete"""

    sessionUpdate: Literal["replay_complete"]
