"""The demo agent's ACP behaviour, on this project's own JSON-RPC :class:`Connection`.

Methods (https://agentclientprotocol.com/protocol/overview): initialize, authenticate,
session/new, session/load (full replay), session/list, session/resume, session/close,
session/delete, session/prompt, session/set_mode, session/set_config_option, and the
session/cancel notification. Agent -> client calls: session/request_permission,
fs/read_text_file, fs/write_text_file and terminal/*, each only when the client advertised
the capability.

Turns on one session run one at a time (a second prompt waits for the first). Cancel is
cooperative: every chunk and every sleep checks the turn's flag, so a turn stops within one
chunk; a pending permission request is left for the client to answer ``cancelled`` (as the
protocol requires of it), with a short grace period after which the agent stops waiting.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from acp_tui import __version__
from acp_tui.demo_agent import texts
from acp_tui.demo_agent.sessions import (
    CursorError,
    SessionRecord,
    SessionStore,
    new_session_id,
    now_iso,
    valid_session_id,
)
from acp_tui.protocol.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Connection,
    ConnectionClosed,
    RpcError,
)

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
RESOURCE_NOT_FOUND = -32002
CONTEXT_SIZE = 200_000
CHUNK_CHARS = 24
SLOW_INTERVAL = 0.5
CANCEL_GRACE = 2.0
CRASH_EXIT_CODE = 3
TERMINAL_OUTPUT_LIMIT = 64 * 1024
MAX_FLOOD_BYTES = 256 * 1024 * 1024
FLOOD_BATCH = 256

_COMMAND = re.compile(r"^/([A-Za-z][\w-]*)(?:\s+(.*))?$", re.DOTALL)
_WORD_CHUNKS = re.compile(r"\S+\s*|\s+")

FollowUp = Callable[[], Awaitable[None]]
_after_response: ContextVar[list[FollowUp] | None] = ContextVar("_after_response", default=None)


class AgentConnection(Connection):
    """A :class:`Connection` that can run work right after a response has been written.

    Updates for a new session should reach the client after the ``session/new`` response
    that tells it the session id; handlers call :func:`after_response` to queue them."""

    async def _serve_request(
        self, request_id: Any, method: str, params: Any, scope: anyio.CancelScope
    ) -> None:
        follow_ups: list[FollowUp] = []
        token = _after_response.set(follow_ups)
        try:
            await super()._serve_request(request_id, method, params, scope)
        finally:
            _after_response.reset(token)
        for follow_up in follow_ups:
            try:
                await follow_up()
            except ConnectionClosed:
                return
            except Exception:
                log.exception("follow-up of %s failed", method)

    async def write_lines(self, data: bytes, lines: int) -> None:
        """Write pre-serialised NDJSON lines in one go (the ``/flood`` fast path): the
        caller guarantees ``data`` is whole JSON-RPC messages, one per line."""
        await self._send_lines(data, lines)


def after_response(follow_up: FollowUp) -> None:
    queue = _after_response.get()
    if queue is None:  # not inside a request: run it soon anyway
        raise RuntimeError("after_response() outside a request handler")
    queue.append(follow_up)


class TurnCancelled(Exception):
    """The client cancelled the turn (session/cancel, or a cancelled permission outcome)."""


@dataclass(slots=True)
class ClientCaps:
    read: bool = False
    write: bool = False
    terminal: bool = False

    @classmethod
    def parse(cls, caps: Any) -> ClientCaps:
        if not isinstance(caps, dict):
            return cls()
        raw_fs = caps.get("fs")
        fs = raw_fs if isinstance(raw_fs, dict) else {}
        return cls(
            read=fs.get("readTextFile") is True,
            write=fs.get("writeTextFile") is True,
            terminal=caps.get("terminal") is True,
        )


@dataclass(slots=True)
class Turn:
    cancel_event: anyio.Event = field(default_factory=anyio.Event)
    cancelled: bool = False
    agent_item: dict[str, Any] | None = None
    output_chars: int = 0
    thought_chars: int = 0
    title_changed: bool = False
    fill_target: int | None = None

    def cancel(self) -> None:
        self.cancelled = True
        self.cancel_event.set()

    def check(self) -> None:
        if self.cancelled:
            raise TurnCancelled

    async def sleep(self, seconds: float) -> None:
        self.check()
        if seconds > 0:
            with anyio.move_on_after(seconds):
                await self.cancel_event.wait()
        self.check()


@dataclass(slots=True)
class LiveSession:
    record: SessionRecord
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    turn: Turn | None = None
    deleted: bool = False

    @property
    def id(self) -> str:
        return self.record.session_id


def _text_of(blocks: list[dict[str, Any]]) -> str:
    return "".join(
        b.get("text", "")
        for b in blocks
        if b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    pieces: list[str] = []
    current = ""
    for match in _WORD_CHUNKS.finditer(text):
        current += match.group(0)
        if len(current) >= size:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _message_id() -> str:
    return str(uuid.uuid4())


def _params(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object")
    return params


def _str_param(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"missing or invalid `{name}`")
    return value


def _comment_line(path: str, text: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in {
        ".py",
        ".sh",
        ".toml",
        ".yaml",
        ".yml",
        ".rb",
        ".pl",
        ".r",
        ".cfg",
        ".ini",
        ".conf",
    }:
        return f"# {text}"
    if suffix in {
        ".js",
        ".ts",
        ".tsx",
        ".jsx",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".rs",
        ".go",
        ".java",
        ".kt",
        ".swift",
        ".cs",
        ".scss",
        ".css",
    }:
        return f"// {text}" if suffix not in {".css", ".scss"} else f"/* {text} */"
    if suffix in {".html", ".xml", ".svg"}:
        return f"<!-- {text} -->"
    if suffix in {".sql", ".lua", ".hs"}:
        return f"-- {text}"
    return text


class DemoAgent:
    """One agent process's worth of state: the connection, the client's capabilities and
    the live sessions."""

    def __init__(
        self,
        store: SessionStore,
        *,
        chunk_delay: float = 0.015,
        v2_updates: bool = False,
    ) -> None:
        self.store = store
        self.chunk_delay = max(0.0, chunk_delay)
        self.v2_updates = v2_updates
        self.conn: Connection | None = None
        self.caps = ClientCaps()
        self.sessions: dict[str, LiveSession] = {}
        self._handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]] = {
            "initialize": self.initialize,
            "authenticate": self.authenticate,
            "session/new": self.new_session,
            "session/load": self.load_session,
            "session/resume": self.resume_session,
            "session/list": self.list_sessions,
            "session/close": self.close_session,
            "session/delete": self.delete_session,
            "session/prompt": self.prompt,
            "session/set_mode": self.set_mode,
            "session/set_config_option": self.set_config_option,
        }

    # ------------------------------------------------------------------ wiring

    def attach(self, conn: Connection) -> None:
        self.conn = conn
        conn.request_handler = self.handle_request
        conn.notification_handler = self.handle_notification

    async def handle_request(self, method: str, params: Any) -> Any:
        handler = self._handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        return await handler(_params(params if params is not None else {}))

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == "session/cancel" and isinstance(params, dict):
            session = self.sessions.get(params.get("sessionId", ""))
            if session is not None and session.turn is not None:
                session.turn.cancel()

    async def _update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.notify("session/update", {"sessionId": session_id, "update": update})

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.conn is not None
        return await self.conn.request(method, params)

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        self.caps = ClientCaps.parse(params.get("clientCapabilities"))
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": False, "sse": False},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
            },
            "authMethods": [],
            "agentInfo": {
                "name": "acp-tui-demo",
                "title": "acp-tui demo agent",
                "version": __version__,
            },
        }

    async def authenticate(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _session_state(self, record: SessionRecord) -> dict[str, Any]:
        return {
            "modes": texts.modes_state(record.mode),
            "configOptions": texts.config_options(record.model),
        }

    async def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = _str_param(params, "cwd")
        record = SessionRecord(session_id=new_session_id(), cwd=cwd)
        session = LiveSession(record)
        self.sessions[record.session_id] = session

        async def announce() -> None:
            await self._send_commands(session)
            await self._send_usage(session)

        after_response(announce)
        return {"sessionId": record.session_id, **self._session_state(record)}

    def _open(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is not None and not live.deleted:
            return live
        record = self.store.load(session_id) if valid_session_id(session_id) else None
        if record is None:
            raise RpcError(
                RESOURCE_NOT_FOUND, f"session not found: {session_id}", {"sessionId": session_id}
            )
        live = LiveSession(record)
        self.sessions[session_id] = live
        return live

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None or live.deleted:
            if self.store.exists(session_id):
                raise RpcError(
                    RESOURCE_NOT_FOUND,
                    f"session {session_id} is not open: call session/load or session/resume first",
                    {"sessionId": session_id},
                )
            raise RpcError(
                RESOURCE_NOT_FOUND, f"session not found: {session_id}", {"sessionId": session_id}
            )
        return live

    async def _announce_reopened(self, session: LiveSession) -> None:
        await self._send_commands(session)
        await self._send_usage(session)
        await self._send_info(session, full=True)

    async def load_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self._open(_str_param(params, "sessionId"))
        await self._replay(session)
        after_response(lambda: self._announce_reopened(session))
        return self._session_state(session.record)

    async def resume_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self._open(_str_param(params, "sessionId"))
        after_response(lambda: self._announce_reopened(session))
        return self._session_state(session.record)

    async def close_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = _str_param(params, "sessionId")
        session = self.sessions.pop(session_id, None)
        if session is None:
            if not self.store.exists(session_id):
                raise RpcError(RESOURCE_NOT_FOUND, f"session not found: {session_id}")
            return {}
        if session.turn is not None:
            session.turn.cancel()
        return {}

    async def delete_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = _str_param(params, "sessionId")
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.deleted = True
            if session.turn is not None:
                session.turn.cancel()
        removed = self.store.delete(session_id) if valid_session_id(session_id) else False
        if session is None and not removed:
            raise RpcError(RESOURCE_NOT_FOUND, f"session not found: {session_id}")
        return {}

    async def list_sessions(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = params.get("cwd")
        cursor = params.get("cursor")
        if cwd is not None and not isinstance(cwd, str):
            raise RpcError(INVALID_PARAMS, "`cwd` must be a string")
        if cursor is not None and not isinstance(cursor, str):
            raise RpcError(INVALID_PARAMS, "`cursor` must be a string")
        try:
            return self.store.list_page(cwd, cursor)
        except CursorError as error:
            raise RpcError(INVALID_PARAMS, str(error)) from None

    # ------------------------------------------------------------------ settings

    async def set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self._live(_str_param(params, "sessionId"))
        mode = _str_param(params, "modeId")
        if mode not in texts.MODE_IDS:
            raise RpcError(
                INVALID_PARAMS, f"unknown mode: {mode}", {"modes": sorted(texts.MODE_IDS)}
            )
        session.record.mode = mode
        self._save(session)
        await self._update(
            session.id, {"sessionUpdate": "current_mode_update", "currentModeId": mode}
        )
        return {}

    async def set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self._live(_str_param(params, "sessionId"))
        config_id = _str_param(params, "configId")
        value = params.get("value")
        if config_id != texts.MODEL_CONFIG_ID:
            raise RpcError(INVALID_PARAMS, f"unknown config option: {config_id}")
        if value not in texts.MODEL_IDS:
            raise RpcError(
                INVALID_PARAMS, f"unknown model: {value}", {"models": sorted(texts.MODEL_IDS)}
            )
        session.record.model = str(value)
        self._save(session)
        options = texts.config_options(session.record.model)
        await self._update(
            session.id, {"sessionUpdate": "config_option_update", "configOptions": options}
        )
        return {"configOptions": options}

    # ------------------------------------------------------------------ updates

    async def _send_commands(self, session: LiveSession) -> None:
        await self._update(
            session.id,
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [command.to_json() for command in texts.COMMANDS],
            },
        )

    def _used_tokens(self, record: SessionRecord) -> int:
        return math.ceil(record.history_chars / 4) + record.fill_tokens

    async def _send_usage(self, session: LiveSession) -> None:
        record = session.record
        await self._update(
            session.id,
            {
                "sessionUpdate": "usage_update",
                "used": self._used_tokens(record),
                "size": CONTEXT_SIZE,
                "cost": {"amount": round(record.cost, 6), "currency": "USD"},
            },
        )

    async def _send_info(self, session: LiveSession, *, full: bool) -> None:
        record = session.record
        update: dict[str, Any] = {
            "sessionUpdate": "session_info_update",
            "updatedAt": record.updated_at,
            "_meta": {"messageCount": record.message_count},
        }
        if full or record.title is not None:
            update["title"] = record.title
        await self._update(session.id, update)

    async def _state(self, session: LiveSession, state: str, **fields: Any) -> None:
        if self.v2_updates:
            await self._update(
                session.id, {"sessionUpdate": "state_update", "state": state, **fields}
            )

    def _save(self, session: LiveSession) -> None:
        if session.deleted or not session.record.history:
            return
        try:
            self.store.save(session.record)
        except OSError as error:
            log.error("cannot save session %s: %s", session.id, error)

    async def _replay(self, session: LiveSession) -> None:
        for item in session.record.history:
            kind = item.get("kind")
            if kind == "user":
                blocks = item.get("blocks") or [{"type": "text", "text": item.get("text", "")}]
                for block in blocks:
                    await self._update(
                        session.id,
                        {
                            "sessionUpdate": "user_message_chunk",
                            "messageId": item.get("messageId"),
                            "content": block,
                        },
                    )
            elif kind in ("agent", "thought"):
                await self._update(
                    session.id,
                    {
                        "sessionUpdate": "agent_message_chunk"
                        if kind == "agent"
                        else "agent_thought_chunk",
                        "messageId": item.get("messageId"),
                        "content": {"type": "text", "text": item.get("text", "")},
                    },
                )
            elif kind == "tool" and isinstance(item.get("toolCall"), dict):
                await self._update(session.id, {"sessionUpdate": "tool_call", **item["toolCall"]})
            elif kind == "plan":
                await self._update(
                    session.id, {"sessionUpdate": "plan", "entries": item.get("entries", [])}
                )

    # ------------------------------------------------------------------ streaming helpers

    async def _say(
        self, session: LiveSession, turn: Turn, text: str, *, delay: float | None = None
    ) -> None:
        """Stream agent text in small chunks, recorded into the turn's current message."""
        delay = self.chunk_delay if delay is None else delay
        for piece in _chunks(text):
            await self._say_chunk(session, turn, piece)
            await turn.sleep(delay)

    async def _say_chunk(self, session: LiveSession, turn: Turn, piece: str) -> None:
        turn.check()
        item = turn.agent_item
        if item is None:
            item = {"kind": "agent", "messageId": _message_id(), "text": ""}
            session.record.history.append(item)
            turn.agent_item = item
        item["text"] += piece
        turn.output_chars += len(piece)
        await self._update(
            session.id,
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": item["messageId"],
                "content": {"type": "text", "text": piece},
            },
        )

    async def _think(self, session: LiveSession, turn: Turn, text: str) -> None:
        item = {"kind": "thought", "messageId": _message_id(), "text": ""}
        session.record.history.append(item)
        turn.agent_item = None
        for piece in _chunks(text):
            turn.check()
            item["text"] += piece
            turn.thought_chars += len(piece)
            await self._update(
                session.id,
                {
                    "sessionUpdate": "agent_thought_chunk",
                    "messageId": item["messageId"],
                    "content": {"type": "text", "text": piece},
                },
            )
            await turn.sleep(self.chunk_delay)

    async def _tool_start(
        self, session: LiveSession, turn: Turn, tool_call: dict[str, Any]
    ) -> dict[str, Any]:
        stored = dict(tool_call)
        session.record.history.append({"kind": "tool", "toolCall": stored})
        turn.agent_item = None
        await self._update(session.id, {"sessionUpdate": "tool_call", **tool_call})
        return stored

    async def _tool_update(
        self,
        session: LiveSession,
        stored: dict[str, Any],
        *,
        persist_content: list[dict[str, Any]] | None = None,
        **fields: Any,
    ) -> None:
        stored.update(fields)
        if persist_content is not None:
            stored["content"] = persist_content
        with anyio.CancelScope(shield=True):
            await self._update(
                session.id,
                {"sessionUpdate": "tool_call_update", "toolCallId": stored["toolCallId"], **fields},
            )

    async def _tool_failed(
        self,
        session: LiveSession,
        stored: dict[str, Any],
        note: str,
        keep: tuple[dict[str, Any], ...] = (),
    ) -> None:
        """Mark a tool call failed: ``note`` after what it still shows (``keep``, e.g. its diff)."""
        await self._tool_update(
            session, stored, status="failed", content=[*keep, _text_content(note)]
        )

    async def _permitted(
        self,
        session: LiveSession,
        turn: Turn,
        stored: dict[str, Any],
        kind: str,
        *,
        cancelled: str,
        rejected: str,
        reply: str,
        keep: tuple[dict[str, Any], ...] = (),
    ) -> bool:
        """Ask the client's permission for ``stored``. Rejected: the call fails with
        ``rejected``, ``reply`` is said, False. Cancelled: it fails with ``cancelled`` and the
        turn ends."""
        decision = await self._permission(session, turn, stored, kind)
        if decision == "cancelled":
            await self._tool_failed(session, stored, cancelled, keep)
            raise TurnCancelled
        if decision == "reject":
            await self._tool_failed(session, stored, rejected, keep)
            await self._say(session, turn, reply)
            return False
        return True

    async def _request_or_cancel(
        self, turn: Turn, method: str, params: dict[str, Any], grace: float
    ) -> tuple[bool, Any]:
        """Send a request; if the turn is cancelled and no answer comes within ``grace``
        seconds, stop waiting. Returns (answered, result); raises RpcError as is."""
        outcome: dict[str, Any] = {}

        async def watchdog(scope: anyio.CancelScope) -> None:
            await turn.cancel_event.wait()
            await anyio.sleep(grace)
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(watchdog, group.cancel_scope)
            try:
                outcome["result"] = await self._request(method, params)
            except RpcError as error:
                outcome["error"] = error
            finally:
                group.cancel_scope.cancel()
        if "error" in outcome:
            raise outcome["error"]
        return ("result" in outcome, outcome.get("result"))

    async def _permission(
        self, session: LiveSession, turn: Turn, stored: dict[str, Any], key: str
    ) -> str:
        """'allow', 'reject' or 'cancelled'. Remembers allow_always / reject_always per session."""
        if turn.cancelled:
            return "cancelled"
        remembered = session.record.permissions.get(key)
        if remembered in ("allow", "reject"):
            return remembered
        tool_call = {k: v for k, v in stored.items() if k != "rawOutput"}
        options = [
            {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow_always", "name": "Always allow", "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
            {"optionId": "reject_always", "name": "Always reject", "kind": "reject_always"},
        ]
        await self._state(session, "requires_action")
        try:
            answered, result = await self._request_or_cancel(
                turn,
                "session/request_permission",
                {"sessionId": session.id, "toolCall": tool_call, "options": options},
                CANCEL_GRACE,
            )
        except RpcError as error:
            log.warning("permission request failed: %s", error)
            answered, result = True, {"outcome": {"outcome": "selected", "optionId": "reject_once"}}
        if not turn.cancelled:
            await self._state(session, "running")
        outcome = result.get("outcome") if answered and isinstance(result, dict) else None
        if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
            turn.cancel()
            return "cancelled"
        option = outcome.get("optionId")
        if option == "allow_always":
            session.record.permissions[key] = "allow"
        elif option == "reject_always":
            session.record.permissions[key] = "reject"
        if turn.cancelled:
            return "cancelled"
        return "allow" if option in ("allow_once", "allow_always") else "reject"

    # ------------------------------------------------------------------ prompt turn

    async def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self._live(_str_param(params, "sessionId"))
        blocks = params.get("prompt")
        if not isinstance(blocks, list):
            raise RpcError(INVALID_PARAMS, "`prompt` must be an array of content blocks")
        blocks = [b for b in blocks if isinstance(b, dict)]
        async with session.lock:
            turn = Turn()
            session.turn = turn
            try:
                return await self._run_turn(session, turn, blocks)
            finally:
                session.turn = None

    async def _run_turn(
        self, session: LiveSession, turn: Turn, blocks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        record = session.record
        text = _text_of(blocks)
        stored_blocks = [
            b
            if b.get("type") in ("text", "resource_link")
            else {"type": "text", "text": f"[{b.get('type', 'unknown')} block]"}
            for b in blocks
        ]
        record.history.append(
            {"kind": "user", "messageId": _message_id(), "text": text, "blocks": stored_blocks}
        )
        record.turns += 1
        record.updated_at = now_iso()
        match = _COMMAND.match(text.strip())
        command = match.group(1).lower() if match else None
        argument = (match.group(2) or "").strip() if match else ""
        if record.title is None and command != "title":
            record.title = texts.title_from_prompt(text)
            turn.title_changed = True
        self._save(session)
        input_tokens = self._used_tokens(record)
        prompt_tokens = math.ceil(len(text) / 4)
        await self._state(session, "running")
        stop_reason = "end_turn"
        try:
            await self._dispatch(session, turn, command, argument, text, blocks)
            turn.check()
        except TurnCancelled:
            stop_reason = "cancelled"
        except BaseException:
            record.updated_at = now_iso()
            self._save(session)
            raise
        return await self._finish_turn(session, turn, stop_reason, input_tokens, prompt_tokens)

    async def _finish_turn(
        self,
        session: LiveSession,
        turn: Turn,
        stop_reason: str,
        input_tokens: int,
        prompt_tokens: int,
    ) -> dict[str, Any]:
        record = session.record
        output_tokens = math.ceil(turn.output_chars / 4)
        thought_tokens = math.ceil(turn.thought_chars / 4)
        if turn.fill_target is not None:
            base = math.ceil(record.history_chars / 4)
            record.fill_tokens = max(0, turn.fill_target - base)
        price_in, price_out = texts.model_prices(record.model)
        record.cost += (
            input_tokens * price_in + (output_tokens + thought_tokens) * price_out
        ) / 1_000_000
        record.input_tokens += input_tokens
        record.output_tokens += output_tokens + thought_tokens
        record.updated_at = now_iso()
        self._save(session)
        usage = {
            "totalTokens": input_tokens + output_tokens + thought_tokens,
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "thoughtTokens": thought_tokens,
            "cachedReadTokens": max(0, input_tokens - prompt_tokens),
            "cachedWriteTokens": prompt_tokens,
        }
        with anyio.CancelScope(shield=True):
            if not session.deleted:
                await self._send_usage(session)
                await self._send_info(session, full=False)
            await self._state(session, "idle", stopReason=stop_reason, usage=usage)
        return {"stopReason": stop_reason, "usage": usage}

    async def _dispatch(
        self,
        session: LiveSession,
        turn: Turn,
        command: str | None,
        argument: str,
        text: str,
        blocks: list[dict[str, Any]],
    ) -> None:
        record = session.record
        if command is None or command not in texts.COMMAND_NAMES:
            reply = texts.echo_reply(text, blocks, record.mode, record.model, record.turns)
            if command is not None:
                reply = (
                    f"I don't know the command `/{command}`; `/help` lists the ones I do.\n\n"
                    + reply
                )
            await self._say(session, turn, reply)
            return
        handler = getattr(self, f"_cmd_{command}")
        await handler(session, turn, argument)

    # ------------------------------------------------------------------ commands

    async def _cmd_help(self, session: LiveSession, turn: Turn, argument: str) -> None:
        await self._say(session, turn, texts.help_text())

    async def _cmd_title(self, session: LiveSession, turn: Turn, argument: str) -> None:
        title = " ".join(argument.split())[:100]
        if not title:
            await self._say(session, turn, "Usage: `/title NEW TITLE`.")
            if session.record.title is None:
                session.record.title = "Untitled session"
                turn.title_changed = True
            return
        session.record.title = title
        turn.title_changed = True
        await self._say(session, turn, f"Renamed this session to “{title}”.")

    async def _cmd_fill(self, session: LiveSession, turn: Turn, argument: str) -> None:
        try:
            percent = float(argument.rstrip("%").strip())
        except ValueError:
            await self._say(
                session,
                turn,
                "Usage: `/fill PERCENT`, e.g. `/fill 80` (75, 90 and 95 are the interesting ones).",
            )
            return
        percent = min(100.0, max(0.0, percent))
        turn.fill_target = round(CONTEXT_SIZE * percent / 100)
        await self._say(
            session,
            turn,
            f"Filling the context window to {percent:g}% ({turn.fill_target:,} of {CONTEXT_SIZE:,} tokens). "
            "Watch the gauge.",
        )

    async def _cmd_think(self, session: LiveSession, turn: Turn, argument: str) -> None:
        await self._think(session, turn, texts.thought_text(argument))
        await self._say(
            session,
            turn,
            "Done thinking. The reasoning above came as `agent_thought_chunk` updates; "
            "this answer is an ordinary message.",
        )

    async def _cmd_plan(self, session: LiveSession, turn: Turn, argument: str) -> None:
        item: dict[str, Any] = {"kind": "plan", "entries": texts.plan_entries(0, running=False)}
        await self._say(session, turn, "Here is my plan; watch it progress.\n\n")
        session.record.history.append(item)

        async def send(entries: list[dict[str, Any]]) -> None:
            item["entries"] = entries
            await self._update(session.id, {"sessionUpdate": "plan", "entries": entries})

        await send(texts.plan_entries(0, running=False))
        steps = len(texts.PLAN_STEPS)
        for index in range(steps):
            await send(texts.plan_entries(index, running=True))
            await self._say(
                session,
                turn,
                f"- Step {index + 1} of {steps}: {texts.PLAN_STEPS[index][0].lower()}… done.\n",
            )
            await turn.sleep(max(self.chunk_delay * 10, 0))
        await send(texts.plan_entries(steps, running=False))
        await self._say(session, turn, "\nAll steps are completed.")

    async def _cmd_slow(self, session: LiveSession, turn: Turn, argument: str) -> None:
        try:
            seconds = float(argument) if argument else 30.0
        except ValueError:
            seconds = 30.0
        seconds = min(max(seconds, 0.5), 3600.0)
        ticks = max(1, round(seconds / SLOW_INTERVAL))
        await self._say(
            session,
            turn,
            f"This turn takes about {seconds:g} seconds. Press Escape to cancel, or queue another prompt.\n\n",
        )
        for tick in range(1, ticks + 1):
            line = texts.SLOW_LINES[(tick - 1) % len(texts.SLOW_LINES)]
            await self._say_chunk(session, turn, f"{line}… ({tick}/{ticks})\n")
            await turn.sleep(SLOW_INTERVAL)
        await self._say(session, turn, "\nFinished the slow turn.")

    async def _cmd_flood(self, session: LiveSession, turn: Turn, argument: str) -> None:
        parts = argument.split()
        try:
            count = int(parts[0]) if parts else 1000
            size = int(parts[1]) if len(parts) > 1 else 20
        except ValueError:
            await self._say(
                session,
                turn,
                "Usage: `/flood N [CHUNK_BYTES]`, e.g. `/flood 50000` (1 MB in 20-byte chunks).",
            )
            return
        count = max(1, count)
        size = max(1, size)
        if count * size > MAX_FLOOD_BYTES:
            await self._say(
                session,
                turn,
                f"That is more than {MAX_FLOOD_BYTES // (1024 * 1024)} MB; try a smaller flood.",
            )
            return
        await self._flood(session, turn, texts.flood_text(count * size), size)

    async def _flood(self, session: LiveSession, turn: Turn, text: str, size: int) -> None:
        """A tight loop: pre-built text, one notification per chunk, serialised from a
        template and written in batches (cancel is checked between batches)."""
        item = {"kind": "agent", "messageId": _message_id(), "text": ""}
        session.record.history.append(item)
        turn.agent_item = item
        conn = self.conn
        assert isinstance(conn, AgentConnection)
        dumps = json.dumps
        head = (
            '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":'
            + dumps(session.id)
            + ',"update":{"sessionUpdate":"agent_message_chunk","messageId":'
            + dumps(item["messageId"])
            + ',"content":{"type":"text","text":'
        )
        tail = "}}}}\n"
        sent = 0
        try:
            for batch_start in range(0, len(text), size * FLOOD_BATCH):
                turn.check()
                batch_end = min(len(text), batch_start + size * FLOOD_BATCH)
                lines = [
                    head + dumps(text[start : start + size], ensure_ascii=False) + tail
                    for start in range(batch_start, batch_end, size)
                ]
                await conn.write_lines("".join(lines).encode("utf-8"), len(lines))
                sent = batch_end
        finally:
            item["text"] = text[:sent]
            turn.output_chars += sent
        turn.check()

    async def _cmd_crash(self, session: LiveSession, turn: Turn, argument: str) -> None:
        await self._say(session, turn, "Crashing in the middle of this turn, as requested")
        for _ in range(3):
            await self._say_chunk(session, turn, "…")
            await turn.sleep(self.chunk_delay)
        log.error("/crash: exiting with code %d mid-turn", CRASH_EXIT_CODE)
        os._exit(CRASH_EXIT_CODE)

    async def _cmd_edit(self, session: LiveSession, turn: Turn, argument: str) -> None:
        if not argument:
            await self._say(
                session,
                turn,
                "Usage: `/edit PATH` (relative to the session's directory, or absolute).",
            )
            return
        path = os.path.normpath(os.path.join(session.record.cwd, os.path.expanduser(argument)))
        if not self.caps.write:
            await self._say(
                session,
                turn,
                f"I would edit `{path}`, but this client did not advertise `fs.writeTextFile`, "
                "so I cannot write files through it. Nothing was changed.",
            )
            return
        old_text: str | None = None
        read_note = ""
        if self.caps.read:
            try:
                result = await self._request(
                    "fs/read_text_file", {"sessionId": session.id, "path": path}
                )
                content = result.get("content") if isinstance(result, dict) else None
                old_text = content if isinstance(content, str) else None
            except RpcError as error:
                read_note = f" (reading it through the client failed: {error.message}; treating it as a new file)"
        else:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                old_text = Path(path).read_text(encoding="utf-8")
        turn.check()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        line = _comment_line(path, f"Edited by the acp-tui demo agent at {stamp}.")
        if old_text is None:
            new_text = _comment_line(path, "Created by the acp-tui demo agent.") + f"\n{line}\n"
            at_line = 1
        else:
            separator = "" if not old_text or old_text.endswith("\n") else "\n"
            new_text = f"{old_text}{separator}{line}\n"
            at_line = old_text.count("\n") + (1 if separator else 0) + 1
        diff = {"type": "diff", "path": path, "oldText": old_text, "newText": new_text}
        tool_call = {
            "toolCallId": f"edit-{uuid.uuid4().hex[:12]}",
            "title": f"Edit {argument}",
            "kind": "edit",
            "status": "pending",
            "content": [diff],
            "locations": [{"path": path, "line": at_line}],
            "rawInput": {"path": path, "newText": new_text},
        }
        await self._say(
            session,
            turn,
            f"I'll {'create' if old_text is None else 'append a line to'} `{argument}`{read_note}.\n",
        )
        stored = await self._tool_start(session, turn, tool_call)
        if not await self._permitted(
            session,
            turn,
            stored,
            "edit",
            cancelled="Cancelled before the edit.",
            rejected="Rejected: the file was not changed.",
            reply=f"OK, I left `{argument}` alone.",
            keep=(diff,),
        ):
            return
        await self._tool_update(session, stored, status="in_progress")
        try:
            await self._request(
                "fs/write_text_file", {"sessionId": session.id, "path": path, "content": new_text}
            )
        except RpcError as error:
            await self._tool_failed(session, stored, f"Write failed: {error.message}", (diff,))
            await self._say(
                session, turn, f"The client could not write `{argument}`: {error.message}"
            )
            return
        await self._tool_update(
            session, stored, status="completed", rawOutput={"written": len(new_text)}
        )
        await self._say(
            session, turn, f"Wrote {len(new_text):,} characters to `{argument}` through the client."
        )

    async def _cmd_run(self, session: LiveSession, turn: Turn, argument: str) -> None:
        if not argument:
            await self._say(session, turn, "Usage: `/run COMMAND`, e.g. `/run ls -la`.")
            return
        if not self.caps.terminal:
            await self._say(
                session,
                turn,
                f"I would run `{argument}`, but this client did not advertise the `terminal` "
                "capability, so I cannot run commands through it. Nothing was run.",
            )
            return
        cwd = session.record.cwd
        tool_call = {
            "toolCallId": f"run-{uuid.uuid4().hex[:12]}",
            "title": f"Run `{argument}`",
            "kind": "execute",
            "status": "pending",
            "content": [_text_content(f"```sh\n$ {argument}\n```")],
            "locations": [],
            "rawInput": {"command": argument, "cwd": cwd},
        }
        stored = await self._tool_start(session, turn, tool_call)
        if not await self._permitted(
            session,
            turn,
            stored,
            "execute",
            cancelled="Cancelled before running.",
            rejected="Rejected: the command was not run.",
            reply="OK, I did not run it.",
        ):
            return
        if os.name == "nt":
            command, args = "cmd.exe", ["/c", argument]
        else:
            command, args = "/bin/sh", ["-c", argument]
        try:
            created = await self._request(
                "terminal/create",
                {
                    "sessionId": session.id,
                    "command": command,
                    "args": args,
                    "cwd": cwd,
                    "outputByteLimit": TERMINAL_OUTPUT_LIMIT,
                },
            )
        except RpcError as error:
            await self._tool_failed(session, stored, f"Could not start: {error.message}")
            await self._say(
                session, turn, f"The client could not start the command: {error.message}"
            )
            return
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            await self._tool_failed(session, stored, "The client returned no terminalId.")
            return
        ids = {"sessionId": session.id, "terminalId": terminal_id}
        await self._tool_update(
            session,
            stored,
            status="in_progress",
            content=[{"type": "terminal", "terminalId": terminal_id}],
        )
        output, truncated, exit_code, signal_name, killed = "", False, None, None, False
        try:
            exited, status = await self._request_or_cancel(turn, "terminal/wait_for_exit", ids, 0.0)
            if not exited:
                killed = True
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    await self._request("terminal/kill", ids)
            elif isinstance(status, dict):
                exit_code, signal_name = status.get("exitCode"), status.get("signal")
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                result = await self._request("terminal/output", ids)
                if isinstance(result, dict):
                    output = str(result.get("output") or "")
                    truncated = bool(result.get("truncated"))
                    exit_status = result.get("exitStatus")
                    if isinstance(exit_status, dict) and exit_code is None and signal_name is None:
                        exit_code, signal_name = (
                            exit_status.get("exitCode"),
                            exit_status.get("signal"),
                        )
            ok = exit_code == 0 and not killed
            summary = (
                "cancelled and killed"
                if killed
                else f"exited with code {exit_code}"
                if exit_code is not None
                else f"killed by {signal_name or 'a signal'}"
            )
            shown = (("…" if truncated else "") + output).rstrip("\n")
            persisted = [_text_content(f"```\n$ {argument}\n{shown}\n```\n{summary}")]
            await self._tool_update(
                session,
                stored,
                persist_content=persisted,
                status="completed" if ok else "failed",
                rawOutput={"exitCode": exit_code, "signal": signal_name, "truncated": truncated},
            )
        except RpcError as error:
            await self._tool_failed(session, stored, f"Terminal error: {error.message}")
            await self._say(
                session, turn, f"Something went wrong with the terminal: {error.message}"
            )
            return
        finally:
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(5),
                contextlib.suppress(RpcError, ConnectionClosed),
            ):
                await self._request("terminal/release", ids)
        turn.check()
        tail = "\n".join(output.rstrip("\n").splitlines()[-10:])
        await self._say(
            session,
            turn,
            f"`{argument}` {summary}."
            + (f" The last lines:\n\n```\n{tail}\n```" if tail else " It printed nothing."),
        )


def _text_content(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}
