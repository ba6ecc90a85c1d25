"""AcpClient against a raw scripted agent that does every awkward thing: nothing is lost.

The agent (tests/agents/scripted_agent.py) keeps what it sends as data; this test imports
that data and checks every notification arrived, in order, with unknown variants and
unknown fields intact, and that the junk it printed on stdout was skipped and counted.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from acp_tui.protocol.client import AcpClient

AGENT_PATH = Path(__file__).parent / "agents" / "scripted_agent.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scripted_agent", AGENT_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = _load_script()


@pytest.mark.anyio
async def test_nothing_is_lost(tmp_path: Path) -> None:
    received: list[tuple[str, Any]] = []
    permission_requests: list[Any] = []

    async def on_permission(params: Any) -> dict[str, Any]:
        permission_requests.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "yes"}}

    with anyio.fail_after(60):
        async with AcpClient.launch(
            [sys.executable, str(AGENT_PATH)],
            cwd=tmp_path,
            log_dir=tmp_path / "logs",
            handlers={"session/request_permission": on_permission},
            on_notification=lambda method, params: received.append((method, params)),
        ) as client:
            info = await client.initialize()
            assert info.name == "scripted-agent"
            assert info.raw["vendorTopLevel"] is True
            assert info.capabilities["futureCapability"] == {"x": 1}

            new = await client.new_session(str(tmp_path))
            assert new["sessionId"] == script.SESSION_ID
            assert new["unknownField"] == {"kept": True}
            # Updates sent before the session/new response were delivered before it.
            assert received == script.BEFORE_NEW_RESPONSE

            result = await client.prompt(script.SESSION_ID, [{"type": "text", "text": "go"}])
            assert result == {"stopReason": "end_turn", "vendorStat": 7}
            assert permission_requests == [script.PERMISSION_PARAMS]

            received_reports = [
                (
                    "_scripted/received",
                    {
                        "requestId": script.PERMISSION_REQUEST_ID,
                        "response": {
                            "jsonrpc": "2.0",
                            "id": script.PERMISSION_REQUEST_ID,
                            "result": {"outcome": {"outcome": "selected", "optionId": "yes"}},
                        },
                    },
                )
            ]
            before_response = script.BEFORE_NEW_RESPONSE + script.DURING_PROMPT + received_reports
            assert received[: len(before_response)] == before_response
            # The unknown request (string id) was answered "method not found".
            unknown_report = received[len(before_response)]
            assert unknown_report[0] == "_scripted/received"
            response = unknown_report[1]["response"]
            assert response["id"] == script.UNKNOWN_REQUEST_ID
            assert response["error"]["code"] == -32601

            expected = [
                *before_response,
                unknown_report,
                *script.AFTER_PERMISSION,
                *script.AFTER_PROMPT_RESPONSE,
            ]
            # Updates after the prompt response still arrive, and the trailing junk line.
            while len(received) < len(expected) or client.connection.stats.skipped_lines < len(
                script.JUNK_LINES
            ):
                await anyio.sleep(0.01)
            assert received == expected

            stats = client.connection.stats
            assert stats.skipped_lines == len(script.JUNK_LINES)
            assert stats.invalid_messages == 0

    chunks = [
        params["update"]["content"].get("text", "")
        for method, params in received
        if method == "session/update"
        and params["sessionId"] == script.SESSION_ID
        and params["update"]["sessionUpdate"] == "agent_message_chunk"
        and params["update"]["content"]["type"] == "text"
    ]
    assert "".join(chunks) == script.CHUNK_TEXT
    variants = [p["update"]["sessionUpdate"] for m, p in received if m == "session/update"]
    for variant in (
        "vendor_magic_update",
        "state_update",
        "state_change",
        "user_message",
        "agent_message",
    ):
        assert variant in variants
