"""A raw ACP agent (plain JSON lines) whose arrays each hold one malformed item among good
ones: its modes, config options and commands, its plan's entries, a tool call's content and
locations. A client keeps the good items and the rest of each update.

Run as ``python tests/agents/bad_items_agent.py``."""

from __future__ import annotations

import json
import sys
from typing import Any

SESSION_ID = "bad-items-1"


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(body: dict[str, Any]) -> None:
    params = {"sessionId": SESSION_ID, "update": body}
    send({"jsonrpc": "2.0", "method": "session/update", "params": params})


def answer(request: dict[str, Any], result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def on_prompt(request: dict[str, Any]) -> None:
    update(
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Read the gateway code", "priority": "high", "status": "completed"},
                "not an entry",
                {"content": "Fix the retry loop", "priority": "high", "status": "in_progress"},
            ],
        }
    )
    update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Reading gateway.py",
            "kind": "read",
            "status": "completed",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "retry = 3"}},
                None,
            ],
            "locations": [{"path": "/w/gateway.py"}, 17],
        }
    )
    chunk = {"type": "text", "text": "Done: every good item arrived."}
    update({"sessionUpdate": "agent_message_chunk", "content": chunk})
    answer(request, {"stopReason": "end_turn"})


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        method = request.get("method")
        if method == "initialize":
            answer(request, {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []})
        elif method == "session/new":
            modes = [{"id": "code", "name": "Code"}, 5, {"id": "ask", "name": "Ask"}]
            answer(
                request,
                {
                    "sessionId": SESSION_ID,
                    "modes": {"currentModeId": "code", "availableModes": modes},
                },
            )
            commands = [
                {"name": "gateway", "description": "Check the payment gateway"},
                ["not", "a", "command"],
                {"name": "retries", "description": "Tune the retries"},
            ]
            update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
        elif method == "session/prompt":
            on_prompt(request)
        elif "id" in request and method is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "error": {"code": -32601, "message": method},
                }
            )


if __name__ == "__main__":
    main()
