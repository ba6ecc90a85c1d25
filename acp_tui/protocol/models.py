"""ACP wire types, declared once, as pydantic v2 models.

Conventions (read before using these models):

- Python fields are snake_case, wire names are camelCase aliases; `_meta` is `meta`.
  Every model accepts both spellings on input (``populate_by_name``) and keeps unknown
  fields (``extra="allow"``), so vendor extensions survive a round trip.
- Dump with :func:`to_wire`: ``by_alias=True, exclude_unset=True``. Fields never set stay
  off the wire; a field explicitly set to ``None`` is sent as ``null`` (in
  ``session_info_update`` that means "clear").
- Discriminators (``type``, ``sessionUpdate``, ``outcome``...) default to their variant's
  value and are always dumped, so ``to_wire(TextContent(text="hi"))`` is a valid block.
- Enumerations (tool kind, status, stop reason...) are typed ``str`` so an unknown value never
  rejects a message; compare against the ``StrEnum`` constants (``ToolKind.EDIT`` ...).
- Session updates and content blocks are parsed by routing on the raw discriminator string
  (:func:`parse_session_update`, :func:`parse_content_block`), never raising: what cannot be
  understood comes back as an ``Unknown*`` object holding the raw data, and dumps back to it.
- Models defer building their validators until first use, so importing this module is cheap.

The schema in ``shared/acp-schema`` (v1 stable + unstable, v2 draft) is the reference.
"""

from enum import IntEnum, StrEnum
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
)

from acp_tui.protocol import jsonrpc

__all__ = [
    "PROTOCOL_VERSION",
    "REQUEST_PARAMS",
    "RESPONSE_RESULTS",
    "SESSION_UPDATE_MODELS",
    "AcpModel",
    "AgentAuthCapabilities",
    "AgentCapabilities",
    "AgentMessage",
    "AgentMessageChunk",
    "AgentThought",
    "AgentThoughtChunk",
    "Annotations",
    "AudioContent",
    "AuthCapabilities",
    "AuthMethod",
    "AuthenticateRequest",
    "AuthenticateResponse",
    "AvailableCommand",
    "AvailableCommandInput",
    "AvailableCommandsUpdate",
    "BlobResourceContents",
    "CancelNotification",
    "CancelRequestNotification",
    "ClientCapabilities",
    "ClientSessionCapabilities",
    "CloseSessionRequest",
    "CloseSessionResponse",
    "CompactionSummaryChunk",
    "CompactionUpdate",
    "CompleteElicitationNotification",
    "ConfigOptionUpdate",
    "ContentBlock",
    "ContentBlockModel",
    "ContentChunk",
    "ContentToolCallContent",
    "Cost",
    "CreateElicitationRequest",
    "CreateElicitationResponse",
    "CreateTerminalRequest",
    "CreateTerminalResponse",
    "CurrentModeUpdate",
    "DeleteSessionRequest",
    "DeleteSessionResponse",
    "DiffToolCallContent",
    "ElicitationCapabilities",
    "ElicitationSchema",
    "EmbeddedResource",
    "EmptyCapability",
    "EnvVariable",
    "ErrorCode",
    "FileSystemCapabilities",
    "ForkSessionRequest",
    "ForkSessionResponse",
    "HttpHeader",
    "ImageContent",
    "Implementation",
    "InitializeRequest",
    "InitializeResponse",
    "JsonRpcError",
    "KillTerminalRequest",
    "KillTerminalResponse",
    "ListSessionsRequest",
    "ListSessionsResponse",
    "LoadSessionRequest",
    "LoadSessionResponse",
    "McpCapabilities",
    "McpServer",
    "McpServerHttp",
    "McpServerSse",
    "McpServerStdio",
    "Method",
    "NewSessionRequest",
    "NewSessionResponse",
    "Notice",
    "NoticeSeverity",
    "PermissionOption",
    "PermissionOptionKind",
    "Plan",
    "PlanContentModel",
    "PlanEntry",
    "PlanEntryPriority",
    "PlanEntryStatus",
    "PlanFile",
    "PlanItems",
    "PlanMarkdown",
    "PlanRemoved",
    "PlanUpdate",
    "PromptCapabilities",
    "PromptRequest",
    "PromptResponse",
    "ReadTextFileRequest",
    "ReadTextFileResponse",
    "ReleaseTerminalRequest",
    "ReleaseTerminalResponse",
    "RequestPermissionOutcome",
    "RequestPermissionRequest",
    "RequestPermissionResponse",
    "ResourceLink",
    "ResumeSessionRequest",
    "ResumeSessionResponse",
    "SessionCapabilities",
    "SessionConfigOption",
    "SessionConfigOptionCategory",
    "SessionConfigOptionsCapabilities",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "SessionInfo",
    "SessionInfoUpdate",
    "SessionMessage",
    "SessionMessageChunk",
    "SessionMode",
    "SessionModeState",
    "SessionNotification",
    "SessionUpdate",
    "SessionUpdateKind",
    "SessionUpdateModel",
    "SetSessionConfigOptionRequest",
    "SetSessionConfigOptionResponse",
    "SetSessionModeRequest",
    "SetSessionModeResponse",
    "StateSnapshot",
    "StateUpdate",
    "StopReason",
    "SubagentSessionCapabilities",
    "SubagentUpdate",
    "SystemPrompt",
    "TerminalCapabilities",
    "TerminalExitStatus",
    "TerminalOutput",
    "TerminalOutputChunk",
    "TerminalOutputRequest",
    "TerminalOutputResponse",
    "TerminalSize",
    "TerminalToolCallContent",
    "TerminalUpdate",
    "TextContent",
    "TextResourceContents",
    "ToolCall",
    "ToolCallCapabilities",
    "ToolCallContent",
    "ToolCallContentChunk",
    "ToolCallContentModel",
    "ToolCallLocation",
    "ToolCallStatus",
    "ToolCallUpdate",
    "ToolCallUpdateData",
    "ToolKind",
    "UnknownContentBlock",
    "UnknownPlanContent",
    "UnknownSessionUpdate",
    "UnknownToolCallContent",
    "UnknownVariant",
    "Usage",
    "UsageUpdate",
    "UserMessage",
    "UserMessageChunk",
    "WaitForTerminalExitRequest",
    "WaitForTerminalExitResponse",
    "WriteTextFileRequest",
    "WriteTextFileResponse",
    "parse_content_block",
    "parse_plan_content",
    "parse_session_update",
    "parse_tool_call_content",
    "to_wire",
]

PROTOCOL_VERSION = 1
"""The protocol version this client speaks (an integer on the wire)."""

_DOCS = "https://agentclientprotocol.com/protocol"


# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------


class Method(StrEnum):
    """JSON-RPC method names. https://agentclientprotocol.com/protocol/overview"""

    # client -> agent requests
    INITIALIZE = "initialize"
    AUTHENTICATE = "authenticate"
    LOGOUT = "logout"
    SESSION_NEW = "session/new"
    SESSION_LOAD = "session/load"
    SESSION_RESUME = "session/resume"
    SESSION_LIST = "session/list"
    SESSION_CLOSE = "session/close"
    SESSION_DELETE = "session/delete"
    SESSION_FORK = "session/fork"
    SESSION_PROMPT = "session/prompt"
    SESSION_SET_MODE = "session/set_mode"
    SESSION_SET_CONFIG_OPTION = "session/set_config_option"
    SESSION_SET_TITLE = "session/set_title"
    # client -> agent notifications
    SESSION_CANCEL = "session/cancel"
    # agent -> client notifications
    SESSION_UPDATE = "session/update"
    ELICITATION_COMPLETE = "elicitation/complete"
    # agent -> client requests
    SESSION_REQUEST_PERMISSION = "session/request_permission"
    FS_READ_TEXT_FILE = "fs/read_text_file"
    FS_WRITE_TEXT_FILE = "fs/write_text_file"
    TERMINAL_CREATE = "terminal/create"
    TERMINAL_OUTPUT = "terminal/output"
    TERMINAL_WAIT_FOR_EXIT = "terminal/wait_for_exit"
    TERMINAL_KILL = "terminal/kill"
    TERMINAL_RELEASE = "terminal/release"
    ELICITATION_CREATE = "elicitation/create"
    # either direction
    CANCEL_REQUEST = "$/cancel_request"


