"""Protocol v2, opt-in: a whole session through the link against the demo agent speaking the v2
draft, every message the client sends checked against the v2 schema; a v1 answer to a v2
request means v1 behaviour; sign-in uses auth/login and never with a terminal method."""

from __future__ import annotations

import base64
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.protocol import v2
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.agent.mcp import select_mcp_servers
from acp_tui.session.auth.methods import AuthMethod, TerminalLogin
from acp_tui.session.errors import SessionError
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, Notice, ToolCall, UserMessage
from tests.demo_agent import schema_check

pytestmark = pytest.mark.anyio

FIXTURE_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "fixture_agent.py")]


def wire(controller: SessionController, direction: str) -> list[dict[str, Any]]:
    assert controller.client is not None
    return [
        json.loads(r.text)
        for r in list(controller.client.connection.traffic)
        if r.direction == direction and r.text
    ]


def requests(controller: SessionController) -> list[tuple[str, Any]]:
    return [(m["method"], m.get("params")) for m in wire(controller, "out") if "method" in m]


def check_client_messages(controller: SessionController, version: int) -> int:
    """Every message the client wrote fits the schema of ``version`` (answers are checked
    against the request they answer)."""
    asked = {m["id"]: m["method"] for m in wire(controller, "in") if "method" in m and "id" in m}
    checked = 0
    for message in wire(controller, "out"):
        answered = asked.get(message.get("id")) if "method" not in message else None
        schema_check.check_message(message, version, answered_method=answered)
        checked += 1
    return checked


async def wait(predicate: Any, what: str, seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.02)


async def allow_once(params: dict[str, Any]) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


def users(store: SessionStore, sid: str) -> list[str]:
    state = store.get(sid)
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, UserMessage)]


async def test_a_whole_v2_session_tool_call_permission_terminal_and_turns(tmp_path: Path) -> None:
    store = SessionStore()
    asked: list[dict[str, Any]] = []

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return await allow_once(params)

    controller = SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0),
            cwd=str(tmp_path),
            protocol_version=2,
        ),
        store=store,
        face=FaceHooks(permission_handler=permission),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        assert (
            controller.v2_lifecycle
            and controller.agent is not None
            and controller.agent.protocol_version == 2
        )
        state = store.get(sid)
        assert state is not None and state.commands  # v2: commands come in the response
        controller.send_prompt(sid, "/run echo v2-terminal")
        await wait(lambda: asked, "the permission request")
        await wait(lambda: not controller.is_busy(sid), "the turn to end on state_update idle")
        assert state.stop_reason == "end_turn"
        # The permission request named the tool call; the tool call shows the agent's own
        # terminal, whose output arrived as terminal_output_chunk.
        assert "echo v2-terminal" in json.dumps(asked[0]["toolCall"])
        tool = next(e for e in state.transcript if isinstance(e, ToolCall))
        terminal_id = next(c["terminalId"] for c in tool.content if c.get("type") == "terminal")
        terminal = controller.terminal_state(terminal_id)
        assert terminal is not None and "v2-terminal" in terminal.output
        assert terminal.exit_status is not None and terminal.exit_status.describe() == "exit 0"
        # A second turn; two messages at once both go out at once (v2 accepts them any time).
        controller.send_prompt(sid, "second")
        controller.send_prompt(sid, "third")
        assert not controller.prompts.has(sid)
        await wait(
            lambda: (
                not controller.is_busy(sid)
                and sum(isinstance(e, AgentMessage) for e in state.transcript) >= 3
            ),
            "both answered",
        )
        controller.request_stop()
    assert users(store, sid) == ["/run echo v2-terminal", "second", "third"]
    methods = [m for m, _ in requests(controller)]
    assert "session/load" not in methods and "authenticate" not in methods
    initialize = requests(controller)[0][1]
    assert initialize["protocolVersion"] == 2 and initialize["capabilities"]["auth"] == {
        "terminal": {}
    }
    assert check_client_messages(controller, 2) >= 6


