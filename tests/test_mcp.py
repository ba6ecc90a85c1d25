"""MCP servers from the config, passed to the agent: stdio always, http/sse only when the
agent advertises them, in the wire shape of the ACP schema, with a note for each one left out."""

from __future__ import annotations

from typing import Any

from acp_tui.config.load import AgentConfig
from acp_tui.protocol.agent_info import AgentInfo
from acp_tui.session.agent.mcp import select_mcp_servers

SERVERS: list[dict[str, Any]] = [
    {"type": "stdio", "name": "fs", "command": "mcp-fs", "args": ["/tmp"], "env": {"TOKEN": "t"}},
    {"type": "http", "name": "docs", "url": "https://x/mcp", "headers": {"Authorization": "B"}},
    {"type": "sse", "name": "events", "url": "https://x/sse", "headers": {}},
]

STDIO_WIRE = {
    "name": "fs",
    "command": "/usr/bin/mcp-fs",
    "args": ["/tmp"],
    "env": [{"name": "TOKEN", "value": "t"}],
}


def which(name: str) -> str | None:
    return f"/usr/bin/{name}" if name == "mcp-fs" else None


def info(mcp: dict[str, bool] | None) -> AgentInfo:
    caps: dict[str, Any] = {} if mcp is None else {"mcpCapabilities": mcp}
    return AgentInfo(capabilities=caps)


def test_agent_without_http_or_sse_gets_stdio_only_with_notes() -> None:
    kept, notes = select_mcp_servers(SERVERS, info(None), path_lookup=which)
    assert kept == [STDIO_WIRE]
    assert len(notes) == 2
    assert "'docs' skipped" in notes[0] and "mcpCapabilities.http" in notes[0]
    assert "'events' skipped" in notes[1] and "mcpCapabilities.sse" in notes[1]


def test_agent_with_http_gets_http_not_sse() -> None:
    kept, notes = select_mcp_servers(SERVERS, info({"http": True}), path_lookup=which)
    assert kept == [
        STDIO_WIRE,
        {
            "type": "http",
            "name": "docs",
            "url": "https://x/mcp",
            "headers": [{"name": "Authorization", "value": "B"}],
        },
    ]
    assert len(notes) == 1 and "'events'" in notes[0]


def test_agent_with_both_gets_everything() -> None:
    caps = {"agentCapabilities": {"mcpCapabilities": {"http": True, "sse": True}}}
    kept, notes = select_mcp_servers(SERVERS, caps, path_lookup=which)
    assert notes == []
    assert [server.get("type", "stdio") for server in kept] == ["stdio", "http", "sse"]
    assert "type" not in kept[0]  # McpServerStdio has no discriminator on the wire


def test_config_models_are_accepted_and_type_defaults_to_stdio() -> None:
    agent = AgentConfig.model_validate(
        {"command": "a", "mcp_servers": [{"name": "fs", "command": "/opt/fs"}]}
    )
    kept, notes = select_mcp_servers(agent.mcp_servers, None)
    assert kept == [{"name": "fs", "command": "/opt/fs", "args": [], "env": []}]
    assert notes == []


def test_relative_command_not_on_path_is_sent_with_a_note() -> None:
    kept, notes = select_mcp_servers(
        [{"name": "x", "command": "nowhere"}], None, path_lookup=lambda _: None
    )
    assert kept[0]["command"] == "nowhere"
    assert "not found on PATH" in notes[0]


def test_unknown_type_and_incomplete_entries_are_skipped() -> None:
    kept, notes = select_mcp_servers(
        [{"type": "ftp", "name": "f"}, {"type": "http", "name": "h"}, {"name": "c"}],
        {"mcpCapabilities": {"http": True}},
    )
    assert kept == []
    assert len(notes) == 3
    assert "unknown type 'ftp'" in notes[0]
    assert "no url" in notes[1] and "no command" in notes[2]
