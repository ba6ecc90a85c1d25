"""SessionController without a screen: MCP servers passed per the agent's capabilities."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.session.agent.controller import ControllerEvents, SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.launch.spec import AgentSpec
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
    controller = SessionController(
        AgentSpec(
            [sys.executable, str(agent), str(received)], cwd=str(tmp_path), mcp_servers=servers
        ),
        store=SessionStore(),
        face=FaceHooks(events=ControllerEvents(on_error=errors.append)),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        with anyio.fail_after(60):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
        controller.request_stop()
    new = next(
        m
        for m in map(json.loads, received.read_text().splitlines())
        if m["method"] == "session/new"
    )
    names = [server["name"] for server in new["params"]["mcpServers"]]
    assert names == ["files", "web"]
    assert any("events" in error and "sse" in error.lower() for error in errors)


FIXTURE_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "fixture_agent.py")]


def sent(controller: SessionController) -> list[tuple[str, Any]]:
    assert controller.client is not None
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message:
                out.append((message["method"], message.get("params")))
    return out


async def test_no_session_is_made_until_asked_and_what_waited_goes_out_after_the_choices(
    tmp_path: Path,
) -> None:
    """The link makes no session on its own (the opener decides); messages queued for the
    new session go out in order once it exists, after the mode and model chosen for it."""
    store = SessionStore()
    controller = SessionController(AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path)), store=store)

    async def open_nothing(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, open_nothing)
        with anyio.fail_after(10):
            await controller.ready.wait()
        controller.prompts.add(None, "first")
        controller.prompts.add(None, "second")
        await anyio.sleep(0.2)
        assert [method for method, _ in sent(controller)] == ["initialize"]
        session_id = await controller.new_session(adopt=True, mode="ask", config={"model": "deep"})
        with anyio.fail_after(10):
            while len(
                [m for m, _ in sent(controller) if m == "session/prompt"]
            ) < 2 or controller.is_busy(session_id):
                await anyio.sleep(0.02)
        controller.request_stop()
    methods = [method for method, _ in sent(controller) if method != "initialize"]
    assert methods == [
        "session/new",
        "session/set_mode",
        "session/set_config_option",
        "session/prompt",
        "session/prompt",
    ]
    prompts = [p["prompt"][0]["text"] for m, p in sent(controller) if m == "session/prompt"]
    assert prompts == ["first", "second"]
    state = store.get(session_id)
    assert state is not None and not state.draft and state.current_mode_id == "ask"
    assert controller.prompts.items(None) == [] and controller.prompts.items(session_id) == []


async def test_a_new_session_is_a_draft_until_its_first_prompt(tmp_path: Path) -> None:
    store = SessionStore()
    controller = SessionController(AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path)), store=store)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)  # no opener: a new session, as before
        with anyio.fail_after(10):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
        session_id = controller.current_session_id
        state = store.get(session_id)
        assert state is not None and state.draft and state.live
        assert store.catalog() == []  # never listed while unused
        controller.send_prompt(session_id, "hello")
        assert not state.draft and [s.id for s in store.catalog()] == [session_id]
        controller.request_stop()


async def test_an_intent_after_the_agent_stopped_is_an_error_event_not_a_crash(
    tmp_path: Path,
) -> None:
    """A click or key that spawns work (cancel, set a mode…) just as the agent stops must be
    told the agent is not running: the closed task group once raised in the UI."""
    agent = tmp_path / "agent.py"
    agent.write_text(RECORDING_AGENT)
    errors: list[str] = []
    controller = SessionController(
        AgentSpec(
            [sys.executable, str(agent), str(tmp_path / "received.jsonl")], cwd=str(tmp_path)
        ),
        store=SessionStore(),
        face=FaceHooks(events=ControllerEvents(on_error=errors.append)),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        with anyio.fail_after(60):
            await controller.ready.wait()
        controller.request_stop()
        with anyio.fail_after(60):
            await controller.finished.wait()
    ran: list[str] = []

    async def job() -> None:
        ran.append("ran")

    controller.spawn(job, "cancel")
    assert ran == [] and errors == ["cancel: the agent is not running"]
