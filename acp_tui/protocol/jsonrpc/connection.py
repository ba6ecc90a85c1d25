"""The JSON-RPC connection: one peer on a pair of byte streams, newline-delimited JSON.

Ordering: notifications and responses are handled by the single reader task in arrival
order, so an update the agent sent before a response is applied before the awaiting caller
resumes. Notification handlers must therefore be quick (they update state, they do not wait
on a person). Incoming requests run in their own tasks, so a permission dialog that waits
minutes never stops the stream.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import anyio
import anyio.lowlevel
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup

from acp_tui.pace.input_first import give_way, input_first
from acp_tui.protocol.jsonrpc.messages import (
    CANCEL_REQUEST_METHOD,
    CLOSED_INPUT,
    CLOSED_LOCALLY,
    CLOSED_OUTPUT,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
    ConnectionClosed,
    ConnectionStats,
    Direction,
    EchoedRequest,
    FollowUp,
    NotificationHandler,
    RequestHandler,
    RequestId,
    RpcError,
    TrafficRecord,
    WireTap,
    parse_line,
    parse_line_lenient,
)

log = logging.getLogger(__name__)

# Generous, because tool output travels inline: a single line of 50 MB must still be read.
DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024
READ_CHUNK = 256 * 1024
#: The longest the reader handles lines without letting other tasks run.
READ_SLICE_SECONDS = 0.002
#: How many non-JSON-RPC lines are kept word for word (to quote what a non-agent printed).
FIRST_SKIPPED_KEPT = 5
SKIPPED_TEXT_LIMIT = 200
# The inspector keeps thousands of lines; a 50 MB tool output must not be kept thousands of times.
TRAFFIC_TEXT_LIMIT = 64 * 1024

_follow_ups: ContextVar[list[FollowUp] | None] = ContextVar("jsonrpc_follow_ups", default=None)

#: What ``bytes.strip()`` removes around a line (ASCII whitespace only).
_LINE_WHITESPACE = " \t\n\r\x0b\x0c"
_BOM = "\ufeff"


def _decode_and_clear(buffer: bytearray) -> str:
    """The buffer's line as text; the buffer emptied (its bytes freed) before anything else."""
    text = buffer.decode("utf-8", errors="replace")
    buffer.clear()
    return text


def after_response(follow_up: FollowUp) -> None:
    """From inside a request handler: run ``follow_up`` once this request's successful
    response has been written.

    An agent needs this where the protocol orders messages around a response: updates
    about a new session must follow the ``session/new`` response that names it, and a v2
    turn runs on after the ``session/prompt`` response that accepted it."""
    queue = _follow_ups.get()
    if queue is None:
        raise RuntimeError("after_response() called outside a request handler")
    queue.append(follow_up)


@dataclass(slots=True)
class _Pending:
    method: str
    params: Any = None
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: BaseException | None = None


