"""Framing and dispatch of the JSON-RPC core, peer to peer over in-memory pipes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from acp_tui.protocol.jsonrpc import (
    FIRST_SKIPPED_KEPT,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
    Connection,
    ConnectionClosed,
    EchoedRequest,
    RpcError,
)
from tests.wire_helpers import PipeReceive, PipeSend, byte_pipe

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def raw_peer(**kwargs: Any) -> AsyncIterator[tuple[Connection, PipeSend, PipeReceive]]:
    """A Connection under test plus the raw ends a scripted peer writes to and reads from."""
    to_conn_send, to_conn_recv = byte_pipe()
    from_conn_send, from_conn_recv = byte_pipe()
    conn = Connection(to_conn_recv, from_conn_send, **kwargs)
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        yield conn, to_conn_send, from_conn_recv
        tg.cancel_scope.cancel()


async def read_message(stream: PipeReceive) -> dict[str, Any]:
    buffer = b""
    while b"\n" not in buffer:
        buffer += await stream.receive()
    line, _, rest = buffer.partition(b"\n")
    assert not rest, "test helper reads one message at a time"
    return json.loads(line)


def line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


async def test_request_result_between_two_peers() -> None:
    a_send, b_recv = byte_pipe()
    b_send, a_recv = byte_pipe()

    async def handler(method: str, params: Any) -> Any:
        return {"echo": params, "method": method}

    a = Connection(a_recv, a_send)
    b = Connection(b_recv, b_send, request_handler=handler)
    async with anyio.create_task_group() as tg:
        tg.start_soon(a.run)
        tg.start_soon(b.run)
        result = await a.request("ping", {"x": 1})
        assert result == {"echo": {"x": 1}, "method": "ping"}
        tg.cancel_scope.cancel()


async def test_junk_lines_are_skipped_and_counted() -> None:
    notes: list[tuple[str, Any]] = []

    async def on_note(method: str, params: Any) -> None:
        notes.append((method, params))

    async with raw_peer(notification_handler=on_note) as (conn, send, _):
        await send.send(b"Welcome to SuperAgent v1!\n")
        await send.send(b"[INFO] starting up\n\n   \n")
        await send.send(b"[1, 2, 3]\n")
        await send.send(b'{"jsonrpc":"2.0"}\n')
        await send.send(line({"jsonrpc": "2.0", "method": "hello", "params": {"n": 1}}))
        with anyio.fail_after(10):  # a hang guard
            while not notes:
                await anyio.sleep(0.01)
        assert notes == [("hello", {"n": 1})]
        assert conn.stats.skipped_lines == 3
        assert conn.stats.invalid_messages == 1
        assert "not JSON" in conn.traffic[0].note


async def test_twenty_megabyte_line_is_read_whole() -> None:
    got: list[Any] = []

    async def on_note(method: str, params: Any) -> None:
        got.append(params)

    big = "x" * (20 * 1024 * 1024)
    payload = line({"jsonrpc": "2.0", "method": "big", "params": {"text": big}})
    async with raw_peer(notification_handler=on_note) as (conn, send, _):
        # Deliver it in uneven pieces, like a pipe does.
        for start in range(0, len(payload), 1_000_003):
            await send.send(payload[start : start + 1_000_003])
        with anyio.fail_after(10):
            while not got:
                await anyio.sleep(0.01)
        assert len(got[0]["text"]) == len(big)
        assert conn.stats.skipped_lines == 0


async def test_a_huge_line_is_held_at_most_twice_while_it_is_read_and_parsed() -> None:
    """A line arriving in many reads: its bytes are decoded straight from the read buffer,
    which is freed before the parse, so the line's memory peaks near two copies (the buffer and
    its text, then the text and the parsed string), not three or four (issue 20's 50 MB
    chunk peaked at 434 MB)."""
    import tracemalloc

    got: list[Any] = []

    async def on_note(method: str, params: Any) -> None:
        got.append(params)

    size = 8 * 1024 * 1024
    payload = line({"jsonrpc": "2.0", "method": "big", "params": {"text": "y" * size}})
    pieces = [payload[start : start + 65_536] for start in range(0, len(payload), 65_536)]
    del payload
    async with raw_peer(notification_handler=on_note) as (_conn, send, _):
        tracemalloc.start()
        try:
            for piece in pieces:
                await send.send(piece)
            with anyio.fail_after(30):
                while not got:
                    await anyio.sleep(0.01)
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert len(got[0]["text"]) == size
    # The pieces themselves were allocated before tracing began.
    assert peak < 2.6 * size, f"peak {peak / size:.2f}x the line"


async def test_a_huge_line_is_let_go_once_handled() -> None:
    """While the reader waits for the next line, nothing of the last long line is held but
    what the handler kept: the app draws a 50 MB reply from the store's copy, and a second
    50 MB of its wire text alive all that time took the peak over issue 20's 400 MB."""
    import gc
    import tracemalloc

    got: list[int] = []

    async def on_note(method: str, params: Any) -> None:
        got.append(len(params["text"]))  # the handler keeps nothing of the line

    size = 8 * 1024 * 1024
    payload = line({"jsonrpc": "2.0", "method": "big", "params": {"text": "z" * size}})
    pieces = [payload[start : start + 65_536] for start in range(0, len(payload), 65_536)]
    del payload
    async with raw_peer(notification_handler=on_note) as (_conn, send, _):
        tracemalloc.start()
        try:
            for piece in pieces:
                await send.send(piece)
            with anyio.fail_after(30):
                while not got:
                    await anyio.sleep(0.01)
            await anyio.sleep(0.05)  # the reader is back waiting for input
            gc.collect()
            current, _peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert got == [size]
    assert current < 0.5 * size, f"{current / size:.2f}x the line still held"