class ErrorCode(IntEnum):
    """JSON-RPC / ACP error codes. https://agentclientprotocol.com/protocol/schema#errorcode"""

    PARSE_ERROR = jsonrpc.PARSE_ERROR
    INVALID_REQUEST = jsonrpc.INVALID_REQUEST
    METHOD_NOT_FOUND = jsonrpc.METHOD_NOT_FOUND
    INVALID_PARAMS = jsonrpc.INVALID_PARAMS
    INTERNAL_ERROR = jsonrpc.INTERNAL_ERROR
    REQUEST_CANCELLED = jsonrpc.REQUEST_CANCELLED
    AUTH_REQUIRED = jsonrpc.AUTH_REQUIRED
    RESOURCE_NOT_FOUND = jsonrpc.RESOURCE_NOT_FOUND
    UNSUPPORTED_PROTOCOL_VERSION = -32022  # v2 draft


class SessionUpdateKind(StrEnum):
    """Values of `sessionUpdate`. https://agentclientprotocol.com/protocol/prompt-turn"""

    USER_MESSAGE_CHUNK = "user_message_chunk"
    AGENT_MESSAGE_CHUNK = "agent_message_chunk"
    AGENT_THOUGHT_CHUNK = "agent_thought_chunk"
    TOOL_CALL = "tool_call"
    TOOL_CALL_UPDATE = "tool_call_update"
    PLAN = "plan"
    PLAN_UPDATE = "plan_update"
    PLAN_REMOVED = "plan_removed"
    AVAILABLE_COMMANDS_UPDATE = "available_commands_update"
    CURRENT_MODE_UPDATE = "current_mode_update"
    CONFIG_OPTION_UPDATE = "config_option_update"
    SESSION_INFO_UPDATE = "session_info_update"
    USAGE_UPDATE = "usage_update"
    NOTICE = "notice"
    COMPACTION_UPDATE = "compaction_update"
    COMPACTION_SUMMARY_CHUNK = "compaction_summary_chunk"
    SUBAGENT_UPDATE = "subagent_update"
    SESSION_MESSAGE = "session_message"
    SESSION_MESSAGE_CHUNK = "session_message_chunk"
    # v2 draft
    STATE_UPDATE = "state_update"
    STATE_CHANGE = "state_change"  # spelling of the v2 prompt-lifecycle RFD
    USER_MESSAGE = "user_message"
    AGENT_MESSAGE = "agent_message"
    AGENT_THOUGHT = "agent_thought"
    TOOL_CALL_CONTENT_CHUNK = "tool_call_content_chunk"
    TERMINAL_UPDATE = "terminal_update"
    TERMINAL_OUTPUT_CHUNK = "terminal_output_chunk"


class ToolKind(StrEnum):
    """Tool categories. https://agentclientprotocol.com/protocol/tool-calls#creating"""

    READ = "read"
    EDIT = "edit"
    DELETE = "delete"
    MOVE = "move"
    SEARCH = "search"
    EXECUTE = "execute"
    THINK = "think"
    FETCH = "fetch"
    SWITCH_MODE = "switch_mode"
    OTHER = "other"


class ToolCallStatus(StrEnum):
    """Tool call statuses. https://agentclientprotocol.com/protocol/tool-calls#status"""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"


class StopReason(StrEnum):
    """Why a turn ended. https://agentclientprotocol.com/protocol/prompt-turn#stop-reasons"""

    END_TURN = "end_turn"
    MAX_TOKENS = "max_tokens"
    MAX_TURN_REQUESTS = "max_turn_requests"
    REFUSAL = "refusal"
    CANCELLED = "cancelled"
    ERROR = "error"  # v2 draft (idle state)


class PermissionOptionKind(StrEnum):
    """Permission option kinds. https://agentclientprotocol.com/protocol/tool-calls#requesting-permission"""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    REJECT_ONCE = "reject_once"
    REJECT_ALWAYS = "reject_always"


class PlanEntryPriority(StrEnum):
    """Plan entry priorities. https://agentclientprotocol.com/protocol/agent-plan#plan-entries"""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class PlanEntryStatus(StrEnum):
    """Plan entry statuses. https://agentclientprotocol.com/protocol/agent-plan#plan-entries"""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class NoticeSeverity(StrEnum):
    """Notice severities (others may appear). https://agentclientprotocol.com/protocol/schema#noticeseverity"""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class SessionConfigOptionCategory(StrEnum):
    """Config option categories (others may appear). https://agentclientprotocol.com/protocol/session-config-options"""

    MODE = "mode"
    MODEL = "model"
    MODEL_CONFIG = "model_config"
    THOUGHT_LEVEL = "thought_level"


# --------------------------------------------------------------------------------------
# Base classes and helpers
# --------------------------------------------------------------------------------------


class AcpModel(BaseModel):
    """Base of every ACP wire object. https://agentclientprotocol.com/protocol/extensibility"""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    # Discriminator fields: dumped by to_wire even when left at their default.
    _tag_fields: ClassVar[tuple[str, ...]] = ()

    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    def model_post_init(self, context: Any, /) -> None:
        if self._tag_fields:
            self.__pydantic_fields_set__.update(self._tag_fields)


def to_wire(model: BaseModel) -> dict[str, Any]:
    """Dump a model for the wire: camelCase aliases, unset fields omitted, explicit None kept."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


class UnknownVariant(BaseModel):
    """A variant this client does not understand, kept raw. https://agentclientprotocol.com/protocol/extensibility

    ``kind`` is the raw discriminator (or None when absent / not a string), ``raw`` the
    original data, ``error`` the validation error for a known-but-malformed variant.
    Dumping it (or :func:`to_wire`) gives back ``raw`` unchanged.
    """

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    kind: str | None = None
    raw: Any = None
    error: str | None = None

    @model_serializer
    def _dump_raw(self) -> Any:
        return self.raw


class UnknownSessionUpdate(UnknownVariant):
    """A session update of unknown kind or malformed. https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output"""


class UnknownContentBlock(UnknownVariant):
    """A content block of unknown type or malformed. https://agentclientprotocol.com/protocol/content"""


class UnknownToolCallContent(UnknownVariant):
    """Tool call content of unknown type or malformed. https://agentclientprotocol.com/protocol/tool-calls#content"""


class UnknownPlanContent(UnknownVariant):
    """Plan content of unknown type or malformed. https://agentclientprotocol.com/protocol/agent-plan"""


