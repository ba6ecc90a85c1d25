"""Tests of the ACP wire models: round trips, tolerance, never-raising parsers."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.protocol import models as m
from acp_tui.protocol.models import (
    PROTOCOL_VERSION,
    ErrorCode,
    Method,
    parse_content_block,
    parse_session_update,
    to_wire,
)

# --------------------------------------------------------------------------------------
# Session update examples, one per variant (from the schema and the seeds)
# --------------------------------------------------------------------------------------

TEXT = {"type": "text", "text": "What's the capital of France?"}

SESSION_UPDATES: list[tuple[type[Any], dict[str, Any]]] = [
    (m.UserMessageChunk, {"sessionUpdate": "user_message_chunk", "content": TEXT}),
    (
        m.AgentMessageChunk,
        {"sessionUpdate": "agent_message_chunk", "content": TEXT, "messageId": "msg_1"},
    ),
    (
        m.AgentThoughtChunk,
        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}},
    ),
    (
        m.ToolCall,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "call_001",
            "title": "Reading configuration file",
            "kind": "read",
            "status": "pending",
            "locations": [{"path": "/home/user/project/config.json", "line": 12}],
            "rawInput": {"path": "/home/user/project/config.json"},
        },
    ),
    (
        m.ToolCallUpdate,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "call_001",
            "status": "completed",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "Found 3 issues"}},
                {
                    "type": "diff",
                    "path": "/home/user/project/src/config.json",
                    "oldText": '{"debug": false}',
                    "newText": '{"debug": true}',
                },
                {"type": "terminal", "terminalId": "term_xyz789"},
            ],
            "rawOutput": {"ok": True},
        },
    ),
    (
        m.Plan,
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Analyze the codebase", "priority": "high", "status": "pending"},
                {"content": "Write tests", "priority": "medium", "status": "in_progress"},
            ],
        },
    ),
    (
        m.PlanUpdate,
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "plan_1",
                "entries": [{"content": "Step", "priority": "low", "status": "completed"}],
            },
        },
    ),
    (
        m.PlanUpdate,
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "markdown", "planId": "plan_2", "content": "# Plan\n- a"},
        },
    ),
    (
        m.PlanUpdate,
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "file", "planId": "p", "uri": "file:///p"},
        },
    ),
    (m.PlanRemoved, {"sessionUpdate": "plan_removed", "planId": "plan_1"}),
    (
        m.AvailableCommandsUpdate,
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "web", "description": "Search the web", "input": {"hint": "query"}},
                {"name": "test", "description": "Run tests"},
            ],
        },
    ),
    (m.CurrentModeUpdate, {"sessionUpdate": "current_mode_update", "currentModeId": "code"}),
    (
        m.ConfigOptionUpdate,
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "id": "model",
                    "name": "Model",
                    "category": "model",
                    "type": "select",
                    "currentValue": "sonnet",
                    "options": [
                        {
                            "group": "anthropic",
                            "name": "Anthropic",
                            "options": [{"value": "sonnet", "name": "Sonnet"}],
                        },
                        {
                            "group": "other",
                            "name": "Other",
                            "options": [{"value": "x", "name": "X", "description": "d"}],
                        },
                    ],
                },
                {"id": "fast", "name": "Fast mode", "type": "boolean", "currentValue": False},
            ],
        },
    ),
    (
        m.SessionInfoUpdate,
        {
            "sessionUpdate": "session_info_update",
            "title": "Implement user authentication",
            "_meta": {"tags": ["feature", "auth"], "priority": "high"},
        },
    ),
    (
        m.UsageUpdate,
        {
            "sessionUpdate": "usage_update",
            "used": 53000,
            "size": 200000,
            "cost": {"amount": 0.045, "currency": "USD"},
        },
    ),
    (m.UsageUpdate, {"sessionUpdate": "usage_update", "used": 53000, "size": 200000}),
    (
        m.Notice,
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": "Rate limited",
            "description": "Retrying in 5 s",
        },
    ),
    (
        m.CompactionUpdate,
        {
            "sessionUpdate": "compaction_update",
            "compactionId": "c1",
            "status": "completed",
            "summary": [{"type": "text", "text": "summary"}],
        },
    ),
    (
        m.CompactionSummaryChunk,
        {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": TEXT},
    ),
    (
        m.SubagentUpdate,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "child_1",
            "title": "Researcher",
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
            "cwd": "/work",
        },
    ),
    (
        m.SessionMessage,
        {
            "sessionUpdate": "session_message",
            "messageId": "m1",
            "senderSessionId": "s1",
            "recipientSessionId": "s2",
            "content": [TEXT],
        },
    ),
    (
        m.SessionMessageChunk,
        {"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": TEXT},
    ),
    # v2 draft
    (m.StateUpdate, {"sessionUpdate": "state_update", "state": "running"}),
    (
        m.StateUpdate,
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
            "usage": {
                "totalTokens": 1500,
                "inputTokens": 1000,
                "outputTokens": 400,
                "thoughtTokens": 100,
                "cachedReadTokens": 10,
                "cachedWriteTokens": 0,
            },
        },
    ),
    (m.StateUpdate, {"sessionUpdate": "state_update", "state": "requires_action"}),
    (
        m.StateUpdate,
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "error",
            "error": {"code": -32603, "message": "boom"},
        },
    ),
    (
        m.UserMessage,
        {"sessionUpdate": "user_message", "messageId": "mess_456def", "content": [TEXT]},
    ),
    (m.AgentMessage, {"sessionUpdate": "agent_message", "messageId": "a1", "content": [TEXT]}),
    (m.AgentMessage, {"sessionUpdate": "agent_message", "messageId": "a1", "content": None}),
    (m.AgentThought, {"sessionUpdate": "agent_thought", "messageId": "t1"}),
    (
        m.ToolCallContentChunk,
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "call_1",
            "content": {"type": "content", "content": TEXT},
        },
    ),
    (
        m.TerminalUpdate,
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "command": "ls",
            "cwd": "/x",
            "output": {"data": "aGk="},
            "exitStatus": {"exitCode": 0, "signal": None},
            "size": {"cols": 80, "rows": 24},
            "capabilities": {"cancel": {}},
        },
    ),
    (
        m.TerminalOutputChunk,
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "aGk="},
    ),
]


@pytest.mark.parametrize(
    ("cls", "raw"),
    SESSION_UPDATES,
    ids=[f"{r['sessionUpdate']}-{i}" for i, (_, r) in enumerate(SESSION_UPDATES)],
)
def test_session_update_round_trip(cls: type[Any], raw: dict[str, Any]) -> None:
    original = copy.deepcopy(raw)
    parsed = parse_session_update(raw)
    assert type(parsed) is cls, getattr(parsed, "error", None)
    assert to_wire(parsed) == original
    assert raw == original  # input not mutated


def test_every_schema_variant_is_routed() -> None:
    kinds = {k for k, _ in m.SESSION_UPDATE_MODELS.items()}
    v1_unstable = {
        "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call",
        "tool_call_update", "plan", "plan_update", "plan_removed", "available_commands_update",
        "current_mode_update", "config_option_update", "session_info_update", "usage_update",
        "notice", "compaction_update", "compaction_summary_chunk", "subagent_update",
        "session_message", "session_message_chunk",
    }  # fmt: skip
    v2 = {
        "user_message", "agent_message", "agent_thought", "state_update", "state_change",
        "tool_call_content_chunk", "terminal_update", "terminal_output_chunk",
    }  # fmt: skip
    assert v1_unstable | v2 <= kinds
    assert {str(k) for k in m.SessionUpdateKind} == kinds


def test_typed_access_of_parsed_updates() -> None:
    usage = parse_session_update(
        {
            "sessionUpdate": "usage_update",
            "used": 1,
            "size": 2,
            "cost": {"amount": 1.5, "currency": "EUR"},
        }
    )
    assert isinstance(usage, m.UsageUpdate)
    assert usage.used == 1 and usage.size == 2
    assert usage.cost is not None and usage.cost.currency == "EUR"

    chunk = parse_session_update({"sessionUpdate": "agent_message_chunk", "content": TEXT})
    assert isinstance(chunk, m.AgentMessageChunk)
    assert isinstance(chunk.content, m.TextContent)
    assert chunk.content.text == TEXT["text"]

    tool = parse_session_update(SESSION_UPDATES[4][1])
    assert isinstance(tool, m.ToolCallUpdate)
    assert tool.status == m.ToolCallStatus.COMPLETED
    assert tool.content is not None
    kinds = [type(c) for c in tool.content]
    assert kinds == [m.ContentToolCallContent, m.DiffToolCallContent, m.TerminalToolCallContent]

    cfg = parse_session_update(SESSION_UPDATES[12][1])
    assert isinstance(cfg, m.ConfigOptionUpdate)
    model = cfg.config_options[0]
    assert model.category == m.SessionConfigOptionCategory.MODEL
    assert [o.value for o in model.flat_options] == ["sonnet", "x"]
    assert cfg.config_options[1].current_value is False


# --------------------------------------------------------------------------------------
# Tolerance
# --------------------------------------------------------------------------------------


def test_unknown_variant_kept_raw() -> None:
    raw = {"sessionUpdate": "_vendor_thing", "x": [1, 2], "_meta": {"a": 1}}
    parsed = parse_session_update(raw)
    assert isinstance(parsed, m.UnknownSessionUpdate)
    assert parsed.kind == "_vendor_thing"
    assert parsed.raw == raw
    assert parsed.error is None
    assert to_wire(parsed) == raw


@pytest.mark.parametrize(
    "raw",
    [{}, {"sessionUpdate": None}, {"sessionUpdate": 3}, {"update": "x"}, [], "text", None, 5],
)
def test_missing_or_bad_discriminator(raw: Any) -> None:
    parsed = parse_session_update(raw)
    assert isinstance(parsed, m.UnknownSessionUpdate)
    assert parsed.kind is None
    assert parsed.raw == raw
    assert parsed.error


def test_malformed_known_variant_becomes_unknown_with_error() -> None:
    raw = {"sessionUpdate": "usage_update", "used": "abc", "size": 100}
    parsed = parse_session_update(raw)
    assert isinstance(parsed, m.UnknownSessionUpdate)
    assert parsed.kind == "usage_update"
    assert parsed.raw == raw
    assert parsed.error and "used" in parsed.error


def test_unknown_content_block_kept() -> None:
    raw = {"type": "hologram", "data": {"x": 1}}
    block = parse_content_block(raw)
    assert isinstance(block, m.UnknownContentBlock)
    assert block.kind == "hologram" and block.raw == raw and block.error is None
    # Inside a chunk, an unknown block does not lose the update.
    update = {"sessionUpdate": "agent_message_chunk", "content": raw}
    parsed = parse_session_update(update)
    assert isinstance(parsed, m.AgentMessageChunk)
    assert isinstance(parsed.content, m.UnknownContentBlock)
    assert to_wire(parsed) == update


def test_malformed_content_block_inside_list_is_isolated() -> None:
    update = {
        "sessionUpdate": "user_message",
        "messageId": "m",
        "content": [TEXT, {"type": "image"}, {"type": "zzz"}],
    }
    parsed = parse_session_update(update)
    assert isinstance(parsed, m.UserMessage)
    assert parsed.content is not None
    first, bad, unknown = parsed.content
    assert isinstance(first, m.TextContent)
    assert isinstance(bad, m.UnknownContentBlock) and bad.kind == "image" and bad.error
    assert isinstance(unknown, m.UnknownContentBlock) and unknown.error is None
    assert to_wire(parsed) == update


def test_unknown_tool_call_content_kept() -> None:
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "content": [{"type": "_chart", "points": [1, 2]}],
    }
    parsed = parse_session_update(update)
    assert isinstance(parsed, m.ToolCallUpdate)
    assert parsed.content is not None
    assert isinstance(parsed.content[0], m.UnknownToolCallContent)
    assert to_wire(parsed) == update


@pytest.mark.parametrize(
    ("raw", "cls"),
    [
        (
            {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}},
            m.TextContent,
        ),
        ({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, m.ImageContent),
        ({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}, m.AudioContent),
        (
            {
                "type": "resource_link",
                "uri": "file:///home/user/doc.pdf",
                "name": "doc.pdf",
                "mimeType": "application/pdf",
                "size": 1024,
            },
            m.ResourceLink,
        ),
        (
            {
                "type": "resource",
                "resource": {"uri": "file:///a.py", "mimeType": "text/x-python", "text": "x = 1"},
            },
            m.EmbeddedResource,
        ),
        (
            {"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAEC"}},
            m.EmbeddedResource,
        ),
    ],
)
def test_content_block_round_trip(raw: dict[str, Any], cls: type[Any]) -> None:
    block = parse_content_block(raw)
    assert type(block) is cls
    assert to_wire(block) == raw


def test_embedded_resource_kinds() -> None:
    text = parse_content_block({"type": "resource", "resource": {"uri": "u", "text": "t"}})
    blob = parse_content_block({"type": "resource", "resource": {"uri": "u", "blob": "AA=="}})
    assert isinstance(text, m.EmbeddedResource) and isinstance(blob, m.EmbeddedResource)
    assert isinstance(text.resource, m.TextResourceContents)
    assert isinstance(blob.resource, m.BlobResourceContents)


def test_extra_fields_survive_round_trip() -> None:
    raw = {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "t",
        "vendorField": {"nested": [1, None]},
        "content": [
            {
                "type": "content",
                "content": {"type": "text", "text": "x", "futureField": True},
                "alsoNew": 1,
            }
        ],
        "_meta": {"vendor.com/x": 1},
    }
    parsed = parse_session_update(raw)
    assert isinstance(parsed, m.ToolCall)
    assert parsed.model_extra == {"vendorField": {"nested": [1, None]}}
    assert parsed.meta == {"vendor.com/x": 1}
    assert to_wire(parsed) == raw


def test_session_info_update_explicit_null_kept() -> None:
    raw = {"sessionUpdate": "session_info_update", "title": None, "_meta": {"branch": None}}
    parsed = parse_session_update(raw)
    assert isinstance(parsed, m.SessionInfoUpdate)
    assert "title" in parsed.model_fields_set
    assert "updated_at" not in parsed.model_fields_set
    assert to_wire(parsed) == raw
    # Built in Python: an explicit None is dumped, an untouched field is not.
    assert to_wire(m.SessionInfoUpdate(title=None)) == {
        "sessionUpdate": "session_info_update",
        "title": None,
    }
    assert to_wire(m.SessionInfoUpdate(updated_at="2025-01-01T00:00:00Z")) == {
        "sessionUpdate": "session_info_update",
        "updatedAt": "2025-01-01T00:00:00Z",
    }
    # _meta: null (clear all) survives too.
    clear = {"sessionUpdate": "session_info_update", "_meta": None}
    assert to_wire(parse_session_update(clear)) == clear


def test_state_update_both_spellings() -> None:
    usage = {"totalTokens": 10, "inputTokens": 6, "outputTokens": 4}
    v2 = parse_session_update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn", "usage": usage}
    )
    seed = parse_session_update(
        {
            "sessionUpdate": "state_change",
            "state": "idle",
            "stop_reason": "end_turn",
            "usage": usage,
        }
    )
    for parsed in (v2, seed):
        assert isinstance(parsed, m.StateUpdate)
        assert parsed.state == "idle"
        assert parsed.stop_reason == m.StopReason.END_TURN
        assert parsed.usage is not None and parsed.usage.total_tokens == 10
    assert isinstance(seed, m.StateUpdate) and seed.session_update == "state_change"
    running = parse_session_update({"sessionUpdate": "state_change", "state": "running"})
    assert isinstance(running, m.StateUpdate) and running.stop_reason is None
    action = parse_session_update({"sessionUpdate": "state_change", "state": "requires_action"})
    assert isinstance(action, m.StateUpdate) and action.state == "requires_action"


def test_state_update_malformed_stop_reason_is_not_reported() -> None:
    parsed = parse_session_update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": 7}
    )
    assert isinstance(parsed, m.StateUpdate)
    assert parsed.stop_reason is None


def test_session_notification_parses_update_tolerantly() -> None:
    note = m.SessionNotification.model_validate(
        {"sessionId": "s1", "update": {"sessionUpdate": "nope", "a": 1}}
    )
    assert note.session_id == "s1"
    assert isinstance(note.update, m.UnknownSessionUpdate)
    ok = m.SessionNotification.model_validate(
        {"sessionId": "s1", "update": {"sessionUpdate": "usage_update", "used": 1, "size": 9}}
    )
    assert isinstance(ok.update, m.UsageUpdate)
    assert to_wire(ok) == {
        "sessionId": "s1",
        "update": {"sessionUpdate": "usage_update", "used": 1, "size": 9},
    }


JSON_LEAF = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
JSON = st.recursive(
    JSON_LEAF,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
KNOWN_KINDS = st.sampled_from(sorted(m.SESSION_UPDATE_MODELS)) | st.text(max_size=12)
FIELD_NAMES = st.sampled_from(
    [
        "content", "messageId", "toolCallId", "title", "kind", "status", "entries", "plan",
        "used", "size", "cost", "state", "stopReason", "stop_reason", "usage", "configOptions",
        "availableCommands", "currentModeId", "_meta", "sessionId", "terminalId", "data",
        "locations", "rawInput", "summary", "compactionId", "severity", "type", "text",
    ]
) | st.text(max_size=8)  # fmt: skip


@st.composite
def update_dicts(draw: st.DrawFn) -> dict[str, Any]:
    raw = draw(st.dictionaries(FIELD_NAMES, JSON, max_size=6))
    if draw(st.booleans()):
        raw["sessionUpdate"] = draw(KNOWN_KINDS | JSON)
    return raw


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(update_dicts())
def test_parse_session_update_never_raises(raw: dict[str, Any]) -> None:
    snapshot = copy.deepcopy(raw)
    parsed = parse_session_update(raw)
    assert raw == snapshot
    if isinstance(parsed, m.UnknownSessionUpdate):
        assert parsed.raw is raw
    # Whatever came back can be dumped again.
    wire = to_wire(parsed)
    assert isinstance(wire, dict)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_parse_content_block_never_raises(raw: Any) -> None:
    block = parse_content_block(raw)
    assert isinstance(block, (m.UnknownContentBlock, *m.ContentBlockModel.__args__))


# --------------------------------------------------------------------------------------
# Requests and responses
# --------------------------------------------------------------------------------------


def test_initialize_round_trip() -> None:
    request = m.InitializeRequest(
        client_capabilities=m.ClientCapabilities(
            fs=m.FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=True,
            session=m.ClientSessionCapabilities(notices=m.EmptyCapability()),
        ),
        client_info=m.Implementation(name="acp-tui", title="ACP TUI", version="0.1.0"),
    )
    assert to_wire(request) == {
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "session": {"notices": {}},
        },
        "clientInfo": {"name": "acp-tui", "title": "ACP TUI", "version": "0.1.0"},
    }
    assert to_wire(m.InitializeRequest()) == {"protocolVersion": PROTOCOL_VERSION}

    raw = {
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "fork": {}},
        },
        "authMethods": [
            {"id": "oauth", "name": "Log in", "description": "Browser login"},
            {
                "id": "tui",
                "name": "Terminal",
                "type": "terminal",
                "args": ["--login"],
                "env": {"A": "1"},
            },
        ],
        "agentInfo": {"name": "demo", "version": "1.0"},
    }
    response = m.InitializeResponse.model_validate(raw)
    caps = response.agent_capabilities
    assert caps.load_session and caps.prompt_capabilities.image
    assert caps.can_list and caps.can_resume and caps.can_close and caps.can_fork
    assert not caps.can_delete
    assert response.auth_methods[1].type == "terminal"
    assert to_wire(response) == raw


def test_initialize_response_defaults() -> None:
    response = m.InitializeResponse.model_validate({"protocolVersion": 1})
    assert response.agent_capabilities.load_session is False
    assert response.auth_methods == []
    assert not response.agent_capabilities.can_list


@pytest.mark.parametrize(
    ("cls", "raw"),
    [
        (m.AuthenticateRequest, {"methodId": "oauth"}),
        (
            m.NewSessionRequest,
            {
                "cwd": "/home/user/project",
                "mcpServers": [
                    {
                        "name": "filesystem",
                        "command": "/path/to/mcp-server",
                        "args": ["--stdio"],
                        "env": [{"name": "API_KEY", "value": "secret123"}],
                    },
                    {
                        "type": "http",
                        "name": "api-server",
                        "url": "https://api.example.com/mcp",
                        "headers": [{"name": "Authorization", "value": "Bearer token123"}],
                    },
                    {
                        "type": "sse",
                        "name": "events",
                        "url": "https://e.example.com/sse",
                        "headers": [],
                    },
                ],
            },
        ),
        (
            m.NewSessionResponse,
            {
                "sessionId": "sess_abc123def456",
                "modes": {
                    "currentModeId": "ask",
                    "availableModes": [
                        {"id": "ask", "name": "Ask", "description": "Request permission"},
                        {"id": "code", "name": "Code"},
                    ],
                },
                "configOptions": [
                    {
                        "id": "model",
                        "name": "Model",
                        "type": "select",
                        "category": "model",
                        "currentValue": "a",
                        "options": [{"value": "a", "name": "A"}],
                    }
                ],
            },
        ),
        (m.LoadSessionRequest, {"sessionId": "s", "cwd": "/p", "mcpServers": []}),
        (m.LoadSessionResponse, {}),
        (m.ResumeSessionRequest, {"sessionId": "s", "cwd": "/p", "mcpServers": []}),
        (m.ResumeSessionResponse, {"modes": None}),
        (m.ForkSessionRequest, {"sessionId": "s", "cwd": "/p", "mcpServers": []}),
        (m.ForkSessionResponse, {"sessionId": "s2"}),
        (m.CloseSessionRequest, {"sessionId": "s"}),
        (m.DeleteSessionRequest, {"sessionId": "s"}),
        (m.ListSessionsRequest, {"cwd": "/home/user/project", "cursor": "eyJwYWdlIjogMn0="}),
        (m.ListSessionsRequest, {}),
        (
            m.ListSessionsResponse,
            {
                "sessions": [
                    {
                        "sessionId": "sess_abc123def456",
                        "cwd": "/home/user/project",
                        "title": "Implement session list API",
                        "updatedAt": "2025-10-29T14:22:15Z",
                        "_meta": {"messageCount": 12, "hasErrors": False},
                    },
                    {"sessionId": "sess_2", "cwd": "/p", "title": None},
                ],
                "nextCursor": "eyJwYWdlIjogM30=",
            },
        ),
        (
            m.PromptRequest,
            {
                "sessionId": "s",
                "prompt": [TEXT, {"type": "resource_link", "uri": "file:///a", "name": "a"}],
            },
        ),
        (
            m.PromptResponse,
            {
                "stopReason": "end_turn",
                "usage": {
                    "totalTokens": 53000,
                    "inputTokens": 35000,
                    "outputTokens": 12000,
                    "thoughtTokens": 5000,
                    "cachedReadTokens": 5000,
                    "cachedWriteTokens": 1000,
                },
            },
        ),
        (m.PromptResponse, {"messageId": "mess_456def"}),
        (m.CancelNotification, {"sessionId": "s"}),
        (m.CancelRequestNotification, {"requestId": 7}),
        (m.CancelRequestNotification, {"requestId": "abc"}),
        (m.SetSessionModeRequest, {"sessionId": "s", "modeId": "code"}),
        (m.SetSessionConfigOptionRequest, {"sessionId": "s", "configId": "model", "value": "opus"}),
        (
            m.SetSessionConfigOptionRequest,
            {"sessionId": "s", "configId": "fast", "type": "boolean", "value": True},
        ),
        (
            m.SetSessionConfigOptionResponse,
            {
                "configOptions": [
                    {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": True}
                ]
            },
        ),
        (
            m.RequestPermissionRequest,
            {
                "sessionId": "s",
                "toolCall": {"toolCallId": "call_001", "title": "rm -rf build", "kind": "execute"},
                "options": [
                    {"optionId": "a1", "name": "Allow once", "kind": "allow_once"},
                    {"optionId": "a2", "name": "Always", "kind": "allow_always"},
                    {"optionId": "r1", "name": "Reject", "kind": "reject_once"},
                    {"optionId": "r2", "name": "Never", "kind": "reject_always"},
                ],
            },
        ),
        (m.RequestPermissionResponse, {"outcome": {"outcome": "selected", "optionId": "a1"}}),
        (m.RequestPermissionResponse, {"outcome": {"outcome": "cancelled"}}),
        (m.ReadTextFileRequest, {"sessionId": "s", "path": "/a.py", "line": 10, "limit": 50}),
        (m.ReadTextFileResponse, {"content": "def f(): ..."}),
        (m.WriteTextFileRequest, {"sessionId": "s", "path": "/a.py", "content": "x"}),
        (m.WriteTextFileResponse, {}),
        (
            m.CreateTerminalRequest,
            {
                "sessionId": "s",
                "command": "npm",
                "args": ["test", "--coverage"],
                "env": [{"name": "NODE_ENV", "value": "test"}],
                "cwd": "/home/user/project",
                "outputByteLimit": 1048576,
            },
        ),
        (m.CreateTerminalResponse, {"terminalId": "term_xyz789"}),
        (m.TerminalOutputRequest, {"sessionId": "s", "terminalId": "t"}),
        (
            m.TerminalOutputResponse,
            {"output": "ok\n", "truncated": False, "exitStatus": {"exitCode": 0, "signal": None}},
        ),
        (m.WaitForTerminalExitRequest, {"sessionId": "s", "terminalId": "t"}),
        (m.WaitForTerminalExitResponse, {"exitCode": None, "signal": "SIGKILL"}),
        (m.KillTerminalRequest, {"sessionId": "s", "terminalId": "t"}),
        (m.KillTerminalResponse, {}),
        (m.ReleaseTerminalRequest, {"sessionId": "s", "terminalId": "t"}),
        (m.ReleaseTerminalResponse, {}),
        (
            m.CreateElicitationRequest,
            {
                "message": "Pick a region",
                "mode": "form",
                "sessionId": "s",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"region": {"type": "string", "enum": ["eu", "us"]}},
                    "required": ["region"],
                },
            },
        ),
        (
            m.CreateElicitationRequest,
            {
                "message": "Log in",
                "mode": "url",
                "elicitationId": "e1",
                "url": "https://x",
                "requestId": 3,
            },
        ),
        (m.CreateElicitationResponse, {"action": "accept", "content": {"region": "eu"}}),
        (m.CreateElicitationResponse, {"action": "decline"}),
        (m.CompleteElicitationNotification, {"elicitationId": "e1"}),
    ],
)
def test_request_response_round_trip(cls: type[m.AcpModel], raw: dict[str, Any]) -> None:
    parsed = cls.model_validate(raw)
    assert to_wire(parsed) == raw


def test_mcp_server_variants() -> None:
    request = m.NewSessionRequest.model_validate(
        m.NewSessionRequest(
            cwd="/p",
            mcp_servers=[
                m.McpServerStdio(name="fs", command="/bin/fs"),
                m.McpServerHttp(name="h", url="https://h"),
                m.McpServerSse(name="s", url="https://s"),
            ],
        ).model_dump(by_alias=True)
    )
    kinds = [type(s) for s in request.mcp_servers]
    assert kinds == [m.McpServerStdio, m.McpServerHttp, m.McpServerSse]
    assert to_wire(
        m.NewSessionRequest(cwd="/p", mcp_servers=[m.McpServerStdio(name="fs", command="/bin/fs")])
    ) == {
        "cwd": "/p",
        "mcpServers": [{"name": "fs", "command": "/bin/fs", "args": [], "env": []}],
    }


def test_python_construction_dumps_discriminators() -> None:
    assert to_wire(m.TextContent(text="hi")) == {"type": "text", "text": "hi"}
    assert to_wire(m.AgentMessageChunk(content=m.TextContent(text="x"))) == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "x"},
    }
    assert to_wire(m.RequestPermissionResponse.selected("o1")) == {
        "outcome": {"outcome": "selected", "optionId": "o1"}
    }
    assert to_wire(m.RequestPermissionResponse.cancelled()) == {"outcome": {"outcome": "cancelled"}}
    assert to_wire(m.SetSessionConfigOptionRequest(session_id="s", config_id="c", value=True)) == {
        "sessionId": "s",
        "configId": "c",
        "value": True,
        "type": "boolean",
    }
    prompt = m.PromptRequest(session_id="s", prompt=[m.TextContent(text="hi")])
    assert to_wire(prompt) == {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}


def test_snake_case_input_accepted() -> None:
    parsed = m.ListSessionsResponse.model_validate(
        {"sessions": [{"session_id": "s", "cwd": "/p"}], "next_cursor": "c"}
    )
    assert parsed.sessions[0].session_id == "s" and parsed.next_cursor == "c"
    assert to_wire(parsed) == {"sessions": [{"sessionId": "s", "cwd": "/p"}], "nextCursor": "c"}


def test_method_tables() -> None:
    assert Method.SESSION_UPDATE == "session/update"
    assert Method.CANCEL_REQUEST == "$/cancel_request"
    assert m.REQUEST_PARAMS[Method.FS_READ_TEXT_FILE] is m.ReadTextFileRequest
    assert m.RESPONSE_RESULTS["session/prompt"] is m.PromptResponse
    for table in (m.REQUEST_PARAMS, m.RESPONSE_RESULTS):
        assert set(table) <= {str(x) for x in Method}


def test_error_codes() -> None:
    assert ErrorCode.PARSE_ERROR == -32700
    assert ErrorCode.INVALID_REQUEST == -32600
    assert ErrorCode.METHOD_NOT_FOUND == -32601
    assert ErrorCode.INVALID_PARAMS == -32602
    assert ErrorCode.INTERNAL_ERROR == -32603
    assert ErrorCode.REQUEST_CANCELLED == -32800
    assert ErrorCode.AUTH_REQUIRED == -32000
    assert ErrorCode.RESOURCE_NOT_FOUND == -32002


def test_every_model_has_a_docs_link() -> None:
    for name in m.__all__:
        obj = getattr(m, name)
        if isinstance(obj, type) and issubclass(obj, m.BaseModel):
            assert obj.__doc__ and "https://" in obj.__doc__.splitlines()[0], name


def test_import_is_light() -> None:
    code = (
        "import sys, acp_tui.protocol.models; "
        "bad = [n for n in sys.modules if n.split('.')[0] in ('textual', 'rich')]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
