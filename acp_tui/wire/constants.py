"""The ACP wire's names, declared once: method names, ``sessionUpdate`` kinds, stop reasons,
tool kinds and statuses, permission option kinds, error codes (protocol v1).

Code that reads or writes the wire uses these instead of string literals; the message shapes
that go with them are in :mod:`acp_tui.wire.schema` (and, for ``session/update``, as the
client takes them, in :mod:`acp_tui.wire.updates`). Kept apart because this module is on
the path to the first frame and costs about a millisecond to import, where the ~70 shapes
of the schema cost about 10 ms and are needed only by type checkers and tests.
``tests/test_schema.py`` checks every value against the official JSON schema.

Spec: https://agentclientprotocol.com/protocol/v1/overview
"""

from typing import Final, Literal, get_args

PROTOCOL_VERSION: Final = 1
"""The protocol version this client speaks. Spec:
https://agentclientprotocol.com/protocol/v1/initialization#protocol-version"""


class Method:
    """JSON-RPC method names (``x-method`` in the schema). Spec:
    https://agentclientprotocol.com/protocol/v1/overview"""

    # The client calls the agent.
    INITIALIZE: Final = "initialize"
    AUTHENTICATE: Final = "authenticate"
    LOGOUT: Final = "logout"
    SESSION_NEW: Final = "session/new"
    SESSION_LOAD: Final = "session/load"
    SESSION_RESUME: Final = "session/resume"
    SESSION_LIST: Final = "session/list"
    SESSION_CLOSE: Final = "session/close"
    SESSION_DELETE: Final = "session/delete"
    SESSION_PROMPT: Final = "session/prompt"
    SESSION_CANCEL: Final = "session/cancel"
    SESSION_SET_MODE: Final = "session/set_mode"
    SESSION_SET_CONFIG_OPTION: Final = "session/set_config_option"
    # The agent calls the client.
    SESSION_UPDATE: Final = "session/update"
    SESSION_REQUEST_PERMISSION: Final = "session/request_permission"
    FS_READ_TEXT_FILE: Final = "fs/read_text_file"
    FS_WRITE_TEXT_FILE: Final = "fs/write_text_file"
    TERMINAL_CREATE: Final = "terminal/create"
    TERMINAL_OUTPUT: Final = "terminal/output"
    TERMINAL_WAIT_FOR_EXIT: Final = "terminal/wait_for_exit"
    TERMINAL_KILL: Final = "terminal/kill"
    TERMINAL_RELEASE: Final = "terminal/release"
    ELICITATION_CREATE: Final = "elicitation/create"
    ELICITATION_COMPLETE: Final = "elicitation/complete"
    # Either side.
    CANCEL_REQUEST: Final = "$/cancel_request"
    # Unstable (schema.unstable.json).
    SESSION_FORK: Final = "session/fork"
    SESSION_SET_TITLE: Final = "session/set_title"
    SESSION_ARCHIVE: Final = "session/archive"
    SESSION_UNARCHIVE: Final = "session/unarchive"
    #: Whether the agent has a session in memory, asked without changing it.
    SESSION_STATUS: Final = "session/status"
    #: The agent's sign-in state, asked; and pushed by the agent when it changes.
    AUTH_STATUS: Final = "auth/status"
    AUTH_STATUS_UPDATE: Final = "auth/status_update"
    # Newer than the schema kept here (schema v1.32.0, tests/data/acp-schema/newer.json):
    # the config options a session would start with, before it exists.
    # https://agentclientprotocol.com/rfds/session-options
    SESSION_OPTIONS: Final = "session/options"
    # Newer than the schema kept here: the mid-turn input RFD (see :class:`Inject`).
    SESSION_INJECT: Final = "session/inject"


class ForkAtMessage:
    """Forking a session at a message (unstable): the agent advertises
    ``sessionCapabilities.fork.atMessageId: true`` and then takes a ``messageId`` on
    ``session/fork``; the branch holds the messages up to and including that one. Spec:
    https://agentclientprotocol.com/rfds/session-fork-at-message"""

    #: In ``sessionCapabilities.fork`` (v1) or ``session.fork`` (v2).
    CAPABILITY: Final = "atMessageId"
    #: The ``session/fork`` parameter: the last message the branch keeps.
    PARAM: Final = "messageId"


