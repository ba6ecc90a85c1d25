"""A scripted OpenAI-compatible (and Anthropic Messages) chat server on 127.0.0.1, for driving real ACP agents offline.

Not part of the suite: it lets a person run third-party agents (fast-agent, Mistral Vibe, ...)
against acp-tui with no model and no network. What it answers depends on the last user message:

- ``tools``: lists the names of the tools the agent offered, as text.
- ``call NAME {json}``: asks for one call of tool NAME with those arguments; once the agent
  sends the tool's result back, the reply quotes its start.
- ``after N COMMAND``: COMMAND's answer, N seconds late (time to look at another agent).
- ``slow``: a reply streamed over about 20 seconds (to cancel, or to switch away meanwhile).
- ``long N``: N numbered Markdown lines.
- a request without tools that quotes a transcript (``user: ...``), as agents send to name a
  session: "Chat about" its first user line.
- anything else: a short Markdown reply that quotes the message, streamed in small pieces.

Run: ``python scripts/realuse/fake_llm.py --port 8765`` (``--log FILE`` records each request).
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOG_LOCK = threading.Lock()


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        function = tool.get("function") or tool
        names.append(str(function.get("name", "?")))
    return names


def plan(body: dict[str, Any]) -> tuple[list[str], dict[str, Any] | None, float]:
    """The text pieces to stream, an optional tool call, and the pause between pieces."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        result = text_of(last.get("content"))[:300]
        return chunks(f"The tool answered:\n\n```\n{result}\n```\n\nAnything else?"), None, 0.02
    said = text_of(last.get("content")).strip()
    if not body.get("tools") and "user: " in said:
        # A title (or summary) request: the agent sends the transcript without tools.
        first = said.split("user: ", 1)[1].splitlines()[0]
        return chunks("Chat about " + first[:40]), None, 0.0
    # Agents often wrap the person's text in their own markup; the command is its last line.
    command = said.splitlines()[-1].strip() if said else ""
    delayed = re.match(r"after\s+(\d+)\s+(.*)$", command, re.S)
    if delayed:
        # Time to switch away before the answer (and its tool call) comes.
        time.sleep(int(delayed.group(1)))
        command = delayed.group(2).strip()
    if command == "tools":
        names = tool_names(body)
        return chunks("Tools offered: " + (", ".join(names) or "none")), None, 0.02
    match = re.match(r"call\s+(\S+)\s*(\{.*\})?\s*$", command, re.S)
    if match:
        name, raw = match.group(1), match.group(2) or "{}"
        call = {"id": "call_" + uuid.uuid4().hex[:12], "name": name, "arguments": raw}
        return chunks(f"Calling `{name}`."), call, 0.02
    if command == "slow":
        return [f"Slow part {i}. " for i in range(1, 41)], None, 0.5
    match = re.match(r"long\s+(\d+)$", command)
    if match:
        count = int(match.group(1))
        return [f"{i}. line number {i} of a long reply\n" for i in range(1, count + 1)], None, 0.0
    reply = f"**Hello.** You said:\n\n> {said[-200:]}\n\nHere is a list:\n\n- one\n- two\n"
    return chunks(reply), None, 0.03


