"""Property tests (hypothesis): whatever bytes or messages an agent sends, the wire layer and
the store never raise, never hang, and keep working afterwards (issue 9)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.protocol.jsonrpc import Connection, ConnectionStats, RpcError
from acp_tui.store import AgentMessage, SessionStore, UnknownUpdate
from tests.wire_helpers import PipeReceive, PipeSend, byte_pipe

MAX_LINE = 4096  # small, so hypothesis can make lines over the limit cheaply
PROBE_ID = "probe-after-the-garbage"
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ---------------------------------------------------------------------- strategies

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KNOWN_UPDATES = [
    "agent_message_chunk",
    "user_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    "state_update",
    "state_change",
    "user_message",
    "agent_message",
    "agent_thought",
    "notice",
]
FIELDS = [
    "content",
    "text",
    "type",
    "toolCallId",
    "title",
    "status",
    "kind",
    "entries",
    "availableCommands",
    "currentModeId",
    "configOptions",
    "used",
    "size",
    "cost",
    "state",
    "stopReason",
    "usage",
    "messageId",
    "rawInput",
    "rawOutput",
    "locations",
    "_meta",
    "updatedAt",
]
random_update = st.one_of(
    json_value,
    st.builds(
        lambda kind, fields: {"sessionUpdate": kind, **fields},
        st.one_of(st.sampled_from(KNOWN_UPDATES), json_value),
        st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=5),
    ),
    st.builds(
        lambda kind, text: {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
        st.sampled_from(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]),
        st.one_of(st.text(max_size=10), json_value),
    ),
)
SESSION_IDS = ["live", "ghost", ""]
update_params = st.one_of(
    json_value,
    st.builds(
        lambda sid, update: {"sessionId": sid, "update": update},
        st.one_of(st.sampled_from(SESSION_IDS), json_value),
        random_update,
    ),
)
request_id = st.one_of(
    st.integers(-5, 5), st.text(max_size=6), st.none(), st.booleans(), st.floats(), json_value
)
METHODS = [
    "session/update",
    "session/request_permission",
    "fs/read_text_file",
    "$/cancel_request",
    "boom",
    "initialize",
]
method = st.one_of(st.sampled_from(METHODS), st.text(max_size=10), json_value)
jsonrpc_message = st.one_of(
    # notifications
    st.builds(
        lambda m, p: {"jsonrpc": "2.0", "method": m, "params": p},
        method,
        st.one_of(update_params, json_value),
    ),
    # requests
    st.builds(
        lambda i, m, p: {"jsonrpc": "2.0", "id": i, "method": m, "params": p},
        request_id,
        method,
        json_value,
    ),
    # responses and errors, mostly for ids nobody asked for
    st.builds(lambda i, r: {"jsonrpc": "2.0", "id": i, "result": r}, request_id, json_value),
    st.builds(
        lambda i, e: {"jsonrpc": "2.0", "id": i, "error": e},
        request_id,
        st.one_of(
            json_value,
            st.fixed_dictionaries({"code": json_value, "message": json_value}),
        ),
    ),
    # anything else shaped like an object
    st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
        json_value,
        max_size=5,
    ),
)


def _line(message: Any) -> bytes:
    return (json.dumps(message) + "\n").encode()


wire_piece = st.one_of(
    st.binary(max_size=64),  # random bytes, invalid UTF-8, stray newlines
    st.builds(_line, jsonrpc_message),  # a whole message
    st.builds(_line, json_value),  # JSON that is not JSON-RPC
    st.builds(lambda m: _line(m)[:-1], jsonrpc_message),  # a message without its newline
    st.builds(  # half a message: the rest never comes
        lambda m, cut: _line(m)[: max(1, int(len(_line(m)) * cut))],
        jsonrpc_message,
        st.floats(0.05, 0.95),
    ),
    st.builds(  # a line over the limit, with or without its newline
        lambda n, end: b"x" * n + end,
        st.integers(MAX_LINE - 2, MAX_LINE * 3),
        st.sampled_from([b"\n", b""]),
    ),
    st.builds(lambda t: t.encode("utf-8", "surrogatepass"), st.text(max_size=20)),
    st.just(b"\xff\xfe\xc3\x28\n"),
    st.just(b"\r\n\n  \n"),
)
garbage = st.lists(wire_piece, max_size=25)


def rechunk(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at the positions ``cuts`` (relative, sorted and deduplicated)."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    chunks: list[bytes] = []
    start = 0
    for point in [*points, len(data)]:
        if point > start:
            chunks.append(data[start:point])
            start = point
    return chunks


# ---------------------------------------------------------------------- harness


class Peer:
    """A Connection under test, driven through raw byte pipes, recording what it delivers."""

    def __init__(self, store: SessionStore | None = None, max_line: int = MAX_LINE) -> None:
        self.to_conn: PipeSend
        self.from_conn: PipeReceive
        self.to_conn, to_conn_recv = byte_pipe()
        from_conn_send, self.from_conn = byte_pipe()
        self.store = store
        self.notifications: list[tuple[str, Any]] = []
        self.output = bytearray()
        self.connection = Connection(
            to_conn_recv,
            from_conn_send,
            request_handler=self.on_request,
            notification_handler=self.on_notification,
            max_line_bytes=max_line,
        )

    async def on_request(self, method: str, params: Any) -> Any:
        if method == "boom":
            raise ValueError("handler bug")
        if method == "rpc-error":
            raise RpcError(-32000, "nope")
        return {"echo": params}

    async def on_notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))
        if method == "boom":
            raise RuntimeError("notification handler bug")
        if self.store is not None and method == "session/update":
            self.store.apply(params)

    async def run(self) -> None:
        """Serve until the peer closes its end, then close ours (so :meth:`drain` ends)."""
        await self.connection.run()
        await self.connection.aclose()

    async def drain(self) -> None:
        while True:
            try:
                self.output += await self.from_conn.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                return

    def responses(self) -> list[dict[str, Any]]:
        messages = []
        for raw in bytes(self.output).split(b"\n"):
            if raw.strip():
                messages.append(json.loads(raw))
        return messages

    async def wait_for_response(self, request_id: Any) -> dict[str, Any]:
        while True:
            for message in self.responses():
                if message.get("id") == request_id and "method" not in message:
                    return message
            await anyio.sleep(0.001)


async def feed_then_probe(
    chunks: list[bytes], store: SessionStore | None = None, max_line: int = MAX_LINE
) -> Peer:
    """Feed ``chunks``, then a newline and a valid request: it must be answered."""
    peer = Peer(store, max_line)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(peer.run)
            tg.start_soon(peer.drain)
            for chunk in chunks:
                await peer.to_conn.send(chunk)
            await peer.to_conn.send(b"\n")
            probe = {"jsonrpc": "2.0", "id": PROBE_ID, "method": "probe", "params": {"n": 1}}
            await peer.to_conn.send(_line(probe))
            answer = await peer.wait_for_response(PROBE_ID)
            assert answer == {"jsonrpc": "2.0", "id": PROBE_ID, "result": {"echo": {"n": 1}}}
            # Our own requests still work too; an answer the garbage sent for the same id
            # earlier must not be taken for it.
            request = None

            async def ask() -> None:
                nonlocal request
                request = await peer.connection.request("client/ask", {"q": 1})

            tg.start_soon(ask)
            sent = await _wait_for_request(peer, "client/ask")
            await peer.to_conn.send(_line({"jsonrpc": "2.0", "id": sent, "result": "yes"}))
            while request is None:
                await anyio.sleep(0.001)
            assert request == "yes"
            assert not peer.connection.closed
            await peer.to_conn.aclose()
    assert peer.connection.closed
    return peer


async def _wait_for_request(peer: Peer, method: str) -> Any:
    while True:
        for message in peer.responses():
            if message.get("method") == method:
                return message["id"]
        await anyio.sleep(0.001)


# ---------------------------------------------------------------------- properties


@FUZZ
@given(pieces=garbage, cuts=st.lists(st.integers(0, 10**6), max_size=12))
def test_random_bytes_never_break_the_connection(pieces: list[bytes], cuts: list[int]) -> None:
    data = b"".join(pieces)
    peer = anyio.run(feed_then_probe, rechunk(data, cuts))
    stats = peer.connection.stats
    assert stats.lines_in >= 1 and stats.lines_out >= 2


@FUZZ
@given(pieces=garbage, cuts=st.lists(st.integers(0, 10**6), min_size=1, max_size=12))
def test_how_the_bytes_are_chunked_does_not_change_what_is_delivered(
    pieces: list[bytes], cuts: list[int]
) -> None:
    """A line split over many reads is the same line: same notifications, same counts."""
    data = b"".join(pieces)
    whole = anyio.run(feed_then_probe, [data] if data else [])
    split = anyio.run(feed_then_probe, rechunk(data, cuts))
    assert split.notifications == whole.notifications
    assert _counts(split.connection.stats) == _counts(whole.connection.stats)


def _counts(stats: ConnectionStats) -> dict[str, Any]:
    counts = asdict(stats)
    counts.pop("last_skipped")
    return counts


@FUZZ
@given(messages=st.lists(jsonrpc_message, max_size=30), cuts=st.lists(st.integers(0, 10**6)))
def test_random_jsonrpc_messages_into_connection_and_store(
    messages: list[Any], cuts: list[int]
) -> None:
    store = live_store()
    data = b"".join(_line(m) for m in messages)
    peer = anyio.run(feed_then_probe, rechunk(data, cuts), store)
    store_still_works(store)
    # Every well-formed request in the garbage was answered exactly once, with its own id.
    asked = [
        m["id"]
        for m in messages
        if isinstance(m.get("method"), str) and "id" in m and _valid_id(m["id"])
    ]
    # Requests whose id is not an id (null, bool, object...) are answered -32600 with a null
    # id; so are requests with a valid id but a method that is not a string.
    invalid = [m for m in messages if "method" in m and "id" in m and not _valid_id(m["id"])]
    bad_method = [
        m["id"]
        for m in messages
        if "method" in m
        and not isinstance(m["method"], str)
        and _valid_id(m.get("id"))
        and "result" not in m
        and "error" not in m
        and isinstance(m.get("method"), object)
    ]
    responses = [r for r in peer.responses() if "method" not in r and r["id"] != PROBE_ID]
    answered = [r["id"] for r in responses if r.get("error", {}).get("code") != -32600]
    assert sorted(map(repr, answered)) == sorted(map(repr, asked))
    rejected = [r for r in responses if r.get("error", {}).get("code") == -32600]
    assert sorted(repr(r["id"]) for r in rejected) == sorted(
        [repr(None)] * len([m for m in invalid if isinstance(m["method"], str)])
        + [repr(i) for i in bad_method]
    )


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return isinstance(value, int | str)


@settings(max_examples=150, deadline=None)
@given(params=st.lists(update_params, max_size=40))
def test_random_session_updates_never_raise_in_the_store(params: list[Any]) -> None:
    store = live_store()
    for item in params:
        store.apply(item)
    store_still_works(store)


@settings(max_examples=80, deadline=None)
@given(
    before=st.lists(update_params, max_size=20),
    register=st.sampled_from(["ghost", ""]),
)
def test_held_updates_for_unknown_sessions_never_raise_when_flushed(
    before: list[Any], register: str
) -> None:
    store = live_store()
    for item in before:
        store.apply(item)
    store.register_session(register, cwd="/tmp", response={})
    store_still_works(store)


def live_store() -> SessionStore:
    store = SessionStore()
    store.register_session("live", cwd="/tmp", response={})
    store.prompt_sent("live", [{"type": "text", "text": "hi"}])
    store.take_changes()
    return store


def store_still_works(store: SessionStore) -> None:
    """After any garbage: changes and snapshots work, and a valid chunk still lands."""
    store.take_changes()
    store.snapshot()
    store.catalog()
    before = [e for e in store.get("live").transcript if isinstance(e, AgentMessage)]
    store.apply(
        {
            "sessionId": "live",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "still here"},
            },
        }
    )
    after = [e for e in store.get("live").transcript if isinstance(e, AgentMessage)]
    assert after and after[-1].text.endswith("still here")
    assert len(after) in (len(before), len(before) + 1)
    changes = store.take_changes()
    assert "live" in changes.sessions
    store.apply({"sessionId": "live", "update": {"sessionUpdate": "fuzz_unknown", "x": 1}})
    unknown = store.get("live").transcript[-1]
    assert isinstance(unknown, UnknownUpdate) and unknown.raw == {
        "sessionUpdate": "fuzz_unknown",
        "x": 1,
    }


# ---------------------------------------------------------------------- fixed cases


def test_a_50_megabyte_line_then_a_request_is_answered() -> None:
    async def check() -> None:
        peer = Peer()
        peer.connection._max_line_bytes = 256 * 1024 * 1024
        big = _line(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"blob": "b" * (50 * 1024 * 1024)},
            }
        )
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(peer.run)
                tg.start_soon(peer.drain)
                for start in range(0, len(big), 1 << 20):
                    await peer.to_conn.send(big[start : start + (1 << 20)])
                await peer.to_conn.send(_line({"jsonrpc": "2.0", "id": 1, "method": "x"}))
                await peer.wait_for_response(1)
                await peer.to_conn.aclose()
        assert len(peer.notifications) == 1
        assert len(peer.notifications[0][1]["blob"]) == 50 * 1024 * 1024
        assert all(len(record.text) <= 64 * 1024 for record in peer.connection.traffic)

    anyio.run(check)


def test_a_line_over_the_limit_is_skipped_however_it_arrives() -> None:
    """In one read or in many, a line longer than the limit is skipped and counted."""
    line = _line({"jsonrpc": "2.0", "method": "n", "params": "p" * (MAX_LINE * 2)})

    for chunks in ([line], [line[:100], line[100:]], [bytes([b]) for b in line[:50]] + [line[50:]]):
        peer = anyio.run(feed_then_probe, chunks)
        assert peer.notifications == [], chunks[0][:20]
        assert peer.connection.stats.oversized_lines == 1


def test_answers_with_ids_that_are_not_ids_are_counted_not_fatal() -> None:
    """Found by the fuzzer: a response whose id is a list or an object (unhashable) used to
    raise TypeError in the reader and end the connection."""
    chunks = [
        _line({"jsonrpc": "2.0", "id": [1, 2], "result": {}}),
        _line({"jsonrpc": "2.0", "id": {"a": 1}, "error": {"code": 1, "message": "x"}}),
        _line({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}}),
        _line({"jsonrpc": "2.0", "id": True, "result": 1}),
    ]
    peer = anyio.run(feed_then_probe, chunks)
    assert peer.connection.stats.invalid_messages == 3
    assert peer.connection.stats.unknown_responses == 1


# ---------------------------------------------------------------------- issue 17


def nested(depth: int, open_: str = "[", close: str = "]") -> bytes:
    return (open_ * depth + close * depth + "\n").encode()


@settings(max_examples=20, deadline=None)
@given(
    depth=st.sampled_from([1_000, 5_000, 100_000]),
    shape=st.sampled_from(
        [("[", "]"), ('{"a":', "}"), ('{"jsonrpc":"2.0","method":"n","params":[', "]}")]
    ),
    complete=st.booleans(),
)
def test_deeply_nested_lines_are_skipped_and_the_connection_lives(
    depth: int, shape: tuple[str, str], complete: bool
) -> None:
    """Issue 17: '[' x 100,000 raised RecursionError in the reader, which killed the
    connection. Any nesting, closed or not, inside a message or alone, is one skipped line."""
    open_, close = shape
    line = (open_ * depth + (close * depth if complete else "") + "\n").encode()
    peer = anyio.run(feed_then_probe, [line], None, 16 << 20)
    assert peer.connection.stats.skipped_lines == 1
    assert peer.connection.stats.oversized_lines == 0
    if depth >= 5_000:
        assert "nested too deeply" in peer.connection.stats.last_skipped


def test_a_line_that_breaks_the_handling_is_dropped_not_fatal() -> None:
    """Whatever fails while one line is handled, only that line is lost."""

    class Exploding(dict):  # type: ignore[type-arg]
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("bug while handling a line")

    import acp_tui.protocol.jsonrpc.connection as jsonrpc

    original = jsonrpc.parse_line

    def parse_line(text: str) -> Any:
        value = original(text)
        return Exploding(value) if isinstance(value, dict) and value.get("boom") else value

    jsonrpc.parse_line = parse_line  # type: ignore[assignment]
    try:
        peer = anyio.run(feed_then_probe, [_line({"boom": True, "method": "x"})])
    finally:
        jsonrpc.parse_line = original  # type: ignore[assignment]
    assert peer.connection.stats.skipped_lines == 1
    assert "RuntimeError" in peer.connection.stats.last_skipped


@pytest.mark.parametrize("bad_id", [None, True, False, {"an": "object"}, [1], float("nan")])
def test_a_request_with_an_id_that_is_not_an_id_is_answered_invalid_request(
    bad_id: Any,
) -> None:
    """Issue 17: such requests got no answer at all; JSON-RPC 2.0 answers an invalid Request
    with -32600 and a null id."""
    line = (
        json.dumps(
            {"jsonrpc": "2.0", "id": bad_id, "method": "session/request_permission", "params": {}}
        )
        + "\n"
    ).encode()
    peer = anyio.run(feed_then_probe, [line])
    answers = [r for r in peer.responses() if "method" not in r and r["id"] != PROBE_ID]
    assert len(answers) == 1
    assert answers[0]["id"] is None
    assert answers[0]["error"]["code"] == -32600
    assert peer.connection.stats.invalid_messages == 1


def test_a_request_whose_method_is_not_a_string_is_answered_by_its_id() -> None:
    peer = anyio.run(feed_then_probe, [_line({"jsonrpc": "2.0", "id": 41, "method": 42})])
    answers = [r for r in peer.responses() if "method" not in r and r["id"] != PROBE_ID]
    assert answers == [
        {
            "jsonrpc": "2.0",
            "id": 41,
            "error": {"code": -32600, "message": "Invalid Request: the method is not a string"},
        }
    ]


def test_an_answer_carrying_a_lone_surrogate_is_sent_escaped() -> None:
    """An optionId with a lone surrogate echoed back used to fail to encode and end the
    connection; it goes back as a \\u escape, exactly as the agent sent it."""
    peer = anyio.run(
        feed_then_probe,
        [b'{"jsonrpc":"2.0","id":7,"method":"echo","params":{"optionId":"\\ud800x"}}\n'],
    )
    answers = [r for r in peer.responses() if r.get("id") == 7]
    assert answers == [{"jsonrpc": "2.0", "id": 7, "result": {"echo": {"optionId": "\ud800x"}}}]
