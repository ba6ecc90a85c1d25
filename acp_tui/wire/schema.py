"""The ACP wire, declared once: the messages as :class:`~typing.TypedDict` shapes (protocol
v1); their names (methods, ``sessionUpdate`` kinds, enumerations) are in
:mod:`acp_tui.wire.constants`. The content blocks they carry are in :mod:`acp_tui.wire.content`,
and what the agent asks of the client (permission, files, terminals) in
:mod:`acp_tui.wire.client_methods`.

These are declarations, not validators: what comes off the wire is plain JSON (dicts), and the
code that reads it (the store for ``session/update``, the controller and services for requests)
stays tolerant of anything an agent sends. The shapes say what a well-formed message holds, so
code that builds or reads one is checked by mypy and names its fields once; the constants keep
string literals of the protocol out of the rest of the code.

Runtime code imports this module only under ``TYPE_CHECKING``: building the classes costs about
10 ms, and nothing needs them at run time.

``tests/test_schema.py`` checks every ``TypedDict`` here against the official JSON schema
(``tests/data/acp-schema/v1``): every field of the schema's definition of the same name, with a
compatible type and requiredness. Field names are the wire's (camelCase, ``_meta``). No
pydantic: nothing here validates.

Spec: https://agentclientprotocol.com/protocol/v1/overview
"""

from typing import Any, Literal, Required, TypedDict

from acp_tui.wire.constants import (
    PlanEntryPriority,
    PlanEntryStatus,
    StopReason,
    ToolCallStatus,
    ToolKind,
)
from acp_tui.wire.content import ContentBlock
from acp_tui.wire.updates import JsonObject

#: The ``session/update`` payload as it comes, routed on ``sessionUpdate`` (see
#: :class:`UpdateKind`); only the store interprets it, each kind coerced to its shape in
#: :mod:`acp_tui.wire.updates`. Spec:
#: https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output
SessionUpdate = JsonObject

# ---- Initialization ----------------------------------------------------------------------


class Implementation(TypedDict, total=False):
    """Metadata about the implementation of the client or agent. Describes the name and
    version of an ACP implementation, with an optional title for UI representation. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    name: Required[str]
    title: str | None
    version: Required[str]
    _meta: JsonObject | None


class FileSystemCapabilities(TypedDict, total=False):
    """File system capabilities that a client may support. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization#filesystem"""

    readTextFile: bool
    writeTextFile: bool
    _meta: JsonObject | None


class AuthCapabilities(TypedDict, total=False):
    """Authentication capabilities supported by the client. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    terminal: bool
    _meta: JsonObject | None


class ClientCapabilities(TypedDict, total=False):
    """Capabilities supported by the client. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization#client-capabilities"""

    fs: FileSystemCapabilities
    terminal: bool
    session: JsonObject | None
    auth: AuthCapabilities
    elicitation: JsonObject | None
    _meta: JsonObject | None


class PromptCapabilities(TypedDict, total=False):
    """Prompt capabilities supported by the agent in `session/prompt` requests. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization#prompt-capabilities"""

    image: bool
    audio: bool
    embeddedContext: bool
    _meta: JsonObject | None


class McpCapabilities(TypedDict, total=False):
    """MCP capabilities supported by the agent Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    http: bool
    sse: bool
    _meta: JsonObject | None


class SessionCapabilities(TypedDict, total=False):
    """Session capabilities supported by the agent. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization#session-capabilities"""

    list: JsonObject | None
    delete: JsonObject | None
    additionalDirectories: JsonObject | None
    resume: JsonObject | None
    close: JsonObject | None
    _meta: JsonObject | None


class AgentCapabilities(TypedDict, total=False):
    """Capabilities supported by the agent. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization#agent-capabilities"""

    loadSession: bool
    promptCapabilities: PromptCapabilities
    mcpCapabilities: McpCapabilities
    sessionCapabilities: SessionCapabilities
    auth: JsonObject
    _meta: JsonObject | None


class InitializeRequest(TypedDict, total=False):
    """Request parameters for the initialize method. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    protocolVersion: Required[int]
    clientCapabilities: ClientCapabilities
    clientInfo: Implementation | None
    _meta: JsonObject | None


class InitializeResponse(TypedDict, total=False):
    """Response to the `initialize` method. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    protocolVersion: Required[int]
    agentCapabilities: AgentCapabilities
    authMethods: list[JsonObject]
    agentInfo: Implementation | None
    _meta: JsonObject | None