def _error_text(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors(include_url=False, include_input=False)[:5]:
            loc = ".".join(str(x) for x in err.get("loc", ()))
            parts.append(f"{loc}: {err.get('msg', '')}" if loc else str(err.get("msg", "")))
        return "; ".join(parts)
    return f"{type(exc).__name__}: {exc}"


def _route(
    raw: Any,
    key: str,
    table: dict[str, type[BaseModel]],
    unknown: type[UnknownVariant],
) -> Any:
    """Validate ``raw`` with the model chosen by ``raw[key]``; never raises."""
    if isinstance(raw, BaseModel):
        return raw
    if not isinstance(raw, dict):
        return unknown.model_construct(
            kind=None, raw=raw, error=f"expected an object, got {type(raw).__name__}"
        )
    kind = raw.get(key)
    if not isinstance(kind, str):
        return unknown.model_construct(kind=None, raw=raw, error=f"missing or invalid {key!r}")
    cls = table.get(kind)
    if cls is None:
        return unknown.model_construct(kind=kind, raw=raw, error=None)
    try:
        return cls.model_validate(raw)
    except Exception as exc:  # ValidationError, or anything odd from a validator
        return unknown.model_construct(kind=kind, raw=raw, error=_error_text(exc))


# --------------------------------------------------------------------------------------
# Content blocks  (https://agentclientprotocol.com/protocol/content)
# --------------------------------------------------------------------------------------


class Annotations(AcpModel):
    """Display/routing hints for content. https://agentclientprotocol.com/protocol/content"""

    audience: list[str] | None = None
    last_modified: str | None = Field(default=None, alias="lastModified")
    priority: float | None = None


class TextContent(AcpModel):
    """A text content block. https://agentclientprotocol.com/protocol/content#text-content"""

    _tag_fields = ("type",)
    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None


class ImageContent(AcpModel):
    """An image content block. https://agentclientprotocol.com/protocol/content#image-content"""

    _tag_fields = ("type",)
    type: Literal["image"] = "image"
    data: str
    mime_type: str = Field(alias="mimeType")
    uri: str | None = None
    annotations: Annotations | None = None


class AudioContent(AcpModel):
    """An audio content block. https://agentclientprotocol.com/protocol/content#audio-content"""

    _tag_fields = ("type",)
    type: Literal["audio"] = "audio"
    data: str
    mime_type: str = Field(alias="mimeType")
    annotations: Annotations | None = None


class ResourceLink(AcpModel):
    """A link to a resource. https://agentclientprotocol.com/protocol/content#resource-link"""

    _tag_fields = ("type",)
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = Field(default=None, alias="mimeType")
    size: int | None = None
    annotations: Annotations | None = None


class TextResourceContents(AcpModel):
    """Text contents of an embedded resource. https://agentclientprotocol.com/protocol/content#embedded-resource"""

    uri: str
    text: str
    mime_type: str | None = Field(default=None, alias="mimeType")


class BlobResourceContents(AcpModel):
    """Binary (base64) contents of an embedded resource. https://agentclientprotocol.com/protocol/content#embedded-resource"""

    uri: str
    blob: str
    mime_type: str | None = Field(default=None, alias="mimeType")


class EmbeddedResource(AcpModel):
    """A resource embedded in a message. https://agentclientprotocol.com/protocol/content#embedded-resource"""

    _tag_fields = ("type",)
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | None = None


ContentBlockModel = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
"""Any known content block."""

_CONTENT_BLOCKS: dict[str, type[BaseModel]] = {
    "text": TextContent,
    "image": ImageContent,
    "audio": AudioContent,
    "resource_link": ResourceLink,
    "resource": EmbeddedResource,
}


def parse_content_block(raw: Any) -> ContentBlockModel | UnknownContentBlock:
    """Parse a content block by its ``type``; never raises (unknown/malformed -> Unknown)."""
    return _route(raw, "type", _CONTENT_BLOCKS, UnknownContentBlock)  # type: ignore[no-any-return]


ContentBlock = Annotated[
    TextContent
    | ImageContent
    | AudioContent
    | ResourceLink
    | EmbeddedResource
    | UnknownContentBlock,
    BeforeValidator(parse_content_block),
]
"""Field type for a content block inside another model: tolerant, never fails validation."""


# --------------------------------------------------------------------------------------
# Initialization  (https://agentclientprotocol.com/protocol/initialization)
# --------------------------------------------------------------------------------------


class EmptyCapability(AcpModel):
    """A marker capability: `{}` means supported, absent/null not. https://agentclientprotocol.com/protocol/initialization"""


class Implementation(AcpModel):
    """Name and version of a client or agent. https://agentclientprotocol.com/protocol/initialization"""

    name: str
    version: str = ""
    title: str | None = None


class FileSystemCapabilities(AcpModel):
    """Client file system capabilities. https://agentclientprotocol.com/protocol/initialization#filesystem"""

    read_text_file: bool = Field(default=False, alias="readTextFile")
    write_text_file: bool = Field(default=False, alias="writeTextFile")


class AuthCapabilities(AcpModel):
    """Client authentication capabilities. https://agentclientprotocol.com/protocol/initialization#client-capabilities"""

    terminal: bool = False


class SessionConfigOptionsCapabilities(AcpModel):
    """Client config-option extensions. https://agentclientprotocol.com/protocol/session-config-options"""

    boolean: EmptyCapability | None = None


class ClientSessionCapabilities(AcpModel):
    """Client session extensions. https://agentclientprotocol.com/protocol/initialization#client-capabilities"""

    compaction: EmptyCapability | None = None
    config_options: SessionConfigOptionsCapabilities | None = Field(
        default=None, alias="configOptions"
    )
    notices: EmptyCapability | None = None


class ElicitationCapabilities(AcpModel):
    """Client elicitation modes. https://agentclientprotocol.com/protocol/elicitation"""

    form: EmptyCapability | None = None
    url: EmptyCapability | None = None


class ClientCapabilities(AcpModel):
    """What the client supports. https://agentclientprotocol.com/protocol/initialization#client-capabilities"""

    fs: FileSystemCapabilities = Field(default_factory=FileSystemCapabilities)
    terminal: bool = False
    session: ClientSessionCapabilities | None = None
    auth: AuthCapabilities | None = None
    elicitation: ElicitationCapabilities | None = None
    plan: EmptyCapability | None = None  # unstable
    subagents: EmptyCapability | None = None  # unstable


class PromptCapabilities(AcpModel):
    """Content the agent accepts in prompts. https://agentclientprotocol.com/protocol/initialization#prompt-capabilities"""

    image: bool = False
    audio: bool = False
    embedded_context: bool = Field(default=False, alias="embeddedContext")


class McpCapabilities(AcpModel):
    """MCP transports the agent supports. https://agentclientprotocol.com/protocol/initialization#mcp-capabilities"""

    http: bool = False
    sse: bool = False
    acp: bool = False  # unstable


class SessionCapabilities(AcpModel):
    """Optional session methods the agent supports (`{}` = yes). https://agentclientprotocol.com/protocol/initialization#session-capabilities

    ``list`` is ``list_`` in Python (it would shadow the builtin); the wire name is ``list``.
    """

    list_: EmptyCapability | None = Field(default=None, alias="list")
    resume: EmptyCapability | None = None
    close: EmptyCapability | None = None
    delete: EmptyCapability | None = None
    fork: EmptyCapability | None = None  # unstable
    additional_directories: EmptyCapability | None = Field(
        default=None, alias="additionalDirectories"
    )
    system_prompt: dict[str, Any] | None = Field(default=None, alias="systemPrompt")  # unstable
    archive: EmptyCapability | None = None  # unstable
    status: EmptyCapability | None = None  # unstable
    title: EmptyCapability | None = None  # unstable


class AgentAuthCapabilities(AcpModel):
    """Agent authentication extensions. https://agentclientprotocol.com/protocol/initialization#agent-capabilities"""

    logout: EmptyCapability | None = None
    status: EmptyCapability | None = None  # unstable


class AgentCapabilities(AcpModel):
    """What the agent supports. https://agentclientprotocol.com/protocol/initialization#agent-capabilities"""

    load_session: bool = Field(default=False, alias="loadSession")
    prompt_capabilities: PromptCapabilities = Field(
        default_factory=PromptCapabilities, alias="promptCapabilities"
    )
    mcp_capabilities: McpCapabilities = Field(
        default_factory=McpCapabilities, alias="mcpCapabilities"
    )
    session_capabilities: SessionCapabilities = Field(
        default_factory=SessionCapabilities, alias="sessionCapabilities"
    )
    auth: AgentAuthCapabilities = Field(default_factory=AgentAuthCapabilities)

    @property
    def can_list(self) -> bool:
        return self.session_capabilities.list_ is not None

    @property
    def can_resume(self) -> bool:
        return self.session_capabilities.resume is not None

    @property
    def can_close(self) -> bool:
        return self.session_capabilities.close is not None

    @property
    def can_delete(self) -> bool:
        return self.session_capabilities.delete is not None

    @property
    def can_fork(self) -> bool:
        return self.session_capabilities.fork is not None


class AuthMethod(AcpModel):
    """An authentication method (`type` absent = "agent"; or "terminal"). https://agentclientprotocol.com/protocol/initialization#authentication-methods"""

    id: str
    name: str
    description: str | None = None
    type: str | None = None
    args: list[str] | None = None  # terminal
    env: dict[str, str] | None = None  # terminal


class InitializeRequest(AcpModel):
    """Params of `initialize`. https://agentclientprotocol.com/protocol/initialization"""

    protocol_version: int = Field(default=PROTOCOL_VERSION, alias="protocolVersion")
    client_capabilities: ClientCapabilities = Field(
        default_factory=ClientCapabilities, alias="clientCapabilities"
    )
    client_info: Implementation | None = Field(default=None, alias="clientInfo")
    _tag_fields = ("protocol_version",)


class InitializeResponse(AcpModel):
    """Result of `initialize`. https://agentclientprotocol.com/protocol/initialization"""

    protocol_version: int = Field(alias="protocolVersion")
    agent_capabilities: AgentCapabilities = Field(
        default_factory=AgentCapabilities, alias="agentCapabilities"
    )
    auth_methods: list[AuthMethod] = Field(default_factory=list, alias="authMethods")
    agent_info: Implementation | None = Field(default=None, alias="agentInfo")


class AuthenticateRequest(AcpModel):
    """Params of `authenticate`. https://agentclientprotocol.com/protocol/initialization#authentication"""

    method_id: str = Field(alias="methodId")


class AuthenticateResponse(AcpModel):
    """Result of `authenticate`. https://agentclientprotocol.com/protocol/initialization#authentication"""


# --------------------------------------------------------------------------------------
# Session setup  (https://agentclientprotocol.com/protocol/session-setup)
# --------------------------------------------------------------------------------------


class EnvVariable(AcpModel):
    """An environment variable. https://agentclientprotocol.com/protocol/session-setup#mcp-servers"""

    name: str
    value: str


class HttpHeader(AcpModel):
    """An HTTP header for an MCP server. https://agentclientprotocol.com/protocol/session-setup#mcp-servers"""

    name: str
    value: str


class McpServerStdio(AcpModel):
    """MCP server over stdio (no `type` on the wire). https://agentclientprotocol.com/protocol/session-setup#stdio-transport"""

    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)
    _tag_fields = ("args", "env")  # required on the wire in v1