class Inject:
    """Mid-turn input (the ``session/inject`` RFD, ACP PR #1261; a v2 draft, unstable): the
    agent advertises ``sessionCapabilities.inject`` (v1) or ``session.inject`` (v2) with the
    ``modes`` it takes; ``session/inject`` takes ``sessionId``, ``mode`` and ``content`` (the
    blocks of a prompt) and answers ``{"messageId"}`` once the message is accepted; it is
    delivered into the running turn (``steer``) or after it (``queue``), echoed then as a
    ``user_message`` with that id. Spec:
    https://agentclientprotocol.com/rfds/v2/session-inject"""

    #: In ``sessionCapabilities`` (v1) or ``session`` (v2).
    CAPABILITY: Final = "inject"
    MODES: Final = "modes"
    #: Delivered at the running turn's next safe break-point.
    STEER: Final = "steer"
    #: Delivered once the running turn is over.
    QUEUE: Final = "queue"


class UpdateKind:
    """``sessionUpdate`` discriminators of ``session/update``. Spec:
    https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output"""

    USER_MESSAGE_CHUNK: Final = "user_message_chunk"
    AGENT_MESSAGE_CHUNK: Final = "agent_message_chunk"
    AGENT_THOUGHT_CHUNK: Final = "agent_thought_chunk"
    TOOL_CALL: Final = "tool_call"
    TOOL_CALL_UPDATE: Final = "tool_call_update"
    PLAN: Final = "plan"
    AVAILABLE_COMMANDS_UPDATE: Final = "available_commands_update"
    CURRENT_MODE_UPDATE: Final = "current_mode_update"
    CONFIG_OPTION_UPDATE: Final = "config_option_update"
    SESSION_INFO_UPDATE: Final = "session_info_update"
    USAGE_UPDATE: Final = "usage_update"
    NOTICE: Final = "notice"
    COMPACTION_UPDATE: Final = "compaction_update"
    COMPACTION_SUMMARY_CHUNK: Final = "compaction_summary_chunk"
    # Unstable (schema.unstable.json).
    PLAN_UPDATE: Final = "plan_update"
    PLAN_REMOVED: Final = "plan_removed"
    # Subagent sessions (v1 unstable in the schema; stable since 2026-11-20, a v2 baseline):
    # https://agentclientprotocol.com/protocol/v1/subagents
    SUBAGENT_UPDATE: Final = "subagent_update"
    SESSION_MESSAGE: Final = "session_message"
    SESSION_MESSAGE_CHUNK: Final = "session_message_chunk"
    # Newer than the schema kept here (SDK 2.4.0): unstable prompt suggestions (schema
    # v1.32.0, https://agentclientprotocol.com/rfds/prompt-suggestions), v1 and v2.
    PROMPT_SUGGESTIONS_UPDATE: Final = "prompt_suggestions_update"
    # Protocol v2 (the draft: v2/schema.json).
    USER_MESSAGE: Final = "user_message"
    AGENT_MESSAGE: Final = "agent_message"
    AGENT_THOUGHT: Final = "agent_thought"
    TOOL_CALL_CONTENT_CHUNK: Final = "tool_call_content_chunk"
    STATE_UPDATE: Final = "state_update"
    TERMINAL_UPDATE: Final = "terminal_update"
    TERMINAL_OUTPUT_CHUNK: Final = "terminal_output_chunk"
    #: ``state_update`` as the v2 RFD spells it (not in any schema; some agents send it).
    STATE_CHANGE: Final = "state_change"
    #: v2 preview (newer than the schema kept here): the end of a resume's replay.
    #: https://agentclientprotocol.com/rfds/v2/session-replay-complete
    REPLAY_COMPLETE: Final = "replay_complete"