class AuthenticateRequest(TypedDict, total=False):
    """Request parameters for the authenticate method. Spec:
    https://agentclientprotocol.com/protocol/v1/initialization"""

    methodId: Required[str]
    _meta: JsonObject | None


# ---- Session setup -----------------------------------------------------------------------


class EnvVariable(TypedDict, total=False):
    """An environment variable to set when launching an MCP server. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    name: Required[str]
    value: Required[str]
    _meta: JsonObject | None


class HttpHeader(TypedDict, total=False):
    """An HTTP header to set when making requests to the MCP server. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    name: Required[str]
    value: Required[str]
    _meta: JsonObject | None


class McpServerStdio(TypedDict, total=False):
    """Stdio transport configuration for MCP. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    name: Required[str]
    command: Required[str]
    args: Required[list[str]]
    env: Required[list[EnvVariable]]
    _meta: JsonObject | None


class McpServerHttp(TypedDict, total=False):
    """HTTP transport configuration for MCP. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    type: Required[Literal["http"]]
    name: Required[str]
    url: Required[str]
    headers: Required[list[HttpHeader]]
    _meta: JsonObject | None


class McpServerSse(TypedDict, total=False):
    """SSE transport configuration for MCP. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    type: Required[Literal["sse"]]
    name: Required[str]
    url: Required[str]
    headers: Required[list[HttpHeader]]
    _meta: JsonObject | None


#: An MCP server to connect to (stdio has no ``type``). Spec:
#: https://agentclientprotocol.com/protocol/v1/session-setup#mcp-servers
McpServer = McpServerHttp | McpServerSse | McpServerStdio


class SessionMode(TypedDict, total=False):
    """A mode the agent can operate in. Spec:
    https://agentclientprotocol.com/protocol/v1/session-modes"""

    id: Required[str]
    name: Required[str]
    description: str | None
    _meta: JsonObject | None


class SessionModeState(TypedDict, total=False):
    """The set of modes and the one currently active. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    currentModeId: Required[str]
    availableModes: Required[list[SessionMode]]
    _meta: JsonObject | None


class NewSessionRequest(TypedDict, total=False):
    """Request parameters for creating a new session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup#creating-a-session"""

    cwd: Required[str]
    additionalDirectories: list[str]
    mcpServers: Required[list[McpServer]]
    _meta: JsonObject | None


class NewSessionResponse(TypedDict, total=False):
    """Response from creating a new session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup#creating-a-session"""

    sessionId: Required[str]
    modes: SessionModeState | None
    configOptions: list[JsonObject] | None
    _meta: JsonObject | None


class LoadSessionRequest(TypedDict, total=False):
    """Request parameters for loading an existing session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup#loading-sessions"""

    mcpServers: Required[list[McpServer]]
    cwd: Required[str]
    additionalDirectories: list[str]
    sessionId: Required[str]
    _meta: JsonObject | None


class LoadSessionResponse(TypedDict, total=False):
    """Response from loading an existing session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    modes: SessionModeState | None
    configOptions: list[JsonObject] | None
    _meta: JsonObject | None


class ResumeSessionRequest(TypedDict, total=False):
    """Request parameters for resuming an existing session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    sessionId: Required[str]
    cwd: Required[str]
    additionalDirectories: list[str]
    mcpServers: list[McpServer]
    _meta: JsonObject | None


class ResumeSessionResponse(TypedDict, total=False):
    """Response from resuming an existing session. Spec:
    https://agentclientprotocol.com/protocol/v1/session-setup"""

    modes: SessionModeState | None
    configOptions: list[JsonObject] | None
    _meta: JsonObject | None


# ---- Prompt turn -------------------------------------------------------------------------


class PromptRequest(TypedDict, total=False):
    """Request parameters for sending a user prompt to the agent. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#1-user-message"""

    sessionId: Required[str]
    prompt: Required[list[ContentBlock]]
    _meta: JsonObject | None


class PromptResponse(TypedDict, total=False):
    """Response from processing a user prompt. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#4-check-for-completion"""

    stopReason: Required[StopReason]
    _meta: JsonObject | None


class CancelNotification(TypedDict, total=False):
    """Notification to cancel ongoing operations for a session. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation"""

    sessionId: Required[str]
    _meta: JsonObject | None


