"""What the agent asks of the client, as :class:`~typing.TypedDict` shapes (protocol v1): a
permission for a tool call (``session/request_permission``), files (``fs/*``) and terminals
(``terminal/*``), each request with its response. Declarations like
:mod:`acp_tui.wire.schema` (whose tool call update a permission request carries), imported
only under ``TYPE_CHECKING`` at run time, and checked against the official JSON schema by
``tests/test_schema.py``.

Spec: https://agentclientprotocol.com/protocol/v1/overview#client
"""

from typing import Literal, Required, TypedDict

from acp_tui.wire.constants import PermissionOptionKind
from acp_tui.wire.schema import EnvVariable, ToolCallUpdate
from acp_tui.wire.updates import JsonObject

# ---- Permission ---------------------------------------------------------------------------


class PermissionOption(TypedDict, total=False):
    """An option presented to the user when requesting permission. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls"""

    optionId: Required[str]
    name: Required[str]
    kind: Required[PermissionOptionKind]
    _meta: JsonObject | None


class RequestPermissionRequest(TypedDict, total=False):
    """Request for user permission to execute a tool call. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission"""

    sessionId: Required[str]
    toolCall: Required[ToolCallUpdate]
    options: Required[list[PermissionOption]]
    _meta: JsonObject | None


class SelectedPermissionOutcome(TypedDict, total=False):
    """The user selected one of the provided options. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls"""

    outcome: Required[Literal["selected"]]
    optionId: Required[str]
    _meta: JsonObject | None


class CancelledPermissionOutcome(TypedDict):
    """The prompt turn was cancelled before the person answered (an inline variant of
    ``RequestPermissionOutcome``). Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission"""

    outcome: Literal["cancelled"]


#: The person's answer, tagged by ``outcome``.
RequestPermissionOutcome = CancelledPermissionOutcome | SelectedPermissionOutcome


class RequestPermissionResponse(TypedDict, total=False):
    """Response to a permission request. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls"""

    outcome: Required[RequestPermissionOutcome]
    _meta: JsonObject | None


# ---- File system and terminals -----------------------------------------------------------


class ReadTextFileRequest(TypedDict, total=False):
    """Request to read content from a text file. Spec:
    https://agentclientprotocol.com/protocol/v1/file-system"""

    sessionId: Required[str]
    path: Required[str]
    line: int | None
    limit: int | None
    _meta: JsonObject | None


class ReadTextFileResponse(TypedDict, total=False):
    """Response containing the contents of a text file. Spec:
    https://agentclientprotocol.com/protocol/v1/file-system"""

    content: Required[str]
    _meta: JsonObject | None


class WriteTextFileRequest(TypedDict, total=False):
    """Request to write content to a text file. Spec:
    https://agentclientprotocol.com/protocol/v1/file-system"""

    sessionId: Required[str]
    path: Required[str]
    content: Required[str]
    _meta: JsonObject | None


class CreateTerminalRequest(TypedDict, total=False):
    """Request to create a new terminal and execute a command. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    sessionId: Required[str]
    command: Required[str]
    args: list[str]
    env: list[EnvVariable]
    cwd: str | None
    outputByteLimit: int | None
    _meta: JsonObject | None


class CreateTerminalResponse(TypedDict, total=False):
    """Response containing the ID of the created terminal. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    terminalId: Required[str]
    _meta: JsonObject | None


class TerminalOutputRequest(TypedDict, total=False):
    """Request to get the current output and status of a terminal. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    sessionId: Required[str]
    terminalId: Required[str]
    _meta: JsonObject | None


class TerminalExitStatus(TypedDict, total=False):
    """Exit status of a terminal command. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    exitCode: int | None
    signal: str | None
    _meta: JsonObject | None


class TerminalOutputResponse(TypedDict, total=False):
    """Response containing the terminal output and exit status. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    output: Required[str]
    truncated: Required[bool]
    exitStatus: TerminalExitStatus | None
    _meta: JsonObject | None


class WaitForTerminalExitRequest(TypedDict, total=False):
    """Request to wait for a terminal command to exit. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    sessionId: Required[str]
    terminalId: Required[str]
    _meta: JsonObject | None


class WaitForTerminalExitResponse(TypedDict, total=False):
    """Response containing the exit status of a terminal command. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    exitCode: int | None
    signal: str | None
    _meta: JsonObject | None


class KillTerminalRequest(TypedDict, total=False):
    """Request to kill a terminal without releasing it. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    sessionId: Required[str]
    terminalId: Required[str]
    _meta: JsonObject | None


class ReleaseTerminalRequest(TypedDict, total=False):
    """Request to release a terminal and free its resources. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    sessionId: Required[str]
    terminalId: Required[str]
    _meta: JsonObject | None
