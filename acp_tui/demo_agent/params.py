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


#: The ``systemPrompt`` modes the demo agent takes (it advertises ``override`` too).
SYSTEM_PROMPT_MODES = ("append", "override")


def system_prompt_param(params: dict[str, Any]) -> tuple[str, str] | None:
    """``systemPrompt`` of a session setup request: (mode, its text) or None when omitted.
    The schema's rules: a mode the agent does not support, an empty ``content``, or a block
    that is not text is an error, never taken as something else."""
    value = params.get("systemPrompt")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RpcError(INVALID_PARAMS, "`systemPrompt` must be an object")
    mode = value.get("mode")
    if mode not in SYSTEM_PROMPT_MODES:
        raise RpcError(INVALID_PARAMS, f"unsupported systemPrompt mode: {mode!r}")
    content = value.get("content")
    if not isinstance(content, list) or not content:
        raise RpcError(INVALID_PARAMS, "`systemPrompt.content` must be a non-empty array")
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text":
            raise RpcError(INVALID_PARAMS, "`systemPrompt.content` takes text blocks only")
        text = block.get("text")
        if not isinstance(text, str):
            raise RpcError(INVALID_PARAMS, "a text block of `systemPrompt` has no text")
        texts.append(text)
    return str(mode), "\n".join(texts)


def fork_history(
    history: list[dict[str, Any]], params: dict[str, Any], *, at_message: bool
) -> list[dict[str, Any]]:
    """The history a ``session/fork`` branch starts with: all of it, or (``messageId``, when
    the agent forks at a message) up to and including that user or agent message. An unknown
    id, a thought's, or one sent to an agent that did not advertise it is an error (the
    fork-at-message RFD)."""
    message_id = params.get("messageId")
    if message_id is None:
        return list(history)
    if not at_message:
        raise RpcError(INVALID_PARAMS, "this agent does not fork at a message")
    if not isinstance(message_id, str) or not message_id:
        raise RpcError(INVALID_PARAMS, "missing or invalid `messageId`")
    for index, item in enumerate(history):
        if item.get("messageId") == message_id:
            if item.get("kind") not in ("user", "agent"):
                raise RpcError(INVALID_PARAMS, "only a user or agent message can be forked at")
            return history[: index + 1]
    raise RpcError(INVALID_PARAMS, f"no message {message_id!r} in this session")


def users(history: list[dict[str, Any]]) -> int:
    """The user messages of a history (each began a turn)."""
    return sum(1 for item in history if item.get("kind") == "user")