async def test_v2_reopens_with_resume_and_replay_from_the_start(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    first = SessionController(
        AgentSpec(
            demo_agent_argv(str(state_dir), chunk_delay=0), cwd=str(tmp_path), protocol_version=2
        ),
        store=SessionStore(),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(first.run)
        await wait(lambda: first.current_session_id is not None, "the session")
        sid = first.current_session_id
        assert sid is not None
        first.send_prompt(sid, "remember me")
        await wait(lambda: not first.is_busy(sid), "the turn")
        first.request_stop()
    store = SessionStore()

    async def reopen(controller: SessionController) -> None:
        await controller.open_session(sid)

    second = SessionController(
        AgentSpec(
            demo_agent_argv(str(state_dir), chunk_delay=0), cwd=str(tmp_path), protocol_version=2
        ),
        store=store,
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(second.run, reopen)
        await wait(lambda: second.current_session_id == sid, "reopened")
        await wait(lambda: users(store, sid) == ["remember me"], "the replay")
        second.send_prompt(sid, "and now")
        await wait(lambda: not second.is_busy(sid) and len(users(store, sid)) == 2, "a turn")
        second.request_stop()
    resume = [p for m, p in requests(second) if m == "session/resume"]
    assert resume and resume[0]["replayFrom"] == {"type": "start"}
    assert "session/load" not in [m for m, _ in requests(second)]
    check_client_messages(second, 2)


async def test_a_replay_cut_short_is_told_apart_from_a_whole_one(tmp_path: Path) -> None:
    """The agent dies halfway through the replay of a resume (``--cut-replays``): no
    ``replay_complete``, no answer. What arrived is shown, and said to be cut short; the
    same replay run to its end says nothing of the kind."""
    state_dir = tmp_path / "state"
    first = SessionController(
        AgentSpec(
            demo_agent_argv(str(state_dir), chunk_delay=0), cwd=str(tmp_path), protocol_version=2
        ),
        store=SessionStore(),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(first.run)
        await wait(lambda: first.current_session_id is not None, "the session")
        sid = first.current_session_id
        assert sid is not None
        for text in ("one", "two", "three"):
            first.send_prompt(sid, text)
            await wait(lambda: not first.is_busy(sid), "the turn")
        first.request_stop()

    async def reopen(controller: SessionController) -> None:
        with contextlib.suppress(SessionError):
            await controller.open_session(sid)

    for cut in (True, False):
        store = SessionStore()
        controller = SessionController(
            AgentSpec(
                demo_agent_argv(str(state_dir), chunk_delay=0, cut_replays=cut),
                cwd=str(tmp_path),
                protocol_version=2,
            ),
            store=store,
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(controller.run, reopen)
            if cut:
                await wait(controller.finished.is_set, "the agent to die mid-replay")
            else:
                await wait(lambda c=controller: c.current_session_id == sid, "reopened")
                controller.request_stop()
        state = store.get(sid)
        assert state is not None and not state.replaying
        said = [e.title for e in state.transcript if isinstance(e, Notice)]
        if cut:
            assert 0 < len(users(store, sid)) < 3
            assert any("cut short" in title for title in said), said
        else:
            assert users(store, sid) == ["one", "two", "three"]
            assert not any("cut short" in title for title in said), said


async def test_a_v1_answer_to_a_v2_request_means_v1_from_then_on(tmp_path: Path) -> None:
    store = SessionStore()
    controller = SessionController(
        AgentSpec(FIXTURE_AGENT, cwd=str(tmp_path), protocol_version=2), store=store
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        assert not controller.v2_lifecycle and store.protocol_version == 1
        controller.send_prompt(sid, "one")
        controller.send_prompt(sid, "two")
        assert [q.text for q in controller.prompts.items(sid)] == ["two"]  # v1: one turn at a time
        await wait(
            lambda: not controller.is_busy(sid) and not controller.prompts.has(sid), "both turns"
        )
        await wait(lambda: not controller.is_busy(sid), "the last turn")
        controller.request_stop()
    initialize = requests(controller)[0][1]
    # One request that reads right either way.
    schema_check.check(initialize, "InitializeRequest", 1)
    schema_check.check(initialize, "InitializeRequest", 2)
    assert initialize["clientCapabilities"]["auth"] == {"terminal": True}
    check_client_messages(controller, 1)


async def test_v2_sign_in_uses_auth_login_and_runs_terminal_methods(tmp_path: Path) -> None:
    kinds: list[list[str]] = []
    ran: list[TerminalLogin] = []

    async def choose(listed: list[AuthMethod], reason: str) -> str | None:
        kinds.append([m.kind for m in listed])
        wanted = "terminal" if not ran else "agent"
        return next(m.id for m in listed if m.kind == wanted)

    async def run(login: TerminalLogin) -> int:
        ran.append(login)
        return 1  # the person gave up: the agent method is tried next time

    store = SessionStore()
    controller = SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0, require_auth=True),
            cwd=str(tmp_path),
            protocol_version=2,
        ),
        store=store,
        face=FaceHooks(choose_auth=choose, run_terminal_login=run),
    )
    errors: list[str] = []
    controller.events.on_error = errors.append
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: errors, "the failed terminal sign-in reported")
        assert controller.current_session_id is None
        sid = await controller.new_session()
        assert controller.can_logout
        await controller.logout()
        controller.request_stop()
    assert kinds == [["terminal", "agent"], ["terminal", "agent"]]
    assert [login.argv[-1] for login in ran] == ["--login"]
    logins = [p["methodId"] for m, p in requests(controller) if m == "auth/login"]
    assert logins == ["demo-sign-in"]
    assert [m for m, _ in requests(controller) if m == "auth/logout"] == ["auth/logout"]
    assert sid
    check_client_messages(controller, 2)


def test_v2_capabilities_read_as_the_clients_own() -> None:
    caps = v2.agent_capabilities(
        {
            "protocolVersion": 2,
            "info": {"name": "a"},
            "capabilities": {
                "session": {"prompt": {"image": {}}, "delete": {}, "fork": {}, "mcp": {"http": {}}}
            },
            "authMethods": [{"type": "agent", "methodId": "x", "name": "X"}],
        }
    )
    assert caps["loadSession"] is False
    assert set(caps["sessionCapabilities"]) == {"list", "resume", "close", "delete", "fork"}
    assert caps["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": False}
    assert caps["mcpCapabilities"] == {"stdio": False, "http": True, "sse": False}
    assert caps["auth"] == {"logout": {}}
    assert v2.agent_capabilities({"protocolVersion": 2, "info": {}}) == {"loadSession": False}


def test_v2_stdio_mcp_servers_go_only_to_an_agent_that_takes_them() -> None:
    """The preview's layout makes stdio an opt-in marker like http (``session.mcp.stdio``);
    v1 has no such key and every v1 agent takes stdio servers."""
    servers = [{"name": "tools", "command": "/bin/true"}]

    def v2_answer(mcp: dict[str, Any]) -> dict[str, Any]:
        caps = {"session": {"mcp": mcp}}
        return v2.agent_capabilities({"protocolVersion": 2, "info": {}, "capabilities": caps})

    kept, notes = select_mcp_servers(servers, v2_answer({}))
    assert kept == [] and "session.mcp.stdio" in notes[0]
    kept, notes = select_mcp_servers(servers, v2_answer({"stdio": {}}))
    assert [s["name"] for s in kept] == ["tools"] and notes == []
    kept, _ = select_mcp_servers(servers, {"mcpCapabilities": {"http": False}})  # v1
    assert [s["name"] for s in kept] == ["tools"]


def test_v2_permission_subjects_become_the_dialogs_tool_call() -> None:
    params, upsert = v2.permission_params(
        {
            "sessionId": "s",
            "title": "Allow: run it",
            "subject": {"type": "command", "command": "ls", "cwd": "/w", "toolCallId": "t1"},
            "options": [],
        }
    )
    assert upsert is None and params["toolCall"]["toolCallId"] == "t1"
    assert v2.with_prompt_title(params)["toolCall"]["title"] == "Allow: run it"
    params, upsert = v2.permission_params(
        {
            "sessionId": "s",
            "title": "Allow?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t2", "title": "Edit"}},
            "options": [],
        }
    )
    assert upsert == {"toolCallId": "t2", "title": "Edit"}
    assert v2.with_prompt_title(params)["toolCall"]["title"] == "Edit"