class SessionNotification(TypedDict, total=False):
    """Notification containing a session update from the agent. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output"""

    sessionId: Required[str]
    update: Required[SessionUpdate]
    _meta: JsonObject | None


class ContentChunk(TypedDict, total=False):
    """A streamed item of content Spec: https://agentclientprotocol.com/protocol/v1/prompt-
    turn"""

    content: Required[ContentBlock]
    messageId: str | None
    _meta: JsonObject | None


class Cost(TypedDict, total=False):
    """Cost information for a session. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    amount: Required[float]
    currency: Required[str]
    _meta: JsonObject | None


class UsageUpdate(TypedDict, total=False):
    """Context window and cost update for a session. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    used: Required[int]
    size: Required[int]
    cost: Cost | None
    _meta: JsonObject | None


class SessionInfoUpdate(TypedDict, total=False):
    """Update to session metadata. All fields are optional to support partial updates. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    title: str | None
    updatedAt: str | None
    _meta: JsonObject | None


class CurrentModeUpdate(TypedDict, total=False):
    """The current mode of the session has changed Spec:
    https://agentclientprotocol.com/protocol/v1/session-modes"""

    currentModeId: Required[str]
    _meta: JsonObject | None


class UnstructuredCommandInput(TypedDict, total=False):
    """All text that was typed after the command name is provided as input. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    hint: Required[str]
    _meta: JsonObject | None


#: The input a command takes. Spec: https://agentclientprotocol.com/protocol/v1/slash-commands
AvailableCommandInput = UnstructuredCommandInput


class AvailableCommand(TypedDict, total=False):
    """Information about a command. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    name: Required[str]
    description: Required[str]
    input: AvailableCommandInput | None
    _meta: JsonObject | None


class AvailableCommandsUpdate(TypedDict, total=False):
    """Available commands are ready or have changed Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn"""

    availableCommands: Required[list[AvailableCommand]]
    _meta: JsonObject | None


class PlanEntry(TypedDict, total=False):
    """A single entry in the execution plan. Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan#plan-entries"""

    content: Required[str]
    priority: Required[PlanEntryPriority]
    status: Required[PlanEntryStatus]
    _meta: JsonObject | None


class Plan(TypedDict, total=False):
    """An execution plan for accomplishing complex tasks. Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan"""

    entries: Required[list[PlanEntry]]
    _meta: JsonObject | None


# ---- Tool calls --------------------------------------------------------------------------


class ToolCallLocation(TypedDict, total=False):
    """A file location being accessed or modified by a tool. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#following-the-agent"""

    path: Required[str]
    line: int | None
    _meta: JsonObject | None


class Content(TypedDict, total=False):
    """Standard content block (text, images, resources). Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls"""

    type: Required[Literal["content"]]
    content: Required[ContentBlock]
    _meta: JsonObject | None


class Diff(TypedDict, total=False):
    """A diff representing file modifications. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#content"""

    type: Required[Literal["diff"]]
    path: Required[str]
    oldText: str | None
    newText: Required[str]
    _meta: JsonObject | None


class Terminal(TypedDict, total=False):
    """Embed a terminal created with `terminal/create` by its id. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    type: Required[Literal["terminal"]]
    terminalId: Required[str]
    _meta: JsonObject | None


#: What a tool call produced, tagged by ``type``. Spec:
#: https://agentclientprotocol.com/protocol/v1/tool-calls#content
ToolCallContent = Content | Diff | Terminal


class ToolCall(TypedDict, total=False):
    """Represents a tool call that the language model has requested. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls"""

    toolCallId: Required[str]
    title: Required[str]
    name: str | None
    kind: ToolKind
    status: ToolCallStatus
    content: list[ToolCallContent]
    locations: list[ToolCallLocation]
    rawInput: Any
    rawOutput: Any
    _meta: JsonObject | None


class ToolCallUpdate(TypedDict, total=False):
    """An update to an existing tool call. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#updating"""

    toolCallId: Required[str]
    kind: ToolKind | None
    status: ToolCallStatus | None
    title: str | None
    name: str | None
    content: list[ToolCallContent] | None
    locations: list[ToolCallLocation] | None
    rawInput: Any
    rawOutput: Any
    _meta: JsonObject | None


# ---- Errors ------------------------------------------------------------------------------


class Error(TypedDict, total=False):
    """JSON-RPC error object. Spec: https://agentclientprotocol.com/protocol/v1/overview"""

    code: Required[int]
    message: Required[str]
    data: Any
