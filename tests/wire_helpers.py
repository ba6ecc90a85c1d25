"""In-memory byte pipes so two JSON-RPC peers can talk without processes."""

from __future__ import annotations

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream


class PipeSend(ByteSendStream):
    def __init__(self, inner: MemoryObjectSendStream[bytes]) -> None:
        self._inner = inner

    async def send(self, item: bytes) -> None:
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()


class PipeReceive(ByteReceiveStream):
    def __init__(self, inner: MemoryObjectReceiveStream[bytes]) -> None:
        self._inner = inner

    async def receive(self, max_bytes: int = 65536) -> bytes:
        try:
            return await self._inner.receive()
        except anyio.EndOfStream:
            raise
        except anyio.ClosedResourceError:
            raise anyio.EndOfStream from None

    async def aclose(self) -> None:
        await self._inner.aclose()


def byte_pipe() -> tuple[PipeSend, PipeReceive]:
    send, receive = anyio.create_memory_object_stream[bytes](1000)
    return PipeSend(send), PipeReceive(receive)
