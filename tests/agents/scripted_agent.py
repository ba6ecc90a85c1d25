"""A raw ACP agent (plain JSON lines, no SDK) that does the awkward things real agents do.

Run as ``python tests/agents/scripted_agent.py``. It prints a banner and log lines on stdout
among the JSON, sends unknown ``sessionUpdate`` variants and unknown fields, v2 draft
notifications (``state_update``, the seed's ``state_change``, ``user_message``,
``agent_message``), updates for its session before the session/new response and after the
session/prompt response, text for a session the client never opened, and requests of its own
with string ids. Everything it sends is data in this module, so a test can import it and
check that nothing was lost.

After each of its own requests it reports the answer it got in a ``_scripted/received``
notification, so a test can see how the client answered.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SESSION_ID = "scripted-1"
OTHER_SESSION_ID = "someone-elses-session"

BANNER = "Scripted agent 1.0 -- starting up (this banner is not JSON)"
LOG_INITIALIZE = "[INFO] initialize received, negotiating"
LOG_PROMPT = "2025-01-01 10:00:00 DEBUG prompt received {not json"
LOG_DONE = "[]"  # valid JSON, but not a JSON-RPC object: also junk
JUNK_LINES = [BANNER, LOG_INITIALIZE, LOG_PROMPT, LOG_DONE]

Notification = tuple[str, dict[str, Any]]


def _update(update: dict[str, Any], session_id: str = SESSION_ID) -> Notification:
    return ("session/update", {"sessionId": session_id, "update": update})


BEFORE_NEW_RESPONSE: list[Notification] = [
    _update(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "plan", "description": "Make a plan", "input": None}],
        }
    ),
    _update(
        {
            "sessionUpdate": "vendor_magic_update",
            "sparkles": 3,
            "nested": {"deep": [1, 2, {"deeper": True}]},
        }
    ),
    _update({"sessionUpdate": "current_mode_update", "currentModeId": "code", "x-extra": "kept"}),
]

DURING_PROMPT: list[Notification] = [
    _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "Hello", "vendorField": {"a": 1}},
            "unknownTopLevel": "still here",
        }
    ),
    _update({"sessionUpdate": "state_update", "state": "running"}),
    _update({"sessionUpdate": "state_change", "state": "running", "since": 12}),
    _update(
        {
            "sessionUpdate": "user_message",
            "messageId": "u-1",
            "content": [{"type": "text", "text": "hi there"}],
        }
    ),
    _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "leaked text"},
        },
        session_id=OTHER_SESSION_ID,
    ),
    _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t-1",
            "title": "Run \x1b[2Jtests",
            "kind": "execute",
            "status": "pending",
            "futureField": {"x": 1},
        }
    ),
    _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "hologram", "payload": "not a known content block"},
        }
    ),
]

AFTER_PERMISSION: list[Notification] = [
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "t-1", "status": "completed"}),
    _update(
        {
            "sessionUpdate": "agent_message",
            "messageId": "a-1",
            "content": [{"type": "text", "text": ", world"}],
        }
    ),
    _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "!"}}),
]

AFTER_PROMPT_RESPONSE: list[Notification] = [
    _update({"sessionUpdate": "usage_update", "used": 1234, "size": 200000}),
    _update({"sessionUpdate": "session_info_update", "title": "Scripted session"}),
    _update(
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
            "usage": {"totalTokens": 10, "inputTokens": 6, "outputTokens": 4},
        }
    ),
    ("_vendor/ping", {"n": 1}),
]

# The agent's own requests during the turn, with string ids.
PERMISSION_REQUEST_ID = "perm-abc"
UNKNOWN_REQUEST_ID = "x-1"
PERMISSION_PARAMS: dict[str, Any] = {
    "sessionId": SESSION_ID,
    "toolCall": {"toolCallId": "t-1", "title": "Run tests"},
    "options": [
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ],
}
UNKNOWN_METHOD = "_vendor/unknown_request"

# The text of the session's agent_message_chunks (text blocks only), in order, and what
# `acp-tui ask` prints: chunks plus the v2 agent_message upsert, nothing from other sessions.
# The tool call between "Hello" and ", world" ends the first message, so each is a paragraph.
CHUNK_TEXT = "Hello!"
HEADLESS_REPLY = "Hello\n\n, world!"


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def junk(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def notify(notification: Notification) -> None:
    method, params = notification
    send({"jsonrpc": "2.0", "method": method, "params": params})


def read() -> dict[str, Any] | None:
    while True:
        line = sys.stdin.readline()
        if not line:
            return None
        line = line.strip()
        if line:
            return json.loads(line)


def request(request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """Send a request and wait for its response (ignoring notifications meanwhile)."""
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    while True:
        message = read()
        if message is None:
            return None
        if "method" not in message and message.get("id") == request_id:
            notify(("_scripted/received", {"requestId": request_id, "response": message}))
            return message


def respond(request_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    junk(BANNER)
    while True:
        message = read()
        if message is None:
            return
        method = message.get("method")
        request_id = message.get("id")
        if method == "initialize":
            junk(LOG_INITIALIZE)
            respond(
                request_id,
                {
                    "protocolVersion": 1,
                    "agentCapabilities": {"loadSession": False, "futureCapability": {"x": 1}},
                    "agentInfo": {"name": "scripted-agent", "version": "1.0"},
                    "authMethods": [],
                    "vendorTopLevel": True,
                },
            )
        elif method == "session/new":
            for notification in BEFORE_NEW_RESPONSE:
                notify(notification)
            respond(request_id, {"sessionId": SESSION_ID, "unknownField": {"kept": True}})
        elif method == "session/prompt":
            junk(LOG_PROMPT)
            for notification in DURING_PROMPT:
                notify(notification)
            request(PERMISSION_REQUEST_ID, "session/request_permission", PERMISSION_PARAMS)
            request(UNKNOWN_REQUEST_ID, UNKNOWN_METHOD, {"sessionId": SESSION_ID})
            for notification in AFTER_PERMISSION:
                notify(notification)
            respond(request_id, {"stopReason": "end_turn", "vendorStat": 7})
            for notification in AFTER_PROMPT_RESPONSE:
                notify(notification)
            junk(LOG_DONE)
        elif method is not None and request_id is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"method not found: {method}"},
                }
            )
        # notifications (session/cancel...) are ignored


if __name__ == "__main__":
    main()
