"""The agent's side of a recording, played back in-process to a real client connection.

:class:`ReplayPeer` sits where the agent process would: the client's
:class:`~acp_tui.protocol.jsonrpc.Connection` reads and writes it through in-memory byte
streams, so the whole client (framing, dispatch, store, screens) runs as it did, with no agent
process. It walks the recorded timeline in order:

- a response to one of the client's requests is sent once the client has made the matching
  request (same method, same position among requests of that method), re-keyed to the id the
  client used this time; a request this client makes in another order, or not yet (a listing
  the sidebar was not there to ask for), gets its recorded answer whenever it comes;
- the agent's notifications, junk lines and permission requests are sent at their recorded
  times (scaled by ``speed``; 0 is as fast as possible);
- where the recording has the client answering a permission request, the replay waits for
  this client's answer (the person answers the dialog; whatever they choose, the recorded
  continuation is played);
- where the recording has the person acting (a prompt, a cancel, a mode change...) and this
  client has not done it, the ``driver`` is asked to (the TUI sends the recorded prompt, so
  it shows as the person's message).

Requests the agent made of the client that would act on this machine (``fs/*``,
``terminal/*``) are not sent: a replay never writes files or runs commands. Their recorded
answers are skipped, and a note says so.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_tui.protocol.process import AgentProcess
from acp_tui.protocol.recording import TO_AGENT, Segment, WireEntry, _encodable

log = logging.getLogger(__name__)

#: Agent requests shown to the person on a replay; any other is skipped (see the module doc).
FORWARDED_REQUESTS = frozenset({"session/request_permission"})
#: Client messages that come from the person: driven when the client has not sent them.
DRIVEN_METHODS = frozenset(
    {
        "session/prompt",
        "session/cancel",
        "session/set_mode",
        "session/set_config_option",
        "session/load",
        "session/resume",
        "session/close",
        "session/delete",
        "session/fork",
    }
)
#: Requests the client makes or not depending on its screen (session/list: only while the
#: sidebar shows): the timeline never waits for them; their answers are sent when asked.
OPTIONAL_REQUESTS = frozenset({"session/list"})
#: How long the timeline waits for a client request it has an answer for before moving on
#: (the answer is then sent whenever the request comes).
STALL_SECONDS = 10.0
NOT_RECORDED = -32603
#: The agent's notifications played at full speed between two turns of the event loop (a
#: full send buffer gives way before): one a turn, the client read a few dozen between two
#: frames of the screen.
UNPACED_RUN = 512
#: Messages queued between the recording and the client (one line each).
SEND_BUFFER = 4096

Driver = Callable[[str, Any], Awaitable[None]]
Note = Callable[[str], None]


def _id_key(value: Any) -> str:
    # 1, 1.0, "1" and true are different ids on the wire (and equal as dict keys in Python).
    return json.dumps(value)


def _kind(message: Any) -> str:
    if not isinstance(message, dict):
        return "invalid"
    if isinstance(message.get("method"), str):
        return "request" if "id" in message else "notification"
    if "id" in message and ("result" in message or "error" in message):
        return "response"
    return "invalid"


class MemoryByteReceiveStream(ByteReceiveStream):
    """Bytes from a memory object stream, in pieces of at most ``max_bytes``."""

    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream
        self._rest = b""
        self._offset = 0

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._offset >= len(self._rest):
            # What is queued goes in one piece, as a pipe gives it: a reader that got one
            # message per turn of the loop read about twenty between two frames.
            pieces = [await self._stream.receive()]
            size = len(pieces[0])
            while size < max_bytes:
                try:
                    pieces.append(self._stream.receive_nowait())
                except (anyio.WouldBlock, anyio.EndOfStream):
                    break
                size += len(pieces[-1])
            self._rest = pieces[0] if len(pieces) == 1 else b"".join(pieces)
            self._offset = 0
        start = self._offset
        self._offset = min(len(self._rest), start + max_bytes)
        if start == 0 and self._offset == len(self._rest):
            return self._rest
        return self._rest[start : self._offset]

    async def aclose(self) -> None:
        await self._stream.aclose()


class MemoryByteSendStream(ByteSendStream):
    def __init__(self, stream: MemoryObjectSendStream[bytes]) -> None:
        self._stream = stream

    async def send(self, item: bytes) -> None:
        await self._stream.send(bytes(item))

    async def aclose(self) -> None:
        await self._stream.aclose()


@dataclass(slots=True)
class _Plan:
    """What the timeline needs to know about one entry (see :class:`_Planner`)."""

    #: For a client request entry: (method, its position among requests of that method).
    request_key: tuple[str, int] | None = None
    #: For an agent response entry: the client request it answers.
    answers: tuple[str, int] | None = None
    #: For a client response entry: the id of the agent request it answers.
    replies_to: str | None = None
    #: For a client notification: its position among notifications of that method.
    notification_index: int = 0


class _Planner:
    """What the timeline needs to know about each entry, worked out as the entries are read
    (in order: an answer always comes after what it answers)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = defaultdict(int)
        self.notifications: dict[str, int] = defaultdict(int)
        self.pending_client: dict[str, tuple[str, int]] = {}
        self.pending_agent: set[str] = set()

    def plan(self, entry: WireEntry) -> _Plan:
        plan = _Plan()
        if not entry.is_message:
            return plan
        message = entry.message
        kind = _kind(message)
        if entry.direction == TO_AGENT:
            if kind == "request":
                method = message["method"]
                plan.request_key = (method, self.counts[method])
                self.counts[method] += 1
                self.pending_client[_id_key(message["id"])] = plan.request_key
            elif kind == "notification":
                method = message["method"]
                plan.notification_index = self.notifications[method]
                self.notifications[method] += 1
            elif kind == "response":
                key = _id_key(message["id"])
                if key in self.pending_agent:
                    self.pending_agent.discard(key)
                    plan.replies_to = key
        elif kind == "response":
            plan.answers = self.pending_client.pop(_id_key(message["id"]), None)
        elif kind == "request":
            self.pending_agent.add(_id_key(message["id"]))
        return plan