class McpServerHttp(AcpModel):
    """MCP server over streamable HTTP. https://agentclientprotocol.com/protocol/session-setup#http-transport"""

    _tag_fields = ("type", "headers")
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerSse(AcpModel):
    """MCP server over SSE (deprecated by MCP). https://agentclientprotocol.com/protocol/session-setup#sse-transport"""

    _tag_fields = ("type", "headers")
    type: Literal["sse"] = "sse"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


McpServer = McpServerHttp | McpServerSse | McpServerStdio
"""Any MCP server configuration."""


class SessionMode(AcpModel):
    """A mode the agent can operate in. https://agentclientprotocol.com/protocol/session-modes"""

    id: str
    name: str
    description: str | None = None


class SessionModeState(AcpModel):
    """Available modes and the current one. https://agentclientprotocol.com/protocol/session-modes"""

    current_mode_id: str = Field(alias="currentModeId")
    available_modes: list[SessionMode] = Field(default_factory=list, alias="availableModes")


class SessionConfigSelectOption(AcpModel):
    """One value of a select config option. https://agentclientprotocol.com/protocol/session-config-options"""

    value: str
    name: str
    description: str | None = None


class SessionConfigSelectGroup(AcpModel):
    """A titled group of select values. https://agentclientprotocol.com/protocol/session-config-options"""

    group: str
    name: str
    options: list[SessionConfigSelectOption] = Field(default_factory=list)


class SessionConfigOption(AcpModel):
    """A session config option (`type` "select" or "boolean"; category e.g. "model"). https://agentclientprotocol.com/protocol/session-config-options

    For "select", ``options`` is a flat list of values or a list of groups; see
    :attr:`flat_options`. For "boolean", ``current_value`` is a bool and ``options`` absent.
    """

    _tag_fields = ("type",)
    id: str
    name: str
    type: str = "select"
    current_value: str | bool | None = Field(default=None, alias="currentValue")
    options: list[SessionConfigSelectOption | SessionConfigSelectGroup] | None = None
    description: str | None = None
    category: str | None = None

    @property
    def flat_options(self) -> list[SessionConfigSelectOption]:
        """All selectable values, groups flattened in order."""
        out: list[SessionConfigSelectOption] = []
        for item in self.options or ():
            if isinstance(item, SessionConfigSelectGroup):
                out.extend(item.options)
            else:
                out.append(item)
        return out


class SystemPrompt(AcpModel):
    """Client-provided system prompt (unstable). https://agentclientprotocol.com/protocol/session-setup"""

    mode: str = "append"
    content: list[ContentBlock] = Field(default_factory=list)
    _tag_fields = ("mode",)


class _SessionSetupRequest(AcpModel):
    cwd: str
    mcp_servers: list[McpServer] = Field(default_factory=list, alias="mcpServers")
    additional_directories: list[str] | None = Field(default=None, alias="additionalDirectories")
    system_prompt: SystemPrompt | None = Field(default=None, alias="systemPrompt")
    _tag_fields = ("mcp_servers",)


class _SessionSetupResponse(AcpModel):
    modes: SessionModeState | None = None
    config_options: list[SessionConfigOption] | None = Field(default=None, alias="configOptions")


class NewSessionRequest(_SessionSetupRequest):
    """Params of `session/new`. https://agentclientprotocol.com/protocol/session-setup#creating-a-session"""


class NewSessionResponse(_SessionSetupResponse):
    """Result of `session/new`. https://agentclientprotocol.com/protocol/session-setup#creating-a-session"""

    session_id: str = Field(alias="sessionId")


class LoadSessionRequest(_SessionSetupRequest):
    """Params of `session/load` (agent replays history). https://agentclientprotocol.com/protocol/session-setup#loading-sessions"""

    session_id: str = Field(alias="sessionId")


class LoadSessionResponse(_SessionSetupResponse):
    """Result of `session/load`. https://agentclientprotocol.com/protocol/session-setup#loading-sessions"""


class ResumeSessionRequest(_SessionSetupRequest):
    """Params of `session/resume` (no replay). https://agentclientprotocol.com/protocol/session-setup#resuming-sessions"""

    session_id: str = Field(alias="sessionId")


class ResumeSessionResponse(_SessionSetupResponse):
    """Result of `session/resume`. https://agentclientprotocol.com/protocol/session-setup#resuming-sessions"""


class ForkSessionRequest(_SessionSetupRequest):
    """Params of `session/fork` (unstable). https://agentclientprotocol.com/protocol/session-setup"""

    session_id: str = Field(alias="sessionId")


class ForkSessionResponse(_SessionSetupResponse):
    """Result of `session/fork`: the new session (unstable). https://agentclientprotocol.com/protocol/session-setup"""

    session_id: str = Field(alias="sessionId")


class CloseSessionRequest(AcpModel):
    """Params of `session/close`. https://agentclientprotocol.com/protocol/session-setup"""

    session_id: str = Field(alias="sessionId")


class CloseSessionResponse(AcpModel):
    """Result of `session/close`. https://agentclientprotocol.com/protocol/session-setup"""


class DeleteSessionRequest(AcpModel):
    """Params of `session/delete`. https://agentclientprotocol.com/protocol/session-list"""

    session_id: str = Field(alias="sessionId")


class DeleteSessionResponse(AcpModel):
    """Result of `session/delete`. https://agentclientprotocol.com/protocol/session-list"""


class ListSessionsRequest(AcpModel):
    """Params of `session/list` (only `cwd?` and `cursor?`). https://agentclientprotocol.com/protocol/session-list"""

    cwd: str | None = None
    cursor: str | None = None


class SessionInfo(AcpModel):
    """One session as listed by `session/list`. https://agentclientprotocol.com/protocol/session-list"""

    session_id: str = Field(alias="sessionId")
    cwd: str = ""
    title: str | None = None
    updated_at: str | None = Field(default=None, alias="updatedAt")
    additional_directories: list[str] | None = Field(default=None, alias="additionalDirectories")
    archived: bool | None = None  # unstable


class ListSessionsResponse(AcpModel):
    """Result of `session/list`: a page, `nextCursor` absent on the last. https://agentclientprotocol.com/protocol/session-list"""

    sessions: list[SessionInfo] = Field(default_factory=list)
    next_cursor: str | None = Field(default=None, alias="nextCursor")


class SetSessionModeRequest(AcpModel):
    """Params of `session/set_mode`. https://agentclientprotocol.com/protocol/session-modes#setting-the-current-mode"""

    session_id: str = Field(alias="sessionId")
    mode_id: str = Field(alias="modeId")


class SetSessionModeResponse(AcpModel):
    """Result of `session/set_mode`. https://agentclientprotocol.com/protocol/session-modes#setting-the-current-mode"""


class SetSessionConfigOptionRequest(AcpModel):
    """Params of `session/set_config_option` (`type: "boolean"` for bool values). https://agentclientprotocol.com/protocol/session-config-options"""

    session_id: str = Field(alias="sessionId")
    config_id: str = Field(alias="configId")
    value: str | bool
    type: str | None = None

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        # A boolean value must carry `type: "boolean"`; a string value has no type.
        if isinstance(self.value, bool) and self.type is None:
            self.type = "boolean"


