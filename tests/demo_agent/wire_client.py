"""Drive the demo agent as a subprocess with raw JSON-RPC lines, checking every message.

For what the official SDK cannot speak (notices, compaction, protocol v2, the unstable
session methods): the test writes requests, answers the agent's requests with handlers,
and every line crossing the pipes in either direction is checked against the ACP schema of
the negotiated version (:mod:`schema_check`). A message that does not fit fails the test.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from schema_check import SchemaError, check_message, definition_for

from acp_tui.demo_agent import demo_agent_argv

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
#: Generous: the machine is shared, and a wait only ends early on success.
WAIT_SECONDS = 30


class CallFailed(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('message')} (code {error.get('code')})")
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")


@dataclass
class WireAgent:
    process: Process
    version: int
    handlers: dict[str, Handler] = field(default_factory=dict)
    #: Every message the agent wrote, in order.
    received: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    init: dict[str, Any] = field(default_factory=dict)
    _next_id: int = 0
    _pending: dict[int, tuple[str, anyio.Event, dict[str, Any]]] = field(default_factory=dict)
    _changed: anyio.Event = field(default_factory=anyio.Event)

    # ------------------------------------------------------------------ sending

    async def _write(
        self, message: dict[str, Any], answered: str | None = None, *, check: bool = True
    ) -> None:
        if check:
            self._check(message, answered, direction="client")
        assert self.process.stdin is not None
        await self.process.stdin.send((json.dumps(message) + "\n").encode())

    async def call(self, method: str, params: dict[str, Any], *, check: bool = True) -> Any:
        """Send a request and wait for its result. ``check=False`` for a request the test
        makes wrong on purpose (the answer is still checked)."""
        return await self.result(await self.send_request(method, params, check=check))

    async def send_request(self, method: str, params: dict[str, Any], *, check: bool = True) -> int:
        """Write a request without waiting: :meth:`result` waits for its answer."""
        request_id = self._next_id
        self._next_id += 1
        self._pending[request_id] = (method, anyio.Event(), {})
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        await self._write(message, check=check)
        return request_id

    async def result(self, request_id: int) -> Any:
        _method, done, slot = self._pending[request_id]
        with anyio.fail_after(WAIT_SECONDS):
            await done.wait()
        del self._pending[request_id]
        if "error" in slot:
            raise CallFailed(slot["error"])
        return slot["result"]

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self._write({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------------ receiving

    def _check(self, message: dict[str, Any], answered: str | None, direction: str) -> None:
        try:
            check_message(message, self.version, answered_method=answered)
        except SchemaError as error:
            self.problems.append(f"{direction} wrote {json.dumps(message)[:300]}: {error}")

    async def read_loop(self, group: anyio.abc.TaskGroup) -> None:
        assert self.process.stdout is not None
        buffer = b""
        async for data in self.process.stdout:
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    await self._on_line(line, group)

    async def _on_line(self, line: bytes, group: anyio.abc.TaskGroup) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self.problems.append(f"agent wrote a line that is not JSON: {line[:200]!r}")
            return
        self.received.append(message)
        if "method" in message:
            self._check(message, None, direction="agent")
            if "id" in message:
                group.start_soon(self._serve, message)
        elif isinstance(message.get("id"), int) and message["id"] in self._pending:
            method, done, slot = self._pending[message["id"]]
            if done.is_set():
                self.problems.append(f"agent answered request {message['id']} twice")
            self._check(message, method, direction="agent")
            slot.update(message)
            done.set()
        else:
            self.problems.append(f"agent answered a request never made: {message}")
        self._changed.set()
        self._changed = anyio.Event()

    async def _serve(self, message: dict[str, Any]) -> None:
        method = message["method"]
        handler = self.handlers.get(method)
        if handler is None:
            self.problems.append(f"agent called {method}, which this client did not offer")
            reply: dict[str, Any] = {"code": -32601, "message": f"method not found: {method}"}
            await self._write({"jsonrpc": "2.0", "id": message["id"], "error": reply})
            return
        try:
            result = await handler(message.get("params") or {})
        except CallFailed as error:
            reply = {"code": error.code, "message": error.message}
            await self._write({"jsonrpc": "2.0", "id": message["id"], "error": reply})
            return
        await self._write({"jsonrpc": "2.0", "id": message["id"], "result": result}, method)

    # ------------------------------------------------------------------ looking

    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m
            for m in self.received
            if "method" in m and "id" not in m and method in (None, m["method"])
        ]

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("method") == method and "id" in m]

    def updates(
        self, kind: str | None = None, session_id: str | None = None
    ) -> list[dict[str, Any]]:
        return [
            m["params"]["update"]
            for m in self.notifications("session/update")
            if session_id in (None, m["params"]["sessionId"])
            and kind in (None, m["params"]["update"]["sessionUpdate"])
        ]

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u["sessionUpdate"] for u in self.updates(session_id=session_id)]

    def text(self, session_id: str | None = None, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"].get("text", "") for u in self.updates(kind, session_id))

    def mark(self) -> int:
        """A position in ``received``; :meth:`since` returns what came after it."""
        return len(self.received)

    def since(self, mark: int) -> list[dict[str, Any]]:
        return self.received[mark:]

    async def wait_for(self, predicate: Callable[[], Any]) -> Any:
        with anyio.fail_after(WAIT_SECONDS):
            while not (result := predicate()):
                await self._changed.wait()
        return result

    async def wait_update(self, kind: str, **fields: Any) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for update in self.updates(kind):
                if all(update.get(k) == v for k, v in fields.items()):
                    return update
            return None

        return await self.wait_for(found)

    # ------------------------------------------------------------------ sessions

    async def new_session(self, cwd: Path | str, **extra: Any) -> str:
        result = await self.call("session/new", {"cwd": str(cwd), "mcpServers": [], **extra})
        return result["sessionId"]

    async def prompt(self, session_id: str, *blocks: dict[str, Any] | str) -> Any:
        """v1: the PromptResponse. v2: waits for the turn's idle state_update and returns it."""
        prompt = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        mark = self.mark()
        result = await self.call("session/prompt", {"sessionId": session_id, "prompt": prompt})
        if self.version < 2:
            return result

        def idle() -> dict[str, Any] | None:
            for message in self.since(mark):
                params = (
                    message.get("params") if message.get("method") == "session/update" else None
                )
                update = params["update"] if params and params["sessionId"] == session_id else {}
                if update.get("sessionUpdate") == "state_update" and update["state"] == "idle":
                    return update
            return None

        return {"accepted": result, **(await self.wait_for(idle))}


