"""A deterministic raw ACP agent for screen tests and snapshots (no SDK, no clock, no random).

Prompts it understands:
- ``conversation``: Markdown reply, a completed edit tool call with a diff, a plan, usage.
- ``hang``: a little text, then nothing until ``session/cancel`` (answered ``cancelled``).
- ``think``: thought chunks, then a reply.
- ``permission-by-id``: a tool call "Delete build/", then a permission request that names it
  by its toolCallId only (as Mistral Vibe does); the reply says which option was chosen.
- anything else: ``You said: <text>``.

``FIXTURE_AGENT_ONE_MODE=1`` in the environment: the session has one mode only (Kimi,
fast-agent).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SESSION_ID = "fixture-1"
MODES = {
    "currentModeId": "code",
    "availableModes": [
        {"id": "ask", "name": "Ask", "description": "Answer questions only"},
        {"id": "code", "name": "Code", "description": "Edit files"},
    ],
}
MODEL_OPTION = {
    "id": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}],
}
if os.environ.get("FIXTURE_AGENT_ONE_MODE"):
    MODES["availableModes"] = MODES["availableModes"][1:]
COMMANDS = [
    {"name": "help", "description": "Show what I can do", "input": None},
    {"name": "title", "description": "Rename this session", "input": {"hint": "new title"}},
]
REPLY = """## Refactoring plan

I looked at `app.py` and found **two** things to fix:

1. the greeting is hard-coded
2. there is no `main()` guard

```python
def greet(name: str) -> str:
    return f"Hello, {name}!"
```
"""
DIFF = {
    "type": "diff",
    "path": "/project/app.py",
    "oldText": 'print("Hello, world!")\n',
    "newText": 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n\n\nif __name__ == "__main__":\n    print(greet("world"))\n',
}
PLAN = [
    {"content": "Read app.py", "priority": "high", "status": "completed"},
    {"content": "Extract greet()", "priority": "medium", "status": "completed"},
    {"content": "Add tests", "priority": "low", "status": "in_progress"},
    {"content": "Update the README", "priority": "low", "status": "pending"},
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(body: dict[str, Any]) -> None:
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": SESSION_ID, "update": body},
        }
    )


#: The ``think`` prompt's thought: Markdown, as agents write them (Codex: a bold title first).
THOUGHT = "**Considering** the request: `think`, and [bold]nothing[/bold] else."


def chunks(kind: str, text: str, size: int = 12) -> None:
    for start in range(0, len(text), size):
        update(
            {"sessionUpdate": kind, "content": {"type": "text", "text": text[start : start + size]}}
        )


def prompt_text(params: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in params.get("prompt", []) if b.get("type") == "text")


def main() -> None:
    hanging: Any = None
    asking: Any = None
    used = 31_400
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id, params = (
            message.get("method"),
            message.get("id"),
            message.get("params") or {},
        )
        if method is None and request_id == "perm-1" and asking is not None:
            chosen = (message.get("result") or {}).get("outcome", {}).get("optionId", "none")
            chunks("agent_message_chunk", f"Permission answered: {chosen}")
            send({"jsonrpc": "2.0", "id": asking, "result": {"stopReason": "end_turn"}})
            asking = None
        elif method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": 1,
                        "agentInfo": {
                            "name": "fixture-agent",
                            "title": "Fixture Agent",
                            "version": "1.0",
                        },
                        "agentCapabilities": {"loadSession": False},
                        "authMethods": [],
                    },
                }
            )
        elif method == "session/new":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "sessionId": SESSION_ID,
                        "modes": MODES,
                        "configOptions": [MODEL_OPTION],
                    },
                }
            )
            update({"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS})
            update(
                {
                    "sessionUpdate": "usage_update",
                    "used": used,
                    "size": 200_000,
                    "cost": {"amount": 0.045, "currency": "USD"},
                }
            )
        elif method == "session/set_mode":
            MODES["currentModeId"] = params.get("modeId")
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
            update({"sessionUpdate": "current_mode_update", "currentModeId": params.get("modeId")})
        elif method == "session/set_config_option":
            MODEL_OPTION["currentValue"] = params.get("value")
            send({"jsonrpc": "2.0", "id": request_id, "result": {"configOptions": [MODEL_OPTION]}})
        elif method == "session/prompt":
            text = prompt_text(params)
            if text == "conversation":
                update({"sessionUpdate": "session_info_update", "title": "Refactor the greeting"})
                chunks("agent_message_chunk", REPLY)
                update(
                    {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "call-1",
                        "title": "Edit app.py",
                        "kind": "edit",
                        "status": "in_progress",
                        "content": [DIFF],
                        "locations": [{"path": "/project/app.py", "line": 1}],
                    }
                )
                update(
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": "call-1",
                        "status": "completed",
                    }
                )
                update({"sessionUpdate": "plan", "entries": PLAN})
                chunks(
                    "agent_message_chunk", "Done: `greet()` is extracted and the plan is under way."
                )
                used += 8_600
                update(
                    {
                        "sessionUpdate": "usage_update",
                        "used": used,
                        "size": 200_000,
                        "cost": {"amount": 0.0612, "currency": "USD"},
                    }
                )
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "result": {
                            "stopReason": "end_turn",
                            "usage": {
                                "totalTokens": 8600,
                                "inputTokens": 6000,
                                "outputTokens": 2600,
                            },
                        },
                    }
                )
            elif text == "hang":
                chunks("agent_message_chunk", "Working on it…")
                hanging = request_id
            elif text == "permission-by-id":
                update(
                    {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "call-9",
                        "title": "Delete build/",
                        "kind": "delete",
                        "status": "pending",
                        "locations": [{"path": "/w/build", "line": 1}],
                        "rawInput": {"command": "rm", "args": ["-rf", "build"]},
                    }
                )
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": "perm-1",
                        "method": "session/request_permission",
                        "params": {
                            "sessionId": SESSION_ID,
                            "toolCall": {"toolCallId": "call-9"},
                            "options": [
                                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                            ],
                        },
                    }
                )
                asking = request_id
            elif text == "think":
                chunks("agent_thought_chunk", THOUGHT)
                chunks("agent_message_chunk", "Thought about it.")
                send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
            else:
                chunks("agent_message_chunk", f"You said: {text}")
                send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        elif method == "session/cancel":
            if hanging is not None:
                send({"jsonrpc": "2.0", "id": hanging, "result": {"stopReason": "cancelled"}})
                hanging = None
        elif request_id is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"no {method}"},
                }
            )


if __name__ == "__main__":
    main()