def test_agent_terminals_upsert_append_and_replace() -> None:
    store = SessionStore(protocol_version=2)
    store.register_session("s", cwd="/w", new=True)

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    store.apply_update(
        "s", {"sessionUpdate": "terminal_update", "terminalId": "t", "command": "ls"}
    )
    store.apply_update(
        "s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": b64("a")}
    )
    store.apply_update(
        "s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": b64("b")}
    )
    terminal = store.agent_terminal("t")
    assert terminal is not None and terminal.output == "ab" and terminal.command_line == "ls"
    store.apply_update(
        "s",
        {"sessionUpdate": "terminal_update", "terminalId": "t", "output": {"data": b64("new")}},
    )
    assert terminal.output == "new" and terminal.exit_status is None
    store.apply_update(
        "s",
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t",
            "exitStatus": {"signal": "SIGTERM"},
        },
    )
    assert (
        terminal.exit_status is not None and terminal.exit_status.describe() == "killed by SIGTERM"
    )
    # Bad data is an unknown update (kept for the inspector), not a crash.
    store.apply_update(
        "s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "!!"}
    )
    assert terminal.output == "new"


def test_v2_echoes_of_prompts_sent_together_bind_in_the_order_they_were_sent() -> None:
    store = SessionStore(protocol_version=2)
    store.register_session("s", cwd="/w", new=True)
    store.prompt_sent("s", "second")
    store.prompt_sent("s", "third")
    for mid, text in (("m2", "second"), ("m3", "third")):
        store.apply_update(
            "s",
            {
                "sessionUpdate": "user_message",
                "messageId": mid,
                "content": [{"type": "text", "text": text}],
            },
        )
    state = store.get("s")
    assert state is not None
    assert [(e.message_id, e.text) for e in state.transcript if isinstance(e, UserMessage)] == [
        ("m2", "second"),
        ("m3", "third"),
    ]


