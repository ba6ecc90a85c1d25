"""``acp-tui replay --check``: protocol errors in a recording, found without a screen.

Each connection of the recording is walked in order, as the client saw it:

- every line must be a JSON-RPC 2.0 message (junk on the agent's stdout is reported);
- every response must answer a request that is waiting, and every request must be answered;
  an error answer is listed as a note (valid protocol, not an error) with its code, message
  and data;
- nothing but ``initialize`` may be sent before ``initialize`` is answered;
- after ``session/cancel``, every permission request of that session that is still pending
  must be answered ``cancelled``;
- every ``session/update`` goes through the real :class:`~acp_tui.store.SessionStore` (the
  sessions opened by ``session/new``, ``load``, ``resume`` and ``fork`` registered as the
  client does): whatever it keeps as an unknown or malformed update is reported, and so are
  updates for a session that was never opened.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from acp_tui.protocol.recording import FROM_AGENT, TO_AGENT, Recording, Segment, WireEntry
from acp_tui.store import SessionStore
from acp_tui.store.entries import UnknownUpdate
from acp_tui.text.safety import one_line
from acp_tui.wire.constants import Method

PERMISSION = Method.SESSION_REQUEST_PERMISSION
OPENING_METHODS = ("session/new", "session/load", "session/resume", "session/fork")


@dataclass(slots=True, frozen=True)
class Problem:
    """One protocol error: when, which way, what (and the recording's line). A ``note`` is
    not an error: something valid a bug report wants to see (an error answer)."""

    t: float
    direction: str
    what: str
    line: int = 0
    note: bool = False

    def format(self) -> str:
        stamp = f"{self.t:10.3f}s" if math.isfinite(self.t) else f"{'-':>11}"
        where = f"  (line {self.line})" if self.line else ""
        return f"{stamp}  {self.direction:<10}  {self.what}{where}"


def check_recording(recording: Recording) -> list[Problem]:
    problems = [
        Problem(math.nan, "-", f"not a recording line: {what}", line)
        for line, what in recording.problems
    ]
    for number, segment in enumerate(recording.segments, start=1):
        if not segment.entries and segment.closed is None and number > 1:
            continue
        problems += _SegmentCheck(segment).run()
    problems.sort(key=lambda p: (not math.isfinite(p.t), p.t, p.line))
    return problems


def _id_text(value: Any) -> str:
    return json.dumps(value)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return one_line(text, limit)


def _is_valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int | str)


@dataclass(slots=True)
class _Request:
    entry: WireEntry
    method: str
    params: Any
    cancelled: bool = False  # a permission request pending when its session was cancelled
    #: Its sender gave up on it (``$/cancel_request``): unanswered when the sender then closed
    #: the connection, it is not the other side's fault (acp-tui quitting mid-turn).
    given_up: bool = False


@dataclass(slots=True)
class _SegmentCheck:
    segment: Segment
    problems: list[Problem] = field(default_factory=list)
    # Requests waiting for an answer, by the direction they were sent in, then by id.
    pending: dict[str, dict[str, _Request]] = field(
        default_factory=lambda: {TO_AGENT: {}, FROM_AGENT: {}}
    )
    initialize_id: str | None = None
    initialized: bool = False
    store: SessionStore = field(default_factory=SessionStore)
    # Where each update the store kept as unknown, or held, came from (by the object's id:
    # the store keeps the object, so the id stays its own); the others are not remembered,
    # so a recording of any length is checked in the memory of its sessions.
    sources: dict[int, tuple[float, str, int]] = field(default_factory=dict)

    def report(self, entry: WireEntry, what: str, *, note: bool = False) -> None:
        self.problems.append(Problem(entry.t, entry.direction, what, entry.line, note))

    def run(self) -> list[Problem]:
        for entry in self.segment.entries:
            if not entry.is_message:
                self._junk(entry)
                continue
            kind = self._validate(entry)
            if kind is None:
                continue
            self._before_initialize(entry, kind)
            if kind == "request":
                self._request(entry)
            elif kind == "notification":
                self._notification(entry)
            else:
                self._response(entry)
        self._unanswered()
        self._store_findings()
        return self.problems

    # ------------------------------------------------------------------ shape

    def _junk(self, entry: WireEntry) -> None:
        if entry.direction == FROM_AGENT:
            text = f": {_short(entry.text)}" if entry.text else ""
            self.report(entry, f"junk on the agent's stdout ({entry.junk}){text}")
        else:
            self.report(entry, f"not a JSON-RPC message ({entry.junk}): {_short(entry.text)}")

    def _validate(self, entry: WireEntry) -> str | None:
        """The message's kind ('request', 'notification', 'response'), or None (reported)."""
        message = entry.message
        if not isinstance(message, dict):
            self.report(entry, f"not a JSON-RPC object: {_short(message)}")
            return None
        if "jsonrpc" not in message:
            self.report(entry, 'no "jsonrpc": "2.0" member')
        elif message["jsonrpc"] != "2.0":
            self.report(entry, f'jsonrpc is {_short(json.dumps(message["jsonrpc"]))}, not "2.0"')
        if "method" in message:
            method = message["method"]
            if not isinstance(method, str) or not method:
                self.report(entry, f"method is not a name: {_short(method)}")
                return None
            params = message.get("params")
            if "params" in message and not isinstance(params, dict | list):
                self.report(entry, f"{method}: params is not an object or an array")
            if "id" not in message:
                return "notification"
            if not _is_valid_id(message["id"]):
                self.report(entry, f"{method}: bad request id {_short(message['id'])}")
                return None
            return "request"
        if "id" not in message:
            self.report(
                entry, f"neither a request nor a response (no method, no id): {_short(message)}"
            )
            return None
        has_result, has_error = "result" in message, "error" in message
        if has_result == has_error:
            what = "both result and error" if has_result else "no result and no error"
            self.report(entry, f"response to id {_id_text(message['id'])} has {what}")
            return None
        if message["id"] is None:
            if not has_error:
                self.report(entry, "a result with a null id")
                return None
        elif not _is_valid_id(message["id"]):
            self.report(entry, f"response with a bad id {_short(message['id'])}")
            return None
        if has_error:
            error = message["error"]
            if (
                not isinstance(error, dict)
                or not isinstance(error.get("code"), int)
                or not isinstance(error.get("message"), str)
            ):
                self.report(entry, f"malformed error object: {_short(error)}")
        return "response"

    def _before_initialize(self, entry: WireEntry, kind: str) -> None:
        if self.initialized:
            return
        message = entry.message
        if entry.direction == TO_AGENT and kind == "request" and message["method"] == "initialize":
            return
        if (
            entry.direction == FROM_AGENT
            and kind == "response"
            and _id_text(message.get("id")) == self.initialize_id
        ):
            return
        what = message.get("method") or f"a response to id {_id_text(message.get('id'))}"
        self.report(entry, f"sent before initialize was answered: {_short(what)}")

    # ------------------------------------------------------------------ requests

    def _request(self, entry: WireEntry) -> None:
        message = entry.message
        method = message["method"]
        key = _id_text(message["id"])
        waiting = self.pending[entry.direction]
        if key in waiting:
            earlier = waiting[key]
            self.report(
                entry,
                f"{method}: request id {key} reused while {earlier.method} (line "
                f"{earlier.entry.line}) is unanswered",
            )
        waiting[key] = _Request(entry, method, message.get("params"))
        if method == "initialize" and entry.direction == TO_AGENT and self.initialize_id is None:
            self.initialize_id = key
        params = message.get("params")
        if method == "session/load" and isinstance(params, dict):
            session_id = params.get("sessionId")
            if isinstance(session_id, str):
                self.store.begin_replay(session_id, cwd=_text(params.get("cwd")))

    def _notification(self, entry: WireEntry) -> None:
        message = entry.message
        method = message["method"]
        params = message.get("params")
        if entry.direction == FROM_AGENT and method == "session/update":
            self._apply(entry, params)
        elif method == Method.CANCEL_REQUEST:
            request_id = params.get("requestId") if isinstance(params, dict) else None
            if request_id is not None:
                given_up = self.pending[entry.direction].get(_id_text(request_id))
                if given_up is not None:
                    given_up.given_up = True
        elif entry.direction == TO_AGENT and method == "session/cancel":
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            for request in self.pending[FROM_AGENT].values():
                if request.method == PERMISSION and _session_of(request.params) == session_id:
                    request.cancelled = True

    def _apply(self, entry: WireEntry, params: Any) -> None:
        """Give the update to the store, noting where it came from if the store keeps it as
        unknown (at the end of its session's transcript, or of the unrouted ones) or holds it
        for a session not open yet."""
        update = params.get("update") if isinstance(params, dict) else None
        session_id = _session_of(params)
        held = self.store.held_count(session_id) if isinstance(session_id, str) else 0
        self.store.apply(params)
        source = (entry.t, entry.direction, entry.line)
        state = self.store.sessions.get(session_id) if isinstance(session_id, str) else None
        last = state.transcript[-1] if state is not None and state.transcript else None
        if isinstance(last, UnknownUpdate) and last.raw is update:
            self.sources[id(update)] = source
        unrouted = self.store.unrouted
        if unrouted and unrouted[-1].raw is params:
            self.sources[id(params)] = source
        if isinstance(session_id, str) and self.store.held_count(session_id) > held:
            self.sources[id(update)] = source

    def _response(self, entry: WireEntry) -> None:
        message = entry.message
        key = _id_text(message["id"])
        asked_by = FROM_AGENT if entry.direction == TO_AGENT else TO_AGENT
        request = self.pending[asked_by].pop(key, None)
        if request is None:
            if message["id"] is None:
                self.report(entry, f"error answer with a null id: {_error_text(message)}")
            else:
                self.report(entry, f"response to id {key}, which no request is waiting for")
            return
        if "error" in message:
            # Valid JSON-RPC (Qwen Code refused an option so), and often why a session went
            # wrong: noted, not counted as a protocol error.
            self.report(
                entry, f"error answer to {request.method}: {_error_text(message)}", note=True
            )
        if request.cancelled:
            outcome = _outcome(message.get("result"))
            if outcome != "cancelled":
                self.report(
                    entry,
                    f"permission request (id {key}) answered {_short(outcome)} after "
                    "session/cancel; it must be answered cancelled",
                )
        if entry.direction == FROM_AGENT:
            self._client_request_answered(request, key, message)

    def _client_request_answered(
        self, request: _Request, key: str, message: dict[str, Any]
    ) -> None:
        result = message.get("result")
        params = request.params if isinstance(request.params, dict) else {}
        if request.method == "initialize" and key == self.initialize_id:
            self.initialized = "result" in message
            if isinstance(result, dict):
                self.store.set_agent_capabilities(result.get("agentCapabilities"))
                # Updates are read by the version agreed on, as the client reads them.
                self.store.protocol_version = 2 if result.get("protocolVersion") == 2 else 1
        elif request.method == "session/load":
            session_id = params.get("sessionId")
            if isinstance(session_id, str):
                self.store.end_replay(session_id, result if "result" in message else None)
        elif request.method in OPENING_METHODS and "result" in message:
            session_id = params.get("sessionId")
            if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                session_id = result["sessionId"]  # session/new and session/fork name it
            if isinstance(session_id, str):
                self.store.register_session(
                    session_id, cwd=_text(params.get("cwd")) or None, response=result
                )

    def _unanswered(self) -> None:
        closed = self.segment.closed or {}
        closed_by = "client" if closed.get("by") == "client" else "agent" if closed else None
        for direction, waiting in self.pending.items():
            sender = "client" if direction == TO_AGENT else "agent"
            for key, request in waiting.items():
                if request.given_up and closed_by == sender:
                    continue  # its sender gave up on it and left
                if request.cancelled:
                    what = f"permission request (id {key}) left unanswered after session/cancel"
                else:
                    who = "the agent" if direction == TO_AGENT else "the client"
                    what = f"{request.method} (id {key}) never answered by {who}"
                self.report(request.entry, what)

    # ------------------------------------------------------------------ the store's view

    def _store_findings(self) -> None:
        for state in self.store.sessions.values():
            for item in state.transcript:
                if isinstance(item, UnknownUpdate):
                    self._unknown(item, f"session {_short(state.id, 40)}")
        for item in self.store.unrouted:
            self._unknown(item, "no session")
        held = self.store.snapshot()["held"]
        for session_id, updates in held.items():
            what = (
                f"{len(updates)} session/update(s) for session {_short(session_id, 40)}, "
                "which was never opened"
            )
            self._report_from(updates[0] if updates else None, what)

    def _unknown(self, item: UnknownUpdate, where: str) -> None:
        kind = item.update_kind
        if item.error is None:
            what = f"session/update {_short(kind, 40)} is not a variant the client knows ({where})"
        else:
            name = _short(kind, 40) if kind else "(no sessionUpdate)"
            what = f"session/update {name} the client could not apply: {item.error} ({where})"
        self._report_from(item.raw, what)

    def _report_from(self, raw: Any, what: str) -> None:
        """Report ``what`` at the line ``raw`` came from (at no line when it is not known)."""
        source = self.sources.get(id(raw)) if raw is not None else None
        if source is None:
            self.problems.append(Problem(math.nan, FROM_AGENT, what))
        else:
            t, direction, line = source
            self.problems.append(Problem(t, direction, what, line))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _session_of(params: Any) -> Any:
    return params.get("sessionId") if isinstance(params, dict) else None


def _outcome(result: Any) -> Any:
    outcome = result.get("outcome") if isinstance(result, dict) else None
    if isinstance(outcome, dict):
        return outcome.get("outcome")
    return outcome


def _error_text(message: dict[str, Any]) -> str:
    error = message.get("error")
    if isinstance(error, dict):
        text = f"{error.get('code')} {_short(error.get('message'), 200)}"
        if error.get("data") is not None:
            text += f" (data: {_short(error['data'], 200)})"
        return text
    return _short(error, 200)
