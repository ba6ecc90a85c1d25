"""A recording is read a line at a time, never whole: replaying a 190 MB one took 2.3 GB
(the file, its lines and every message parsed, all at once). Loading keeps an outline; the
replay, ``--check`` and every other walk read the lines as they go."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.devtools.wire_check import check_recording
from acp_tui.protocol.recording import (
    FROM_AGENT,
    TO_AGENT,
    event_line,
    header_line,
    load_recording,
    message_line,
)
from acp_tui.protocol.replay_peer import ReplayPeer

#: Updates in the long recording (about 3 MB of lines).
CHUNKS = 15_000
#: What a walk may allocate at its peak, whatever the recording's size (a read buffer, a
#: line, a message).
WALK_PEAK = 2_500_000


def rpc(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **fields}


def chunk(n: int) -> dict[str, Any]:
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call-1",
        "content": [{"type": "content", "content": {"type": "text", "text": f"line {n} " * 20}}],
    }
    return rpc(method="session/update", params={"sessionId": "s1", "update": update})


def long_recording(path: Path) -> Path:
    """Two connections: a session with one tool call updated CHUNKS times, then a restart."""
    with path.open("wb") as out:
        out.write(header_line(["agent"], "/w", 0.0))
        for t, direction, message in [
            (0.0, TO_AGENT, rpc(id=0, method="initialize", params={})),
            (0.1, FROM_AGENT, rpc(id=0, result={"protocolVersion": 1})),
            (0.2, TO_AGENT, rpc(id=1, method="session/new", params={"cwd": "/w"})),
            (0.3, FROM_AGENT, rpc(id=1, result={"sessionId": "s1"})),
        ]:
            out.write(message_line(t, direction, json.dumps(message)))
        tool = {"sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Run"}
        start = rpc(method="session/update", params={"sessionId": "s1", "update": tool})
        out.write(message_line(0.4, FROM_AGENT, json.dumps(start)))
        for n in range(CHUNKS):
            out.write(message_line(1 + n / 1000, FROM_AGENT, json.dumps(chunk(n))))
        out.write(event_line(100.0, "closed", by="agent", exit="exit code 1"))
        out.write(event_line(101.0, "connected", agent=["agent"], cwd="/w"))
        out.write(message_line(101.1, TO_AGENT, json.dumps(rpc(id=0, method="initialize"))))
    return path


@contextmanager
def peak_allocated() -> Iterator[Callable[[], int]]:
    """The peak of Python's allocations in the block (read after it)."""
    tracemalloc.start()
    peak = [0]
    try:
        yield lambda: peak[0]
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def test_a_recording_is_outlined_and_walked_a_line_at_a_time(tmp_path: Path) -> None:
    path = long_recording(tmp_path / "long.jsonl")
    assert path.stat().st_size > 2_500_000
    with peak_allocated() as peak:
        recording = load_recording(path)
        first, second = recording.segments
        walked = sum(1 for _ in first.entries)
    assert peak() < WALK_PEAK
    assert walked == len(first.entries) == CHUNKS + 5
    assert len(second.entries) == 1 and second.entries[0].message["method"] == "initialize"
    assert first.closed is not None and first.closed["exit"] == "exit code 1"
    # The client's requests are known before a walk (the replay answers by them).
    assert first.requests == {("initialize", 0): 0, ("session/new", 0): 2}
    assert second.requests == {("initialize", 0): 0}
    # Line numbers are the file's, and each message is as the wire carried it.
    last = first.entries[-1]
    assert last.line == CHUNKS + 6 and last.message == chunk(CHUNKS - 1)
    assert last.wire is not None and json.loads(last.wire) == last.message
    recording.close()


def test_checking_a_long_recording_holds_its_sessions_not_its_lines(tmp_path: Path) -> None:
    recording = load_recording(long_recording(tmp_path / "long.jsonl"))
    with peak_allocated() as peak:
        problems = check_recording(recording)
    assert peak() < WALK_PEAK
    assert [p.what for p in problems if not p.note] == [
        "initialize (id 0) never answered by the agent"
    ]
    recording.close()


async def test_a_long_connection_is_played_a_line_at_a_time(tmp_path: Path) -> None:
    recording = load_recording(long_recording(tmp_path / "long.jsonl"))
    peer = ReplayPeer(recording.segments[0], speed=0, stall_seconds=0)
    received = 0

    async def drain() -> None:
        nonlocal received
        try:
            while True:
                received += (await peer.client_stdout.receive()).count(b"\n")
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            pass

    with peak_allocated() as peak:
        async with anyio.create_task_group() as group:
            group.start_soon(drain)
            await peer.run()
    assert peak() < WALK_PEAK
    assert peer.agent_closed and peer.played == CHUNKS + 5
    assert received >= CHUNKS
    recording.close()


pytestmark = pytest.mark.anyio