class SetSessionConfigOptionResponse(AcpModel):
    """Result of `session/set_config_option`: the full option set. https://agentclientprotocol.com/protocol/session-config-options"""

    config_options: list[SessionConfigOption] = Field(default_factory=list, alias="configOptions")


# --------------------------------------------------------------------------------------
# Prompt turn  (https://agentclientprotocol.com/protocol/prompt-turn)
# --------------------------------------------------------------------------------------


class Usage(AcpModel):
    """Token usage of one turn (`PromptResponse.usage`, idle state). https://agentclientprotocol.com/protocol/prompt-turn"""

    total_tokens: int = Field(alias="totalTokens")
    input_tokens: int = Field(alias="inputTokens")
    output_tokens: int = Field(alias="outputTokens")
    thought_tokens: int | None = Field(default=None, alias="thoughtTokens")
    cached_read_tokens: int | None = Field(default=None, alias="cachedReadTokens")
    cached_write_tokens: int | None = Field(default=None, alias="cachedWriteTokens")


class PromptRequest(AcpModel):
    """Params of `session/prompt`. https://agentclientprotocol.com/protocol/prompt-turn#1-user-message"""

    session_id: str = Field(alias="sessionId")
    prompt: list[ContentBlock]


class PromptResponse(AcpModel):
    """Result of `session/prompt`. https://agentclientprotocol.com/protocol/prompt-turn#4-check-for-completion

    v1: ``stop_reason`` (+ optional per-turn ``usage``). v2 draft: the response only
    acknowledges acceptance (``message_id``); the end of the turn comes as a `state_update`.
    """

    stop_reason: str | None = Field(default=None, alias="stopReason")
    usage: Usage | None = None
    message_id: str | None = Field(default=None, alias="messageId")  # v2 draft


class CancelNotification(AcpModel):
    """Params of `session/cancel`. https://agentclientprotocol.com/protocol/prompt-turn#cancellation"""

    session_id: str = Field(alias="sessionId")


class CancelRequestNotification(AcpModel):
    """Params of `$/cancel_request`. https://agentclientprotocol.com/protocol/cancellation"""

    request_id: int | str | None = Field(alias="requestId")


class JsonRpcError(AcpModel):
    """A JSON-RPC error object (schema `Error`). https://www.jsonrpc.org/specification#error_object"""

    code: int
    message: str = ""
    data: Any = None


# --------------------------------------------------------------------------------------
# Tool calls  (https://agentclientprotocol.com/protocol/tool-calls)
# --------------------------------------------------------------------------------------


class ContentToolCallContent(AcpModel):
    """Tool call content: a content block. https://agentclientprotocol.com/protocol/tool-calls#regular-content"""

    _tag_fields = ("type",)
    type: Literal["content"] = "content"
    content: ContentBlock


class DiffToolCallContent(AcpModel):
    """Tool call content: a file diff. https://agentclientprotocol.com/protocol/tool-calls#diffs

    v1 shape: ``path``, ``old_text`` (None for a new file), ``new_text``.
    v2 draft shape: ``changes`` (list of {operation, path, oldPath?...}) and ``patch``
    ({format, text}); both kept as raw dicts.
    """

    _tag_fields = ("type",)
    type: Literal["diff"] = "diff"
    path: str | None = None
    old_text: str | None = Field(default=None, alias="oldText")
    new_text: str | None = Field(default=None, alias="newText")
    changes: list[dict[str, Any]] | None = None  # v2 draft
    patch: dict[str, Any] | None = None  # v2 draft


class TerminalToolCallContent(AcpModel):
    """Tool call content: an embedded terminal. https://agentclientprotocol.com/protocol/terminals#embedding-in-tool-calls"""

    _tag_fields = ("type",)
    type: Literal["terminal"] = "terminal"
    terminal_id: str = Field(alias="terminalId")


ToolCallContentModel = ContentToolCallContent | DiffToolCallContent | TerminalToolCallContent
"""Any known tool call content."""

_TOOL_CALL_CONTENT: dict[str, type[BaseModel]] = {
    "content": ContentToolCallContent,
    "diff": DiffToolCallContent,
    "terminal": TerminalToolCallContent,
}


def parse_tool_call_content(raw: Any) -> ToolCallContentModel | UnknownToolCallContent:
    """Parse tool call content by its ``type``; never raises."""
    return _route(raw, "type", _TOOL_CALL_CONTENT, UnknownToolCallContent)  # type: ignore[no-any-return]


ToolCallContent = Annotated[
    ContentToolCallContent | DiffToolCallContent | TerminalToolCallContent | UnknownToolCallContent,
    BeforeValidator(parse_tool_call_content),
]


class ToolCallLocation(AcpModel):
    """A file location a tool touches. https://agentclientprotocol.com/protocol/tool-calls#following-the-agent"""

    path: str
    line: int | None = None


class ToolCallCapabilities(AcpModel):
    """Controls a tool call supports (v2 draft). https://agentclientprotocol.com/protocol/v2/tool-calls"""

    cancel: EmptyCapability | None = None


class ToolCallUpdateData(AcpModel):
    """Fields of a tool call update (also `toolCall` of a permission request). https://agentclientprotocol.com/protocol/tool-calls#updating

    Every field but ``tool_call_id`` is optional: omitted means unchanged.
    """

    tool_call_id: str = Field(alias="toolCallId")
    title: str | None = None
    name: str | None = None
    kind: str | None = None
    status: str | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any = Field(default=None, alias="rawInput")
    raw_output: Any = Field(default=None, alias="rawOutput")
    capabilities: ToolCallCapabilities | None = None  # v2 draft


# --------------------------------------------------------------------------------------
# Session updates  (https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output)
# --------------------------------------------------------------------------------------


class ContentChunk(AcpModel):
    """Base of the streamed message chunks. https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output"""

    content: ContentBlock
    message_id: str | None = Field(default=None, alias="messageId")


class UserMessageChunk(ContentChunk):
    """`user_message_chunk`: a piece of a user message (e.g. replay). https://agentclientprotocol.com/protocol/session-setup#loading-sessions"""

    _tag_fields = ("session_update",)
    session_update: Literal["user_message_chunk"] = Field(
        default="user_message_chunk", alias="sessionUpdate"
    )


class AgentMessageChunk(ContentChunk):
    """`agent_message_chunk`: a piece of the agent's reply. https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output"""

    _tag_fields = ("session_update",)
    session_update: Literal["agent_message_chunk"] = Field(
        default="agent_message_chunk", alias="sessionUpdate"
    )


class AgentThoughtChunk(ContentChunk):
    """`agent_thought_chunk`: a piece of the agent's reasoning. https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output"""

    _tag_fields = ("session_update",)
    session_update: Literal["agent_thought_chunk"] = Field(
        default="agent_thought_chunk", alias="sessionUpdate"
    )


class ToolCall(AcpModel):
    """`tool_call`: a new tool call. https://agentclientprotocol.com/protocol/tool-calls#creating"""

    _tag_fields = ("session_update",)
    session_update: Literal["tool_call"] = Field(default="tool_call", alias="sessionUpdate")
    tool_call_id: str = Field(alias="toolCallId")
    title: str = ""
    name: str | None = None
    kind: str | None = None
    status: str | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any = Field(default=None, alias="rawInput")
    raw_output: Any = Field(default=None, alias="rawOutput")


class ToolCallUpdate(ToolCallUpdateData):
    """`tool_call_update`: a patch (v2: an upsert) of a tool call. https://agentclientprotocol.com/protocol/tool-calls#updating"""

    _tag_fields = ("session_update",)
    session_update: Literal["tool_call_update"] = Field(
        default="tool_call_update", alias="sessionUpdate"
    )


class PlanEntry(AcpModel):
    """One task of a plan. https://agentclientprotocol.com/protocol/agent-plan#plan-entries"""

    content: str
    priority: str = "medium"
    status: str = "pending"


class Plan(AcpModel):
    """`plan`: the complete current plan (replaces the previous one). https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("session_update",)
    session_update: Literal["plan"] = Field(default="plan", alias="sessionUpdate")
    entries: list[PlanEntry] = Field(default_factory=list)


class PlanItems(AcpModel):
    """Plan content: structured entries of plan `plan_id`. https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("type",)
    type: Literal["items"] = "items"
    plan_id: str = Field(alias="planId")
    entries: list[PlanEntry] = Field(default_factory=list)


