"""acp_tui.protocol.stdio: non-blocking fd streams (over os.pipe here, fd 0/1 in the agent)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol.stdio import FdReceiveStream, FdSendStream

pytestmark = pytest.mark.anyio


async def test_large_write_with_backpressure_then_eof() -> None:
    read_fd, write_fd = os.pipe()
    receiver = FdReceiveStream(read_fd, close_fd=True)
    sender = FdSendStream(write_fd, close_fd=True)
    payload = bytes(range(256)) * (5 * 4096)  # 5 MiB, far beyond a pipe buffer
    received = bytearray()

    async def read_all() -> None:
        while True:
            try:
                received.extend(await receiver.receive(65536))
            except anyio.EndOfStream:
                return

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(read_all)
            await sender.send(payload)
            await sender.aclose()  # closes the write end: the reader sees EOF
    await receiver.aclose()
    assert bytes(received) == payload


async def test_blocking_mode_is_restored_on_close() -> None:
    read_fd, write_fd = os.pipe()
    stream = FdReceiveStream(read_fd)
    assert not os.get_blocking(read_fd)
    await stream.aclose()
    assert os.get_blocking(read_fd)
    os.close(read_fd)
    os.close(write_fd)


async def test_writing_to_a_closed_reader_is_broken_resource() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    sender = FdSendStream(write_fd, close_fd=True)
    with pytest.raises(anyio.BrokenResourceError):
        await sender.send(b"hello\n")
    await sender.aclose()
    with pytest.raises(anyio.ClosedResourceError):
        await sender.send(b"again\n")


async def test_regular_file_falls_back_to_threads(tmp_path: Path) -> None:
    path = tmp_path / "input.ndjson"
    path.write_bytes(b'{"a":1}\n')
    fd = os.open(path, os.O_RDONLY)
    stream = FdReceiveStream(fd, close_fd=True)
    assert await stream.receive() == b'{"a":1}\n'
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()
    await stream.aclose()