def test_v2_tool_call_nulls_reset_fields_and_v1_nulls_leave_them() -> None:
    def final(version: int) -> ToolCall:
        store = SessionStore(protocol_version=version)
        store.register_session("s", cwd="/w", new=True)
        kind = "tool_call_update" if version == 2 else "tool_call"
        store.apply_update(
            "s",
            {
                "sessionUpdate": kind,
                "toolCallId": "t",
                "title": "Edit",
                "kind": "edit",
                "status": "in_progress",
                "content": [{"type": "content", "content": {"type": "text", "text": "x"}}],
            },
        )
        store.apply_update(
            "s",
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t",
                "title": None,
                "kind": None,
                "status": None,
                "content": None,
            },
        )
        state = store.get("s")
        assert state is not None
        return state.tool_index["t"]

    v2_call = final(2)
    assert (v2_call.title, v2_call.tool_kind, v2_call.status, v2_call.content) == (
        "",
        "other",
        "pending",
        [],
    )
    v1_call = final(1)
    assert (v1_call.title, v1_call.tool_kind, v1_call.status) == ("Edit", "edit", "in_progress")


async def test_v2_cancel_ends_the_turn_with_a_notice(tmp_path: Path) -> None:
    store = SessionStore()
    controller = SessionController(
        AgentSpec(
            demo_agent_argv(str(tmp_path / "state"), chunk_delay=0.02),
            cwd=str(tmp_path),
            protocol_version=2,
        ),
        store=store,
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await wait(lambda: controller.current_session_id is not None, "the session")
        sid = controller.current_session_id
        assert sid is not None
        state = store.get(sid)
        assert state is not None
        controller.send_prompt(sid, "/slow")
        await wait(
            lambda: (state.state_detail or {}).get("state") == "running", "the agent running"
        )
        await controller.cancel(sid)
        await wait(lambda: not controller.is_busy(sid), "the cancelled turn to end")
        controller.request_stop()
    assert state.stop_reason == "cancelled"
    assert any(getattr(e, "title", "") == "Cancelled" for e in state.transcript)
    check_client_messages(controller, 2)