class PlanFile(AcpModel):
    """Plan content: a file URI (unstable). https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("type",)
    type: Literal["file"] = "file"
    plan_id: str = Field(alias="planId")
    uri: str


class PlanMarkdown(AcpModel):
    """Plan content: raw markdown (unstable). https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("type",)
    type: Literal["markdown"] = "markdown"
    plan_id: str = Field(alias="planId")
    content: str


PlanContentModel = PlanItems | PlanFile | PlanMarkdown
"""Any known plan content."""

_PLAN_CONTENT: dict[str, type[BaseModel]] = {
    "items": PlanItems,
    "file": PlanFile,
    "markdown": PlanMarkdown,
}


def parse_plan_content(raw: Any) -> PlanContentModel | UnknownPlanContent:
    """Parse plan content by its ``type``; never raises."""
    return _route(raw, "type", _PLAN_CONTENT, UnknownPlanContent)  # type: ignore[no-any-return]


class PlanUpdate(AcpModel):
    """`plan_update`: content of a plan identified by id. https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("session_update",)
    session_update: Literal["plan_update"] = Field(default="plan_update", alias="sessionUpdate")
    plan: Annotated[
        PlanItems | PlanFile | PlanMarkdown | UnknownPlanContent,
        BeforeValidator(parse_plan_content),
    ]


class PlanRemoved(AcpModel):
    """`plan_removed`: a plan was removed (unstable). https://agentclientprotocol.com/protocol/agent-plan"""

    _tag_fields = ("session_update",)
    session_update: Literal["plan_removed"] = Field(default="plan_removed", alias="sessionUpdate")
    plan_id: str = Field(alias="planId")


class AvailableCommandInput(AcpModel):
    """Input spec of a command: free text with a hint. https://agentclientprotocol.com/protocol/slash-commands"""

    hint: str = ""
    type: str | None = None  # v2 draft: "text"


class AvailableCommand(AcpModel):
    """A slash command the agent offers. https://agentclientprotocol.com/protocol/slash-commands"""

    name: str
    description: str = ""
    input: AvailableCommandInput | None = None


class AvailableCommandsUpdate(AcpModel):
    """`available_commands_update`: the full command list. https://agentclientprotocol.com/protocol/slash-commands"""

    _tag_fields = ("session_update",)
    session_update: Literal["available_commands_update"] = Field(
        default="available_commands_update", alias="sessionUpdate"
    )
    available_commands: list[AvailableCommand] = Field(
        default_factory=list, alias="availableCommands"
    )


class CurrentModeUpdate(AcpModel):
    """`current_mode_update`: the session mode changed. https://agentclientprotocol.com/protocol/session-modes"""

    _tag_fields = ("session_update",)
    session_update: Literal["current_mode_update"] = Field(
        default="current_mode_update", alias="sessionUpdate"
    )
    current_mode_id: str = Field(alias="currentModeId")


class ConfigOptionUpdate(AcpModel):
    """`config_option_update`: the full set of config options. https://agentclientprotocol.com/protocol/session-config-options"""

    _tag_fields = ("session_update",)
    session_update: Literal["config_option_update"] = Field(
        default="config_option_update", alias="sessionUpdate"
    )
    config_options: list[SessionConfigOption] = Field(default_factory=list, alias="configOptions")


class SessionInfoUpdate(AcpModel):
    """`session_info_update`: omitted = unchanged, null = clear, `_meta` merges. https://agentclientprotocol.com/protocol/session-list#updating-session-info

    Use ``"title" in update.model_fields_set`` to tell "absent" from "explicit null".
    """

    _tag_fields = ("session_update",)
    session_update: Literal["session_info_update"] = Field(
        default="session_info_update", alias="sessionUpdate"
    )
    title: str | None = None
    updated_at: str | None = Field(default=None, alias="updatedAt")


class Cost(AcpModel):
    """Cumulative session cost with its currency. https://agentclientprotocol.com/protocol/prompt-turn"""

    amount: float
    currency: str


class UsageUpdate(AcpModel):
    """`usage_update`: context window `used`/`size` and cumulative `cost?`. https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["usage_update"] = Field(default="usage_update", alias="sessionUpdate")
    used: int
    size: int
    cost: Cost | None = None


class Notice(AcpModel):
    """`notice`: a live, non-history message for the user. https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["notice"] = Field(default="notice", alias="sessionUpdate")
    severity: str = "info"
    title: str
    description: str | None = None


class CompactionUpdate(AcpModel):
    """`compaction_update`: a context compaction upsert. https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["compaction_update"] = Field(
        default="compaction_update", alias="sessionUpdate"
    )
    compaction_id: str = Field(alias="compactionId")
    status: str
    summary: list[ContentBlock] | None = None
    error: str | None = None


class CompactionSummaryChunk(AcpModel):
    """`compaction_summary_chunk`: a block appended to a compaction summary. https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["compaction_summary_chunk"] = Field(
        default="compaction_summary_chunk", alias="sessionUpdate"
    )
    compaction_id: str = Field(alias="compactionId")
    content: ContentBlock


class StateSnapshot(AcpModel):
    """A session's foreground state: running | idle | requires_action | unknown. https://agentclientprotocol.com/protocol/v2/prompt-lifecycle

    ``stop_reason`` and ``usage`` come with "idle"; ``error`` with stopReason "error".
    The RFD spelling ``stop_reason`` is accepted on input; a malformed stop reason is
    treated as not reported (None), as the schema asks.
    """

    state: str
    stop_reason: str | None = Field(default=None, alias="stopReason")
    usage: Usage | None = None
    error: JsonRpcError | None = None
    background: list[dict[str, Any]] | None = None

    @field_validator("stop_reason", mode="before")
    @classmethod
    def _lenient_stop_reason(cls, value: Any) -> Any:
        return value if isinstance(value, str) else None


class StateUpdate(StateSnapshot):
    """`state_update` (RFD: `state_change`): the session's state changed (v2 draft). https://agentclientprotocol.com/protocol/v2/prompt-lifecycle"""

    _tag_fields = ("session_update",)
    session_update: Literal["state_update", "state_change"] = Field(
        default="state_update", alias="sessionUpdate"
    )


class SubagentSessionCapabilities(AcpModel):
    """Mutations the client may apply to a subagent session (unstable). https://agentclientprotocol.com/protocol/prompt-turn"""

    cancel: EmptyCapability | None = None


class SubagentUpdate(AcpModel):
    """`subagent_update`: a child session owned by this one (unstable). https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["subagent_update"] = Field(
        default="subagent_update", alias="sessionUpdate"
    )
    session_id: str = Field(alias="sessionId")
    title: str | None = None
    description: str | None = None
    capabilities: SubagentSessionCapabilities | None = None
    state: StateSnapshot | None = None
    cwd: str | None = None
    additional_directories: list[str] | None = Field(default=None, alias="additionalDirectories")


class SessionMessage(AcpModel):
    """`session_message`: an inter-session message upsert (unstable). https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["session_message"] = Field(
        default="session_message", alias="sessionUpdate"
    )
    message_id: str = Field(alias="messageId")
    sender_session_id: str | None = Field(default=None, alias="senderSessionId")
    recipient_session_id: str | None = Field(default=None, alias="recipientSessionId")
    sender_message_id: str | None = Field(default=None, alias="senderMessageId")
    recipient_message_id: str | None = Field(default=None, alias="recipientMessageId")
    content: list[ContentBlock] | None = None


class SessionMessageChunk(AcpModel):
    """`session_message_chunk`: a block of an inter-session message (unstable). https://agentclientprotocol.com/protocol/prompt-turn"""

    _tag_fields = ("session_update",)
    session_update: Literal["session_message_chunk"] = Field(
        default="session_message_chunk", alias="sessionUpdate"
    )
    message_id: str = Field(alias="messageId")
    content: ContentBlock


class _WholeMessage(AcpModel):
    message_id: str = Field(alias="messageId")
    content: list[ContentBlock] | None = None


