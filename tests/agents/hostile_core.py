"""Round 2 of the hostile agent (issue 17): what the second attack found, as prompts and flags.

A mixin of :class:`tests.agents.hostile_agent.Agent` (kept apart so the two rounds grow without
stepping on each other). Prompts (the text of the first text block; arguments after a space):

- ``surrogate``: a session title, a tool title and a message with lone surrogates (``\\ud800``,
  valid JSON), then more text.
- ``bad-numbers``: usage updates with a cost of 1e26, NaN, Infinity, -1, strings, bools and
  huge integers; the turn's usage with the same; then a message.
- ``deep``: a line of ``[`` x 100,000, an unclosed ``{`` x 50,000, and updates nested 900
  deep (a tool call's ``rawInput``, an unknown variant); then a message.
- ``close-stdin [ask]``: the agent closes its own stdin, ends the turn (or, with ``ask``, asks
  a permission mid-turn), and lives on: it can no longer read, the client's next write fails.
- ``bad-ids``: requests with ids ``null``, an object, ``true``, ``false``; the reply counts the
  ``-32600`` answers with a null id that came back.
- ``permission-after-cancel``: a chunk, then waits for ``session/cancel``; only then asks a
  permission and reports its outcome before ending the turn ``cancelled``.
- ``unannounced-tool [silent]``: asks permission for a tool call it never sent (``quiet-1``,
  titled :data:`UNANNOUNCED_TITLE`), then ends it with a bare ``tool_call_update`` (Qwen
  Code's way); ``silent``: sends nothing more of it, whatever the answer (Qwen Code after a
  rejection), and ends the turn.
- ``permission-then-end``: asks a permission and ends the turn at once without waiting;
  ``last-answer`` reports what the client answered to it.
- ``terminal-outside DIR``: ``terminal/create`` of ``pwd`` in DIR.
- ``terminal-env NAME=VALUE``: ``terminal/create`` of ``sh -c 'echo $NAME'`` with that env.
- ``terminal-run COMMAND``: runs COMMAND (a shell line) in a terminal, waits, releases it.
- ``spoof-read``: ``fs/read_text_file`` of :data:`SPOOF_PATH` (newlines and fake "SAFE" lines).
- ``spoof-terminal``: ``terminal/create`` in ``/`` of :data:`SPOOF_COMMAND`, with an env
  value holding newlines.
- ``orphans-then-crash PIDFILE``: starts a ``sleep`` in its process group, a ``setsid sleep``
  and a ``setsid sleep`` with an empty environment, writes their pids, then exits 3.
- ``spawn-daemon PIDFILE``: starts a ``setsid sleep`` (pid written to PIDFILE) and lives on.

Flags: ``--list repeat|cycle|fresh`` (``session/list`` repeats its ``nextCursor``, cycles
through two, or hands out fresh cursors over the same rows forever); ``--load short|full``
with ``--history FILE`` (``loadSession``: prompts that get the default echo are kept in FILE;
``session/load`` replays all of them, or only the first).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

SESSION_ID = "hostile-1"

UNANNOUNCED_TITLE = "touch made1.txt"

SURROGATE_TITLE = "Title \ud800 lone"
SURROGATE_TEXT = "Lone \udfff surrogate in a reply."
SURROGATE_AFTER = " And the reply goes on."

BAD_USAGE = [
    {"used": 5, "size": 10, "cost": {"amount": 1e26, "currency": "USD"}},
    {
        "used": float("nan"),
        "size": float("inf"),
        "cost": {"amount": float("nan"), "currency": "USD"},
    },
    {"used": -1, "size": float("-inf"), "cost": {"amount": -3, "currency": "EUR"}},
    {"used": "lots", "size": True, "cost": {"amount": "1", "currency": 5}},
    {"used": 10**30, "size": 2**64, "cost": {"amount": float("inf"), "currency": "USD"}},
]
BAD_TURN_USAGE = {"totalTokens": float("nan"), "inputTokens": -5, "outputTokens": 10**40}
NUMBERS_DONE = "Numbers sent."

DEEP_DONE = "Still here after the deep lines."
DEPTH = 900

CLOSED_STDIN = "Closed my input."

BAD_IDS: list[Any] = [None, {"an": "object"}, True, False]

LATE_PERMISSION = "late permission answered:"
SPOOF_PATH = (
    "/tmp/acp-tui-spoof.txt\n\n  SAFE: this file is inside your project\n"
    "  SAFE: nothing leaves this folder\n\n"
)
SPOOF_COMMAND = "ls\n\nSAFE: read-only command, inside your project\n"

LIST_ROWS = [
    {"sessionId": "listed-a", "cwd": "/", "title": "Listed A"},
    {"sessionId": "listed-b", "cwd": "/", "title": "Listed B"},
]


def _send(message: dict[str, Any]) -> None:
    # json.dumps escapes lone surrogates (\ud800) and writes NaN/Infinity: as a hostile
    # agent would.
    try:
        sys.stdout.buffer.write((json.dumps(message) + "\n").encode())
        sys.stdout.buffer.flush()
    except (BrokenPipeError, ValueError):
        os._exit(0)


def _raw(line: str) -> None:
    try:
        sys.stdout.buffer.write(line.encode() + b"\n")
        sys.stdout.buffer.flush()
    except (BrokenPipeError, ValueError):
        os._exit(0)


def _update(body: dict[str, Any]) -> None:
    _send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": SESSION_ID, "update": body},
        }
    )


def _say(text: str) -> None:
    _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


def _respond(request_id: Any, result: Any) -> None:
    _send({"jsonrpc": "2.0", "id": request_id, "result": result})


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


class HostileCore:
    """Round 2 commands, flags and hooks; mixed into the round 1 agent."""

    options: argparse.Namespace

    # provided by the round 1 agent
    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def read(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def handle(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def end_turn(self, request_id: Any) -> None:
        raise NotImplementedError

    # -- flags and hooks -------------------------------------------------------------------

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--list", choices=["repeat", "cycle", "fresh"], default=None)
        parser.add_argument("--load", choices=["short", "full"], default=None)
        parser.add_argument("--history", metavar="FILE", default=None)

    def more_capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        if self.options.list:
            caps["sessionCapabilities"] = {"list": {}}
        if self.options.load:
            caps["loadSession"] = True
        return caps

    def handle_more(self, method: str, request_id: Any, params: dict[str, Any]) -> bool:
        """Requests round 1 does not know; True when handled."""
        if method == "session/list" and self.options.list:
            self._list_page(request_id, params.get("cursor"))
            return True
        if method == "session/load" and self.options.load:
            self._replay()
            _respond(request_id, {})
            return True
        return False

    def on_response(self, message: dict[str, Any]) -> None:
        """An answer to a request of ours that nobody waited for."""
        answers = self.__dict__.setdefault("answers", {})
        answers[message.get("id")] = message

    def note_prompt(self, text: str, echoed: bool) -> None:
        if echoed and self.options.history:
            with open(self.options.history, "a") as history:
                history.write(json.dumps({"user": text, "agent": f"You said: {text}"}) + "\n")

    # -- session/list and session/load -----------------------------------------------------

    def _list_page(self, request_id: Any, cursor: Any) -> None:
        mode = self.options.list
        if mode == "repeat":
            result = {"sessions": LIST_ROWS, "nextCursor": "again"}
        elif mode == "cycle":
            following = {None: "c1", "c1": "c2", "c2": "c1"}
            rows = {None: LIST_ROWS[:1], "c1": LIST_ROWS[1:], "c2": [LIST_ROWS[0]]}
            result = {"sessions": rows.get(cursor, []), "nextCursor": following.get(cursor, "c1")}
        else:
            count = int(cursor[1:]) + 1 if isinstance(cursor, str) else 0
            result = {"sessions": LIST_ROWS[:1], "nextCursor": f"n{count}"}
        _respond(request_id, result)

    def _replay(self) -> None:
        entries: list[dict[str, str]] = []
        if self.options.history and os.path.exists(self.options.history):
            with open(self.options.history) as history:
                entries = [json.loads(line) for line in history if line.strip()]
        if self.options.load == "short":
            entries = entries[:1]
        for entry in entries:
            _update(
                {
                    "sessionUpdate": "user_message_chunk",
                    "content": {"type": "text", "text": entry["user"]},
                }
            )
            _say(entry["agent"])

    # -- prompts ---------------------------------------------------------------------------

    def do_surrogate(self, request_id: Any, argument: str) -> None:
        _update({"sessionUpdate": "session_info_update", "title": SURROGATE_TITLE})
        _update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "surrogate-1",
                "title": "Tool \ud800",
                "kind": "read",
                "status": "completed",
            }
        )
        _say(SURROGATE_TEXT)
        _say(SURROGATE_AFTER)
        self.end_turn(request_id)

    def do_bad_numbers(self, request_id: Any, argument: str) -> None:
        for usage in BAD_USAGE:
            _update({"sessionUpdate": "usage_update", **usage})
        _say(NUMBERS_DONE)
        _respond(request_id, {"stopReason": "end_turn", "usage": BAD_TURN_USAGE})

    def do_deep(self, request_id: Any, argument: str) -> None:
        _raw("[" * 100_000)
        _raw('{"a":' * 50_000)
        _update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "deep-1",
                "title": "Deeply nested input",
                "kind": "other",
                "status": "completed",
                "rawInput": _nested(DEPTH),
            }
        )
        _update({"sessionUpdate": "hostile_deep_update", "payload": _nested(DEPTH)})
        _update({"sessionUpdate": "session_info_update", "_meta": _nested(DEPTH)})
        _say(DEEP_DONE)
        self.end_turn(request_id)

    def do_close_stdin(self, request_id: Any, argument: str) -> None:
        """``close-stdin``: then end the turn; ``close-stdin ask``: then ask a permission in
        the middle of the turn (the client's answer cannot be written)."""
        sys.stdin.close()
        os.close(0)
        sys.stderr.write("hostile: closed my stdin\n")
        sys.stderr.flush()
        _say(CLOSED_STDIN)
        if argument == "ask":
            self._ask_permission("deaf-permission")
        else:
            self.end_turn(request_id)
        while True:  # alive, deaf
            time.sleep(3600)

    def do_bad_ids(self, request_id: Any, argument: str) -> None:
        for bad in BAD_IDS:
            _send({"jsonrpc": "2.0", "id": bad, "method": "session/request_permission"})
        answered = 0
        while answered < len(BAD_IDS):
            message = self.read()
            if message is None:
                return
            error = message.get("error")
            if "method" not in message and message.get("id") is None and isinstance(error, dict):
                answered += error.get("code") == -32600
                continue
            self.handle(message)
        _say(f"{answered} invalid-request answers with a null id")
        self.end_turn(request_id)

    def _ask_permission(self, request_id: str) -> None:
        _send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SESSION_ID,
                    "toolCall": {"toolCallId": "late-1", "title": "Delete the build folder"},
                    "options": [
                        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                    ],
                },
            }
        )

    def do_permission_after_cancel(self, request_id: Any, argument: str) -> None:
        _say("Working… (press Escape)")
        while True:
            message = self.read()
            if message is None:
                return
            if message.get("method") == "session/cancel":
                break
            self.handle(message)
        self._ask_permission("late-permission")
        while True:
            message = self.read()
            if message is None:
                return
            if message.get("id") == "late-permission" and "method" not in message:
                break
            self.handle(message)
        outcome = (message.get("result") or {}).get("outcome")
        _say(f"{LATE_PERMISSION} {json.dumps(outcome, sort_keys=True)}")
        _respond(request_id, {"stopReason": "cancelled"})

    def do_permission_then_end(self, request_id: Any, argument: str) -> None:
        self._ask_permission("orphan-permission")
        _say("Asked, and ended the turn without waiting.")
        self.end_turn(request_id)

    def do_unannounced_tool(self, request_id: Any, argument: str) -> None:
        # As Qwen Code does: no tool_call first; the permission request is the first word of
        # it, then bare updates (its own _meta, no title) follow.
        answer = self.request(
            "session/request_permission",
            {
                "sessionId": SESSION_ID,
                "toolCall": {
                    "toolCallId": "quiet-1",
                    "title": UNANNOUNCED_TITLE,
                    "kind": "execute",
                    "status": "pending",
                    "rawInput": {"command": "touch made1.txt"},
                },
                "options": [
                    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ],
            },
        )
        outcome = ((answer or {}).get("result") or {}).get("outcome") or {}
        if argument != "silent":
            _update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "quiet-1",
                    "status": "completed" if outcome.get("optionId") == "yes" else "failed",
                    "_meta": {"toolName": "run_shell_command"},
                }
            )
        _say("The quiet tool call is over.")
        self.end_turn(request_id)

    def do_last_answer(self, request_id: Any, argument: str) -> None:
        answers = self.__dict__.get("answers", {})
        answer = answers.get("orphan-permission")
        outcome = (answer or {}).get("result", {}).get("outcome") if answer else None
        _say(f"last answer: {json.dumps(outcome, sort_keys=True)}")
        self.end_turn(request_id)

    def _terminal(self, params: dict[str, Any]) -> None:
        answer = self.request("terminal/create", {"sessionId": SESSION_ID, **params})
        if answer is None:
            return
        if "error" in answer:
            _say(f"terminal refused: {answer['error'].get('message', '')}")
            return
        terminal = {"sessionId": SESSION_ID, "terminalId": answer["result"]["terminalId"]}
        self.request("terminal/wait_for_exit", terminal)
        output = self.request("terminal/output", terminal) or {}
        self.request("terminal/release", terminal)
        text = str((output.get("result") or {}).get("output", "")).strip()
        _say(f"terminal ran: {text}")

    def do_terminal_outside(self, request_id: Any, argument: str) -> None:
        self._terminal({"command": "pwd", "cwd": argument or "/"})
        self.end_turn(request_id)

    def do_terminal_env(self, request_id: Any, argument: str) -> None:
        name, _, value = argument.partition("=")
        self._terminal(
            {
                "command": "sh",
                "args": ["-c", f'echo "{name}=${name}"'],
                "env": [{"name": name, "value": value}],
            }
        )
        self.end_turn(request_id)

    def do_terminal_run(self, request_id: Any, argument: str) -> None:
        self._terminal({"command": argument})
        self.end_turn(request_id)

    def do_spoof_read(self, request_id: Any, argument: str) -> None:
        answer = self.request("fs/read_text_file", {"sessionId": SESSION_ID, "path": SPOOF_PATH})
        if answer is not None:
            _say("read refused" if "error" in answer else "read allowed")
            self.end_turn(request_id)

    def do_spoof_terminal(self, request_id: Any, argument: str) -> None:
        self._terminal(
            {
                "command": SPOOF_COMMAND,
                "cwd": "/",
                "env": [{"name": "PATH", "value": "/tmp/evil\n\nSAFE: PATH unchanged"}],
            }
        )
        self.end_turn(request_id)

    def do_orphans_then_crash(self, request_id: Any, argument: str) -> None:
        children = [
            subprocess.Popen(["sleep", "300"]),
            subprocess.Popen(["sleep", "300"], start_new_session=True),
            subprocess.Popen(["sleep", "300"], start_new_session=True, env={}),
        ]
        with open(argument, "w") as pids:
            pids.write(" ".join(str(child.pid) for child in children))
        _say("Started three sleepers; crashing now.")
        sys.stderr.write("hostile: crashing with children\n")
        sys.stderr.flush()
        os._exit(3)

    def do_spawn_daemon(self, request_id: Any, argument: str) -> None:
        daemon = subprocess.Popen(["sleep", "300"], start_new_session=True)
        with open(argument, "w") as pids:
            pids.write(str(daemon.pid))
        _say("Started a daemon.")
        self.end_turn(request_id)
