"""A raw ACP agent (plain JSON lines, no SDK) that misbehaves on command.

Run as ``python tests/agents/hostile_agent.py [flags]``. Start-up behaviour is chosen with
``--at-start``:

- ``crash``: print a few stderr lines and exit with code 7 before reading anything.
- ``banner``: print banner and log lines (not JSON) on stdout, then behave.
- ``not-acp``: answer ``initialize`` with something that is not ACP (a string result, after an
  HTTP-looking line), then keep reading.
- ``hang-initialize``: never answer ``initialize`` (keep reading stdin).
- ``bad-version``: answer ``initialize`` with ``protocolVersion: 99``.

Other flags: ``--auth-required`` (offer auth methods; ``session/new`` answers -32000 until
``authenticate`` succeeded), ``--ignore-term`` (ignore SIGTERM and stdin EOF: only SIGKILL
ends it), ``--hostile-text`` (every string the agent sends at start is :func:`hostile`: its
name, title and version, auth methods, modes and model options; ``session/set_mode`` and
``session/set_config_option`` fail with a hostile error message).

Prompts it understands (the text of the first text block; arguments after a space):

``crash`` (stderr lines, exit 3 mid-turn), ``sigkill`` (SIGKILL itself mid-turn), ``hang`` (a
chunk, then never answer, ignoring ``session/cancel``), ``flood-updates N`` (N message chunks in a
burst; ``usage`` or ``tool`` after N for other updates), ``big-line MB`` (one tool call whose line is MB megabytes), ``junk`` (non-JSON lines,
invalid JSON-RPC, invalid UTF-8, responses to unknown ids), ``unknown-session`` (updates for a
session never opened, and an unknown variant), ``wrong-types`` (known variants with wrong
field types), ``escape-title`` / ``markup`` (titles, messages and tool titles full of escape
sequences / Rich markup), ``long-title`` (a 10,000-character title), ``no-spaces`` (a
10,000-character line with no spaces), ``permission-then-crash [SECONDS]`` (ask permission,
then exit 5 while the dialog is open), ``outside-read PATH`` (``fs/read_text_file`` outside the
cwd; the answer is reported as text), ``permission-storm N`` (N permission requests at once;
when all are answered: ``answers: a,b,...``, each the chosen optionId or ``cancelled``),
``every-field`` (:func:`hostile` text in every field a turn can carry: title, tool call,
locations, diff, plan, thought, message, usage currency, an unknown update, a permission
request, a terminal's output, and the stop reason), ``fail-turn`` (the prompt fails with a
hostile error message), ``invisible`` (a session title and a tool title full of zero-width
and bidi characters), ``crash-long-stderr`` (ten 100,000-character stderr lines, then exit 9), ``many-options N``
(one permission request with N options; the answer is reported as ``chose: <optionId>``).
Anything else: ``You said: <text>``.

Everything a test asserts on is a constant of this module. Round 2 (issue 17) adds prompts and
flags of its own: see :mod:`tests.agents.hostile_core`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from typing import Any

try:  # imported by the tests
    from tests.agents.hostile_core import HostileCore
except ImportError:  # run as a script: this directory is on sys.path
    from hostile_core import HostileCore  # type: ignore[import-not-found,no-redef]

SESSION_ID = "hostile-1"
UNKNOWN_SESSION_ID = "never-opened-session"

STDERR_AT_START = [
    "hostile: loading configuration",
    "hostile: FATAL: cannot start, the config is broken",
]
START_EXIT_CODE = 7
STDERR_CRASH = [
    "hostile: working on the turn",
    "hostile: \x1b[31mred\x1b[0m error with a bell\x07 and a \u202eoverride",
    "Traceback (most recent call last): hostile crash",
]
CRASH_EXIT_CODE = 3
PERMISSION_CRASH_EXIT_CODE = 5
STDOUT_BANNER = [
    "Hostile agent 6.6.6 -- welcome!",
    "\x1b[32m[INFO]\x1b[0m listening on stdio",
    "{not json at all",
]
NOT_ACP_LINE = "HTTP/1.1 400 Bad Request"

# Strings full of terminal escapes: CSI colours, clear screen, OSC 8 hyperlink, OSC 52
# clipboard write, OSC 0 window title, BEL, bidi override, 8-bit CSI.
ESCAPE_TITLE = (
    "\x1b[31mRed\x1b[0m title \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ "
    "\x1b]52;c;ZXZpbA==\x07clip \x1b]0;pwned\x07win \x07bell \u202eevil\u202c \x9b2J end"
)
# Escape sequences removed, the lone BEL shown as its symbol, the bidi override dropped, spaces
# folded: a title is one honest line.
ESCAPE_TITLE_VISIBLE = "Red title link clip win ␇bell evil end"
ESCAPE_TEXT = (
    "Escapes: \x1b[2J\x1b[Hcleared? \x1b[1;31mred\x1b[0m "
    "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b]52;c;ZXZpbA==\x07 bell\x07 "
    "\u202egnirts\u202c done"
)
ESCAPE_TOOL_TITLE = "Run \x1b[2J\x1b]52;c;ZXZpbA==\x07tests\x07"

MARKUP_TITLE = "[bold red]x[/] [link=https://evil.example]click[/link]"
MARKUP_TEXT = "Markup: [bold red]boom[/] and [link=https://evil.example]click me[/link] [/]"
MARKUP_TOOL_TITLE = "[reverse]tool[/reverse] [@click=app.quit]quit[/]"

# Markup that would kill the TUI ([/]), act ([@click=...]) or link, plus escapes, a bidi
# override and a zero-width space: what every field of every message carries in --hostile-text
# and every-field. Each field gets its own tag, so a test can tell which one reached a surface.
HOSTILE_MARKUP = "[/][@click=app.quit]Q[/][link=https://evil.example]L[/link][b]"


def hostile(tag: str) -> str:
    return f"{tag}{HOSTILE_MARKUP}\x1b[31m\u202eR\u202c\u200bz\x1b]52;c;ZXZpbA==\x07!"


def shown(tag: str) -> str:
    """What :func:`hostile` text looks like on one line, shown literally."""
    return f"{tag}{HOSTILE_MARKUP}Rz!"


STORM_OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]
HOSTILE_MODES = [
    {"id": "safe", "name": hostile("mode1"), "description": hostile("modedesc1")},
    {"id": "other", "name": hostile("mode2"), "description": hostile("modedesc2")},
]
HOSTILE_MODEL_OPTION = {
    "id": "model",
    "name": hostile("modelopt"),
    "description": hostile("modeloptdesc"),
    "category": "model",
    "type": "select",
    "currentValue": "m1",
    "options": [
        {"value": "m1", "name": hostile("model1"), "description": hostile("model1desc")},
        {"value": "m2", "name": "GPT-5 [beta]", "description": "a bracket that is text"},
    ],
}
HOSTILE_AUTH_METHODS = [
    {"id": "hostile-login", "name": hostile("auth"), "description": hostile("authdesc")},
]
# Zero-width characters, bidi marks, an override that would reverse "txt.exe", a BOM, a soft
# hyphen, tag characters, line separators: a title that hides, reorders or breaks itself.
INVISIBLE_TITLE = (
    "pay\u200bpal\u200c \u200dlogin\u2060 \u202etxt.exe\u202c \u2066iso\u2069 \u200e\u200f"
    "\u061cmarks \ufeffbom soft\u00adhyphen tag\U000e0041\U000e0042 a\u2028b\u2029c"
    " family 👨\u200d👩\u200d👧"
)
INVISIBLE_TITLE_SHOWN = (
    "paypal login txt.exe iso marks bom softhyphen tag a b c family 👨\u200d👩\u200d👧"
)
MANY_OPTIONS_TITLE = "Pick one of very many"
LONG_STDERR_LINE = "E" * 100_000
LONG_STDERR_EXIT_CODE = 9
EVERY_FIELD_TERMINAL_TEXT = "term[/][@click=app.quit]Q[/][link=https://evil.example]L[/link]"

LONG_TITLE = "T" * 2_000 + " long " + "L" * 7_994  # 10,000 characters
NO_SPACES = "x" * 10_000

FLOOD_TEXT = "w "  # each flood chunk; the reply is FLOOD_TEXT * N
FLOOD_CONTEXT_SIZE = 1_000_000

AUTH_METHODS = [
    {"id": "hostile-login", "name": "Hostile login", "description": "Pretend to sign in"},
    {"id": "hostile-key", "name": "API key", "description": "Use an API key"},
]
AUTH_REQUIRED = -32000

out = sys.stdout.buffer


def write_raw(data: bytes) -> None:
    try:
        out.write(data)
        out.flush()
    except (BrokenPipeError, ValueError):
        os._exit(0)


def send(message: dict[str, Any]) -> None:
    write_raw((json.dumps(message) + "\n").encode())


def junk(line: str | bytes) -> None:
    write_raw((line if isinstance(line, bytes) else line.encode()) + b"\n")


def respond(request_id: Any, result: Any) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def error(request_id: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def update(body: dict[str, Any], session_id: str = SESSION_ID) -> None:
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": session_id, "update": body},
        }
    )


def say(text: str, session_id: str = SESSION_ID) -> None:
    update(
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
        session_id,
    )


def stderr(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Agent(HostileCore):
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.authenticated = False
        self.next_request = 0
        self.pending_answers: dict[Any, dict[str, Any]] = {}

    # -- reading

    def read(self) -> dict[str, Any] | None:
        """The next JSON object from stdin (junk from the client is skipped); None on EOF."""
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
        """Send a request of our own and wait for its answer, handling what comes meanwhile."""
        self.next_request += 1
        request_id = f"hostile-{self.next_request}"
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message is None:
                return None
            if "method" not in message and message.get("id") == request_id:
                return message
            self.handle(message)

    # -- lifecycle

    def run(self) -> None:
        at_start = self.options.at_start
        if at_start == "crash":
            stderr(STDERR_AT_START)
            sys.exit(START_EXIT_CODE)
        if at_start == "banner":
            for line in STDOUT_BANNER:
                junk(line)
        while True:
            message = self.read()
            if message is None:
                break
            self.handle(message)
        if self.options.ignore_term:
            while True:
                time.sleep(3600)

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "initialize":
            self.initialize(request_id)
        elif method == "authenticate":
            if params.get("methodId") in {m["id"] for m in AUTH_METHODS + HOSTILE_AUTH_METHODS}:
                self.authenticated = True
                respond(request_id, {})
            else:
                error(request_id, -32602, f"unknown auth method {params.get('methodId')!r}")
        elif method == "session/new":
            if self.options.auth_required and not self.authenticated:
                error(request_id, AUTH_REQUIRED, "Authentication required")
                return
            new_session: dict[str, Any] = {"sessionId": SESSION_ID}
            if self.options.hostile_text:
                new_session["modes"] = {"currentModeId": "safe", "availableModes": HOSTILE_MODES}
                new_session["configOptions"] = [HOSTILE_MODEL_OPTION]
            respond(request_id, new_session)
        elif method in ("session/set_mode", "session/set_config_option"):
            error(request_id, -32603, hostile("error"))
        elif method == "session/prompt":
            self.prompt(request_id, params)
        elif method is None:
            self.on_response(message)
        elif request_id is not None and not self.handle_more(method, request_id, params):
            error(request_id, -32601, f"method not found: {method}")
        # notifications (session/cancel...) are ignored: a hostile agent does not stop

    def initialize(self, request_id: Any) -> None:
        at_start = self.options.at_start
        if at_start == "hang-initialize":
            return
        if at_start == "not-acp":
            junk(NOT_ACP_LINE)
            respond(request_id, "I am not an ACP agent")
            return
        respond(
            request_id,
            {
                "protocolVersion": 99 if at_start == "bad-version" else 1,
                "agentInfo": (
                    {
                        "name": hostile("name"),
                        "title": hostile("title"),
                        "version": hostile("v"),
                    }
                    if self.options.hostile_text
                    else {"name": "hostile-agent", "title": "Hostile Agent", "version": "6.6.6"}
                ),
                "agentCapabilities": {"loadSession": False, **self.more_capabilities()},
                "authMethods": (
                    (HOSTILE_AUTH_METHODS if self.options.hostile_text else AUTH_METHODS)
                    if self.options.auth_required
                    else []
                ),
            },
        )

    # -- prompts

    def prompt(self, request_id: Any, params: dict[str, Any]) -> None:
        blocks = params.get("prompt") if isinstance(params.get("prompt"), list) else []
        text = "".join(
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        ).strip()
        command, _, argument = text.partition(" ")
        handler = getattr(self, "do_" + command.replace("-", "_"), None)
        self.note_prompt(text, echoed=handler is None)
        if handler is None:
            say(f"You said: {text}")
            self.end_turn(request_id)
            return
        handler(request_id, argument.strip())

    def end_turn(self, request_id: Any) -> None:
        respond(request_id, {"stopReason": "end_turn"})

    def do_crash(self, request_id: Any, argument: str) -> None:
        say("Starting the work… ")
        stderr(STDERR_CRASH)
        sys.stdout.flush()
        os._exit(CRASH_EXIT_CODE)

    def do_sigkill(self, request_id: Any, argument: str) -> None:
        say("About to be killed… ")
        stderr(["hostile: sending SIGKILL to myself"])
        os.kill(os.getpid(), signal.SIGKILL)

    def do_hang(self, request_id: Any, argument: str) -> None:
        say("Working on it, forever…")

    def do_flood_updates(self, request_id: Any, argument: str) -> None:
        """``flood-updates N [chunk|usage|tool]``: N updates in one burst, then end the turn.
        ``chunk``: message chunks (the reply is FLOOD_TEXT * N); ``usage``: usage_update with
        ``used`` counting up to N; ``tool``: updates of one tool call (title counts up to N)."""
        count_text, _, kind = argument.partition(" ")
        count = int(count_text or "100000")
        kind = kind.strip() or "chunk"
        if kind == "tool":
            update(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "flood-1",
                    "title": "step 0",
                    "kind": "execute",
                    "status": "in_progress",
                }
            )

        def body(n: int) -> dict[str, Any]:
            if kind == "usage":
                return {"sessionUpdate": "usage_update", "used": n, "size": FLOOD_CONTEXT_SIZE}
            if kind == "tool":
                return {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "flood-1",
                    "title": f"step {n}",
                }
            return {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": FLOOD_TEXT},
            }

        lines: list[bytes] = []
        for n in range(1, count + 1):
            message = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": SESSION_ID, "update": body(n)},
            }
            lines.append((json.dumps(message) + "\n").encode())
            if len(lines) == 1000:
                write_raw(b"".join(lines))
                lines.clear()
        write_raw(b"".join(lines))
        if kind != "chunk":
            say(f"Flooded {count} {kind} updates.")
        self.end_turn(request_id)

    def do_big_line(self, request_id: Any, argument: str) -> None:
        megabytes = float(argument or "50")
        blob = "b" * int(megabytes * 1024 * 1024)
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "big-1",
                "title": "Produce a lot of output",
                "kind": "execute",
                "status": "completed",
                "rawOutput": {"stdout": blob},
            }
        )
        say("After the big line.")
        self.end_turn(request_id)

    def do_junk(self, request_id: Any, argument: str) -> None:
        junk("this is not JSON")
        junk("[1, 2, 3]")
        junk('"a JSON string"')
        junk("{}")
        junk('{"jsonrpc": "2.0"}')
        junk('{"jsonrpc": "2.0", "id": true, "method": "session/update"}')
        junk('{"jsonrpc": "2.0", "id": {"an": "object"}, "method": "x"}')
        junk('{"jsonrpc": "2.0", "method": 42, "params": {}}')
        junk(b"\xff\xfe invalid utf-8 \xc3\x28")
        junk('{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": ')
        respond(987654, {"stopReason": "end_turn"})  # a response to an id never sent
        error("no-such-request", -32603, "an error for nobody")
        send({"jsonrpc": "2.0", "method": "session/update", "params": "not an object"})
        send({"jsonrpc": "2.0", "method": "session/update"})
        send({"jsonrpc": "2.0", "method": "_hostile/unknown_notification", "params": [1, 2]})
        say("Survived the junk.")
        self.end_turn(request_id)

    def do_unknown_session(self, request_id: Any, argument: str) -> None:
        say("text for a session nobody opened", UNKNOWN_SESSION_ID)
        update({"sessionUpdate": "session_info_update", "title": "ghost"}, UNKNOWN_SESSION_ID)
        update(
            {"sessionUpdate": "hostile_vendor_update", "payload": {"kept": [1, 2, 3]}, "x": True}
        )
        say("Unknown things sent.")
        self.end_turn(request_id)

    def do_wrong_types(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "agent_message_chunk", "content": 5})
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 42}})
        update({"sessionUpdate": "tool_call", "toolCallId": 7, "title": ["not", "a", "string"]})
        update({"sessionUpdate": "tool_call_update", "toolCallId": "nope", "status": 3})
        update({"sessionUpdate": "usage_update", "used": "lots", "size": None})
        update({"sessionUpdate": "session_info_update", "title": 123})
        update({"sessionUpdate": "plan", "entries": "not a list"})
        update({"sessionUpdate": "current_mode_update", "currentModeId": {"id": "x"}})
        update({"sessionUpdate": "available_commands_update", "availableCommands": "none"})
        update({"sessionUpdate": None})
        update("not an object")  # type: ignore[arg-type]
        say("Wrong types sent.")
        self.end_turn(request_id)

    def do_escape_title(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "session_info_update", "title": ESCAPE_TITLE})
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "esc-1",
                "title": ESCAPE_TOOL_TITLE,
                "kind": "execute",
                "status": "completed",
            }
        )
        say(ESCAPE_TEXT)
        self.end_turn(request_id)

    def do_markup(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "session_info_update", "title": MARKUP_TITLE})
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "markup-1",
                "title": MARKUP_TOOL_TITLE,
                "kind": "execute",
                "status": "completed",
            }
        )
        say(MARKUP_TEXT)
        self.end_turn(request_id)

    def do_long_title(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "session_info_update", "title": LONG_TITLE})
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "long-1",
                "title": LONG_TITLE,
                "kind": "read",
                "status": "completed",
            }
        )
        say("Long title set.")
        self.end_turn(request_id)

    def do_no_spaces(self, request_id: Any, argument: str) -> None:
        say(NO_SPACES)
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "nospace-1",
                "title": NO_SPACES,
                "kind": "read",
                "status": "completed",
            }
        )
        self.end_turn(request_id)

    def do_permission_then_crash(self, request_id: Any, argument: str) -> None:
        delay = float(argument or "1.0")
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "perm-1",
                "title": "Delete everything",
                "kind": "delete",
                "status": "pending",
            }
        )
        self.next_request += 1
        send(
            {
                "jsonrpc": "2.0",
                "id": f"hostile-{self.next_request}",
                "method": "session/request_permission",
                "params": {
                    "sessionId": SESSION_ID,
                    "toolCall": {"toolCallId": "perm-1", "title": "Delete everything"},
                    "options": [
                        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                    ],
                },
            }
        )
        time.sleep(delay)
        stderr(["hostile: dying while the permission dialog is open"])
        os._exit(PERMISSION_CRASH_EXIT_CODE)

    def do_outside_read(self, request_id: Any, argument: str) -> None:
        answer = self.request(
            "fs/read_text_file", {"sessionId": SESSION_ID, "path": argument or "/etc/hostname"}
        )
        if answer is None:
            return
        if "error" in answer:
            say(f"read refused: {answer['error'].get('message', '')}")
        else:
            content = str((answer.get("result") or {}).get("content", ""))
            say(f"read allowed: {content[:200]}")
        self.end_turn(request_id)

    def do_permission_storm(self, request_id: Any, argument: str) -> None:
        count = int(argument or "5")
        asked: list[str] = []
        for n in range(count):
            call = f"storm-{n}"
            update(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": call,
                    "title": f"Storm {n}",
                    "kind": "delete",
                    "status": "pending",
                }
            )
            ask = f"storm-ask-{n}"
            asked.append(ask)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": SESSION_ID,
                        "toolCall": {"toolCallId": call, "title": f"Storm {n}"},
                        "options": STORM_OPTIONS,
                    },
                }
            )
        answers: dict[str, str] = {}
        while len(answers) < count:
            message = self.read()
            if message is None:
                return
            if "method" not in message and message.get("id") in asked:
                outcome = (message.get("result") or {}).get("outcome") or {}
                answers[message["id"]] = str(outcome.get("optionId") or outcome.get("outcome"))
            else:
                self.handle(message)
        say("answers: " + ",".join(answers[ask] for ask in asked))
        self.end_turn(request_id)

    def do_every_field(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "session_info_update", "title": hostile("sessiontitle")})
        update(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {
                        "name": hostile("cmd"),
                        "description": hostile("cmddesc"),
                        "input": {"hint": hostile("cmdhint")},
                    }
                ],
            }
        )
        update({"sessionUpdate": "agent_thought_chunk", "content": text_block("thought")})
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "every-1",
                "title": hostile("tooltitle") + "\nsecond line\u2028third",
                "kind": hostile("kind"),
                "status": hostile("status"),
                "locations": [{"path": hostile("location"), "line": 3}],
                "content": [
                    {"type": "content", "content": text_block("toolcontent")},
                    {
                        "type": "diff",
                        "path": hostile("diffpath"),
                        "oldText": "same\n" + hostile("old"),
                        "newText": "same\n" + hostile("new"),
                    },
                ],
                "rawOutput": {"out": hostile("rawoutput")},
            }
        )
        update(
            {
                "sessionUpdate": "plan",
                "entries": [
                    {"content": hostile("plan"), "priority": hostile("prio"), "status": "pending"},
                    {"content": "done step", "priority": "low", "status": hostile("pstatus")},
                ],
            }
        )
        update(
            {
                "sessionUpdate": "usage_update",
                "used": 1000,
                "size": 10000,
                "cost": {"amount": 1.5, "currency": hostile("cur")},
            }
        )
        update({"sessionUpdate": "current_mode_update", "currentModeId": hostile("modeid")})
        update({"sessionUpdate": hostile("variant"), "payload": hostile("payload")})
        self.every_field_terminal()
        answer = self.request(
            "session/request_permission",
            {
                "sessionId": SESSION_ID,
                "toolCall": {
                    "toolCallId": "every-1",
                    "title": hostile("permtitle"),
                    "rawInput": {"command": hostile("command")},
                },
                "options": [
                    {"optionId": "a", "name": hostile("opt1"), "kind": "allow_once"},
                    {"optionId": "b", "name": hostile("opt2"), "kind": hostile("optkind")},
                ],
            },
        )
        if answer is None:
            return
        say(hostile("message") + "\n\ndone with every field")
        respond(request_id, {"stopReason": hostile("stop")})

    def every_field_terminal(self) -> None:
        created = self.request(
            "terminal/create",
            {
                "sessionId": SESSION_ID,
                "command": sys.executable,
                "args": ["-c", f"print({EVERY_FIELD_TERMINAL_TEXT!r} + chr(27) + '[31mred')"],
            },
        )
        terminal_id = ((created or {}).get("result") or {}).get("terminalId")
        if not isinstance(terminal_id, str):
            say("terminal refused")
            return
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "every-term",
                "title": hostile("termtitle"),
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal_id}],
            }
        )
        self.request("terminal/wait_for_exit", {"sessionId": SESSION_ID, "terminalId": terminal_id})
        update(
            {"sessionUpdate": "tool_call_update", "toolCallId": "every-term", "status": "completed"}
        )

    def do_fail_turn(self, request_id: Any, argument: str) -> None:
        error(request_id, -32603, hostile("turnerror"))

    def do_invisible(self, request_id: Any, argument: str) -> None:
        update({"sessionUpdate": "session_info_update", "title": INVISIBLE_TITLE})
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "invisible-1",
                "title": INVISIBLE_TITLE,
                "kind": "read",
                "status": "completed",
            }
        )
        say("Invisible title set.")
        self.end_turn(request_id)

    def do_many_options(self, request_id: Any, argument: str) -> None:
        count = int(argument or "1000")
        kinds = ("allow_once", "allow_always", "reject_once", "reject_always")
        answer = self.request(
            "session/request_permission",
            {
                "sessionId": SESSION_ID,
                "toolCall": {"toolCallId": "many-1", "title": MANY_OPTIONS_TITLE, "kind": "edit"},
                "options": [
                    {"optionId": f"opt-{n}", "name": f"Option {n}", "kind": kinds[n % 4]}
                    for n in range(count)
                ],
            },
        )
        if answer is None:
            return
        outcome = (answer.get("result") or {}).get("outcome") or {}
        say(f"chose: {outcome.get('optionId') or outcome.get('outcome')}")
        self.end_turn(request_id)

    def do_crash_long_stderr(self, request_id: Any, argument: str) -> None:
        say("About to spill a lot of stderr… ")
        stderr([f"{n}:{LONG_STDERR_LINE}" for n in range(10)])
        sys.stdout.flush()
        os._exit(LONG_STDERR_EXIT_CODE)


def text_block(tag: str) -> dict[str, Any]:
    return {"type": "text", "text": hostile(tag)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--at-start",
        choices=["normal", "crash", "banner", "not-acp", "hang-initialize", "bad-version"],
        default="normal",
    )
    parser.add_argument("--auth-required", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--hostile-text", action="store_true")
    HostileCore.add_arguments(parser)
    options = parser.parse_args(argv)
    if options.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    Agent(options).run()


if __name__ == "__main__":
    main()
