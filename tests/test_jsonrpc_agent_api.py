"""The public pieces of the JSON-RPC core an agent needs: work after a response, and a
burst of pre-serialised notifications in one write (used by the demo agent)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from acp_tui.protocol.jsonrpc import Connection, RpcError, after_response
from tests.wire_helpers import PipeReceive, byte_pipe

pytestmark = pytest.mark.anyio


async def read_lines(stream: PipeReceive, count: int) -> list[dict[str, Any]]:
    buffer = b""
    while buffer.count(b"\n") < count:
        buffer += await stream.receive()
    return [json.loads(line) for line in buffer.splitlines()]


async def test_after_response_runs_once_the_response_is_written() -> None:
    to_agent_send, to_agent_recv = byte_pipe()
    from_agent_send, from_agent_recv = byte_pipe()
    agent = Connection(to_agent_recv, from_agent_send)

    async def handler(method: str, params: Any) -> Any:
        if method == "fail":
            after_response(lambda: agent.notify("never", {}))
            raise RpcError(-32602, "no")

        async def follow_up() -> None:
            await agent.notify("after", {"for": method})

        after_response(follow_up)
        # Even a notification sent later in the handler comes before the follow-up.
        await agent.notify("during", {"for": method})
        return {"ok": True}

    agent.request_handler = handler
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run)
        with anyio.fail_after(5):
            await to_agent_send.send(b'{"jsonrpc":"2.0","id":1,"method":"go"}\n')
            during, response, after = await read_lines(from_agent_recv, 3)
            assert during["method"] == "during"
            assert response == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
            assert after["method"] == "after" and after["params"] == {"for": "go"}
            # An error answer runs no follow-up.
            await to_agent_send.send(b'{"jsonrpc":"2.0","id":2,"method":"fail"}\n')
            await to_agent_send.send(b'{"jsonrpc":"2.0","id":3,"method":"go"}\n')
            messages = await read_lines(from_agent_recv, 4)
        assert [m.get("method", m.get("id")) for m in messages].count("never") == 0
        assert messages[0]["error"]["code"] == -32602
        group.cancel_scope.cancel()


def test_after_response_outside_a_handler_is_an_error() -> None:
    async def nothing() -> None:
        return None

    with pytest.raises(RuntimeError):
        after_response(nothing)


async def test_send_serialized_writes_whole_lines_and_counts_them() -> None:
    send, receive = byte_pipe()
    _, unused = byte_pipe()
    conn = Connection(unused, send)
    texts = [json.dumps({"jsonrpc": "2.0", "method": "n", "params": {"i": i}}) for i in range(5)]
    await conn.send_serialized(texts)
    await conn.send_serialized([])
    lines = await read_lines(receive, 5)
    assert [m["params"]["i"] for m in lines] == list(range(5))
    assert conn.stats.lines_out == 5
    assert [r.text for r in conn.traffic] == texts
    with pytest.raises(ValueError):
        await conn.send_serialized(['{"jsonrpc":"2.0",\n"method":"x"}'])
