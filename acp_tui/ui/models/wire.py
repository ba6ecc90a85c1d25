"""The protocol inspector's model: each line of the wire as the person reads it (time,
direction, the method it belongs to, a response named by its request's method), a filter
over them, and a whole message laid out to read.

Plain Python over the connection's traffic records: the inspector screen lists
:attr:`WireLog.lines`, narrows them with :func:`parse_filter`, and shows
:func:`pretty_message` of the one the person opens.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from acp_tui.session.agent.traffic import TrafficRecord
from acp_tui.text.safety import log_text, one_line

__all__ = ["WireFilter", "WireLine", "WireLog", "parse_filter", "pretty_message"]

Kind = Literal["request", "notification", "result", "error", "junk"]
#: The tokens of a filter that keep one direction (the rest are words to find).
DIRECTIONS = {"in": "in", "out": "out", "←": "in", "→": "out"}


@dataclass(frozen=True, slots=True)
class WireLine:
    """One line that went by, read."""

    number: int
    timestamp: float
    direction: str
    text: str
    note: str
    kind: Kind
    #: The method: the request's own, or for a response the method of the request it answers
    #: ("" when that request was never seen, and for junk).
    method: str
    #: The parsed message (None for junk).
    message: Any

    @property
    def arrow(self) -> str:
        return "→" if self.direction == "out" else "←"

    @property
    def label(self) -> str:
        """What the line is: ``session/prompt``, ``session/prompt (result)``, ``#7 (error)``."""
        if self.kind == "junk":
            return "not JSON-RPC"
        if self.kind in ("request", "notification"):
            update = _update_kind(self.message)
            return f"{self.method} · {update}" if update else self.method
        suffix = "result" if self.kind == "result" else "error"
        name = self.method or f"#{_id_text(self.message)}"
        return f"{name} ({suffix})"

    def summary(self, limit: int = 400) -> str:
        """The line as a row: time, direction, label, then the message on one line, cut."""
        stamp = time.strftime("%H:%M:%S", time.localtime(self.timestamp))
        note = f"[{one_line(self.note, 80)}] " if self.note else ""
        return (
            f"{stamp} {self.arrow} {one_line(self.label, 60)}  {note}{one_line(self.text, limit)}"
        )

    def haystack(self) -> str:
        """What a filter's words are looked for in (lower case)."""
        return f"{self.method}\n{self.label}\n{self.note}\n{self.text}".casefold()


class WireLog:
    """The lines read so far, in order; a response learns its method from the request with
    its id that went the other way."""

    def __init__(self) -> None:
        self.lines: list[WireLine] = []
        self._requests: dict[tuple[str, str], str] = {}
        self._count = 0

    def add(self, record: TrafficRecord) -> WireLine:
        self._count += 1
        message = _parse(record.text)
        kind = _kind(message)
        method = ""
        if kind in ("request", "notification"):
            method = str(message.get("method", ""))
            if kind == "request":
                self._requests[(record.direction, _id_text(message))] = method
        elif kind in ("result", "error"):
            asked_by = "in" if record.direction == "out" else "out"
            method = self._requests.pop((asked_by, _id_text(message)), "")
        line = WireLine(
            number=self._count,
            timestamp=record.timestamp,
            direction=record.direction,
            text=record.text,
            note=record.note,
            kind=kind,
            method=method,
            message=message,
        )
        self.lines.append(line)
        return line


@dataclass(frozen=True, slots=True)
class WireFilter:
    """Lines of one direction (or both) whose method or text holds every word."""

    direction: str | None = None
    words: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.direction is not None or bool(self.words)

    def matches(self, line: WireLine) -> bool:
        if self.direction is not None and line.direction != self.direction:
            return False
        if not self.words:
            return True
        haystack = line.haystack()
        return all(word in haystack for word in self.words)


def parse_filter(text: str) -> WireFilter:
    """``session/prompt out``: the words a line must hold (its method, also a response's, or
    anything in the message, case ignored); ``in`` or ``out`` (``←``, ``→``) alone keeps one
    direction."""
    direction: str | None = None
    words: list[str] = []
    for token in text.split():
        if token.casefold() in DIRECTIONS:
            direction = DIRECTIONS[token.casefold()]
        else:
            words.append(token.casefold())
    return WireFilter(direction, tuple(words))


def pretty_message(line: WireLine) -> str:
    """The whole message to read: indented JSON, every character that would act on a
    terminal (or hide, or reorder text) written as its escape; a line that was not JSON, as
    it came, escaped the same way."""
    if line.message is None:
        return log_text(line.text)
    return log_text(json.dumps(line.message, indent=2, ensure_ascii=False))


def _parse(text: str) -> Any:
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _kind(message: Any) -> Kind:
    if message is None:
        return "junk"
    if isinstance(message.get("method"), str):
        return "request" if "id" in message else "notification"
    if "error" in message:
        return "error"
    if "result" in message:
        return "result"
    return "junk"


def _update_kind(message: Any) -> str:
    """The kind of a ``session/update`` (``agent_message_chunk``...), or ""."""
    params = message.get("params") if isinstance(message, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return kind if isinstance(kind, str) else ""


def _id_text(message: Any) -> str:
    """A JSON-RPC id as a key (``1`` and ``"1"`` are different ids)."""
    return json.dumps(message.get("id") if isinstance(message, dict) else None)
