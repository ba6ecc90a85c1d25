"""What the agent may ask of the client: files (``fs/*``) and terminals (``terminal/*``).

Pure services (no Textual, no Rich): methods take the decoded JSON ``params`` of a request and
return the JSON result, or raise :class:`ServiceError` for the JSON-RPC layer to report.
"""

from acp_tui.services.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    PERMISSION_DENIED,
    RESOURCE_NOT_FOUND,
    ServiceError,
)
from acp_tui.services.files import FileService
from acp_tui.services.paths import PathGuard
from acp_tui.services.terminal_output import ExitStatus, TerminalState
from acp_tui.services.terminals import TerminalManager

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "PERMISSION_DENIED",
    "RESOURCE_NOT_FOUND",
    "ExitStatus",
    "FileService",
    "PathGuard",
    "ServiceError",
    "TerminalManager",
    "TerminalState",
]