class ReplayPeer:
    """Plays one recorded connection (a :class:`Segment`) as the agent. Give
    :attr:`client_stdout` and :attr:`client_stdin` to the client's connection and run
    :meth:`run`."""

    def __init__(
        self,
        segment: Segment,
        *,
        speed: float = 1.0,
        driver: Driver | None = None,
        on_note: Note | None = None,
        on_log: Note | None = None,
        stall_seconds: float = STALL_SECONDS,
        automatic: Collection[str] = ("session/new",),
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self.segment = segment
        #: Methods whose first request in this connection the client makes on its own.
        self.automatic = frozenset(automatic)
        self.speed = max(0.0, speed)
        self.driver = driver
        #: Told what the person should see (the end of the recording...); ``on_log`` is told
        #: every note, down to each deviation from the recording.
        self.on_note = on_note
        self.on_log = on_log
        self.stall_seconds = stall_seconds
        self._sleep = sleep
        to_client_send, to_client_receive = anyio.create_memory_object_stream[bytes](SEND_BUFFER)
        from_client_send, from_client_receive = anyio.create_memory_object_stream[bytes](
            SEND_BUFFER
        )
        self._to_client = to_client_send
        self._from_client = from_client_receive
        #: What the client's connection reads (the agent's stdout) and writes (its stdin).
        self.client_stdout: ByteReceiveStream = MemoryByteReceiveStream(to_client_receive)
        self.client_stdin: ByteSendStream = MemoryByteSendStream(from_client_send)
        #: How many requests of each method the recorded client made, and where each was.
        self._recorded_requests: dict[str, int] = defaultdict(int)
        self._request_position: dict[tuple[str, int], int] = dict(segment.requests)
        for method, index in segment.requests:
            self._recorded_requests[method] = max(self._recorded_requests[method], index + 1)
        #: The furthest recorded position of a request this client has made.
        self._furthest_request = -1
        # What the client did this time.
        self._client_requests: dict[str, list[Any]] = defaultdict(list)
        self._client_notifications: dict[str, int] = defaultdict(int)
        self._client_replies: dict[str, Any] = {}
        self._late_answers: dict[tuple[str, int], dict[str, Any]] = {}
        self._answered: set[tuple[str, int]] = set()
        self._forwarded: set[str] = set()
        self._skipped: set[str] = set()
        self._changed = anyio.Event()
        #: Entries played so far, and whether the timeline is done.
        self.played = 0
        self.finished = anyio.Event()
        #: The recording ends with the agent closing the connection (it exited or crashed).
        self.agent_closed = False
        #: Called just before the recorded end of the agent (the process has exited by then).
        self.before_close: Callable[[], None] | None = None
        self.notes: list[str] = []
        self._unpaced = 0

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        """Play the timeline and serve the client until it closes its side (or, when the
        recording ends with the agent gone, until the timeline ends)."""
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(self._read_client, task_group.cancel_scope)
            await self._play()
            if self.agent_closed:
                task_group.cancel_scope.cancel()

    async def aclose(self) -> None:
        await self._to_client.aclose()
        await self._from_client.aclose()

    def _note(self, text: str, *, loud: bool = True) -> None:
        self.notes.append(text)
        if self.on_log is not None:
            self.on_log(text)
        if loud and self.on_note is not None:
            self.on_note(text)

    async def _play(self) -> None:
        last = self.segment.start
        planner = _Planner()
        for entry in self.segment.entries:
            plan = planner.plan(entry)
            notification = entry.direction != TO_AGENT and _kind(entry.message) == "notification"
            await self._pace(entry.t - last, in_a_run=notification)
            last = entry.t
            if entry.direction == TO_AGENT:
                await self._client_step(entry, plan)
            else:
                await self._agent_step(entry, plan)
            self.played += 1
        closed = self.segment.closed
        if closed is not None and closed.get("by") == "agent":
            await self._pace(float(closed.get("t", last)) - last)
            self.agent_closed = True
            if self.before_close is not None:
                self.before_close()
            await self._to_client.aclose()
        else:
            self._note("end of the recording")
        self.finished.set()

    async def _pace(self, gap: float, *, in_a_run: bool = False) -> None:
        """Wait for the entry's time. At full speed, the agent's notifications go out
        :data:`UNPACED_RUN` to a turn of the event loop (the rest, one a turn: the client
        answers and acts between them)."""
        if self.speed > 0 and gap > 0:
            await self._sleep(gap / self.speed)
            return
        self._unpaced = self._unpaced + 1 if in_a_run else 0
        if self._unpaced % UNPACED_RUN == 0:
            await anyio.lowlevel.checkpoint()
        else:
            await anyio.lowlevel.checkpoint_if_cancelled()

    async def _wait_until(self, condition: Callable[[], bool], limit: float = math.inf) -> bool:
        with anyio.move_on_after(limit):
            while not condition():
                await self._changed.wait()
            return True
        return condition()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    # ------------------------------------------------------------------ the client's lines

    async def _client_step(self, entry: WireEntry, plan: _Plan) -> None:
        message = entry.message
        if plan.request_key is not None:
            method, index = plan.request_key
            if len(self._client_requests[method]) <= index and self._drives(method, index):
                await self._drive(method, message.get("params"))
        elif plan.replies_to is not None:
            if plan.replies_to in self._forwarded:
                # The person answers the dialog; the recording goes on from its own answer.
                key = plan.replies_to
                await self._wait_until(lambda: key in self._client_replies)
        elif _kind(message) == "notification":
            method = message["method"]
            if self._client_notifications[method] <= plan.notification_index and (
                method in DRIVEN_METHODS
            ):
                await self._drive(method, message.get("params"))

    def _drives(self, method: str, index: int) -> bool:
        # The first session/new is the client's own, at start; a later one is the person's.
        if index == 0 and method in self.automatic:
            return False
        return method in DRIVEN_METHODS or method == "session/new"

    async def _drive(self, method: str, params: Any) -> None:
        if self.driver is None:
            return
        try:
            await self.driver(method, params)
        except Exception as error:
            log.exception("replay driver failed for %s", method)
            self._note(f"could not repeat {method} from the recording: {error}")

    async def _read_client(self, scope: anyio.CancelScope) -> None:
        buffer = bytearray()
        while True:
            try:
                chunk = await self._from_client.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                break
            buffer += chunk
            end = buffer.rfind(b"\n")
            if end < 0:
                continue
            lines = bytes(buffer[:end]).split(b"\n")
            del buffer[: end + 1]
            for line in lines:
                if line.strip():
                    await self._client_line(line)
        # The client closed its side: nothing more can be delivered.
        scope.cancel()

    async def _client_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        kind = _kind(message)
        if kind == "request":
            method = message["method"]
            index = len(self._client_requests[method])
            self._client_requests[method].append(message["id"])
            position = self._request_position.get((method, index), -1)
            self._furthest_request = max(self._furthest_request, position)
            late = self._late_answers.pop((method, index), None)
            if late is not None:
                self._answered.add((method, index))
                await self._send({**late, "id": message["id"]})
            elif index >= self._recorded_requests[method]:
                await self._send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {
                            "code": NOT_RECORDED,
                            "message": f"this is a replay: the recording has no answer to "
                            f"{method} number {index + 1}",
                        },
                    }
                )
        elif kind == "notification":
            self._client_notifications[message["method"]] += 1
        elif kind == "response":
            self._client_replies[_id_key(message["id"])] = message
        self._wake()

    # ------------------------------------------------------------------ the agent's lines

    async def _agent_step(self, entry: WireEntry, plan: _Plan) -> None:
        if not entry.is_message:
            if entry.text:
                await self._send_text(entry.text.replace("\n", " ").replace("\r", " "))
            return
        message = entry.message
        kind = _kind(message)
        if kind == "response" and plan.answers is not None:
            await self._answer(message, plan.answers)
        elif kind == "request":
            method = message["method"]
            if method in FORWARDED_REQUESTS:
                self._forwarded.add(_id_key(message["id"]))
                await self._send(message)
            else:
                self._skipped_request(method)
        elif entry.wire is not None:
            # Notifications, and whatever else the agent sent (an answer to nothing, a
            # malformed message): as recorded, for the client to cope with again.
            await self._send_bytes(entry.wire + b"\n")
        else:
            await self._send(message)

    def _skipped_request(self, method: str) -> None:
        if method in self._skipped:
            return
        self._note(
            f"not carried out: the agent's {method} (a replay reads, writes and runs nothing)",
            loud=not self._skipped,
        )
        self._skipped.add(method)

    async def _answer(self, message: dict[str, Any], key: tuple[str, int]) -> None:
        method, index = key
        requests = self._client_requests[method]
        position = self._request_position[key]

        def arrived_or_overtaken() -> bool:
            # A request the recording has after this one came first: this client works in
            # another order (and may be waiting for a later answer); answer this one late.
            return len(requests) > index or self._furthest_request > position

        if method not in OPTIONAL_REQUESTS:
            await self._wait_until(arrived_or_overtaken, self.stall_seconds)
        if len(requests) > index:
            self._answered.add(key)
            await self._send({**message, "id": requests[index]})
            return
        self._late_answers[key] = message
        if method in OPTIONAL_REQUESTS:
            return
        self._note(
            f"the client has not sent {method} (number {index + 1}) as in the recording; "
            "its recorded answer is sent when it does",
            loud=False,
        )

    async def _send(self, message: Any) -> None:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        await self._send_bytes(_encodable(text + "\n"))

    async def _send_text(self, text: str) -> None:
        await self._send_bytes(_encodable(text + "\n"))

    async def _send_bytes(self, data: bytes) -> None:
        try:
            await self._to_client.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the client is gone; the timeline runs out on its own