class Connection:
    """One JSON-RPC peer on a pair of byte streams.

    Run :meth:`run` in a task group (it returns when the peer closes its output); call
    :meth:`request` and :meth:`notify` from anywhere.
    """

    def __init__(
        self,
        receive: ByteReceiveStream,
        send: ByteSendStream,
        *,
        request_handler: RequestHandler | None = None,
        notification_handler: NotificationHandler | None = None,
        traffic_limit: int = 5000,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        record_traffic: bool = True,
        notification_methods: Collection[str] = (),
    ) -> None:
        self._receive = receive
        #: Methods that are notifications: sent with an id (as a request), they are still
        #: handled as notifications, in arrival order, and answered with an empty result.
        self._notification_methods = frozenset(notification_methods)
        self._send = send
        self.request_handler = request_handler
        self.notification_handler = notification_handler
        self._max_line_bytes = max_line_bytes
        self._next_id = 0
        self._pending: dict[RequestId, _Pending] = {}
        self._incoming: dict[RequestId, anyio.CancelScope] = {}
        self._send_lock = anyio.Lock()
        self._task_group: TaskGroup | None = None
        self._closed = False
        #: One of CLOSED_OUTPUT, CLOSED_INPUT, CLOSED_LOCALLY once closed; None while open.
        self.close_reason: str | None = None
        self.stats = ConnectionStats()
        self.record_traffic = record_traffic
        self.traffic: deque[TrafficRecord] = deque(maxlen=traffic_limit)
        self.traffic_listeners: list[Callable[[TrafficRecord], None]] = []
        #: The wire recorder's tap (acp_tui.protocol.recording), called before the inspector's cut.
        self.wire_tap: WireTap | None = None
        self.closed_event = anyio.Event()

    # ------------------------------------------------------------------ outgoing

    @property
    def closed(self) -> bool:
        return self._closed

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its result; raises :class:`RpcError` on an error
        answer and :class:`ConnectionClosed` if the peer goes away first. Cancelling the
        caller tells the peer with ``$/cancel_request``."""
        if self._closed:
            raise ConnectionClosed(f"connection closed before {method}")
        request_id = self._next_id
        self._next_id += 1
        pending = _Pending(method, params)
        self._pending[request_id] = pending
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self._write(message)
            await pending.done.wait()
        except anyio.get_cancelled_exc_class():
            if not pending.done.is_set() and not self._closed:
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await self.notify(CANCEL_REQUEST_METHOD, {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)
        if pending.error is not None:
            raise pending.error
        return pending.result

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "method": method}
        if params is not None:
            message["params"] = params
        await self._write(message)

    async def send_serialized(self, messages: Sequence[str]) -> None:
        """Send already-serialised JSON-RPC messages (one JSON text each, without the
        newline) in a single write: for a burst of notifications built from a template,
        where serialising each one through :meth:`notify` would dominate the cost."""
        if not messages:
            return
        if any("\n" in text for text in messages):
            raise ValueError("a serialised message must not contain a raw newline")
        for text in messages:
            self._record("out", text)
        await self._send_lines(("\n".join(messages) + "\n").encode("utf-8"), len(messages))

    async def _write(self, message: dict[str, Any]) -> None:
        if self._closed:
            raise ConnectionClosed("connection closed")
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        try:
            data = (text + "\n").encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate the agent sent (an optionId echoed back): \u escapes carry it
            # back exactly, where raw UTF-8 cannot.
            text = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
            data = (text + "\n").encode("ascii")
        self._record("out", text)
        await self._send_lines(data, 1)

    async def _send_lines(self, data: bytes, lines: int) -> None:
        """Send ``data``, ``lines`` whole NDJSON lines, as one write."""
        if self._closed:
            raise ConnectionClosed("connection closed")
        async with self._send_lock:
            try:
                await self._send.send(data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as error:
                self._close(CLOSED_INPUT)
                raise ConnectionClosed(f"cannot write to peer: {error}") from error
        self.stats.lines_out += lines

    # ------------------------------------------------------------------ incoming

    async def run(self) -> None:
        """Read until the peer closes its output. Never raises on bad input."""
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                await self._read_loop()
                # Peer is gone: nobody can answer our requests, and answers to theirs
                # cannot be delivered.
                self._close(CLOSED_OUTPUT)
                task_group.cancel_scope.cancel()
        finally:
            self._close(CLOSED_OUTPUT)

    async def _read_loop(self) -> None:
        buffer = bytearray()
        discarding = False
        while True:
            try:
                chunk = await self._receive.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                break
            start = 0
            if input_first.pending():
                await give_way()  # a key is on its way to the screen: it goes first
            slice_started = time.perf_counter()
            while True:
                if time.perf_counter() - slice_started > READ_SLICE_SECONDS:
                    # One read can hold thousands of lines: let the UI (keystrokes, paints)
                    # run between slices of them.
                    await give_way()
                    slice_started = time.perf_counter()
                newline = chunk.find(b"\n", start)
                if newline < 0:
                    if not discarding:
                        buffer += chunk[start:] if start else chunk
                        if len(buffer) > self._max_line_bytes:
                            self._skip_oversized(len(buffer))
                            buffer.clear()
                            discarding = True
                    break
                if discarding:
                    discarding = False
                elif len(buffer) + newline - start > self._max_line_bytes:
                    # Over the limit however it arrived: in one read or in many.
                    self._skip_oversized(len(buffer) + newline - start)
                    buffer.clear()
                elif buffer:
                    buffer += chunk[start:newline]
                    # Decoded straight from the buffer, which is freed before the parse: a
                    # line of 50 MB is held twice at most, never three times. No local
                    # name keeps the text once it is handled: it would live on (50 MB) while
                    # the reply is drawn, until the next long line replaced it.
                    await self._take_line(_decode_and_clear(buffer))
                else:
                    await self._take_line(chunk[start:newline])
                start = newline + 1
        if buffer and not discarding:
            await self._take_line(_decode_and_clear(buffer))

    async def _take_line(self, line: bytes | str) -> None:
        """Handle one line; whatever goes wrong with it, the connection goes on."""
        try:
            await self._handle_line(line)
        except Exception as error:
            # A bad line must never end the connection (the agent would be blamed for it).
            self.stats.skipped_lines += 1
            self._note_last(f"line dropped ({type(error).__name__}): {line[:200]!r}")
            log.warning("dropped a line that could not be handled", exc_info=True)

    def _skip_oversized(self, size: int) -> None:
        self.stats.oversized_lines += 1
        self.stats.skipped_lines += 1
        note = f"line over {self._max_line_bytes} bytes skipped ({size}+ bytes)"
        self.stats.last_skipped = note
        self._record("in", "", note)
        log.warning(note)

    async def _handle_line(self, line: bytes | str) -> None:
        if isinstance(line, str):
            # The whitespace bytes.strip takes, no more: JSON allows no other around a value.
            text = line.strip(_LINE_WHITESPACE)
        else:
            text = line.strip().decode("utf-8", errors="replace")
        if text.startswith(_BOM):
            # A byte order mark (an agent writing UTF-8 "with BOM", as some Windows tools
            # do): RFC 8259 lets a reader ignore it, and the line behind it is the message.
            text = text.lstrip(_BOM + _LINE_WHITESPACE)
        if not text:
            return
        self.stats.lines_in += 1
        try:
            message = parse_line(text)
        except ValueError:
            try:
                message = parse_line_lenient(text)
            except (ValueError, RecursionError):
                self._skip(text, "not JSON")
                return
        except RecursionError:
            # '[' x 100,000 is a line, not a reason to drop the connection.
            self._skip(text, "JSON nested too deeply")
            return
        if isinstance(message, list) and message and all(isinstance(m, dict) for m in message):
            # A JSON-RPC batch: each message in it is handled (and recorded) as if it came on
            # its own line, in order; requests in it are answered one by one.
            for item in message:
                item_text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
                self._record("in", item_text)
                await self._handle_message(item, item_text)
            return
        if not isinstance(message, dict):
            self._skip(text, "not a JSON-RPC object")
            return
        self._record("in", text)
        await self._handle_message(message, text)

    async def _handle_message(self, message: dict[str, Any], text: str) -> None:
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                request_id = message["id"]
                if not _is_valid_id(request_id):
                    # JSON-RPC 2.0 section 5: an invalid Request is answered -32600 with a
                    # null id (the id could not be taken), so the peer is never left waiting.
                    self.stats.invalid_messages += 1
                    self._note_last(f"request with an invalid id: {text[:200]}")
                    self._answer_invalid(
                        None, f"the id of {method[:100]!r} is not a string or integer"
                    )
                    return
                if self._is_echo(request_id, method, message.get("params")):
                    return
                if method in self._notification_methods:
                    # A notification sent as a request ("session/update" with an id): its
                    # content is applied in order like any notification, never lost to a
                    # "method not found", and the request gets the empty answer it asks for.
                    await self._handle_notification(method, message.get("params"))
                    self._answer_empty(request_id)
                    return
                self._start_incoming(request_id, method, message.get("params"))
            else:
                await self._handle_notification(method, message.get("params"))
            return
        if (
            "method" in message
            and "result" not in message
            and "error" not in message
            and _is_valid_id(message.get("id"))
        ):
            # A request whose method is not a string: answer it, by its id, as invalid.
            self.stats.invalid_messages += 1
            self._note_last(f"request with an invalid method: {text[:200]}")
            self._answer_invalid(message["id"], "the method is not a string")
            return
        if "id" in message and ("result" in message or "error" in message):
            if _is_valid_id(message["id"]):
                self._handle_response(message)
                return
            if message["id"] is None:
                # The peer could not read one of our requests (JSON-RPC answers a parse
                # error with a null id): nobody to hand it to.
                self.stats.unknown_responses += 1
                self._note_last(f"answer without an id: {text[:200]}")
                return
        self.stats.invalid_messages += 1
        self._note_last(f"invalid JSON-RPC message: {text[:200]}")

    def _answer_empty(self, request_id: RequestId) -> None:
        if self._task_group is None or self._closed:
            return
        response: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": {}}
        self._task_group.start_soon(self._write_quietly, response)

    def _answer_invalid(self, request_id: RequestId | None, why: str) -> None:
        if self._task_group is None or self._closed:
            return
        response = {
            "jsonrpc": JSONRPC_VERSION,
            "id": request_id,
            "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {why}"},
        }
        self._task_group.start_soon(self._write_quietly, response)

    async def _write_quietly(self, message: dict[str, Any]) -> bool:
        """Send a response; a closed peer or a result that cannot be sent is logged, not
        raised (it would end the connection). True when ``message`` itself went out."""
        try:
            await self._write(message)
            return True
        except ConnectionClosed:
            return False
        except (TypeError, ValueError):
            log.exception("cannot send the answer to request %r", message.get("id"))
            if "result" in message:
                await self._write_quietly(
                    {
                        "jsonrpc": JSONRPC_VERSION,
                        "id": message.get("id"),
                        "error": {
                            "code": INTERNAL_ERROR,
                            "message": "the answer could not be encoded",
                        },
                    }
                )
            return False

    def _skip(self, text: str, why: str) -> None:
        self.stats.skipped_lines += 1
        if len(self.stats.first_skipped) < FIRST_SKIPPED_KEPT:
            self.stats.first_skipped.append(text[:SKIPPED_TEXT_LIMIT])
        self._note_last(f"{why}: {text[:200]}")
        self._record("in", text, why)

    def _is_echo(self, request_id: RequestId, method: str, params: Any) -> bool:
        """A request with the id, method and params of one of ours still waiting: the peer
        echoes what it reads. Never served (answering would echo forever); ours fails."""
        pending = self._pending.get(request_id)
        if pending is None or pending.method != method or pending.params != params:
            return False
        self.stats.echoed_requests += 1
        self.stats.skipped_lines += 1
        self._note_last(f"our own {method} request, sent back")
        pending.error = EchoedRequest(method)
        pending.done.set()
        return True

    def _note_last(self, note: str) -> None:
        self.stats.last_skipped = note
        log.debug("skipped %s", note)

    def _handle_response(self, message: dict[str, Any]) -> None:
        pending = self._pending.get(message["id"])
        if pending is None:
            self.stats.unknown_responses += 1
            return
        if "error" in message:
            error = message["error"]
            if isinstance(error, dict):
                code = error.get("code")
                pending.error = RpcError(
                    code if isinstance(code, int) else INTERNAL_ERROR,
                    str(error.get("message", "error")),
                    error.get("data"),
                )
            else:
                pending.error = RpcError(INTERNAL_ERROR, str(error))
        else:
            pending.result = message.get("result")
        pending.done.set()

    async def _handle_notification(self, method: str, params: Any) -> None:
        if method == CANCEL_REQUEST_METHOD:
            request_id = params.get("requestId") if isinstance(params, dict) else None
            scope = self._incoming.get(request_id) if _is_valid_id(request_id) else None
            if scope is not None:
                scope.cancel()
            return
        if self.notification_handler is None:
            return
        try:
            await self.notification_handler(method, params)
        except Exception:
            self.stats.handler_errors += 1
            log.exception("notification handler failed for %s", method)

    def _start_incoming(self, request_id: RequestId, method: str, params: Any) -> None:
        scope = anyio.CancelScope()
        self._incoming[request_id] = scope
        assert self._task_group is not None
        self._task_group.start_soon(self._serve_request, request_id, method, params, scope)

    async def _serve_request(
        self, request_id: RequestId, method: str, params: Any, scope: anyio.CancelScope
    ) -> None:
        response: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": request_id}
        follow_ups: list[FollowUp] = []
        _follow_ups.set(follow_ups)
        try:
            with scope:
                if self.request_handler is None:
                    raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
                response["result"] = await self.request_handler(method, params)
            if scope.cancel_called:
                response.pop("result", None)
                response["error"] = {"code": REQUEST_CANCELLED, "message": "request cancelled"}
        except RpcError as error:
            response["error"] = error.to_json()
        except Exception as error:
            self.stats.handler_errors += 1
            log.exception("request handler failed for %s", method)
            response["error"] = {
                "code": INTERNAL_ERROR,
                "message": f"internal error in client: {type(error).__name__}: {error}",
            }
        finally:
            self._incoming.pop(request_id, None)
        if "result" in response and response["result"] is None:
            # JSON-RPC requires a result member; ACP's empty responses are objects.
            response["result"] = {}
        if await self._write_quietly(response) and "result" in response:
            await self._run_follow_ups(method, follow_ups)

    async def _run_follow_ups(self, method: str, follow_ups: list[FollowUp]) -> None:
        for follow_up in follow_ups:
            try:
                await follow_up()
            except ConnectionClosed:
                return
            except Exception:
                self.stats.handler_errors += 1
                log.exception("work after the response to %s failed", method)

    # ------------------------------------------------------------------ lifecycle

    def _close(self, reason: str = CLOSED_LOCALLY) -> None:
        if self._closed:
            return
        self._closed = True
        self.close_reason = reason
        for pending in list(self._pending.values()):
            if not pending.done.is_set():
                pending.error = ConnectionClosed(
                    f"agent closed the connection during {pending.method}"
                )
                pending.done.set()
        self.closed_event.set()

    async def aclose(self) -> None:
        self._close()
        with anyio.CancelScope(shield=True):
            try:
                await self._send.aclose()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass

    def _record(self, direction: Direction, text: str, note: str = "") -> None:
        if self.wire_tap is not None:
            self.wire_tap(direction, text, note)
        if not self.record_traffic:
            return
        if len(text) > TRAFFIC_TEXT_LIMIT:
            note = note or f"{len(text):,} characters, cut for the inspector"
            text = text[:TRAFFIC_TEXT_LIMIT]
        record = TrafficRecord(time.time(), direction, text, note)
        self.traffic.append(record)
        for listener in self.traffic_listeners:
            try:
                listener(record)
            except Exception:
                log.exception("traffic listener failed")


def _is_valid_id(value: Any) -> TypeGuard[RequestId]:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int | str)
