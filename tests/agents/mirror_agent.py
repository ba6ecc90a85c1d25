"""A raw ACP agent (plain JSON lines, standard library only) that puts given strings into every
field the protocol carries: the byte gate's property tests (tests/ui/test_byte_gate.py) write
hostile strings to a file and look at what reaches the terminal.

Run as ``python tests/agents/mirror_agent.py --payload FILE [--auth]``. FILE holds a JSON list
of strings, read afresh each time one is needed (so a test changes it between turns); field
number ``n`` gets string ``n`` modulo their count (:func:`Mirror.s`). Strings travel as JSON
(a lone surrogate as ``\\ud800``), so anything a hostile agent could send arrives as sent.

- ``initialize``: the agent's name, title and version; with ``--auth``, two sign-in methods
  (an agent one and a terminal one with args and env), and ``session/new`` answers "auth
  required" until one is used.
- ``session/new``: two modes and two config options (a model select, an on/off option);
  ``session/list``: two sessions; ``session/set_mode``, ``session/set_config_option``: an
  error with a message.
- prompt ``mirror``: the session title, the commands (names, descriptions, hints), a thought,
  a message, a tool call (title, kind, status, locations, text, diff, raw input and output),
  a plan, the usage's currency, a mode, config options, an unknown update, a notice, a
  compaction, a terminal's output, then a permission request, a form (every kind of field:
  titles, descriptions, formats, defaults, choices), a page to visit, and ``mirrored``.
- prompt ``names``: the session title and the commands, then ``mirrored``.
- prompt ``fail``: the prompt fails with a message.
- anything else: ``You said: <text>``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

SESSION_ID = "mirror-1"
DONE = "mirrored"
AUTH_REQUIRED = -32000

out = sys.stdout.buffer


def send(message: dict[str, Any]) -> None:
    try:
        out.write((json.dumps(message) + "\n").encode())
        out.flush()
    except (BrokenPipeError, ValueError):
        os._exit(0)


def respond(request_id: Any, result: Any) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def error(request_id: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def update(body: dict[str, Any]) -> None:
    params = {"sessionId": SESSION_ID, "update": body}
    send({"jsonrpc": "2.0", "method": "session/update", "params": params})


class Mirror:
    def __init__(self, options: argparse.Namespace) -> None:
        self.payload = Path(options.payload)
        self.auth = options.auth
        self.signed_in = False
        self.next_request = 0
        self.cwd = os.getcwd()

    def s(self, n: int) -> str:
        """String ``n`` of the payload (modulo their count)."""
        strings = json.loads(self.payload.read_text()) or [""]
        return str(strings[n % len(strings)])

    def read(self) -> dict[str, Any] | None:
        while True:
            line = sys.stdin.buffer.readline()
            if not line:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """Ask the client and wait for its answer, handling what comes meanwhile."""
        self.next_request += 1
        request_id = f"mirror-{self.next_request}"
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message is None:
                return None
            if "method" not in message and message.get("id") == request_id:
                return message
            self.handle(message)

    def run(self) -> None:
        while (message := self.read()) is not None:
            self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "initialize":
            respond(request_id, self.initialize())
        elif method == "authenticate":
            self.signed_in = True
            respond(request_id, {})
        elif method == "session/new":
            if self.auth and not self.signed_in:
                error(request_id, AUTH_REQUIRED, self.s(63))
                return
            respond(request_id, self.new_session())
        elif method == "session/list":
            respond(request_id, {"sessions": self.sessions()})
        elif method in ("session/set_mode", "session/set_config_option"):
            error(request_id, -32603, self.s(52))
        elif method == "session/prompt":
            self.prompt(request_id, params)
        elif method is not None and request_id is not None:
            error(request_id, -32601, f"method not found: {method}")

    # ------------------------------------------------------------------ answers

    def initialize(self) -> dict[str, Any]:
        methods: list[dict[str, Any]] = []
        if self.auth:
            methods = [
                {"id": "agent-login", "name": self.s(59), "description": self.s(60)},
                {
                    "id": "terminal-login",
                    "type": "terminal",
                    "name": self.s(61),
                    "description": self.s(62),
                    "args": [self.s(64)],
                    "env": {"MIRROR": self.s(65)},
                },
            ]
        return {
            "protocolVersion": 1,
            "agentInfo": {"name": self.s(56), "title": self.s(57), "version": self.s(58)},
            "agentCapabilities": {"loadSession": False, "sessionCapabilities": {"list": {}}},
            "authMethods": methods,
        }

    def new_session(self) -> dict[str, Any]:
        return {
            "sessionId": SESSION_ID,
            "modes": {
                "currentModeId": "one",
                "availableModes": [
                    {"id": "one", "name": self.s(66), "description": self.s(67)},
                    {"id": "two", "name": self.s(68), "description": self.s(69)},
                ],
            },
            "configOptions": self.config_options(70),
        }

    def config_options(self, n: int) -> list[dict[str, Any]]:
        return [
            {
                "id": "model",
                "name": self.s(n),
                "description": self.s(n + 1),
                "category": "model",
                "type": "select",
                "currentValue": "m1",
                "options": [
                    {"value": "m1", "name": self.s(n + 2), "description": self.s(n + 3)},
                    {"value": "m2", "name": self.s(n + 4), "description": self.s(n + 5)},
                ],
            },
            {
                "id": "switch",
                "name": self.s(n + 6),
                "description": self.s(n + 7),
                "type": "boolean",
                "currentValue": True,
            },
        ]

    def sessions(self) -> list[dict[str, Any]]:
        return [
            {"sessionId": "listed-1", "cwd": self.cwd, "title": self.s(53)},
            {"sessionId": self.s(54), "cwd": self.cwd, "updatedAt": self.s(55)},
        ]

    # ------------------------------------------------------------------ turns

    def prompt(self, request_id: Any, params: dict[str, Any]) -> None:
        blocks = params.get("prompt") or []
        text = next((b.get("text", "") for b in blocks if b.get("type") == "text"), "")
        if text.strip() == "mirror":
            self.mirror()
            self.say(f"\n\n{DONE}")
            respond(request_id, {"stopReason": "end_turn"})
        elif text.strip() == "names":
            self.names()
            self.say(DONE)
            respond(request_id, {"stopReason": "end_turn"})
        elif text.strip() == "fail":
            error(request_id, -32603, self.s(51))
        else:
            self.say(f"You said: {text}")
            respond(request_id, {"stopReason": "end_turn"})

    def say(self, text: str) -> None:
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})

    def names(self) -> None:
        """The session's title and the agent's commands."""
        s = self.s
        update({"sessionUpdate": "session_info_update", "title": s(0)})
        commands = [
            {"name": s(1), "description": s(2), "input": {"hint": s(3)}},
            {"name": "mirror", "description": s(4)},
        ]
        update({"sessionUpdate": "available_commands_update", "availableCommands": commands})

    def mirror(self) -> None:
        s = self.s
        self.names()
        update({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": s(5)}})
        self.say(s(6))
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "mirror-tool",
                "title": s(7),
                "kind": s(8),
                "status": s(9),
                "locations": [{"path": s(10), "line": 3}],
                "content": [
                    {"type": "content", "content": {"type": "text", "text": s(11)}},
                    {
                        "type": "diff",
                        "path": s(12),
                        "oldText": "same\n" + s(13),
                        "newText": "same\n" + s(14),
                    },
                ],
                "rawInput": {"command": s(15)},
                "rawOutput": {"out": s(16)},
            }
        )
        entries = [
            {"content": s(17), "priority": "high", "status": "pending"},
            {"content": s(18), "priority": "low", "status": s(19)},
        ]
        update({"sessionUpdate": "plan", "entries": entries})
        cost = {"amount": 1.5, "currency": s(20)}
        update({"sessionUpdate": "usage_update", "used": 1000, "size": 10000, "cost": cost})
        update({"sessionUpdate": "current_mode_update", "currentModeId": s(21)})
        update({"sessionUpdate": "config_option_update", "configOptions": self.config_options(22)})
        update({"sessionUpdate": s(30) or "x", "payload": s(31)})
        notice = {"sessionUpdate": "notice", "severity": "warning", "description": s(33)}
        update({**notice, "title": s(32) if s(32).strip() else "notice"})
        update(
            {
                "sessionUpdate": "compaction_update",
                "compactionId": "mirror-compaction",
                "status": s(34),
                "summary": [{"type": "text", "text": s(35)}],
                "error": s(36),
            }
        )
        self.terminal(s(37))
        self.request(
            "session/request_permission",
            {
                "sessionId": SESSION_ID,
                "toolCall": {
                    "toolCallId": "mirror-tool",
                    "title": s(38),
                    "rawInput": {"command": s(39)},
                    "locations": [{"path": s(40)}],
                    "content": [
                        {"type": "diff", "path": s(41), "oldText": s(42), "newText": s(43)}
                    ],
                },
                "options": [
                    {"optionId": "a", "name": s(44), "kind": "allow_once"},
                    {"optionId": "b", "name": s(45), "kind": s(46)},
                ],
            },
        )
        self.request("elicitation/create", self.form())
        self.request(
            "elicitation/create",
            {
                "sessionId": SESSION_ID,
                "mode": "url",
                "message": s(49),
                "elicitationId": "mirror-url",
                "url": "https://" + s(50),
            },
        )

    def form(self) -> dict[str, Any]:
        s = self.s
        properties = {
            "text": {
                "type": "string",
                "title": s(24),
                "description": s(25),
                "format": s(26),
                "default": s(27),
            },
            "choice": {"type": "string", "title": s(28), "oneOf": [{"const": "x", "title": s(29)}]},
            "flag": {"type": "boolean", "title": s(47)},
            "many": {
                "type": "array",
                "title": s(48),
                "items": {"anyOf": [{"const": "y", "title": s(23)}]},
            },
            "odd": {"type": s(62) or "?", "title": s(61)},
        }
        schema = {"type": "object", "title": s(57), "description": s(58), "properties": properties}
        return {
            "sessionId": SESSION_ID,
            "mode": "form",
            "message": s(60),
            "requestedSchema": schema,
        }

    def terminal(self, text: str) -> None:
        """Run a command that prints ``text`` (as UTF-8, surrogates and all) in a terminal
        shown in a tool call."""
        script = "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))"
        data = text.encode("utf-8", "surrogatepass").hex()
        created = self.request(
            "terminal/create",
            {"sessionId": SESSION_ID, "command": sys.executable, "args": ["-c", script, data]},
        )
        terminal_id = ((created or {}).get("result") or {}).get("terminalId")
        if not isinstance(terminal_id, str):
            return
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "mirror-terminal",
                "title": self.s(37),
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal_id}],
            }
        )
        self.request("terminal/wait_for_exit", {"sessionId": SESSION_ID, "terminalId": terminal_id})
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "mirror-terminal",
                "status": "completed",
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--payload", required=True)
    parser.add_argument("--auth", action="store_true")
    Mirror(parser.parse_args()).run()


if __name__ == "__main__":
    main()
