"""MCP servers from the config, shaped for ``session/new`` / ``session/load``.

The config keeps them the way people write them (``env`` and ``headers`` as tables, a
``type`` on each); the wire wants ``McpServerStdio`` (no ``type``, ``env`` as a list of
``{name, value}``) or ``McpServerHttp`` / ``McpServerSse`` (``type``, ``headers`` as a list).
A v1 agent must accept stdio servers; http and sse only go to an agent that advertises
``mcpCapabilities.http`` / ``.sse`` in its ``initialize`` answer. In v2 stdio is opt-in too
(``session.mcp.stdio``, read as ``mcpCapabilities.stdio``: a key only a v2 answer has).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from acp_tui.wire.schema import EnvVariable, McpServer

__all__ = ["select_mcp_servers"]


class _HasMcpCapability(Protocol):
    def mcp_capability(self, transport: str) -> bool: ...


def _supports(agent_caps: Any, transport: str) -> bool:
    if agent_caps is None:
        return False
    check = getattr(agent_caps, "mcp_capability", None)
    if callable(check):
        return bool(check(transport))
    if isinstance(agent_caps, Mapping):
        caps = agent_caps.get("mcpCapabilities")
        if caps is None and isinstance(agent_caps.get("agentCapabilities"), Mapping):
            caps = agent_caps["agentCapabilities"].get("mcpCapabilities")
        return isinstance(caps, Mapping) and bool(caps.get(transport))
    return False


def _refuses_stdio(agent_caps: Any) -> bool:
    """Only a v2 agent (whose answer has the ``stdio`` key) can say no to stdio servers."""
    caps = getattr(agent_caps, "capabilities", agent_caps)
    if not isinstance(caps, Mapping):
        return False
    mcp = caps.get("mcpCapabilities")
    return isinstance(mcp, Mapping) and "stdio" in mcp and not mcp["stdio"]


def _pairs(value: Any) -> list[EnvVariable]:
    """A table ``{NAME = "value"}`` (or an already wire-shaped list) as ``[{name, value}]``."""
    if isinstance(value, Mapping):
        return [{"name": str(k), "value": str(v)} for k, v in value.items()]
    if isinstance(value, list):
        return [
            {"name": str(item["name"]), "value": str(item.get("value", ""))}
            for item in value
            if isinstance(item, Mapping) and "name" in item
        ]
    return []


def _dump(server: Any) -> dict[str, Any]:
    if isinstance(server, Mapping):
        return dict(server)
    dump = getattr(server, "model_dump", None)
    return dict(dump()) if callable(dump) else {}


def select_mcp_servers(
    servers: list[Any],
    agent_caps: _HasMcpCapability | Mapping[str, Any] | None,
    path_lookup: Callable[[str], str | None] = shutil.which,
) -> tuple[list[McpServer], list[str]]:
    """The servers to send to this agent, wire-shaped, and a note for each one left out.

    ``servers``: config-shaped dicts (or the config models). ``agent_caps``: an ``AgentInfo``
    (its ``mcp_capability``), or the ``initialize`` result / ``agentCapabilities`` dict.
    A stdio ``command`` that is not an absolute path is resolved on PATH, as the protocol
    asks for an absolute path; one that cannot be found is still sent (the agent may know
    better), with a note.
    """
    kept: list[McpServer] = []
    notes: list[str] = []
    for raw in servers:
        server = _dump(raw)
        name = str(server.get("name") or "(unnamed)")
        kind = server.get("type") or "stdio"
        if kind == "stdio":
            if _refuses_stdio(agent_caps):
                notes.append(
                    f"MCP server {name!r} skipped: the agent does not support stdio MCP "
                    "servers (it does not advertise session.mcp.stdio)."
                )
                continue
            command = str(server.get("command") or "")
            if not command:
                notes.append(f"MCP server {name!r} skipped: it has no command.")
                continue
            if not os.path.isabs(os.path.expanduser(command)):
                located = path_lookup(command)
                if located:
                    command = os.path.abspath(located)
                else:
                    notes.append(
                        f"MCP server {name!r}: {command!r} was not found on PATH; passing it as it is."
                    )
            else:
                command = os.path.expanduser(command)
            kept.append(
                {
                    "name": name,
                    "command": command,
                    "args": [str(arg) for arg in server.get("args") or []],
                    "env": _pairs(server.get("env") or {}),
                }
            )
        elif kind in ("http", "sse"):
            url = str(server.get("url") or "")
            if not url:
                notes.append(f"MCP server {name!r} skipped: it has no url.")
                continue
            if not _supports(agent_caps, kind):
                notes.append(
                    f"MCP server {name!r} skipped: the agent does not support {kind} MCP "
                    f"servers (it does not advertise mcpCapabilities.{kind})."
                )
                continue
            headers = _pairs(server.get("headers") or {})
            if kind == "http":
                kept.append({"type": "http", "name": name, "url": url, "headers": headers})
            else:
                kept.append({"type": "sse", "name": name, "url": url, "headers": headers})
        else:
            notes.append(
                f"MCP server {name!r} skipped: unknown type {kind!r} (use stdio, http or sse)."
            )
    return kept, notes
