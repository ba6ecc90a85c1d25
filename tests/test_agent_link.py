"""AgentLink without a screen: MCP servers passed per the agent's capabilities."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.agent_link import AgentLink, LinkEvents
from acp_tui.store import SessionStore

pytestmark = pytest.mark.anyio

RECORDING_AGENT = r"""
import json, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    msg = json.loads(line)
    log.write(line); log.flush()
    if msg.get("method") == "initialize":
        caps = {"mcpCapabilities": {"http": True, "sse": False}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}), flush=True)
    elif msg.get("method") == "session/new":
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"sessionId": "s1"}}), flush=True)
"""


async def test_mcp_servers_are_filtered_by_the_agents_capabilities(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(RECORDING_AGENT)
    received = tmp_path / "received.jsonl"
    errors: list[str] = []
    servers = [
        {
            "type": "stdio",
            "name": "files",
            "command": sys.executable,
            "args": ["-V"],
            "env": {"TOKEN": "x"},
        },
        {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": {}},
        {"type": "sse", "name": "events", "url": "http://127.0.0.1:9/sse", "headers": {}},
    ]
    link = AgentLink(
        [sys.executable, str(agent), str(received)],
        cwd=str(tmp_path),
        store=SessionStore(),
        events=LinkEvents(on_error=errors.append),
        mcp_servers=servers,
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(link.run)
        with anyio.fail_after(60):
            while link.current_session_id is None:
                await anyio.sleep(0.02)
        link.request_stop()
    new = next(
        m
        for m in map(json.loads, received.read_text().splitlines())
        if m["method"] == "session/new"
    )
    names = [server["name"] for server in new["params"]["mcpServers"]]
    assert names == ["files", "web"]
    assert any("events" in error and "sse" in error.lower() for error in errors)