async def test_line_over_the_limit_is_skipped_and_the_next_line_still_works() -> None:
    got: list[Any] = []

    async def on_note(method: str, params: Any) -> None:
        got.append(params)

    async with raw_peer(notification_handler=on_note, max_line_bytes=1000) as (conn, send, _):
        await send.send(b"{" + b"a" * 5000)
        await send.send(b"b" * 5000 + b"\n")
        await send.send(line({"jsonrpc": "2.0", "method": "after", "params": 7}))
        with anyio.fail_after(10):  # a hang guard
            while not got:
                await anyio.sleep(0.01)
        assert got == [7]
        assert conn.stats.oversized_lines == 1


async def test_string_and_numeric_request_ids_are_answered_with_the_same_id() -> None:
    async def handler(method: str, params: Any) -> Any:
        return {"ok": method}

    async with raw_peer(request_handler=handler) as (_, send, recv):
        await send.send(line({"jsonrpc": "2.0", "id": "req-abc", "method": "one"}))
        assert await read_message(recv) == {
            "jsonrpc": "2.0",
            "id": "req-abc",
            "result": {"ok": "one"},
        }
        await send.send(line({"jsonrpc": "2.0", "id": 42, "method": "two"}))
        assert await read_message(recv) == {"jsonrpc": "2.0", "id": 42, "result": {"ok": "two"}}


async def test_handler_exception_becomes_error_and_reader_survives() -> None:
    async def handler(method: str, params: Any) -> Any:
        if method == "boom":
            raise ValueError("kaput")
        if method == "rpc":
            raise RpcError(-32002, "no such file", {"path": "/x"})
        return "fine"

    async with raw_peer(request_handler=handler) as (conn, send, recv):
        await send.send(line({"jsonrpc": "2.0", "id": 1, "method": "boom"}))
        answer = await read_message(recv)
        assert answer["error"]["code"] == -32603
        assert "kaput" in answer["error"]["message"]
        await send.send(line({"jsonrpc": "2.0", "id": 2, "method": "rpc"}))
        answer = await read_message(recv)
        assert answer["error"] == {
            "code": -32002,
            "message": "no such file",
            "data": {"path": "/x"},
        }
        await send.send(line({"jsonrpc": "2.0", "id": 3, "method": "ok"}))
        assert (await read_message(recv))["result"] == "fine"
        assert conn.stats.handler_errors == 1


async def test_unknown_method_is_answered_method_not_found() -> None:
    async with raw_peer() as (_, send, recv):
        await send.send(line({"jsonrpc": "2.0", "id": 9, "method": "nope/never"}))
        answer = await read_message(recv)
        assert answer["id"] == 9
        assert answer["error"]["code"] == METHOD_NOT_FOUND


