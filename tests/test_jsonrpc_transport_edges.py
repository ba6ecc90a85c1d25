"""Round 3 of the hostile attack (issue 17) on the transport: lines a real agent may send that
are valid JSON-RPC (or nearly) but were dropped, losing what they carried or leaving the agent
waiting for an answer. Each is read, in order, and every request in it is answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.protocol.jsonrpc import INVALID_REQUEST
from acp_tui.protocol.recording import FROM_AGENT, header_line, load_recording, message_line
from tests.test_jsonrpc import line, raw_peer
from tests.test_jsonrpc import read_message as read_forever

pytestmark = pytest.mark.anyio


def note(text: str, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"t": text}, **extra}


async def read_message(stream: Any) -> dict[str, Any]:
    with anyio.fail_after(10):
        return await read_forever(stream)


class Notes:
    def __init__(self) -> None:
        self.got: list[str] = []

    async def __call__(self, method: str, params: Any) -> None:
        self.got.append(params["t"])

    async def until(self, count: int) -> list[str]:
        with anyio.fail_after(10):
            while len(self.got) < count:
                await anyio.sleep(0.01)
        return self.got


async def test_a_line_behind_a_byte_order_mark_is_read() -> None:
    """An agent writing UTF-8 with a BOM: its first line (the initialize answer) was "not JSON",
    and the client waited for an answer it had already been given."""
    notes = Notes()
    async with raw_peer(notification_handler=notes) as (conn, send, _):
        await send.send("\ufeff".encode() + line(note("after a BOM")))
        await send.send(b"\xef\xbb\xbf \xef\xbb\xbf" + line(note("two BOMs")))
        await send.send(b"\r\n" + line(note("crlf")).replace(b"\n", b"\r\n"))
        assert await notes.until(3) == ["after a BOM", "two BOMs", "crlf"]
        assert conn.stats.skipped_lines == 0


async def test_a_batch_is_handled_message_by_message_in_order() -> None:
    notes = Notes()

    async def handler(method: str, params: Any) -> Any:
        return {"served": params}

    async with raw_peer(notification_handler=notes, request_handler=handler) as (_, send, recv):
        batch = [
            note("one"),
            {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": 1},
            note("two"),
        ]
        await send.send((json.dumps(batch) + "\n").encode())
        await send.send(line(note("three")))
        assert await notes.until(3) == ["one", "two", "three"]
        assert await read_message(recv) == {"jsonrpc": "2.0", "id": 4, "result": {"served": 1}}


async def test_a_notification_sent_with_an_id_is_applied_in_order_and_answered() -> None:
    """``session/update`` with an id is a request by the letter of JSON-RPC: answered "method
    not found", its text was lost from the reply."""
    notes = Notes()
    async with raw_peer(notification_handler=notes, notification_methods={"session/update"}) as (
        _,
        send,
        recv,
    ):
        await send.send(line(note("a")) + line(note("b", id="n-1")) + line(note("c")))
        assert await notes.until(3) == ["a", "b", "c"]
        assert await read_message(recv) == {"jsonrpc": "2.0", "id": "n-1", "result": {}}


async def test_a_request_whose_id_has_thousands_of_digits_is_answered() -> None:
    """Valid JSON over Python's int conversion limit: the line was dropped as "not JSON" and
    the agent waited forever for the answer."""
    async with raw_peer() as (conn, send, recv):
        await send.send(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}\n')
        answer = await read_message(recv)
        assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST
        # A huge number anywhere else is a number out of range, not a lost line.
        notes = Notes()
        conn.notification_handler = notes
        await send.send(
            b'{"jsonrpc":"2.0","method":"m","params":{"t":"big","n":-' + b"1" * 5000 + b"}}\n"
        )
        assert await notes.until(1) == ["big"]


async def test_a_batch_is_recorded_message_by_message_and_a_huge_id_is_read_back(
    tmp_path: Path,
) -> None:
    """The wire recording keeps what the reader took: each message of a batch as a message
    (not junk, which replay and --check would report), and a line with a 5,000-digit id read
    back as the client read it (it was "not a recording line")."""
    tapped: list[tuple[str, str, str]] = []
    async with raw_peer(notification_handler=Notes()) as (conn, send, recv):
        conn.wire_tap = lambda direction, text, why: tapped.append((direction, text, why))
        await send.send((json.dumps([note("one"), note("two")]) + "\n").encode())
        await send.send(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}\n')
        await read_message(recv)
    incoming = [(text, why) for direction, text, why in tapped if direction == "in"]
    assert [json.loads(text) for text, _ in incoming[:2]] == [note("one"), note("two")]
    assert [why for _, why in incoming] == ["", "", ""]
    path = tmp_path / "wire.jsonl"
    path.write_bytes(
        header_line(["agent"], "/", 0.0)
        + message_line(0.1, FROM_AGENT, '{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"x"}')
    )
    recording = load_recording(path)
    assert recording.problems == []
    (entry,) = recording.segments[0].entries
    assert entry.message["method"] == "x" and entry.message["id"] == float("inf")