class UserMessage(_WholeMessage):
    """`user_message`: whole user message upsert by `messageId` (v2 draft). https://agentclientprotocol.com/protocol/v2/prompt-lifecycle"""

    _tag_fields = ("session_update",)
    session_update: Literal["user_message"] = Field(default="user_message", alias="sessionUpdate")


class AgentMessage(_WholeMessage):
    """`agent_message`: whole agent message upsert by `messageId` (v2 draft). https://agentclientprotocol.com/protocol/v2/prompt-lifecycle"""

    _tag_fields = ("session_update",)
    session_update: Literal["agent_message"] = Field(default="agent_message", alias="sessionUpdate")


class AgentThought(_WholeMessage):
    """`agent_thought`: whole thought message upsert by `messageId` (v2 draft). https://agentclientprotocol.com/protocol/v2/prompt-lifecycle"""

    _tag_fields = ("session_update",)
    session_update: Literal["agent_thought"] = Field(default="agent_thought", alias="sessionUpdate")


class ToolCallContentChunk(AcpModel):
    """`tool_call_content_chunk`: one item appended to a tool call's content (v2 draft). https://agentclientprotocol.com/protocol/v2/tool-calls"""

    _tag_fields = ("session_update",)
    session_update: Literal["tool_call_content_chunk"] = Field(
        default="tool_call_content_chunk", alias="sessionUpdate"
    )
    tool_call_id: str = Field(alias="toolCallId")
    content: ToolCallContent


class TerminalExitStatus(AcpModel):
    """How a terminal command exited. https://agentclientprotocol.com/protocol/terminals"""

    exit_code: int | None = Field(default=None, alias="exitCode")
    signal: str | None = None


class TerminalOutput(AcpModel):
    """Base64 snapshot of an agent-owned terminal's output (v2 draft). https://agentclientprotocol.com/protocol/v2/terminals"""

    data: str


class TerminalSize(AcpModel):
    """Terminal size in cells (v2 draft). https://agentclientprotocol.com/protocol/v2/terminals"""

    cols: int
    rows: int


class TerminalCapabilities(AcpModel):
    """Controls an agent-owned terminal supports (v2 draft). https://agentclientprotocol.com/protocol/v2/terminals"""

    cancel: EmptyCapability | None = None


class TerminalUpdate(AcpModel):
    """`terminal_update`: agent-owned terminal upsert (v2 draft). https://agentclientprotocol.com/protocol/v2/terminals"""

    _tag_fields = ("session_update",)
    session_update: Literal["terminal_update"] = Field(
        default="terminal_update", alias="sessionUpdate"
    )
    terminal_id: str = Field(alias="terminalId")
    command: str | None = None
    cwd: str | None = None
    output: TerminalOutput | None = None
    exit_status: TerminalExitStatus | None = Field(default=None, alias="exitStatus")
    size: TerminalSize | None = None
    capabilities: TerminalCapabilities | None = None


class TerminalOutputChunk(AcpModel):
    """`terminal_output_chunk`: base64 bytes appended to a terminal (v2 draft). https://agentclientprotocol.com/protocol/v2/terminals"""

    _tag_fields = ("session_update",)
    session_update: Literal["terminal_output_chunk"] = Field(
        default="terminal_output_chunk", alias="sessionUpdate"
    )
    terminal_id: str = Field(alias="terminalId")
    data: str


SessionUpdateModel = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCall
    | ToolCallUpdate
    | Plan
    | PlanUpdate
    | PlanRemoved
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
    | Notice
    | CompactionUpdate
    | CompactionSummaryChunk
    | SubagentUpdate
    | SessionMessage
    | SessionMessageChunk
    | StateUpdate
    | UserMessage
    | AgentMessage
    | AgentThought
    | ToolCallContentChunk
    | TerminalUpdate
    | TerminalOutputChunk
)
"""Any known session update."""

SESSION_UPDATE_MODELS: dict[str, type[BaseModel]] = {
    "user_message_chunk": UserMessageChunk,
    "agent_message_chunk": AgentMessageChunk,
    "agent_thought_chunk": AgentThoughtChunk,
    "tool_call": ToolCall,
    "tool_call_update": ToolCallUpdate,
    "plan": Plan,
    "plan_update": PlanUpdate,
    "plan_removed": PlanRemoved,
    "available_commands_update": AvailableCommandsUpdate,
    "current_mode_update": CurrentModeUpdate,
    "config_option_update": ConfigOptionUpdate,
    "session_info_update": SessionInfoUpdate,
    "usage_update": UsageUpdate,
    "notice": Notice,
    "compaction_update": CompactionUpdate,
    "compaction_summary_chunk": CompactionSummaryChunk,
    "subagent_update": SubagentUpdate,
    "session_message": SessionMessage,
    "session_message_chunk": SessionMessageChunk,
    "state_update": StateUpdate,
    "state_change": StateUpdate,
    "user_message": UserMessage,
    "agent_message": AgentMessage,
    "agent_thought": AgentThought,
    "tool_call_content_chunk": ToolCallContentChunk,
    "terminal_update": TerminalUpdate,
    "terminal_output_chunk": TerminalOutputChunk,
}
"""Routing table: raw `sessionUpdate` string -> model."""


def parse_session_update(raw: Any) -> SessionUpdateModel | UnknownSessionUpdate:
    """Parse the ``update`` object of `session/update`; never raises.

    Routes on the raw ``sessionUpdate`` string. An unknown kind gives
    ``UnknownSessionUpdate(kind=..., raw=raw, error=None)``; a known kind that fails
    validation gives ``UnknownSessionUpdate(kind=..., raw=raw, error="...")``.
    """
    return _route(raw, "sessionUpdate", SESSION_UPDATE_MODELS, UnknownSessionUpdate)  # type: ignore[no-any-return]


SessionUpdate = Annotated[
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCall
    | ToolCallUpdate
    | Plan
    | PlanUpdate
    | PlanRemoved
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
    | Notice
    | CompactionUpdate
    | CompactionSummaryChunk
    | SubagentUpdate
    | SessionMessage
    | SessionMessageChunk
    | StateUpdate
    | UserMessage
    | AgentMessage
    | AgentThought
    | ToolCallContentChunk
    | TerminalUpdate
    | TerminalOutputChunk
    | UnknownSessionUpdate,
    BeforeValidator(parse_session_update),
]


class SessionNotification(AcpModel):
    """Params of `session/update`; ``update`` is parsed tolerantly. https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output"""

    session_id: str = Field(alias="sessionId")
    update: SessionUpdate


# --------------------------------------------------------------------------------------
# Permission  (https://agentclientprotocol.com/protocol/tool-calls#requesting-permission)
# --------------------------------------------------------------------------------------


class PermissionOption(AcpModel):
    """An option offered to the user (kind allow_once|allow_always|reject_once|reject_always). https://agentclientprotocol.com/protocol/tool-calls#permission-options"""

    option_id: str = Field(alias="optionId")
    name: str
    kind: str


class RequestPermissionRequest(AcpModel):
    """Params of `session/request_permission`. https://agentclientprotocol.com/protocol/tool-calls#requesting-permission"""

    session_id: str = Field(alias="sessionId")
    tool_call: ToolCallUpdateData = Field(alias="toolCall")
    options: list[PermissionOption] = Field(default_factory=list)


class RequestPermissionOutcome(AcpModel):
    """`{"outcome": "selected", "optionId": ...}` or `{"outcome": "cancelled"}`. https://agentclientprotocol.com/protocol/tool-calls#requesting-permission"""

    _tag_fields = ("outcome",)
    outcome: str = "cancelled"
    option_id: str | None = Field(default=None, alias="optionId")


class RequestPermissionResponse(AcpModel):
    """Result of `session/request_permission`. https://agentclientprotocol.com/protocol/tool-calls#requesting-permission"""

    outcome: RequestPermissionOutcome

    @classmethod
    def selected(cls, option_id: str) -> Self:
        return cls(outcome=RequestPermissionOutcome(outcome="selected", option_id=option_id))

    @classmethod
    def cancelled(cls) -> Self:
        return cls(outcome=RequestPermissionOutcome(outcome="cancelled"))


# --------------------------------------------------------------------------------------
# File system  (https://agentclientprotocol.com/protocol/file-system)
# --------------------------------------------------------------------------------------


