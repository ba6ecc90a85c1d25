"""Recordings of a connection's wire: both directions, timestamped, as JSON Lines.

``acp-tui --record FILE`` writes one; ``acp-tui replay FILE`` plays the agent's side of it
back and ``acp-tui replay --check FILE`` looks for protocol errors in it; the protocol
inspector saves its traffic in the same format. The file::

    {"format": "acp-tui-wire", "version": 1, "acpTui": "0.1.0", "agent": [...], "cwd": "...",
     "started": "2025-05-01T12:00:00.000000+00:00"}
    {"t": 0.000812, "dir": "to_agent", "msg": {"jsonrpc": "2.0", "id": 0, "method": ...}}
    {"t": 0.041370, "dir": "from_agent", "msg": {"jsonrpc": "2.0", "id": 0, "result": ...}}
    {"t": 0.052100, "dir": "from_agent", "junk": "not JSON", "text": "Loading model..."}
    {"t": 9.500000, "event": "closed", "by": "agent", "exit": "exit code 1"}
    {"t": 12.25000, "event": "connected", "agent": [...], "cwd": "..."}

``t`` is seconds since ``started``; ``msg`` is the message exactly as it went over the wire
(its text is copied into the line, never re-serialised); ``junk`` lines are what the agent
printed on stdout that was not a JSON-RPC message, with why. A ``closed`` event ends a
connection (``by`` says which side ended it, ``exit`` how the agent ended), and a
``connected`` event starts the next one (the agent restarted in the same run).

Huge lines are kept whole: a recording exists to be replayed, and a message cut short is
no longer a message. The wire itself bounds a line (``Connection``'s ``max_line_bytes``); a
line over that bound was never read, so it is recorded as a junk line with no text.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from acp_tui import __version__
from acp_tui.protocol.jsonrpc import Connection, Direction, TrafficRecord, parse_line_lenient

log = logging.getLogger(__name__)

FORMAT = "acp-tui-wire"
FORMAT_VERSION = 1
TO_AGENT = "to_agent"
FROM_AGENT = "from_agent"
DIRECTIONS = {"out": TO_AGENT, "in": FROM_AGENT}

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: The start of a line :func:`message_line` wrote for a message (the message's text follows,
#: then the line's closing brace).
_STAMP = re.compile(rb'\{"t":[0-9.]+,"dir":"(?:to_agent|from_agent)","msg":(?=\{)')


def _encodable(text: str) -> bytes:
    """UTF-8 of ``text``; a lone surrogate (which UTF-8 cannot hold, and which only a JSON
    string can carry) becomes its JSON escape, so the value read back is the same."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def header_line(argv: Sequence[str], cwd: str, started: float, **extra: Any) -> bytes:
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "acpTui": __version__,
        "agent": list(argv),
        "cwd": cwd,
        "started": datetime.fromtimestamp(started, UTC).isoformat(),
        **extra,
    }
    return _encodable(json.dumps(header, ensure_ascii=False) + "\n")


def message_line(t: float, direction: str, text: str, junk: str = "") -> bytes:
    """One wire line. ``text`` is the message's JSON text as sent or received; with
    ``junk`` (why it is not a message) it is kept as a string instead."""
    stamp = f'{{"t":{t:.6f},"dir":"{direction}",'
    if not junk and text.startswith("{") and text.endswith("}"):
        # The text is the JSON the wire carried: copied, not parsed and serialised again.
        return _encodable(f'{stamp}"msg":{text}}}\n')
    why = json.dumps(junk or "not a JSON-RPC object")
    return _encodable(f'{stamp}"junk":{why},"text":{json.dumps(text, ensure_ascii=False)}}}\n')


def event_line(t: float, event: str, **fields: Any) -> bytes:
    return _encodable(json.dumps({"t": round(t, 6), "event": event, **fields}) + "\n")


class WireRecorder:
    """Writes every connection attached to it into one recording file, line by line.

    The file is opened by the caller (the command line, through the path gate) before
    anything starts, so a path that cannot be written fails at once. It must be
    unbuffered: each line is one write, so when acp-tui crashes (or is killed) every line
    up to that moment is in the file. A write that fails (disk full) stops the
    recording and is reported in :attr:`error`; the connection is never disturbed."""

    def __init__(self, path: Path, file: BinaryIO) -> None:
        self.path = path
        self._file: BinaryIO | None = file
        self._origin: float | None = None
        self._connections = 0
        self.lines = 0
        self.error: str | None = None

    def attach(self, connection: Connection, *, argv: Sequence[str], cwd: str) -> None:
        """Record ``connection`` from now on. The first one writes the header."""
        if self._origin is None:
            self._origin = time.monotonic()
            self._write(header_line(argv, cwd, time.time()))
        else:
            self._write(event_line(self._now(), "connected", agent=list(argv), cwd=cwd))
        self._connections += 1
        connection.wire_tap = self._tap

    def detach(self, connection: Connection, *, exit_description: str, agent_closed: bool) -> None:
        """The connection is over: say how, and record nothing more from it."""
        if connection.wire_tap == self._tap:
            connection.wire_tap = None
        self._write(
            event_line(
                self._now(),
                "closed",
                by="agent" if agent_closed else "client",
                exit=exit_description,
            )
        )

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError as error:
                self.error = self.error or str(error)

    def _now(self) -> float:
        return time.monotonic() - (self._origin or 0.0)

    def _tap(self, direction: Direction, text: str, note: str) -> None:
        self._write(message_line(self._now(), DIRECTIONS[direction], text, note))

    def _write(self, data: bytes) -> None:
        file = self._file
        if file is None:
            return
        try:
            view = memoryview(data)
            while view:
                written = file.write(view)
                view = view[written or 0 :]
                if not written:
                    raise OSError("nothing could be written")
        except (OSError, ValueError) as error:
            self.error = f"recording to {self.path} stopped: {error}"
            log.warning("%s", self.error)
            self.close()
            return
        self.lines += 1


