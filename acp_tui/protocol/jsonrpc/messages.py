"""JSON-RPC 2.0's vocabulary as both sides of a :class:`~acp_tui.protocol.jsonrpc.Connection`
use it: the error codes (JSON-RPC's and ACP's), :class:`RpcError` and its kin, how a line is
parsed (:func:`parse_line`, fast; :func:`parse_line_lenient`, for numbers past Python's
limits), and the records of the traffic (:class:`TrafficRecord`, :class:`ConnectionStats`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

JSONRPC_VERSION = "2.0"
CANCEL_REQUEST_METHOD = "$/cancel_request"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
#: ACP's codes in the server-error range: the agent wants ``authenticate`` first; a file,
#: terminal or session that does not exist.
AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002

# A JSON number or string; a finite float is accepted too (an integral one equals its int as a key).
RequestId = int | float | str
RequestHandler = Callable[[str, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], Awaitable[None]]
Direction = Literal["in", "out"]
#: Sees every line in and out, whole: (direction, text, why it was skipped or "").
WireTap = Callable[[Direction, str, str], None]
FollowUp = Callable[[], Awaitable[None]]

# JSONDecoder sets scan_once (the C scanner) in __init__; typeshed does not declare it.
_scan_json = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def parse_line(text: str) -> Any:
    """``json.loads(text)``, a third faster for a line without leading whitespace (every line
    the reader hands over, stripped): the C scanner that json.loads runs, called straight.
    Anything it does not take whole goes to json.loads itself, for its exact result or error
    (issue 20's wire throughput: this is most of the time a streamed chunk costs)."""
    try:
        value, end = _scan_json(text, 0)
    except StopIteration:
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def _huge_int(digits: str) -> int | float:
    """An integer literal as Python reads it, or an infinity of its sign when it has more
    digits than Python converts (4,300: the conversion limit is a ValueError): a number out
    of any range the protocol uses, which every reader of numbers treats as unknown."""
    try:
        return int(digits)
    except ValueError:
        return float("-inf") if digits.startswith("-") else float("inf")


_lenient_decoder = json.JSONDecoder(parse_int=_huge_int)


def parse_line_lenient(text: str) -> Any:
    """:func:`parse_line` for a line it refused with a ValueError: an integer of thousands of
    digits (an id of 5,000 nines) is valid JSON but over Python's conversion limit, and the
    line must still be read (a request must still be answered). Slower, so only a fallback."""
    return _lenient_decoder.decode(text)


class RpcError(Exception):
    """A JSON-RPC error: raised by handlers to answer with an error, and by `request()`
    when the peer answered with one. `data` is whatever the peer attached."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @property
    def reason(self) -> str:
        """The message with the reason the peer gave in ``data``, for a person: agents often
        answer a generic "Internal error" and put why in ``data`` (Qwen Code's
        ``{"details": "Qwen OAuth credentials expired…"}``). No code, no JSON when a text
        field says it."""
        data = self.data
        detail: Any = data
        if isinstance(data, dict):
            detail = next(
                (
                    data[key]
                    for key in ("details", "detail", "message", "reason", "error")
                    if isinstance(data.get(key), str) and data[key].strip()
                ),
                data,
            )
        if detail is None or detail == "" or detail == self.message:
            return self.message
        text = detail if isinstance(detail, str) else json.dumps(detail)
        if self.message and text.casefold().startswith(self.message.casefold()):
            # "Authentication required: Authentication required to create a session"
            # (OpenHands) says it twice.
            return text[:500]
        return f"{self.message}: {text[:500]}"

    def __str__(self) -> str:
        # The reason first and the code last: a toast or a status line cut short still says
        # why ("Internal error (code -32603): {"details": …" said nothing a person could use).
        return f"{self.reason} (code {self.code})"


class ConnectionClosed(Exception):
    """The peer closed its end (or died) while a request was waiting for an answer."""


class EchoedRequest(RpcError):
    """The peer sent one of our own requests back (``cat`` does): it is not speaking
    JSON-RPC with us, and the request will never be answered."""

    def __init__(self, method: str) -> None:
        super().__init__(INVALID_REQUEST, f"the peer sent our own {method} request back")
        self.method = method


#: Why a connection closed (:attr:`Connection.close_reason`): the peer's output ended (EOF),
#: the peer stopped taking input (a write failed: it closed its stdin or died), or this side
#: closed it.
CLOSED_OUTPUT = "output"
CLOSED_INPUT = "input"
CLOSED_LOCALLY = "local"


@dataclass(slots=True)
class TrafficRecord:
    """One line on the wire, kept for the protocol inspector."""

    timestamp: float
    direction: Direction
    text: str
    note: str = ""


@dataclass(slots=True)
class ConnectionStats:
    """What went by on this connection; junk is counted, never fatal."""

    lines_in: int = 0
    lines_out: int = 0
    skipped_lines: int = 0
    oversized_lines: int = 0
    invalid_messages: int = 0
    unknown_responses: int = 0
    handler_errors: int = 0
    echoed_requests: int = 0
    last_skipped: str = ""
    #: The first few lines that were not JSON-RPC (what a program that is not an ACP agent
    #: printed), cut to SKIPPED_TEXT_LIMIT characters each.
    first_skipped: list[str] = field(default_factory=list)