def from_anthropic(body: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic Messages request read as the chat request :func:`plan` takes."""
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if message.get("role") not in ("user", "assistant"):
            continue  # context an agent adds among the turns (claude's listings)
        if isinstance(content, str):
            if message.get("role") == "user" and messages and messages[-1]["role"] == "user":
                continue  # context an agent adds after the person's turn (claude's listings)
            messages.append({"role": message.get("role"), "content": content})
            continue
        blocks = [b for b in content or [] if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            messages.append({"role": "tool", "content": text_of(results[-1].get("content"))})
            continue
        # Agents add their own reminders as text blocks: the person's text is the last other.
        texts = [
            b.get("text", "")
            for b in blocks
            if b.get("type") == "text" and "system-reminder>" not in b.get("text", "")
        ]
        messages.append({"role": message.get("role"), "content": texts[-1] if texts else ""})
    tools = [{"function": {"name": t.get("name")}} for t in body.get("tools") or []]
    return {"messages": messages, "tools": tools, "stream": body.get("stream")}


def chunks(text: str, size: int = 6) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_file: str | None = None

    def log_message(self, format: str, *args: Any) -> None:
        return

    def record(self, body: dict[str, Any]) -> None:
        if not self.log_file:
            return
        messages = body.get("messages") or []
        entry = {
            "path": self.path,
            "model": body.get("model"),
            "stream": body.get("stream"),
            "tools": tool_names(body),
            "last": messages[-1] if messages else None,
            "count": len(messages),
        }
        with LOG_LOCK, open(self.log_file, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry)[:2000] + "\n")

    def do_GET(self) -> None:
        payload = json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        self.send_json(payload)

    def send_json(self, payload: str) -> None:
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path.split("?")[0].endswith("/messages/count_tokens"):
            self.send_json(json.dumps({"input_tokens": 1200}))
            return
        if self.path.split("?")[0].endswith("/messages"):
            self.anthropic(body)
            return
        self.record(body)
        pieces, call, pause = plan(body)
        model = body.get("model") or "fake-model"
        usage = {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": "".join(pieces)}
            if call:
                message["tool_calls"] = [openai_call(call)]
            choice = {"index": 0, "message": message, "finish_reason": finish(call)}
            self.send_json(json.dumps(completion(model, [choice], usage=usage)))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            first = {"index": 0, "delta": {"role": "assistant", "content": ""}}
            self.event(completion(model, [first], chunk=True))
            for piece in pieces:
                self.event(
                    completion(model, [{"index": 0, "delta": {"content": piece}}], chunk=True)
                )
                if pause:
                    time.sleep(pause)
            if call:
                delta = {"tool_calls": [dict(openai_call(call), index=0)]}
                self.event(completion(model, [{"index": 0, "delta": delta}], chunk=True))
            last = {"index": 0, "delta": {}, "finish_reason": finish(call)}
            self.event(completion(model, [last], chunk=True, usage=usage))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the agent cancelled: it closed the stream
        self.close_connection = True

    def anthropic(self, raw: dict[str, Any]) -> None:
        """The Anthropic Messages API (claude-agent-acp), streamed or not."""
        body = from_anthropic(raw)
        self.record(body)
        if self.log_file:
            name = ".last-tools.json" if raw.get("tools") else ".last.json"
            with LOG_LOCK, open(self.log_file + name, "w", encoding="utf-8") as out:
                json.dump(raw, out)
        pieces, call, pause = plan(body)
        model = raw.get("model") or "fake-model"
        stop = "tool_use" if call else "end_turn"
        tool = None
        if call:
            tool = {"type": "tool_use", "id": "toolu_" + call["id"][5:], "name": call["name"]}
        if not raw.get("stream"):
            content: list[dict[str, Any]] = [{"type": "text", "text": "".join(pieces)}]
            if tool and call:
                content.append({**tool, "input": json.loads(call["arguments"])})
            message = {
                "id": "msg_" + uuid.uuid4().hex[:16],
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 1200, "output_tokens": 80},
            }
            self.send_json(json.dumps(message))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        start = {
            "id": "msg_" + uuid.uuid4().hex[:16],
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1200, "output_tokens": 1},
        }
        try:
            self.named("message_start", {"type": "message_start", "message": start})
            block = {"type": "text", "text": ""}
            self.named(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            )
            for piece in pieces:
                delta = {"type": "text_delta", "text": piece}
                self.named(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                )
                if pause:
                    time.sleep(pause)
            self.named("content_block_stop", {"type": "content_block_stop", "index": 0})
            if tool and call:
                block = {**tool, "input": {}}
                self.named(
                    "content_block_start",
                    {"type": "content_block_start", "index": 1, "content_block": block},
                )
                delta = {"type": "input_json_delta", "partial_json": call["arguments"]}
                self.named(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 1, "delta": delta},
                )
                self.named("content_block_stop", {"type": "content_block_stop", "index": 1})
            end = {"stop_reason": stop, "stop_sequence": None}
            self.named(
                "message_delta",
                {"type": "message_delta", "delta": end, "usage": {"output_tokens": 80}},
            )
            self.named("message_stop", {"type": "message_stop"})
        except (BrokenPipeError, ConnectionResetError):
            return
        self.close_connection = True

    def named(self, name: str, payload: dict[str, Any]) -> None:
        self.wfile.write(f"event: {name}\ndata: ".encode() + json.dumps(payload).encode() + b"\n\n")
        self.wfile.flush()

    def event(self, payload: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
        self.wfile.flush()


def openai_call(call: dict[str, Any]) -> dict[str, Any]:
    function = {"name": call["name"], "arguments": call["arguments"]}
    return {"id": call["id"], "type": "function", "function": function}


def finish(call: dict[str, Any] | None) -> str:
    return "tool_calls" if call else "stop"


def completion(
    model: str,
    choices: list[dict[str, Any]],
    *,
    chunk: bool = False,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk" if chunk else "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
    }
    if usage is not None:
        payload["usage"] = usage
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    Handler.log_file = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