async def test_unknown_notification_is_ignored_without_answer() -> None:
    async def handler(method: str, params: Any) -> Any:
        return "pong"

    async with raw_peer(request_handler=handler) as (conn, send, recv):
        await send.send(line({"jsonrpc": "2.0", "method": "vendor/whatever", "params": {}}))
        await send.send(line({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        # The first thing written back is the ping answer: the notification got no reply.
        assert (await read_message(recv))["result"] == "pong"
        assert conn.stats.handler_errors == 0


async def test_out_of_order_responses_reach_the_right_callers() -> None:
    async with raw_peer() as (conn, send, recv):
        results: dict[str, Any] = {}

        async def call(name: str) -> None:
            results[name] = await conn.request(name)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "first")
            first = await read_message(recv)
            tg.start_soon(call, "second")
            second = await read_message(recv)
            await send.send(line({"jsonrpc": "2.0", "id": second["id"], "result": "two"}))
            await send.send(line({"jsonrpc": "2.0", "id": first["id"], "result": "one"}))
        assert results == {"first": "one", "second": "two"}


async def test_error_answer_surfaces_code_message_and_data() -> None:
    async with raw_peer() as (conn, send, recv):
        async with anyio.create_task_group() as tg:
            errors: list[RpcError] = []

            async def call() -> None:
                try:
                    await conn.request("session/new", {})
                except RpcError as error:
                    errors.append(error)

            tg.start_soon(call)
            request = await read_message(recv)
            error = {
                "code": -32000,
                "message": "Authentication required",
                "data": {"hint": "login"},
            }
            await send.send(line({"jsonrpc": "2.0", "id": request["id"], "error": error}))
        assert errors[0].code == -32000
        assert errors[0].message == "Authentication required"
        assert errors[0].data == {"hint": "login"}


async def test_notifications_are_delivered_in_order_before_a_later_response() -> None:
    seen: list[Any] = []

    async def on_note(method: str, params: Any) -> None:
        await (
            anyio.lowlevel.checkpoint()
        )  # a handler that yields must not let later messages overtake it
        seen.append(params)

    async with raw_peer(notification_handler=on_note) as (conn, send, recv):
        async with anyio.create_task_group() as tg:
            outcome: list[list[Any]] = []

            async def call() -> None:
                await conn.request("session/prompt")
                outcome.append(list(seen))

            tg.start_soon(call)
            request = await read_message(recv)
            burst = b"".join(
                line({"jsonrpc": "2.0", "method": "session/update", "params": n})
                for n in range(500)
            )
            await send.send(burst + line({"jsonrpc": "2.0", "id": request["id"], "result": {}}))
        assert outcome == [list(range(500))]


async def test_cancelling_a_request_sends_cancel_request() -> None:
    async with raw_peer() as (conn, _send, recv):
        async with anyio.create_task_group() as tg:
            tg.start_soon(conn.request, "slow")
            request = await read_message(recv)
            tg.cancel_scope.cancel()
        cancel = await read_message(recv)
        assert cancel == {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": request["id"]},
        }


async def test_incoming_cancel_request_stops_the_handler_and_answers_cancelled() -> None:
    started = anyio.Event()
    finished: list[bool] = []

    async def handler(method: str, params: Any) -> Any:
        started.set()
        await anyio.sleep(30)
        finished.append(True)
        return "too late"

    async with raw_peer(request_handler=handler) as (_, send, recv):
        await send.send(
            line({"jsonrpc": "2.0", "id": "p-1", "method": "session/request_permission"})
        )
        with anyio.fail_after(10):  # a hang guard
            await started.wait()
        await send.send(
            line({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "p-1"}})
        )
        with anyio.fail_after(10):  # a hang guard
            answer = await read_message(recv)
        assert answer["id"] == "p-1"
        assert answer["error"]["code"] == REQUEST_CANCELLED
        assert finished == []


async def test_peer_closing_fails_pending_requests() -> None:
    async with raw_peer() as (conn, send, recv):
        errors: list[BaseException] = []

        async def call() -> None:
            try:
                await conn.request("session/prompt")
            except ConnectionClosed as error:
                errors.append(error)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await read_message(recv)
            await send.aclose()
        assert len(errors) == 1
        assert "session/prompt" in str(errors[0])
        with pytest.raises(ConnectionClosed):
            await conn.request("again")


async def test_responses_to_unknown_ids_are_counted() -> None:
    async with raw_peer() as (conn, send, _):
        await send.send(line({"jsonrpc": "2.0", "id": 999, "result": {}}))
        with anyio.fail_after(10):  # a hang guard
            while conn.stats.unknown_responses == 0:
                await anyio.sleep(0.01)


# -- a peer that is not speaking JSON-RPC with us ---------------------------------------------


async def test_a_request_sent_back_is_an_echo_not_a_request_to_serve() -> None:
    """``cat`` sends our own request back: it must not be served (answering it would make cat
    echo the answer back as the reply to our request), and ours fails at once."""
    served: list[str] = []

    async def handler(method: str, params: Any) -> Any:
        served.append(method)
        return {}

    async with raw_peer(request_handler=handler) as (conn, peer_send, peer_recv):
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:

                async def echo_back() -> None:
                    message = await read_message(peer_recv)
                    await peer_send.send(line(message))

                tg.start_soon(echo_back)
                with pytest.raises(EchoedRequest) as raised:
                    await conn.request("initialize", {"protocolVersion": 1})
        assert raised.value.method == "initialize"
        assert served == []
        assert conn.stats.echoed_requests == 1


async def test_a_peer_request_with_our_id_but_its_own_method_is_served() -> None:
    """Ids are per direction: the agent's request 0 is not our request 0."""

    async def handler(method: str, params: Any) -> Any:
        return {"served": method}

    async with raw_peer(request_handler=handler) as (conn, peer_send, peer_recv):
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                result: list[Any] = []

                async def ours() -> None:
                    result.append(await conn.request("session/prompt", {"x": 1}))

                tg.start_soon(ours)
                sent = await read_message(peer_recv)
                their = {"jsonrpc": "2.0", "id": sent["id"], "method": "fs/read_text_file"}
                await peer_send.send(line(their))
                answer = await read_message(peer_recv)
                assert answer == {
                    "jsonrpc": "2.0",
                    "id": sent["id"],
                    "result": {"served": "fs/read_text_file"},
                }
                await peer_send.send(
                    line({"jsonrpc": "2.0", "id": sent["id"], "result": {"ok": True}})
                )
        assert result == [{"ok": True}]
        assert conn.stats.echoed_requests == 0


async def test_the_first_lines_that_are_not_json_rpc_are_kept_word_for_word() -> None:
    async with raw_peer() as (conn, peer_send, _):
        junk = [f"banner line {n}" for n in range(8)] + ["[1, 2]", "x" * 500]
        await peer_send.send("".join(f"{text}\n" for text in junk).encode())
        with anyio.fail_after(5):
            while conn.stats.skipped_lines < len(junk):
                await anyio.sleep(0.01)
        assert conn.stats.first_skipped == junk[:FIRST_SKIPPED_KEPT]
        assert conn.stats.skipped_lines == len(junk)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (None, "Internal error"),
        ("disk full", "Internal error: disk full"),
        (
            {"details": "Qwen OAuth credentials expired."},
            "Internal error: Qwen OAuth credentials expired.",
        ),
        ({"message": "quota"}, "Internal error: quota"),
        ({"details": "internal error in the model"}, "internal error in the model"),
        ({"values": ["a", "b"]}, 'Internal error: {"values": ["a", "b"]}'),
        ({"details": "  "}, 'Internal error: {"details": "  "}'),
        ("Internal error", "Internal error"),
        ("", "Internal error"),
    ],
)
def test_an_errors_reason_for_a_person_keeps_what_the_peer_put_in_data(
    data: object, reason: str
) -> None:
    """Agents answer a generic message and say why in ``data`` (Qwen Code): a toast that read
    only the message said "Internal error"."""
    assert RpcError(-32603, "Internal error", data).reason == reason


def test_an_error_as_text_says_why_before_its_code() -> None:
    """A toast or a status line cut short still shows the reason (Gemini CLI's "No previous
    sessions found" came after "Internal error (code -32603): {"details": …" and was cut)."""
    error = RpcError(-32603, "Internal error", {"details": "No previous sessions found."})
    assert str(error) == "Internal error: No previous sessions found. (code -32603)"
    assert str(RpcError(-32601, "Method not found")) == "Method not found (code -32601)"
