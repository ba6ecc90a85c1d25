"""The controller reopens a session with session/load when the agent advertises
session/resume but answers it "method not found" (pydantic-acp and the TS SDK do), for the
TUI (which resumes when it holds the transcript) as for ``acp-tui ask`` (which never shows
the history, so it resumes when it can)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]


@pytest.mark.parametrize(
    ("switch", "history", "method"),
    [
        ("SDK_AGENT_RESUME_UNIMPLEMENTED", True, "load"),
        ("SDK_AGENT_RESUME_UNIMPLEMENTED", False, "load"),
        ("SDK_AGENT_RESUME", True, "resume"),
        ("SDK_AGENT_RESUME", False, "resume"),
    ],
)
async def test_open_falls_back_to_load_when_resume_is_not_implemented(
    tmp_path: Path, switch: str, history: bool, method: str
) -> None:
    store = SessionStore()
    # The TUI holds the transcript (the local index, an earlier agent run): it resumes.
    store.register_session("pre-1", cwd=str(tmp_path))
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "old"}}
    store.apply({"sessionId": "pre-1", "update": chunk})
    controller = SessionController(
        AgentSpec(SDK_AGENT, cwd=str(tmp_path), env={switch: "1"}), store=store
    )

    async def open_nothing(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as group:
        group.start_soon(controller.run, open_nothing)
        try:
            with anyio.fail_after(30):
                await controller.ready.wait()
                assert await controller.open_session("pre-1", history=history) == method
                assert controller.resume_unsupported == (method == "load")
                assert controller.is_open("pre-1")
                # Later reopens go straight to load: no second "method not found".
                if method == "load":
                    assert await controller.open_session("pre-2", history=history) == "load"
        finally:
            controller.request_stop()
    assert controller.client is not None
    calls = [
        json.loads(record.text).get("method")
        for record in list(controller.client.connection.traffic)
        if record.direction == "out" and record.text and '"method"' in record.text
    ]
    reopens = [call for call in calls if call in ("session/resume", "session/load")]
    if method == "load":  # one resume refused, then every reopen a load
        assert reopens == ["session/resume", "session/load", "session/load"]
    else:
        assert reopens == ["session/resume"]