_EXIT_CODE = re.compile(r"exit code (-?\d+)")


class ReplayProcess(AgentProcess):
    """An :class:`AgentProcess` that is a :class:`ReplayPeer`: nothing is spawned. The
    peer's life runs where a real agent's stderr is drained (the launcher runs that for the
    whole connection); its notes take the place of the agent's stderr lines."""

    def __init__(self, peer: ReplayPeer, argv: Sequence[str]) -> None:
        super().__init__(list(argv) or ["replay"])
        self.peer = peer
        self._description = "running"
        previous = peer.on_log

        def keep(text: str) -> None:
            self.stderr_tail.append(f"[replay] {text}")
            if previous is not None:
                previous(text)

        peer.on_log = keep
        peer.before_close = self._recorded_exit

    @property
    def stdin(self) -> ByteSendStream:
        return self.peer.client_stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        return self.peer.client_stdout

    @property
    def exit_description(self) -> str:
        return self._description

    async def start(self) -> None:
        self.started_at = time.monotonic()

    async def drain_stderr(self) -> None:
        await self.peer.run()

    def _recorded_exit(self) -> None:
        closed = self.peer.segment.closed or {}
        recorded = str(closed.get("exit") or "the agent closed the connection")
        match = _EXIT_CODE.fullmatch(recorded)
        self._finish(int(match.group(1)) if match else None, f"{recorded}, as recorded")

    async def wait(self) -> int:
        await self.exited.wait()
        return self.returncode or 0

    async def shutdown(self, grace: float = 2.0) -> None:
        with anyio.CancelScope(shield=True):
            await self.peer.aclose()
        if not self.exited.is_set():
            self._finish(0, "replay stopped")

    def _finish(self, returncode: int | None, description: str) -> None:
        if self.exited.is_set():
            return
        self.returncode = returncode
        self._description = description
        self.exited.set()
        self.stderr_done.set()  # its notes are in stderr_tail as they are made