#: The ``sessionUpdate`` kinds of the stable schema.
SESSION_UPDATE_KINDS: Final = frozenset(
    {
        UpdateKind.USER_MESSAGE_CHUNK,
        UpdateKind.AGENT_MESSAGE_CHUNK,
        UpdateKind.AGENT_THOUGHT_CHUNK,
        UpdateKind.TOOL_CALL,
        UpdateKind.TOOL_CALL_UPDATE,
        UpdateKind.PLAN,
        UpdateKind.AVAILABLE_COMMANDS_UPDATE,
        UpdateKind.CURRENT_MODE_UPDATE,
        UpdateKind.CONFIG_OPTION_UPDATE,
        UpdateKind.SESSION_INFO_UPDATE,
        UpdateKind.USAGE_UPDATE,
        UpdateKind.NOTICE,
        UpdateKind.COMPACTION_UPDATE,
        UpdateKind.COMPACTION_SUMMARY_CHUNK,
    }
)

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
"""Why a prompt turn ended. Spec:
https://agentclientprotocol.com/protocol/v1/prompt-turn#stop-reasons"""
END_TURN: Final = "end_turn"
MAX_TOKENS: Final = "max_tokens"
MAX_TURN_REQUESTS: Final = "max_turn_requests"
REFUSAL: Final = "refusal"
CANCELLED: Final = "cancelled"

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
"""The category of a tool call, for its icon. Spec:
https://agentclientprotocol.com/protocol/v1/tool-calls#creating"""
TOOL_KINDS: Final[tuple[ToolKind, ...]] = get_args(ToolKind)

ToolCallStatus = Literal["pending", "in_progress", "completed", "failed"]
"""Where a tool call is in its life. Spec:
https://agentclientprotocol.com/protocol/v1/tool-calls#status"""
TOOL_CALL_STATUSES: Final[tuple[ToolCallStatus, ...]] = get_args(ToolCallStatus)

PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
"""What choosing a permission option means. Spec:
https://agentclientprotocol.com/protocol/v1/tool-calls#permission-options"""
ALLOW_ONCE: Final = "allow_once"
ALLOW_ALWAYS: Final = "allow_always"
REJECT_ONCE: Final = "reject_once"
REJECT_ALWAYS: Final = "reject_always"
PERMISSION_OPTION_KINDS: Final[tuple[PermissionOptionKind, ...]] = get_args(PermissionOptionKind)

PlanEntryPriority = Literal["high", "medium", "low"]
"""How much a plan entry matters. Spec:
https://agentclientprotocol.com/protocol/v1/agent-plan#plan-entries"""

PlanEntryStatus = Literal["pending", "in_progress", "completed"]
"""Where a plan entry is. Spec: https://agentclientprotocol.com/protocol/v1/agent-plan#plan-entries"""

Role = Literal["assistant", "user"]
"""Who a piece of content is for (annotations). Spec:
https://agentclientprotocol.com/protocol/v1/content"""


class AuthStateName:
    """``AuthState`` (unstable): whether the agent can start sessions without a sign-in. A
    value the client does not know means :attr:`UNKNOWN`. Spec:
    https://agentclientprotocol.com/rfds/get-auth-state"""

    AUTHENTICATED: Final = "authenticated"
    UNAUTHENTICATED: Final = "unauthenticated"
    NOT_REQUIRED: Final = "not_required"
    UNKNOWN: Final = "unknown"


class SessionStatusName:
    """``SessionStatus`` (unstable), as ``session/status`` answers: the agent has the session
    in memory (for any connection), or only saved. A value the client does not know means
    :attr:`SAVED`. Spec: https://agentclientprotocol.com/rfds/session-status"""

    OPEN: Final = "open"
    SAVED: Final = "saved"


class ErrorCode:
    """JSON-RPC error codes the protocol names. Spec:
    https://agentclientprotocol.com/protocol/v1/overview"""

    PARSE_ERROR: Final = -32700
    INVALID_REQUEST: Final = -32600
    METHOD_NOT_FOUND: Final = -32601
    INVALID_PARAMS: Final = -32602
    INTERNAL_ERROR: Final = -32603
    REQUEST_CANCELLED: Final = -32800
    AUTH_REQUIRED: Final = -32000
    RESOURCE_NOT_FOUND: Final = -32002