def write_traffic(
    file: BinaryIO,
    records: Iterable[TrafficRecord],
    *,
    argv: Sequence[str],
    cwd: str,
    complete: bool,
) -> int:
    """Save the protocol inspector's traffic as a recording into ``file`` (opened by the
    caller, through the path gate); returns the number of lines.

    ``complete`` is False when the inspector's ring has dropped the oldest lines (the header
    says so). Lines the inspector cut short are kept as junk lines with that note."""
    records = list(records)
    started = records[0].timestamp if records else time.time()
    file.write(header_line(argv, cwd, started, source="inspector", complete=complete))
    for record in records:
        t = max(0.0, record.timestamp - started)
        file.write(message_line(t, DIRECTIONS[record.direction], record.text, record.note))
    return len(records)


# ---------------------------------------------------------------------------------- reading


class RecordingError(Exception):
    """The file is not a recording at all (missing, unreadable, or no header)."""


@dataclass(slots=True)
class WireEntry:
    """One line of a connection: a message (``message`` set) or a junk line (``junk`` set)."""

    line: int
    t: float
    direction: str
    message: Any = None
    junk: str | None = None
    text: str = ""
    #: The message's JSON text as the wire carried it (copied into the line by
    #: :func:`message_line`), when the line is in that shape: played back as it is.
    wire: bytes | None = None

    @property
    def is_message(self) -> bool:
        return self.junk is None


#: Bytes read at a time from a recording (a longer line is read in as many pieces).
READ_CHUNK = 1 << 20


