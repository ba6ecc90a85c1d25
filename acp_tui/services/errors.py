"""The error the client-side services raise; the JSON-RPC layer turns it into an error response.

Codes (see ``ErrorCode`` in the ACP schema):

- ``INVALID_PARAMS`` (-32602): a malformed request (relative path, bad ``line``, wrong types…).
- ``RESOURCE_NOT_FOUND`` (-32002): a file, directory, command or terminal that does not exist
  (or was released). Its message starts with the code's name, "Resource not found", as the
  official SDKs write it: some agents read the message, not the code, to tell a new file
  (Gemini CLI means to, though its SDK never hands it the message: it is not offered the
  client's files, see acp_tui.config.known_agents.offers_client_files).
- ``INTERNAL_ERROR`` (-32603): an unexpected OS error while doing the work.
- ``PERMISSION_DENIED`` (-32003): the client refuses the operation (a path outside the session's
  roots that the person did not allow). ACP predefines only -32000 (authentication required) and
  -32002 in the server-error range, so refusals use the next free code in that range, -32003,
  with a message that says what was refused and why.
"""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "PERMISSION_DENIED",
    "RESOURCE_NOT_FOUND",
    "RESOURCE_NOT_FOUND_MESSAGE",
    "ServiceError",
    "internal_error",
    "invalid_params",
    "not_found",
    "permission_denied",
]

PERMISSION_DENIED = -32003


class ServiceError(Exception):
    """A failure to report to the agent as a JSON-RPC error ``{code, message, data?}``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_jsonrpc(self) -> dict[str, Any]:
        """The ``error`` member of a JSON-RPC response."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __repr__(self) -> str:
        return f"ServiceError({self.code}, {self.message!r}, {self.data!r})"


def invalid_params(message: str, data: Any = None) -> ServiceError:
    return ServiceError(INVALID_PARAMS, message, data)


#: The name of RESOURCE_NOT_FOUND in the schema, first in each of its messages.
RESOURCE_NOT_FOUND_MESSAGE = "Resource not found"


def not_found(detail: str, data: Any = None) -> ServiceError:
    """RESOURCE_NOT_FOUND, its message "Resource not found: DETAIL"."""
    return ServiceError(RESOURCE_NOT_FOUND, f"{RESOURCE_NOT_FOUND_MESSAGE}: {detail}", data)


def internal_error(message: str, data: Any = None) -> ServiceError:
    return ServiceError(INTERNAL_ERROR, message, data)


def permission_denied(message: str, data: Any = None) -> ServiceError:
    return ServiceError(PERMISSION_DENIED, message, data)
