"""Recordings for the replay benchmarks: a long session in acp-tui's wire format, written
straight to a file (``acp-tui --record`` writes the same lines), of any size.

Standard library only. The session: ``initialize``, ``session/new``, then turns until the file
has the size asked for. Each turn is what makes real recordings big: a prompt; a terminal
command whose output is sent again whole at each of its updates, as agents do (the wire
carries it many times, the transcript keeps its last state); the plan and the context's use,
updated; a reply streamed a word per chunk; the turn's end. The last reply ends with
``ENDMARK000``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.blackbox.workloads import END, WORDS, marker

SESSION_ID = "bench-replay-1"
#: Chunks of each reply (a word each).
CHUNKS_PER_TURN = 500
#: Updates of each turn's tool call, each with all of its output so far (a line more each).
OUTPUT_UPDATES = 20
OUTPUT_LINE = "test_module.py::test_case PASSED " + "." * 60 + "\n"
OUTPUT_LINES_PER_UPDATE = 25
#: The end of the last reply: the benchmark waits for it on the screen.
LAST_WORDS = marker(END, 0)


class _Writer:
    def __init__(self, path: Path) -> None:
        self.file = path.open("w", encoding="utf-8")
        self.t = 0.0
        self.size = 0

    def line(self, item: dict[str, Any]) -> None:
        text = json.dumps(item, separators=(",", ":")) + "\n"
        self.file.write(text)
        self.size += len(text)

    def message(self, direction: str, message: dict[str, Any]) -> None:
        self.t += 0.0005
        self.line({"t": round(self.t, 6), "dir": direction, "msg": message})

    def to_agent(self, request_id: int | None, method: str, params: dict[str, Any]) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request_id is not None:
            message["id"] = request_id
        self.message("to_agent", message)

    def answer(self, request_id: int, result: dict[str, Any]) -> None:
        self.message("from_agent", {"jsonrpc": "2.0", "id": request_id, "result": result})

    def update(self, update: dict[str, Any]) -> None:
        self.message(
            "from_agent",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": SESSION_ID, "update": update},
            },
        )


def write_recording(path: Path, size: int, cwd: str = "/tmp") -> int:
    """A recording of about ``size`` bytes at ``path``; returns its number of turns."""
    out = _Writer(path)
    out.line(
        {
            "format": "acp-tui-wire",
            "version": 1,
            "acpTui": "bench",
            "agent": ["bench-agent"],
            "cwd": cwd,
            "started": "2026-01-01T00:00:00+00:00",
        }
    )
    out.to_agent(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    out.answer(
        0,
        {
            "protocolVersion": 1,
            "agentInfo": {"name": "bench-agent", "version": "1.0"},
            "agentCapabilities": {"loadSession": False},
            "authMethods": [],
        },
    )
    out.to_agent(1, "session/new", {"cwd": cwd, "mcpServers": []})
    out.answer(1, {"sessionId": SESSION_ID})
    turn = 0
    per_turn = 0
    while True:
        turn += 1
        before = out.size
        request_id = 1 + turn
        prompt = [{"type": "text", "text": f"Turn {turn}: go on"}]
        out.to_agent(request_id, "session/prompt", {"sessionId": SESSION_ID, "prompt": prompt})
        call = f"call-{turn}"
        out.update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call,
                "title": f"Run the tests, part {turn}",
                "kind": "execute",
                "status": "in_progress",
                "rawInput": {"command": f"pytest -k part{turn}"},
            }
        )
        for n in range(1, OUTPUT_UPDATES + 1):
            output = OUTPUT_LINE * (n * OUTPUT_LINES_PER_UPDATE)
            out.update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "status": "completed" if n == OUTPUT_UPDATES else "in_progress",
                    "content": [{"type": "content", "content": {"type": "text", "text": output}}],
                }
            )
            if n % 4 == 0:
                out.update(
                    {
                        "sessionUpdate": "plan",
                        "entries": [
                            {
                                "content": f"Step {k} of part {turn}",
                                "priority": "medium",
                                "status": "completed" if k < n // 4 else "pending",
                            }
                            for k in range(6)
                        ],
                    }
                )
                out.update(
                    {"sessionUpdate": "usage_update", "used": 1_000 * turn + n, "size": 200_000}
                )
        last = out.size + per_turn >= size
        for n in range(CHUNKS_PER_TURN):
            word = WORDS[(turn + n) % len(WORDS)]
            text = f"{word} " if n or turn > 1 else f"Reply {word} "
            if last and n == CHUNKS_PER_TURN - 1:
                text += LAST_WORDS
            out.update(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": f"reply-{turn}",
                    "content": {"type": "text", "text": text},
                }
            )
        out.answer(request_id, {"stopReason": "end_turn"})
        per_turn = out.size - before
        if last:
            break
    out.line({"t": round(out.t + 0.001, 6), "event": "closed", "by": "client", "exit": "quit"})
    out.file.close()
    return turn
