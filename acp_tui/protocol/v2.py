"""Protocol v2 (the draft, opt-in with ``--protocol 2``): what differs on the wire from v1.

https://agentclientprotocol.com/protocol/v2/initialization. The client asks for version 2 and
the agent answers the highest version it has at or below it: a v1 answer means v1 from then
on. So the one ``initialize`` request carries both spellings: v2's ``info`` and
``capabilities`` and v1's ``clientInfo`` and ``clientCapabilities`` (neither schema forbids
the other's fields), and a v1 agent reads exactly what a v1 request would have told it.

The preview's capability layout (beta.4, https://agentclientprotocol.com/protocol/v2/migration):
one ``capabilities`` object on each side, session-scoped groups nested under ``session``,
an object (even ``{}``) where v1 had ``true``. The client's holds only what exists in v2 and
what it implements: ``auth.terminal``, ``elicitation.form`` / ``.url`` and
``session.promptSuggestions`` (unstable); files, terminals, notices, plans and subagents need
no capability there (the agent owns files and terminals; the rest is baseline).

A v2 answer is translated here into the v1 shapes the rest of the client reads
(:class:`~acp_tui.protocol.agent_info.AgentInfo`): ``capabilities.session`` (``{}`` = new, list,
resume, close) becomes ``sessionCapabilities``, ``session.prompt`` / ``session.mcp`` the
prompt and MCP capabilities (stdio MCP servers too are opt-in in v2: ``mcp.stdio``), and a
non-empty ``authMethods`` means ``auth/login`` and ``auth/logout`` exist. There is no
``session/load`` in v2: reopening is ``session/resume`` with ``replayFrom``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_tui.wire.schema import Implementation

V1 = 1
V2 = 2

#: Background work's own cancels (https://agentclientprotocol.com/rfds/v2/background-work):
#: a request each, sent only for an item that advertises ``capabilities.cancel``; the answer
#: means accepted, the item's own update says it stopped.
TERMINAL_CANCEL = "terminal/cancel"
TOOL_CALL_CANCEL = "tool_call/cancel"

#: v2 session capabilities kept as they are (the stable ones, the system prompt, and the
#: unstable fork, title, archive, status and options, and the mid-turn ``inject`` RFD).
SESSION_EXTRAS = (
    "delete",
    "additionalDirectories",
    "fork",
    "title",
    "archive",
    "systemPrompt",
    "status",
    "options",
    "inject",
)
REPLAY_FROM_START = {"type": "start"}


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _present(container: dict[str, Any], key: str) -> bool:
    return isinstance(container.get(key), dict)


#: Client session capabilities v2 keeps (``capabilities.session``, a group, not a marker:
#: ``{}`` there advertises nothing), each advertised only when its v1 twin is.
CLIENT_SESSION_KEYS = ("promptSuggestions",)


def client_capabilities(v1_caps: dict[str, Any], *, terminal_auth: bool) -> dict[str, Any]:
    """v2 ``ClientCapabilities`` of a client whose v1 ones are ``v1_caps`` (made from what it
    implements, so nothing is advertised here that v1 would not): ``auth``, ``elicitation``
    and the ``session`` group (files and terminals are the agent's own in v2)."""
    caps: dict[str, Any] = {}
    if terminal_auth:
        caps["auth"] = {"terminal": {}}
    elicitation = _object(v1_caps.get("elicitation"))
    modes: dict[str, Any] = {mode: {} for mode in ("form", "url") if _present(elicitation, mode)}
    if modes:
        caps["elicitation"] = modes
    v1_session = _object(v1_caps.get("session"))
    session: dict[str, Any] = {key: {} for key in CLIENT_SESSION_KEYS if _present(v1_session, key)}
    if session:
        caps["session"] = session
    return caps


def initialize_params(
    v1_caps: dict[str, Any], info: Implementation, *, terminal_auth: bool
) -> dict[str, Any]:
    return {
        "protocolVersion": V2,
        "info": info,
        "capabilities": client_capabilities(v1_caps, terminal_auth=terminal_auth),
        # For an agent that answers v1: what a v1 request would have said.
        "clientInfo": info,
        "clientCapabilities": v1_caps,
    }


def agent_capabilities(result: dict[str, Any]) -> dict[str, Any]:
    """A v2 ``InitializeResponse`` read as v1 ``agentCapabilities``."""
    caps = _object(result.get("capabilities"))
    translated: dict[str, Any] = {"loadSession": False}
    session = caps.get("session")
    if isinstance(session, dict):
        sessions: dict[str, Any] = {"list": {}, "resume": {}, "close": {}}
        for key in SESSION_EXTRAS:
            if _present(session, key):
                sessions[key] = session[key]
        translated["sessionCapabilities"] = sessions
        prompt = _object(session.get("prompt"))
        translated["promptCapabilities"] = {
            key: _present(prompt, key) for key in ("image", "audio", "embeddedContext")
        }
        mcp = _object(session.get("mcp"))
        translated["mcpCapabilities"] = {
            "stdio": _present(mcp, "stdio"),
            "http": _present(mcp, "http"),
            "sse": False,
        }
    auth: dict[str, Any] = {}
    methods = result.get("authMethods")
    if isinstance(methods, list) and methods:
        auth["logout"] = {}
    if _present(_object(caps.get("auth")), "status"):
        auth["status"] = {}
    if auth:
        translated["auth"] = auth
    return translated


def agent_identity(result: dict[str, Any]) -> dict[str, Any]:
    """v2 ``info`` (v1: ``agentInfo``)."""
    return _object(result.get("info"))


def with_prompt_title(params: dict[str, Any]) -> dict[str, Any]:
    """After the tool call's own title was looked up: the prompt's ``title`` names it when
    nothing else does."""
    tool_call = _object(params.get("toolCall"))
    title = params.get("title")
    current = tool_call.get("title")
    if isinstance(title, str) and title and not (isinstance(current, str) and current.strip()):
        return {**params, "toolCall": {**tool_call, "title": title}}
    return params


def permission_params(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A v2 permission request in the v1 shape the dialog reads (``toolCall``), and the
    tool-call upsert its subject carries (the schema: apply it like a ``tool_call_update``).

    v2 has a ``title`` of its own (see :func:`with_prompt_title`) and an optional
    ``subject``: a tool call, a command, or a kind we do not know (then the title alone
    describes it)."""
    subject = _object(params.get("subject"))
    upsert: dict[str, Any] | None = None
    tool_call: dict[str, Any]
    if subject.get("type") == "tool_call" and isinstance(subject.get("toolCall"), dict):
        upsert = dict(subject["toolCall"])
        tool_call = dict(upsert)
    elif subject.get("type") == "command":
        tool_call = {"kind": "execute"}
        if isinstance(subject.get("toolCallId"), str):
            tool_call["toolCallId"] = subject["toolCallId"]
        command = subject.get("command")
        if isinstance(command, str):
            tool_call["rawInput"] = {"command": command, "cwd": subject.get("cwd")}
    else:
        tool_call = {}
    description = params.get("description")
    if isinstance(description, str) and description and "content" not in tool_call:
        tool_call["content"] = [
            {"type": "content", "content": {"type": "text", "text": description}}
        ]
    return {**params, "toolCall": tool_call}, upsert


def cancel_terminal_params(session_id: str, terminal_id: str) -> dict[str, Any]:
    return {"sessionId": session_id, "terminalId": terminal_id}


def cancel_tool_call_params(session_id: str, tool_call_id: str) -> dict[str, Any]:
    return {"sessionId": session_id, "toolCallId": tool_call_id}