def v1_caps(**extra: Any) -> dict[str, Any]:
    caps: dict[str, Any] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
    }
    caps.update(extra)
    return caps


@contextlib.asynccontextmanager
async def wire_agent(
    state_dir: Path,
    *,
    version: int = 1,
    caps: dict[str, Any] | None = None,
    handlers: Mapping[str, Handler] | None = None,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    requested_version: int | None = None,
) -> AsyncIterator[WireAgent]:
    """The demo agent, initialized with ``version`` and ``caps``; on exit, any message that
    broke the schema fails the test."""
    argv = [*demo_agent_argv(str(state_dir), chunk_delay=0), *extra_args]
    process = await anyio.open_process(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=env
    )
    agent = WireAgent(process, version, dict(handlers or {}))
    async with process, anyio.create_task_group() as group:
        group.start_soon(agent.read_loop, group)
        info = {"name": "wire-test", "version": "0"}
        requested = requested_version or version
        if version >= 2:
            params = {"protocolVersion": requested, "info": info, "capabilities": caps or {}}
        else:
            params = {
                "protocolVersion": requested,
                "clientCapabilities": caps if caps is not None else v1_caps(),
                "clientInfo": info,
            }
        agent.init = await agent.call("initialize", params)
        try:
            yield agent
        finally:
            with anyio.CancelScope(shield=True):
                assert process.stdin is not None
                await process.stdin.aclose()
                with anyio.move_on_after(5):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
            group.cancel_scope.cancel()
    assert not agent.problems, "\n".join(agent.problems)


__all__ = ["CallFailed", "WireAgent", "definition_for", "v1_caps", "wire_agent"]