def _lines(fd: int, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """The lines of file ``fd`` from byte ``start`` to byte ``end``, each with its offset, without
    its newline. Read with ``pread``: walks of one file never move each other's place."""
    pending: list[bytes] = []  # the start of a line longer than what was read so far
    line_start = position = start
    while position < end:
        chunk = os.pread(fd, min(READ_CHUNK, end - position), position)
        if not chunk:
            break
        base = position
        position += len(chunk)
        cut = 0
        while (newline := chunk.find(b"\n", cut)) >= 0:
            piece = chunk[cut:newline]
            if pending:
                pending.append(piece)
                piece = b"".join(pending)
                pending = []
            yield line_start, piece
            cut = newline + 1
            line_start = base + cut
        if cut < len(chunk):
            pending.append(chunk[cut:])
    if pending:
        yield line_start, b"".join(pending)


@dataclass(slots=True)
class Segment:
    """One connection: from the header (or a ``connected`` event) to its ``closed`` event.

    Its entries are read from the file each time they are walked (:attr:`entries`), never
    held all at once: a recording of hundreds of megabytes is played in the memory of one
    line."""

    argv: list[str]
    cwd: str
    start: float
    #: The ``closed`` event, if the recording has one (a crash of acp-tui leaves none).
    closed: dict[str, Any] | None = None
    #: How many entries (messages and junk lines) it has.
    count: int = 0
    #: Each request the client made: (method, its number among that method's requests) ->
    #: its position among the entries.
    requests: dict[tuple[str, int], int] = field(default_factory=dict)
    #: Where its lines are: the file (kept open while a segment is), from byte ``offset``
    #: (line ``first_line``) to ``end``.
    file: BinaryIO | None = None
    offset: int = 0
    end: int = 0
    first_line: int = 1

    @property
    def entries(self) -> SegmentEntries:
        return SegmentEntries(self)


class SegmentEntries:
    """A segment's entries as they are read from the file: walk them (as often as needed),
    count them; ``[n]`` walks to the n-th (for small recordings)."""

    def __init__(self, segment: Segment) -> None:
        self.segment = segment

    def __iter__(self) -> Iterator[WireEntry]:
        segment = self.segment
        if segment.file is None:
            return
        lines = _lines(segment.file.fileno(), segment.offset, segment.end)
        for number, (_, raw) in enumerate(lines, start=segment.first_line):
            if raw.strip():
                item = _read_line(number, raw)
                if isinstance(item, WireEntry):
                    yield item

    def __len__(self) -> int:
        return self.segment.count

    def __getitem__(self, index: int) -> WireEntry:
        if index < 0:
            index += len(self)
        for position, entry in enumerate(self):
            if position == index:
                return entry
        raise IndexError(index)


@dataclass(slots=True)
class Recording:
    path: Path
    header: dict[str, Any]
    segments: list[Segment]
    #: Lines that are not in the format: (line number, what is wrong).
    problems: list[tuple[int, str]] = field(default_factory=list)
    #: The file its segments are read from (open for as long as the recording is used).
    file: BinaryIO | None = None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def load_recording(path: str | os.PathLike[str], file: BinaryIO | None = None) -> Recording:
    """Read a recording's outline: its header, its connections (where each one's lines are,
    how many entries, the client's requests) and the lines not in the format (listed in
    ``problems``, otherwise skipped); its entries are read when walked
    (:attr:`Segment.entries`). From ``file`` when given (the command line opens it through
    the path gate, so a pipe or device is never read), which the recording then keeps open;
    raises :class:`RecordingError` when ``path`` is not one."""
    target = Path(path)
    try:
        if file is None:
            file = open(target, "rb")  # the recording's (and its segments'): see close()
        fd = file.fileno()
        size = os.fstat(fd).st_size
    except OSError as error:
        raise RecordingError(f"cannot read {target}: {error.strerror or error}") from None
    lines = _lines(fd, 0, size)
    try:
        _, first = next(lines, (0, b""))
        header = _parse_header(target, first)
        agent = header.get("agent")
        argv = [str(part) for part in agent] if isinstance(agent, list) else []
        cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else ""
        segment = Segment(argv, str(cwd), 0.0, file=file, offset=len(first) + 1, first_line=2)
        recording = Recording(target, header, [segment], file=file)
        requests: dict[str, int] = defaultdict(int)
        for number, (offset, raw) in enumerate(lines, start=2):
            if not raw.strip():
                continue
            item = _read_line(number, raw)
            if isinstance(item, str):
                recording.problems.append((number, item))
            elif isinstance(item, WireEntry):
                message = item.message
                if (
                    item.direction == TO_AGENT
                    and isinstance(message, dict)
                    and isinstance(message.get("method"), str)
                    and "id" in message
                ):
                    method = message["method"]
                    segment.requests[(method, requests[method])] = segment.count
                    requests[method] += 1
                segment.count += 1
            elif item.get("event") == "connected":
                segment.end = offset
                agent = item.get("agent")
                segment = Segment(
                    [str(part) for part in agent] if isinstance(agent, list) else segment.argv,
                    str(item.get("cwd") or segment.cwd),
                    float(item["t"]),
                    file=file,
                    offset=offset + len(raw) + 1,
                    first_line=number + 1,
                )
                recording.segments.append(segment)
                requests = defaultdict(int)
            else:
                segment.closed = item
        segment.end = size
    except (OSError, RecordingError) as error:
        file.close()
        if isinstance(error, RecordingError):
            raise
        raise RecordingError(f"cannot read {target}: {error.strerror or error}") from None
    return recording


def _parse_header(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordingError(f"{path} is not an acp-tui recording (no {FORMAT} header line)")
    version = header.get("version")
    if version != FORMAT_VERSION:
        raise RecordingError(
            f"{path} is a recording of format version {version!r}; "
            f"this acp-tui reads version {FORMAT_VERSION}"
        )
    return header


def _read_line(number: int, raw: bytes) -> WireEntry | dict[str, Any] | str:
    """One line: an entry, an event (``connected``, ``closed``), or what is wrong with it."""
    try:
        item = json.loads(raw)
    except ValueError as error:
        try:  # a message with an integer of thousands of digits, read as the client read it
            item = parse_line_lenient(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            return f"not JSON ({error})"
    except RecursionError:
        return "not JSON (nested too deeply)"
    t = item.get("t") if isinstance(item, dict) else None
    if not isinstance(t, int | float) or isinstance(t, bool):
        return "no time (t)"
    assert isinstance(item, dict)
    event = item.get("event")
    if event in ("connected", "closed"):
        return item
    direction = item.get("dir")
    if direction not in (TO_AGENT, FROM_AGENT):
        return f"unknown line (dir {direction!r}, event {event!r})"
    if "msg" in item:
        stamp = _STAMP.match(raw)
        wire = raw[stamp.end() : -1] if stamp is not None and raw.endswith(b"}") else None
        return WireEntry(number, float(t), direction, message=item["msg"], wire=wire)
    junk = item.get("junk")
    text = item.get("text")
    return WireEntry(
        number,
        float(t),
        direction,
        junk=junk if isinstance(junk, str) and junk else "junk",
        text=text if isinstance(text, str) else "",
    )


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "FROM_AGENT",
    "TO_AGENT",
    "Recording",
    "RecordingError",
    "Segment",
    "SegmentEntries",
    "WireEntry",
    "WireRecorder",
    "load_recording",
    "write_traffic",
]
