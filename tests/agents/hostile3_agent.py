"""Round 3 of the hostile agent (issue 17, a third independent attack): the round 1 and 2 agent
(:mod:`tests.agents.hostile_agent`) with more prompts and start-up flags of its own.

Prompts (the text of the first text block; arguments after a space):

- ``blocks``: message chunks of every content block type with hostile fields: an image whose
  ``mimeType`` is markup and whose ``data`` is not base64, audio, an embedded text resource full
  of escapes, a blob resource, resource links whose ``uri``/``name``/``title``/``size`` are
  markup, escapes, newlines, negative, huge or strings, and a block of an unknown type.
- ``tool-content [objects]``: a tool call whose content holds every type: image and resource blocks, a
  diff with ``null`` and huge texts and a hostile path, a terminal id that was never created.
- ``plan-big [objects]``: a plan of 5,000 entries with unknown priorities and statuses, one entry 100,000
  characters long.
- ``plan-flood [UPDATES [ENTRIES]]``: the whole plan re-sent UPDATES times (default 200 plans
  of 2,000 entries), in one burst.
- ``commands [objects]``: 3,000 available commands with spaces, slashes, newlines, escapes and
  duplicates in their names, hostile hints, fields of wrong types and (without ``objects``) an
  entry that is not an object.
- ``config [objects]``: ``config_option_update`` with options of every wrong shape: a select whose
  current value is not among its options, no options, 2,000 options, grouped options with
  hostile group names, a boolean option, an unknown type, and duplicates; then
  ``current_mode_update`` to a mode that was never offered. With ``objects``, no entry of a
  list is other than an object (so the store takes the lists: the UI meets every shape).
- ``info``: ``session_info_update`` with ``updatedAt`` of wrong types and out of range, and a
  title of 200,000 characters with markup and escapes.
- ``transport``: CRLF line ends, a line starting with a BOM, a JSON-RPC batch array of updates,
  a notification that carries an id, a response to a request never sent, a request whose id is
  a 5,000-digit number, and two permission requests with the same id.
- ``slow-loris``: half an update line, a pause of ``SLOW_SECONDS``, the other half.
- ``stderr-flood MB``: MB megabytes of stderr lines during the turn, then a message.
- ``fs-weird``: ``fs/read_text_file`` with ``line``/``limit`` negative, huge and strings, a NUL in
  the path, a relative path, a directory; ``fs/write_text_file`` with content ``null``; each
  answer reported.
- ``terminal-weird``: ``terminal/create`` with ``outputByteLimit`` negative, huge and a string,
  args that are not strings, a NUL in the command; ``terminal/output`` and ``terminal/kill`` of
  ids never created; each answer reported.
- ``permission-weird``: permission requests with no options, options of duplicate ids, a missing
  tool call, options that are not objects; each answer reported.
- ``elicit-escapes``: ``elicitation/create`` of a form whose field default is
  :data:`ELICIT_DEFAULT` and whose pattern is :data:`CATASTROPHIC_PATTERN`; the answer reported.
- ``ghost-permission [SESSION]``: permission requests for a session never opened and for no
  session, and a form for the session never opened; the answers reported.
- ``title-osc [SECONDS]``: after SECONDS, a session title and a message full of OSC 0/2 (window title), OSC 9/777
  (desktop notification) and DCS sequences, then a permission request (the person is needed).

Flags: ``--init-shape NAME`` answers ``initialize`` with hostile shapes (``wrong-types``:
capabilities, agentInfo and authMethods of wrong types; ``error``: an error whose message is
:data:`INIT_ERROR`), ``--new-shape NAME`` answers
``session/new`` with hostile shapes (``wrong-types``: modes and configOptions of wrong types;
``markup-id``: :data:`MARKUP_SESSION_ID`, a session id full of markup, escapes and a
newline; ``huge-id``: a session id of a million characters); ``--list-rows``:
``session/list`` answers one page of :data:`HOSTILE_LIST_ROWS` (duplicate ids, a relative cwd,
dates out of range or of wrong types, markup in titles and ids, rows that are not rows, and
thousands of rows); ``--load-shape NAME``: ``loadSession``, and ``session/load`` misbehaves
(see ``Agent._load``).

Everything a test asserts on is a constant of this module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

try:  # imported by the tests
    from tests.agents import hostile_agent as base
except ImportError:  # run as a script: this directory is on sys.path
    import hostile_agent as base  # type: ignore[import-not-found,no-redef]

SESSION_ID = base.SESSION_ID
hostile = base.hostile
update = base.update
say = base.say
send = base.send
respond = base.respond

ESC_MARKUP = "[/][@click=app.quit]Q[/][link=https://evil.example]L[/link]\x1b]0;pwn\x07\x1b[2J"
BLOCKS_DONE = "Blocks sent."
TOOL_CONTENT_DONE = "Tool content sent."
PLAN_DONE = "Big plan sent."
PLAN_ENTRIES = 5_000
COMMANDS_DONE = "Commands sent."
COMMAND_COUNT = 3_000
CONFIG_DONE = "Config sent."
INFO_DONE = "Info sent."
INFO_TITLE = "[b]Big[/b] \x1b]0;title\x07" + "t" * 200_000
TRANSPORT_DONE = "Transport done."
CRLF_TEXT = "crlf-line "
BOM_TEXT = "bom-line "
BATCH_TEXT = "batch-line "
ID_NOTIFICATION_TEXT = "notification-with-id "
SLOW_SECONDS = 3.0
SLOW_TEXT = "slow loris line arrived"
STDERR_DONE = "Stderr flooded."
FS_DONE = "fs done"
TERMINAL_DONE = "terminals done"
PERMISSION_DONE = "permissions done"
OSC_TITLE = (
    "Osc\x1b]0;OWNED-TITLE\x07\x1b]2;OWNED2\x1b\\\x1b]9;OWNED-NOTE\x07"
    "\x1b]777;notify;OWNED;body\x07\x1bPqDCS\x1b\\\x9d0;C1\x9c\u202eend"
)
OSC_SHOWN = "Oscend"
GHOST_DONE = "ghost requests answered"
#: ``elicit-escapes``: a form field whose default carries escapes and a bidi override, with a
#: pattern that backtracks for ever on it (nested repeats, then a character that fails).
ELICIT_DEFAULT = "a" * 40 + "\x1b]0;OWNED\x07\x1b[2J\u202e!"
CATASTROPHIC_PATTERN = "^(a+)+$"
ELICIT_DONE = "form answered:"
#: The error ``--init-shape error`` answers initialize with: escapes that retitle the window,
#: clear the screen and write the clipboard, a newline and a bidi override.
INIT_ERROR = "Init failed\x1b]0;OWNED\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\nSAFE\u202eevil"


def reply(text: str) -> None:
    say(text)


def _raw(data: bytes) -> None:
    base.write_raw(data)


def _update_line(body: dict[str, Any]) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": SESSION_ID, "update": body},
        }
    )


def _chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


HOSTILE_BLOCKS: list[Any] = [
    {"type": "image", "mimeType": ESC_MARKUP, "data": "not base64 !!!" + ESC_MARKUP},
    {"type": "image", "mimeType": "image/png", "data": "A" * 2_000_000, "uri": ESC_MARKUP},
    {"type": "audio", "mimeType": 5, "data": None},
    {
        "type": "resource",
        "resource": {"uri": ESC_MARKUP, "mimeType": ESC_MARKUP, "text": "res " + ESC_MARKUP},
    },
    {"type": "resource", "resource": {"uri": "file:///x", "blob": "%%%not base64"}},
    {"type": "resource", "resource": "not an object"},
    {
        "type": "resource_link",
        "uri": "javascript:alert(1)\n\nSAFE",
        "name": ESC_MARKUP,
        "title": ESC_MARKUP,
        "description": ESC_MARKUP,
        "mimeType": ESC_MARKUP,
        "size": -1,
    },
    {"type": "resource_link", "uri": "file:///etc/passwd", "name": "p", "size": 10**100},
    {"type": "resource_link", "uri": "file:///huge", "name": "huge", "size": 10**400},
    {"type": "resource_link", "uri": 5, "name": None, "size": "huge"},
    {"type": "resource_link", "uri": "file:///big", "name": "big", "size": 1e308},
    {"type": "hostile_block", "payload": ESC_MARKUP},
    {"type": None},
    "a string block",
]


MARKUP_SESSION_ID = "[/]id\x1b]0;OWNED\x07\n\u202e[@click=app.quit]Q"
HUGE_SESSION_ID = "h" * 1_000_000
LIST_ROW_COUNT = 3_000
LOAD_FLOOD = 20_000
HOSTILE_LIST_ROWS: list[Any] = [
    {"sessionId": "dup", "cwd": "/", "title": "First of a duplicate id"},
    {"sessionId": "dup", "cwd": "/", "title": "Second of a duplicate id"},
    {"sessionId": "rel", "cwd": "relative/dir\n\nSAFE", "title": "Relative cwd"},
    {"sessionId": "date1", "cwd": "/", "title": "Bad date 1", "updatedAt": "9999-99-99T99:99:99Z"},
    {"sessionId": "date2", "cwd": "/", "title": "Bad date 2", "updatedAt": 10**20},
    {"sessionId": "date3", "cwd": "/", "title": "Bad date 3", "updatedAt": "-0001-01-01T00:00:00Z"},
    {"sessionId": "date4", "cwd": "/", "title": "Far future", "updatedAt": "9999-12-31T23:59:59Z"},
    {
        "sessionId": "date5",
        "cwd": "/",
        "title": "Far past",
        "updatedAt": "0001-01-01T00:00:00+14:00",
    },
    {"sessionId": "markup", "cwd": "/", "title": ESC_MARKUP, "updatedAt": "2026-01-01T00:00:00Z"},
    {"sessionId": ESC_MARKUP + "\nid", "cwd": "/", "title": None},
    {"sessionId": None, "cwd": "/", "title": "No id"},
    {"sessionId": 5, "cwd": 5, "title": 5},
    {"cwd": "/"},
    "not a row",
    None,
] + [{"sessionId": f"bulk-{n}", "cwd": "/", "title": f"Bulk {n}"} for n in range(LIST_ROW_COUNT)]


class Agent(base.Agent):
    """The round 1+2 agent with round 3's prompts and flags."""

    def more_capabilities(self) -> dict[str, Any]:
        caps = super().more_capabilities()
        if self.options.list_rows:
            caps["sessionCapabilities"] = {"list": {}}
        if self.options.load_shape:
            caps["loadSession"] = True
        return caps

    def handle_more(self, method: str, request_id: Any, params: dict[str, Any]) -> bool:
        if method == "session/load" and self.options.load_shape:
            self._load(request_id, params)
            return True
        if method == "session/list" and self.options.list_rows:
            here = os.getcwd()  # "/" stands for the agent's cwd: the rows of "this folder"
            rows = [
                {**row, "cwd": here} if isinstance(row, dict) and row.get("cwd") == "/" else row
                for row in HOSTILE_LIST_ROWS
            ]
            respond(request_id, {"sessions": rows, "nextCursor": None})
            return True
        return super().handle_more(method, request_id, params)

    # -- start-up shapes ----------------------------------------------------------------------

    def initialize(self, request_id: Any) -> None:
        if self.options.init_shape == "error":
            base.error(request_id, -32603, INIT_ERROR)
            return
        if self.options.init_shape != "wrong-types":
            super().initialize(request_id)
            return
        respond(
            request_id,
            {
                "protocolVersion": 1,
                "agentInfo": ESC_MARKUP,
                "agentCapabilities": {
                    "loadSession": "yes",
                    "promptCapabilities": ["image"],
                    "mcpCapabilities": 5,
                    "sessionCapabilities": "all",
                    "_meta": [1, 2],
                },
                "authMethods": {"id": "x"},
            },
        )

    def handle(self, message: dict[str, Any]) -> None:
        shape = self.options.new_shape
        if shape in ("markup-id", "huge-id") and message.get("method") == "session/new":
            session = MARKUP_SESSION_ID if shape == "markup-id" else HUGE_SESSION_ID
            respond(message.get("id"), {"sessionId": session})
            update({"sessionUpdate": "session_info_update", "title": "Odd id"}, session)
            return
        if shape in ("markup-id", "huge-id") and message.get("method") == "session/prompt":
            params = message.get("params") or {}
            blocks = params.get("prompt") or [{}]
            say(f"You said: {blocks[0].get('text', '')}", params.get("sessionId", ""))
            respond(message.get("id"), {"stopReason": "end_turn"})
            return
        if message.get("method") == "session/new" and shape:
            request_id = message.get("id")
            if shape == "wrong-types":
                respond(
                    request_id,
                    {
                        "sessionId": SESSION_ID,
                        "modes": {"currentModeId": 5, "availableModes": {"a": 1}},
                        "configOptions": [
                            5,
                            {"id": None, "type": "select", "options": None},
                            {"id": "x", "name": ["n"], "type": "select", "currentValue": [1]},
                        ],
                        "models": "gpt",
                    },
                )
            return
        super().handle(message)

    def _load(self, request_id: Any, params: dict[str, Any]) -> None:
        """``--load-shape``: ``hang`` never answers; ``error`` answers an error full of
        escapes; ``other-session`` replays into a session that was not asked for, then
        answers; ``flood`` replays LOAD_FLOOD messages, then answers."""
        shape = self.options.load_shape
        if shape == "hang":
            return
        if shape == "error":
            base.error(request_id, -32603, INIT_ERROR)
            return
        if shape == "other-session":
            say("replayed into another session", "someone-else")
        elif shape == "flood":
            asked = params.get("sessionId") if isinstance(params.get("sessionId"), str) else ""
            for n in range(LOAD_FLOOD):
                update(
                    {
                        "sessionUpdate": "user_message_chunk",
                        "content": {"type": "text", "text": f"old question {n}"},
                    },
                    asked,
                )
                say(f"old answer {n}", asked)
        respond(request_id, {})

    # -- prompts ------------------------------------------------------------------------------

    def do_blocks(self, request_id: Any, argument: str) -> None:
        for block in HOSTILE_BLOCKS:
            update({"sessionUpdate": "agent_message_chunk", "content": block})
            update({"sessionUpdate": "user_message_chunk", "content": block})
            update({"sessionUpdate": "agent_thought_chunk", "content": block})
        reply(BLOCKS_DONE)
        self.end_turn(request_id)

    def do_tool_content(self, request_id: Any, argument: str) -> None:
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "content-1",
                "title": "Every content",
                "kind": "edit",
                "status": "in_progress",
                "content": [
                    {"type": "content", "content": block}
                    for block in HOSTILE_BLOCKS
                    if isinstance(block, dict)
                ]
                + [
                    {"type": "diff", "path": ESC_MARKUP, "oldText": None, "newText": "x\r\ny"},
                    {"type": "diff", "path": None, "oldText": 5, "newText": None},
                    {"type": "diff", "path": "/big", "oldText": "a\n" * 50_000, "newText": "b"},
                    {"type": "terminal", "terminalId": "never-created"},
                    {"type": "terminal", "terminalId": None},
                    {"type": "hostile", "x": 1},
                ]
                + ([] if argument == "objects" else ["a string"]),
                "locations": [
                    {"path": ESC_MARKUP, "line": -5},
                    {"path": "/x", "line": 10**30},
                    {"path": None, "line": "ten"},
                ]
                + ([] if argument == "objects" else ["not a location"]),
            }
        )
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "content-1",
                "status": "completed",
                **(
                    {}
                    if argument == "objects"
                    else {"content": "not a list", "locations": {"a": 1}}
                ),
            }
        )
        reply(TOOL_CONTENT_DONE)
        self.end_turn(request_id)

    def do_plan_big(self, request_id: Any, argument: str) -> None:
        entries: list[Any] = [
            {"content": f"step {n} {ESC_MARKUP}", "priority": "urgent!", "status": "weird"}
            for n in range(PLAN_ENTRIES)
        ]
        entries[1] = {"content": "L" * 100_000, "priority": "high", "status": "in_progress"}
        entries[2] = {"content": None, "priority": 5, "status": None}
        if argument != "objects":
            entries[3] = "not an entry"
        update({"sessionUpdate": "plan", "entries": entries})
        reply(PLAN_DONE)
        self.end_turn(request_id)

    def do_plan_flood(self, request_id: Any, argument: str) -> None:
        """``plan-flood UPDATES ENTRIES``: UPDATES plans of ENTRIES entries each, one entry
        more done in each (an agent that re-sends its whole plan at every step)."""
        words = argument.split()
        updates = int(words[0]) if words else 200
        size = int(words[1]) if len(words) > 1 else 2_000
        lines = []
        for n in range(updates):
            entries = [
                {
                    "content": f"step {k}",
                    "priority": "medium",
                    "status": "completed" if k < n else "pending",
                }
                for k in range(size)
            ]
            lines.append(_update_line({"sessionUpdate": "plan", "entries": entries}) + "\n")
        _raw("".join(lines).encode())
        reply(PLAN_DONE)
        self.end_turn(request_id)

    def do_commands(self, request_id: Any, argument: str) -> None:
        commands: list[Any] = [
            {
                "name": f"cmd {n}/x\n{ESC_MARKUP}",
                "description": ESC_MARKUP * 3,
                "input": {"hint": ESC_MARKUP},
            }
            for n in range(COMMAND_COUNT)
        ]
        commands += [
            {"name": "dup", "description": "one"},
            {"name": "dup", "description": "two"},
            {"name": "", "description": "empty"},
            {"name": None, "description": 5, "input": "x"},
        ]
        if argument != "objects":  # "objects": every entry an object, so the list is taken
            commands.append("not a command")
        update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
        reply(COMMANDS_DONE)
        self.end_turn(request_id)

    def do_config(self, request_id: Any, argument: str) -> None:
        options: list[Any] = [
            {
                "id": "model",
                "name": ESC_MARKUP,
                "category": "model",
                "type": "select",
                "currentValue": "not-offered",
                "options": [{"value": "a", "name": ESC_MARKUP}],
            },
            {"id": "empty", "name": "Empty", "type": "select", "currentValue": "x", "options": []},
            {
                "id": "many",
                "name": "Many",
                "type": "select",
                "category": "thought_level",
                "currentValue": "v0",
                "options": [{"value": f"v{n}", "name": f"V{n}"} for n in range(2_000)],
            },
            {
                "id": "grouped",
                "name": "Grouped",
                "type": "select",
                "category": "mode",
                "currentValue": "g1",
                "options": [
                    {"group": "g", "name": ESC_MARKUP, "options": [{"value": "g1", "name": "G1"}]},
                    {"group": None, "name": None, "options": "x"},
                ],
            },
            {"id": "flag", "name": "Flag", "type": "boolean", "currentValue": "yes"},
            {"id": "odd", "name": "Odd", "type": "slider", "currentValue": 3},
            {
                "id": "model",
                "name": "Duplicate",
                "type": "select",
                "currentValue": "a",
                "options": [],
            },
        ]
        if argument != "objects":  # "objects": every entry an object, so the list is taken
            options.append(None)
        update({"sessionUpdate": "config_option_update", "configOptions": options})
        update({"sessionUpdate": "config_option_update", "configOptions": "none"})
        update({"sessionUpdate": "current_mode_update", "currentModeId": "never-offered"})
        reply(CONFIG_DONE)
        self.end_turn(request_id)

    def do_info(self, request_id: Any, argument: str) -> None:
        for updated in ("not a date", 10**20, -1, "9999-99-99T99:99:99Z", None, [1], "0001-01-01"):
            update({"sessionUpdate": "session_info_update", "updatedAt": updated})
        update({"sessionUpdate": "session_info_update", "title": INFO_TITLE})
        update({"sessionUpdate": "session_info_update", "title": None, "_meta": {"x": 1}})
        update({"sessionUpdate": "session_info_update", "title": INFO_TITLE})
        reply(INFO_DONE)
        self.end_turn(request_id)

    def do_transport(self, request_id: Any, argument: str) -> None:
        _raw((_update_line(_chunk(CRLF_TEXT)) + "\r\n").encode())
        _raw(("\ufeff" + _update_line(_chunk(BOM_TEXT)) + "\n").encode())
        batch = [json.loads(_update_line(_chunk(BATCH_TEXT))) for _ in range(2)]
        _raw((json.dumps(batch) + "\n").encode())
        message = json.loads(_update_line(_chunk(ID_NOTIFICATION_TEXT)))
        message["id"] = "notification-id"
        send(message)
        respond("never-sent-by-me", {"stopReason": "end_turn"})
        _raw(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"fs/read_text_file"}\n')
        for _ in range(2):
            send(
                {
                    "jsonrpc": "2.0",
                    "id": "same-id",
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": SESSION_ID,
                        "toolCall": {"toolCallId": "dup-1", "title": "Duplicate id"},
                        "options": base.STORM_OPTIONS,
                    },
                }
            )
        answers = 0
        while answers < 2:
            got = self.read()
            if got is None:
                return
            if got.get("id") == "same-id" and "method" not in got:
                answers += 1
                continue
            self.handle(got)
        reply(TRANSPORT_DONE)
        self.end_turn(request_id)

    def do_slow_loris(self, request_id: Any, argument: str) -> None:
        line = (_update_line(_chunk(SLOW_TEXT)) + "\n").encode()
        _raw(line[:20])
        time.sleep(SLOW_SECONDS)
        _raw(line[20:])
        self.end_turn(request_id)

    def do_stderr_flood(self, request_id: Any, argument: str) -> None:
        megabytes = float(argument or "20")
        line = ("stderr flood \x1b]0;pwn\x07 " + "e" * 1000 + "\n").encode()
        count = int(megabytes * 1024 * 1024 / len(line))
        for _ in range(count):
            sys.stderr.buffer.write(line)
        sys.stderr.flush()
        reply(STDERR_DONE)
        self.end_turn(request_id)

    def _report(self, label: str, answer: dict[str, Any] | None) -> None:
        if answer is None:
            return
        if "error" in answer:
            shown = f"error {answer['error'].get('code')}"
        else:
            shown = "ok " + json.dumps(answer.get("result"))[:80]
        reply(f"{label}: {shown}\n")

    def do_fs_weird(self, request_id: Any, argument: str) -> None:
        cwd = os.getcwd()
        inside = os.path.join(cwd, "weird.txt")
        with open(inside, "w") as file:
            file.write("one\ntwo\nthree\n")
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("neg-line", "fs/read_text_file", {"path": inside, "line": -5, "limit": 1}),
            ("huge-line", "fs/read_text_file", {"path": inside, "line": 10**30}),
            ("neg-limit", "fs/read_text_file", {"path": inside, "limit": -1}),
            ("str-limit", "fs/read_text_file", {"path": inside, "limit": "2"}),
            ("float-line", "fs/read_text_file", {"path": inside, "line": 1.5}),
            ("nul-path", "fs/read_text_file", {"path": inside + "\x00x"}),
            ("relative", "fs/read_text_file", {"path": "weird.txt"}),
            ("directory", "fs/read_text_file", {"path": cwd}),
            ("path-int", "fs/read_text_file", {"path": 5}),
            ("write-null", "fs/write_text_file", {"path": inside, "content": None}),
            ("write-dir", "fs/write_text_file", {"path": cwd, "content": "x"}),
        ]
        for label, method, params in cases:
            self._report(label, self.request(method, {"sessionId": SESSION_ID, **params}))
        reply(FS_DONE)
        self.end_turn(request_id)

    def do_terminal_weird(self, request_id: Any, argument: str) -> None:
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("neg-limit", "terminal/create", {"command": "echo", "outputByteLimit": -1}),
            ("huge-limit", "terminal/create", {"command": "echo", "outputByteLimit": 10**30}),
            ("str-limit", "terminal/create", {"command": "echo", "outputByteLimit": "5"}),
            ("args-ints", "terminal/create", {"command": "echo", "args": [1, None]}),
            ("args-str", "terminal/create", {"command": "echo", "args": "a b"}),
            ("nul-command", "terminal/create", {"command": "ec\x00ho"}),
            ("empty-command", "terminal/create", {"command": ""}),
            ("env-bad", "terminal/create", {"command": "echo", "env": [{"name": 5}]}),
            ("output-unknown", "terminal/output", {"terminalId": "never"}),
            ("kill-unknown", "terminal/kill", {"terminalId": "never"}),
            ("wait-unknown", "terminal/wait_for_exit", {"terminalId": None}),
            ("release-unknown", "terminal/release", {"terminalId": ["x"]}),
        ]
        created: list[str] = []
        for label, method, params in cases:
            answer = self.request(method, {"sessionId": SESSION_ID, **params})
            self._report(label, answer)
            terminal = ((answer or {}).get("result") or {}).get("terminalId")
            if isinstance(terminal, str):
                created.append(terminal)
        for terminal in created:
            self.request("terminal/release", {"sessionId": SESSION_ID, "terminalId": terminal})
        reply(TERMINAL_DONE)
        self.end_turn(request_id)

    def do_permission_weird(self, request_id: Any, argument: str) -> None:
        call = {"toolCallId": "weird-1", "title": "Weird"}
        cases: list[tuple[str, dict[str, Any]]] = [
            ("no-options", {"toolCall": call, "options": []}),
            (
                "dup-options",
                {
                    "toolCall": call,
                    "options": [
                        {"optionId": "x", "name": "Reject", "kind": "reject_once"},
                        {"optionId": "x", "name": "Allow", "kind": "allow_once"},
                    ],
                },
            ),
            ("no-tool-call", {"options": base.STORM_OPTIONS}),
            ("bad-options", {"toolCall": call, "options": ["yes", 5, None]}),
        ]
        for label, params in cases:
            answer = self.request("session/request_permission", {"sessionId": SESSION_ID, **params})
            self._report(label, answer)
        reply(PERMISSION_DONE)
        self.end_turn(request_id)

    def do_elicit_escapes(self, request_id: Any, argument: str) -> None:
        answer = self.request(
            "elicitation/create",
            {
                "sessionId": SESSION_ID,
                "mode": "form",
                "message": "Form " + ESC_MARKUP,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {
                            "type": "string",
                            "title": ESC_MARKUP,
                            "default": ELICIT_DEFAULT,
                            "pattern": CATASTROPHIC_PATTERN,
                        },
                    },
                },
            },
        )
        result = (answer or {}).get("result") or {}
        reply(f"{ELICIT_DONE} {json.dumps(result, sort_keys=True)}")
        self.end_turn(request_id)

    def do_ghost_permission(self, request_id: Any, argument: str) -> None:
        """A permission request for a session that was never opened (ARGUMENT, or a made-up
        id), then one with no session id at all; the answers reported."""
        for label, session in (("ghost", argument or base.UNKNOWN_SESSION_ID), ("none", None)):
            params: dict[str, Any] = {
                "toolCall": {"toolCallId": "ghost-1", "title": "Ghost request"},
                "options": base.STORM_OPTIONS,
            }
            if session is not None:
                params["sessionId"] = session
            self._report(label, self.request("session/request_permission", params))
        form = {
            "sessionId": argument or base.UNKNOWN_SESSION_ID,
            "mode": "form",
            "message": "Ghost form",
            "requestedSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
        }
        self._report("ghost-form", self.request("elicitation/create", form))
        reply(GHOST_DONE)
        self.end_turn(request_id)

    def do_title_osc(self, request_id: Any, argument: str) -> None:
        """``title-osc [SECONDS]``: after SECONDS (the person may go elsewhere meanwhile)."""
        time.sleep(float(argument or "0"))
        update({"sessionUpdate": "session_info_update", "title": OSC_TITLE})
        reply(OSC_TITLE)
        answer = self.request(
            "session/request_permission",
            {
                "sessionId": SESSION_ID,
                "toolCall": {"toolCallId": "osc-1", "title": OSC_TITLE},
                "options": base.STORM_OPTIONS,
            },
        )
        if answer is None:
            return
        self.end_turn(request_id)


def main(argv: list[str] | None = None, agent: type[Agent] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--at-start",
        choices=["normal", "crash", "banner", "not-acp", "hang-initialize", "bad-version"],
        default="normal",
    )
    parser.add_argument("--auth-required", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--hostile-text", action="store_true")
    parser.add_argument("--init-shape", choices=["wrong-types", "error"], default=None)
    parser.add_argument(
        "--new-shape", choices=["wrong-types", "markup-id", "huge-id"], default=None
    )
    parser.add_argument("--list-rows", action="store_true")
    parser.add_argument(
        "--load-shape", choices=["hang", "error", "other-session", "flood"], default=None
    )
    base.HostileCore.add_arguments(parser)
    (agent or Agent)(parser.parse_args(argv)).run()


if __name__ == "__main__":
    main()
