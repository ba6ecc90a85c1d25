"""A raw ACP agent that runs its commands in terminals of its own, as codex-acp does.

Run as ``python tests/agents/own_terminal_agent.py``. Each prompt is one tool call running
``ls -la``: when the client said ``_meta.terminal_output`` at ``initialize`` (Zed's
convention, which codex-acp checks), the call names a terminal the client never made and the
output comes in the updates' ``_meta`` (``terminal_info``, ``terminal_output`` in pieces,
``terminal_exit``); otherwise the output comes as the call's text content. Then a one-line
reply. A prompt holding ``silent`` names the terminal and reports nothing of it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

SESSION_ID = "own-terminal-1"
OUTPUT = ["total 3\n", "-rw-r--r-- 1 me me 12 notes.txt\n", "-rw-r--r-- 1 me me 40 plan.md\n"]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(body: dict[str, Any]) -> None:
    params = {"sessionId": SESSION_ID, "update": body}
    send({"jsonrpc": "2.0", "method": "session/update", "params": params})


def run_command(call: str, meta_output: bool, silent: bool) -> None:
    terminal = f"term-{call}"
    start: dict[str, Any] = {
        "sessionUpdate": "tool_call",
        "toolCallId": call,
        "title": "ls -la",
        "kind": "execute",
        "status": "in_progress",
        "rawInput": {"command": ["bash", "-lc", "ls -la"]},
    }
    if meta_output or silent:
        start["content"] = [{"type": "terminal", "terminalId": terminal}]
    if meta_output and not silent:
        start["_meta"] = {"terminal_info": {"terminal_id": terminal, "cwd": os.getcwd()}}
    update(start)
    for piece in OUTPUT:
        time.sleep(0.05)
        if silent:
            continue
        if meta_output:
            data = {"terminal_output": {"terminal_id": terminal, "data": piece}}
            update({"sessionUpdate": "tool_call_update", "toolCallId": call, "_meta": data})
    end: dict[str, Any] = {"sessionUpdate": "tool_call_update", "toolCallId": call}
    end["status"] = "completed"
    if meta_output and not silent:
        end["_meta"] = {"terminal_exit": {"terminal_id": terminal, "exit_code": 0, "signal": None}}
    elif not silent:
        text = "".join(OUTPUT)
        end["content"] = [{"type": "content", "content": {"type": "text", "text": text}}]
    update(end)


def main() -> None:
    meta_output = False
    calls = 0
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            meta = (params.get("clientCapabilities") or {}).get("_meta") or {}
            meta_output = meta.get("terminal_output") is True
            result = {
                "protocolVersion": 1,
                "agentCapabilities": {},
                "agentInfo": {"name": "own-terminal-agent", "version": "1.0"},
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": SESSION_ID}})
        elif method == "session/prompt":
            calls += 1
            words = json.dumps(params.get("prompt"))
            run_command(f"call-{calls}", meta_output, "silent" in words)
            chunk = {"type": "text", "text": "Listed the folder."}
            update({"sessionUpdate": "agent_message_chunk", "content": chunk})
            send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        elif method is not None and request_id is not None:
            error = {"code": -32601, "message": f"method not found: {method}"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})


if __name__ == "__main__":
    main()