class ReadTextFileRequest(AcpModel):
    """Params of `fs/read_text_file` (`line` is 1-based). https://agentclientprotocol.com/protocol/file-system#reading-files"""

    session_id: str = Field(alias="sessionId")
    path: str
    line: int | None = None
    limit: int | None = None


class ReadTextFileResponse(AcpModel):
    """Result of `fs/read_text_file`. https://agentclientprotocol.com/protocol/file-system#reading-files"""

    content: str


class WriteTextFileRequest(AcpModel):
    """Params of `fs/write_text_file`. https://agentclientprotocol.com/protocol/file-system#writing-files"""

    session_id: str = Field(alias="sessionId")
    path: str
    content: str


class WriteTextFileResponse(AcpModel):
    """Result of `fs/write_text_file`. https://agentclientprotocol.com/protocol/file-system#writing-files"""


# --------------------------------------------------------------------------------------
# Terminals  (https://agentclientprotocol.com/protocol/terminals)
# --------------------------------------------------------------------------------------


class CreateTerminalRequest(AcpModel):
    """Params of `terminal/create`. https://agentclientprotocol.com/protocol/terminals#executing-commands"""

    session_id: str = Field(alias="sessionId")
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)
    cwd: str | None = None
    output_byte_limit: int | None = Field(default=None, alias="outputByteLimit")


class CreateTerminalResponse(AcpModel):
    """Result of `terminal/create`. https://agentclientprotocol.com/protocol/terminals#executing-commands"""

    terminal_id: str = Field(alias="terminalId")


class _TerminalRef(AcpModel):
    session_id: str = Field(alias="sessionId")
    terminal_id: str = Field(alias="terminalId")


class TerminalOutputRequest(_TerminalRef):
    """Params of `terminal/output`. https://agentclientprotocol.com/protocol/terminals#getting-output"""


class TerminalOutputResponse(AcpModel):
    """Result of `terminal/output`. https://agentclientprotocol.com/protocol/terminals#getting-output"""

    output: str
    truncated: bool = False
    exit_status: TerminalExitStatus | None = Field(default=None, alias="exitStatus")
    _tag_fields = ("truncated",)


class WaitForTerminalExitRequest(_TerminalRef):
    """Params of `terminal/wait_for_exit`. https://agentclientprotocol.com/protocol/terminals#waiting-for-exit"""


class WaitForTerminalExitResponse(AcpModel):
    """Result of `terminal/wait_for_exit`. https://agentclientprotocol.com/protocol/terminals#waiting-for-exit"""

    exit_code: int | None = Field(default=None, alias="exitCode")
    signal: str | None = None


class KillTerminalRequest(_TerminalRef):
    """Params of `terminal/kill`. https://agentclientprotocol.com/protocol/terminals#killing-commands"""


class KillTerminalResponse(AcpModel):
    """Result of `terminal/kill`. https://agentclientprotocol.com/protocol/terminals#killing-commands"""


class ReleaseTerminalRequest(_TerminalRef):
    """Params of `terminal/release`. https://agentclientprotocol.com/protocol/terminals#releasing-terminals"""


class ReleaseTerminalResponse(AcpModel):
    """Result of `terminal/release`. https://agentclientprotocol.com/protocol/terminals#releasing-terminals"""


# --------------------------------------------------------------------------------------
# Elicitation (unstable)  (https://agentclientprotocol.com/protocol/elicitation)
# --------------------------------------------------------------------------------------


class ElicitationSchema(AcpModel):
    """Restricted JSON Schema of an elicitation form. https://agentclientprotocol.com/protocol/elicitation"""

    type: str = "object"
    title: str | None = None
    description: str | None = None
    properties: dict[str, dict[str, Any]] = Field(default_factory=dict)
    required: list[str] | None = None


class CreateElicitationRequest(AcpModel):
    """Params of `elicitation/create` (mode "form" or "url"; scoped to a session or request). https://agentclientprotocol.com/protocol/elicitation"""

    message: str
    mode: str
    requested_schema: ElicitationSchema | None = Field(default=None, alias="requestedSchema")
    elicitation_id: str | None = Field(default=None, alias="elicitationId")  # url mode
    url: str | None = None  # url mode
    session_id: str | None = Field(default=None, alias="sessionId")
    tool_call_id: str | None = Field(default=None, alias="toolCallId")
    request_id: int | str | None = Field(default=None, alias="requestId")


class CreateElicitationResponse(AcpModel):
    """Result of `elicitation/create`: action accept (+content) | decline | cancel. https://agentclientprotocol.com/protocol/elicitation"""

    _tag_fields = ("action",)
    action: str = "cancel"
    content: dict[str, Any] | None = None


class CompleteElicitationNotification(AcpModel):
    """Params of `elicitation/complete` (a URL elicitation finished). https://agentclientprotocol.com/protocol/elicitation"""

    elicitation_id: str = Field(alias="elicitationId")


# --------------------------------------------------------------------------------------
# Method tables
# --------------------------------------------------------------------------------------

REQUEST_PARAMS: dict[str, type[AcpModel]] = {
    Method.INITIALIZE: InitializeRequest,
    Method.AUTHENTICATE: AuthenticateRequest,
    Method.SESSION_NEW: NewSessionRequest,
    Method.SESSION_LOAD: LoadSessionRequest,
    Method.SESSION_RESUME: ResumeSessionRequest,
    Method.SESSION_LIST: ListSessionsRequest,
    Method.SESSION_CLOSE: CloseSessionRequest,
    Method.SESSION_DELETE: DeleteSessionRequest,
    Method.SESSION_FORK: ForkSessionRequest,
    Method.SESSION_PROMPT: PromptRequest,
    Method.SESSION_SET_MODE: SetSessionModeRequest,
    Method.SESSION_SET_CONFIG_OPTION: SetSessionConfigOptionRequest,
    Method.SESSION_CANCEL: CancelNotification,
    Method.SESSION_UPDATE: SessionNotification,
    Method.SESSION_REQUEST_PERMISSION: RequestPermissionRequest,
    Method.FS_READ_TEXT_FILE: ReadTextFileRequest,
    Method.FS_WRITE_TEXT_FILE: WriteTextFileRequest,
    Method.TERMINAL_CREATE: CreateTerminalRequest,
    Method.TERMINAL_OUTPUT: TerminalOutputRequest,
    Method.TERMINAL_WAIT_FOR_EXIT: WaitForTerminalExitRequest,
    Method.TERMINAL_KILL: KillTerminalRequest,
    Method.TERMINAL_RELEASE: ReleaseTerminalRequest,
    Method.ELICITATION_CREATE: CreateElicitationRequest,
    Method.ELICITATION_COMPLETE: CompleteElicitationNotification,
    Method.CANCEL_REQUEST: CancelRequestNotification,
}
"""Method name -> params model (requests and notifications, both directions)."""

RESPONSE_RESULTS: dict[str, type[AcpModel]] = {
    Method.INITIALIZE: InitializeResponse,
    Method.AUTHENTICATE: AuthenticateResponse,
    Method.SESSION_NEW: NewSessionResponse,
    Method.SESSION_LOAD: LoadSessionResponse,
    Method.SESSION_RESUME: ResumeSessionResponse,
    Method.SESSION_LIST: ListSessionsResponse,
    Method.SESSION_CLOSE: CloseSessionResponse,
    Method.SESSION_DELETE: DeleteSessionResponse,
    Method.SESSION_FORK: ForkSessionResponse,
    Method.SESSION_PROMPT: PromptResponse,
    Method.SESSION_SET_MODE: SetSessionModeResponse,
    Method.SESSION_SET_CONFIG_OPTION: SetSessionConfigOptionResponse,
    Method.SESSION_REQUEST_PERMISSION: RequestPermissionResponse,
    Method.FS_READ_TEXT_FILE: ReadTextFileResponse,
    Method.FS_WRITE_TEXT_FILE: WriteTextFileResponse,
    Method.TERMINAL_CREATE: CreateTerminalResponse,
    Method.TERMINAL_OUTPUT: TerminalOutputResponse,
    Method.TERMINAL_WAIT_FOR_EXIT: WaitForTerminalExitResponse,
    Method.TERMINAL_KILL: KillTerminalResponse,
    Method.TERMINAL_RELEASE: ReleaseTerminalResponse,
    Method.ELICITATION_CREATE: CreateElicitationResponse,
}
"""Method name -> result model."""
