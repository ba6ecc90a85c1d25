"""The bench agent: a real ACP agent on stdio (plain JSON lines, standard library only) whose
replies are the benchmark workloads, with timestamps of what it sent.

``python bench/blackbox/agent.py --marks FILE``. A prompt names the work:

- ``/bench WORKLOAD [paced|burst]``: stream the chunks of WORKLOAD (see ``workloads.py``: a
  name such as ``paragraphs``, ``tokens16k``, ``chunk5mb``, or ``KIND:N``), all at once
  (``burst``: serialised first, then written in one go, as fast as the pipe takes them) or one
  every 5 ms (``paced``, on a fixed schedule, so the stream never drifts longer);
- ``/bench permission N``: a tool call asking permission with N options; when answered, a
  reply naming the choice;
- ``/bench form N``: ``elicitation/create`` of a form of N text fields ("Field 00001"...);
  when answered, a reply naming the answer;
- ``/bench options N``: ``config_option_update`` with N select options ("Setting 0001"...),
  then a reply ending with the turn's END marker.

``--options N``: ``session/new`` offers N such options (the next launch shows them before its
new session exists: acp-tui remembers what the last one offered).

Every event is appended to FILE as one JSON line with ``time.time()``: ``start`` and ``end``
of a stream (``end``: the last byte was written and flushed), ``permission-sent``,
``permission-answered``, ``form-sent``, ``form-answered``. The demo agent stays a demo: this one exists only for the benchmarks.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.blackbox.workloads import BEGIN, END, PACE, chunks_for, marker

SESSION_ID = "bench-session-1"


def many_options(count: int) -> list[dict[str, Any]]:
    """``count`` select options, five values each."""
    return [
        {
            "id": f"setting{n:04d}",
            "name": f"Setting {n:04d}",
            "type": "select",
            "currentValue": "v0",
            "options": [{"value": f"v{k}", "name": f"Value {k}"} for k in range(5)],
        }
        for n in range(1, count + 1)
    ]


class BenchAgent:
    def __init__(self, marks: Path | None, out: BinaryIO, options: int = 0) -> None:
        self.marks = marks
        #: Options ``session/new`` offers.
        self.options = options
        self.out = out
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.cancelled = threading.Event()
        self.next_id = 0
        self.turn = 0

    # ------------------------------------------------------------------ wire

    def read_forever(self, source: BinaryIO) -> None:
        """Reader thread: requests and responses to the inbox; a cancel is noted at once."""
        for raw in source:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if message.get("method") == "session/cancel":
                self.cancelled.set()
                continue
            self.inbox.put(message)
        self.inbox.put(None)

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        self.out.flush()

    def notification_line(self, text: str, message_id: str) -> bytes:
        update = {
            "sessionUpdate": "agent_message_chunk",
            "messageId": message_id,
            "content": {"type": "text", "text": text},
        }
        message = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": SESSION_ID, "update": update},
        }
        return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"

    def mark(self, event: str, **fields: Any) -> None:
        if self.marks is None:
            return
        record = {"event": event, "t": time.time(), "turn": self.turn, **fields}
        with self.marks.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    # ------------------------------------------------------------------ requests

    def serve(self) -> None:
        while True:
            message = self.inbox.get()
            if message is None:
                return
            method = message.get("method")
            if "id" not in message or not isinstance(method, str):
                continue  # a notification, or a stray response
            try:
                result = self.handle(method, message.get("params") or {})
            except LookupError as error:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32601, "message": str(error)},
                    }
                )
                continue
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def handle(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return {
                "protocolVersion": 1,
                "agentInfo": {"name": "bench-agent", "version": "1.0"},
                "agentCapabilities": {"loadSession": False},
                "authMethods": [],
            }
        if method == "session/new":
            if self.options:
                return {"sessionId": SESSION_ID, "configOptions": many_options(self.options)}
            return {"sessionId": SESSION_ID}
        if method == "session/set_config_option":
            return {"configOptions": many_options(self.options)}
        if method == "session/prompt":
            self.turn += 1
            self.mark("prompt-received")
            self.cancelled.clear()
            text = "".join(
                block.get("text", "")
                for block in params.get("prompt", [])
                if isinstance(block, dict)
            )
            self.run(text.split())
            return {"stopReason": "cancelled" if self.cancelled.is_set() else "end_turn"}
        raise LookupError(f"method not found: {method}")

    def run(self, words: list[str]) -> None:
        message_id = f"reply-{self.turn}"
        if len(words) >= 2 and words[0] == "/bench" and words[1] == "permission":
            self.permission(int(words[2]) if len(words) > 2 else 1000, message_id)
            return
        if len(words) >= 2 and words[0] == "/bench" and words[1] == "options":
            options = many_options(int(words[2]) if len(words) > 2 else 1000)
            update = {"sessionUpdate": "config_option_update", "configOptions": options}
            self.send(
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {"sessionId": SESSION_ID, "update": update},
                }
            )
            self.mark("options-sent", options=len(options))
            reply = f"Options sent. {marker(END, self.turn)}"
            self.out.write(self.notification_line(reply, message_id))
            self.out.flush()
            return
        if len(words) >= 2 and words[0] == "/bench" and words[1] == "form":
            self.form(int(words[2]) if len(words) > 2 else 5000, message_id)
            return
        if len(words) >= 2 and words[0] == "/bench":
            try:
                chunks = chunks_for(words[1])
            except (KeyError, ValueError):
                chunks = None
            if chunks is not None:
                # This turn's own markers: an earlier reply still on screen never matches.
                chunks[0] = chunks[0].replace(BEGIN, marker(BEGIN, self.turn), 1)
                head, _, tail = chunks[-1].rpartition(END)
                chunks[-1] = head + marker(END, self.turn) + tail
                self.stream(words[1], chunks, paced="paced" in words[2:], message_id=message_id)
                return
        help_text = "Usage: `/bench WORKLOAD [paced|burst]` or `/bench permission N`."
        self.out.write(self.notification_line(help_text, message_id))
        self.out.flush()

    # ------------------------------------------------------------------ workloads

    def stream(self, name: str, chunks: list[str], *, paced: bool, message_id: str) -> None:
        lines = [self.notification_line(chunk, message_id) for chunk in chunks]
        chars = sum(len(chunk) for chunk in chunks)
        if paced:
            self.mark("start", workload=name, paced=True, chunks=len(lines), chars=chars)
            begun = time.perf_counter()
            for index, line in enumerate(lines):
                if self.cancelled.is_set():
                    break
                delay = begun + index * PACE - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                self.out.write(line)
                self.out.flush()
        else:
            data = b"".join(lines)
            del lines
            self.mark("start", workload=name, paced=False, chunks=len(chunks), chars=chars)
            self.out.write(data)
            self.out.flush()
        self.mark("end", workload=name, cancelled=self.cancelled.is_set())

    def answer_to(self, request_id: str) -> Any:
        """Wait for the client's answer to our request ``request_id`` (its result or error)."""
        while True:
            message = self.inbox.get()
            if message is None:
                return None
            if message.get("id") == request_id and "method" not in message:
                return message.get("result") or message.get("error")

    def form(self, count: int, message_id: str) -> None:
        self.next_id += 1
        request_id = f"form-{self.next_id}"
        properties = {
            f"field{n:05d}": {"type": "string", "title": f"Field {n:05d}", "description": "d"}
            for n in range(1, count + 1)
        }
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "elicitation/create",
                "params": {
                    "sessionId": SESSION_ID,
                    "mode": "form",
                    "message": f"A form of {count:,} fields",
                    "requestedSchema": {"type": "object", "properties": properties},
                },
            }
        )
        self.mark("form-sent", fields=count)
        answer = self.answer_to(request_id)
        outcome = (
            answer.get("action") or answer.get("message") if isinstance(answer, dict) else None
        )
        self.mark("form-answered", outcome=str(outcome))
        reply = f"The form was answered: {outcome}. {marker(END, self.turn)}"
        self.out.write(self.notification_line(reply, message_id))
        self.out.flush()

    def permission(self, count: int, message_id: str) -> None:
        call_id = f"call-{self.turn}"
        self.send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SESSION_ID,
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": call_id,
                        "title": f"Choose one of {count:,} options",
                        "kind": "execute",
                        "status": "pending",
                    },
                },
            }
        )
        kinds = ("allow_once", "allow_always", "reject_once", "reject_always")
        options = [
            {"optionId": f"opt-{n}", "name": f"Choice {n:04d}", "kind": kinds[n % 4]}
            for n in range(1, count + 1)
        ]
        self.next_id += 1
        request_id = f"perm-{self.next_id}"
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SESSION_ID,
                    "toolCall": {"toolCallId": call_id, "title": f"Choose one of {count:,}"},
                    "options": options,
                },
            }
        )
        self.mark("permission-sent", options=count)
        answer: Any = None
        while True:
            message = self.inbox.get()
            if message is None:
                return
            if message.get("id") == request_id and "method" not in message:
                answer = message.get("result") or message.get("error")
                break
        outcome = (answer or {}).get("outcome", {}) if isinstance(answer, dict) else {}
        chosen = outcome.get("optionId") or outcome.get("outcome") or "nothing"
        self.mark("permission-answered", outcome=chosen)
        self.out.write(
            self.notification_line(f"You chose {chosen}. {marker(END, self.turn)}", message_id)
        )
        self.out.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench agent", description=__doc__)
    parser.add_argument("--marks", type=Path, help="append timestamped events here")
    parser.add_argument("--options", type=int, default=0, help="options session/new offers")
    options = parser.parse_args(argv)
    agent = BenchAgent(options.marks, sys.stdout.buffer, options.options)
    reader = threading.Thread(target=agent.read_forever, args=(sys.stdin.buffer,), daemon=True)
    reader.start()
    agent.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
