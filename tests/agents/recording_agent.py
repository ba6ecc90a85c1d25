"""A raw ACP agent that writes down what the client sends it: each message (method, params)
as one JSON line, appended to the file ``RECORDING_AGENT_LOG`` names, with ``RECORDING_AGENT_ACCOUNT``
(its environment: which configured agent started it) on every line.

It takes embedded files and additional directories, loads sessions (with nothing to
replay) but lists none, and answers every prompt with ``You said: <its text>`` and ``end_turn``. What it answers does not depend on
what it is asked, so several clients driving it can be compared by what they sent.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

LOG = os.environ.get("RECORDING_AGENT_LOG")
ACCOUNT = os.environ.get("RECORDING_AGENT_ACCOUNT", "")


def note(message: dict[str, Any]) -> None:
    if LOG:
        line = {
            "account": ACCOUNT,
            "method": message.get("method"),
            "params": message.get("params"),
        }
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def prompt_text(params: dict[str, Any]) -> str:
    return "".join(
        block.get("text", "") for block in params.get("prompt", []) if block.get("type") == "text"
    )


def main() -> None:
    count = 0
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "method" not in message:
            continue  # an answer of the client's
        note(message)
        method = message["method"]
        request_id = message.get("id")
        if method == "initialize":
            result: Any = {
                "protocolVersion": 1,
                "agentInfo": {"name": "recording-agent", "version": "1"},
                "agentCapabilities": {
                    "loadSession": True,
                    "promptCapabilities": {"embeddedContext": True, "image": False},
                    "sessionCapabilities": {"additionalDirectories": {}},
                },
                "authMethods": [],
            }
        elif method == "session/new":
            count += 1
            result = {"sessionId": f"recorded-{count}"}
        elif method == "session/load":
            result = {}
        elif method == "session/prompt":
            params = message.get("params") or {}
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": params.get("sessionId"),
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "content": {"type": "text", "text": f"You said: {prompt_text(params)}"},
                        },
                    },
                }
            )
            result = {"stopReason": "end_turn"}
        elif request_id is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"method not found: {method}"},
                }
            )
            continue
        else:
            continue
        if request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
