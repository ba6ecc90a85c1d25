"""Reading request parameters: a bad one is -32602, an unknown session -32002."""

from __future__ import annotations

import os
from typing import Any

from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError


def params_object(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object")
    return params


def str_param(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"missing or invalid `{name}`")
    return value


def dirs_param(params: dict[str, Any]) -> list[str]:
    """``additionalDirectories``: absolute paths; omitted or empty activates none."""
    value = params.get("additionalDirectories")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise RpcError(INVALID_PARAMS, "`additionalDirectories` must be an array of paths")
    relative = [d for d in value if not os.path.isabs(d)]
    if relative:
        raise RpcError(INVALID_PARAMS, f"additional directories must be absolute: {relative}")
    return list(dict.fromkeys(value))


def not_found(session_id: str, detail: str = "") -> RpcError:
    return RpcError(
        RESOURCE_NOT_FOUND,
        f"session not found: {session_id}" if not detail else detail,
        {"sessionId": session_id},
    )
