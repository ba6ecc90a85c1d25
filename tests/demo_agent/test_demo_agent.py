"""The demo agent end to end: a real subprocess, driven by the official ACP SDK client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import RequestError, text_block
from demo_helpers import Agent, RecordingClient, run_agent

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.demo_agent.texts import COMMANDS

pytestmark = pytest.mark.anyio


async def new(agent: Agent, cwd: Path) -> str:
    response = await agent.conn.new_session(cwd=str(cwd), mcp_servers=[])
    await agent.settle(response.session_id)
    return response.session_id


async def say(agent: Agent, session_id: str, text: str) -> Any:
    return await agent.conn.prompt(session_id=session_id, prompt=[text_block(text)])


# ---------------------------------------------------------------------- basics


async def test_initialize_advertises_everything(state_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        init = agent.init.model_dump(by_alias=True, exclude_none=True)
    assert init["protocolVersion"] == 1
    caps = init["agentCapabilities"]
    assert caps["loadSession"] is True
    assert set(caps["sessionCapabilities"]) >= {"list", "resume", "close", "delete"}
    assert init["agentInfo"]["name"] == "acp-tui-demo"


async def test_new_session_modes_model_and_commands(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        response = await agent.conn.new_session(cwd=str(work_dir), mcp_servers=[])
        await agent.settle(response.session_id)
        client = agent.client
    data = response.model_dump(by_alias=True, exclude_none=True)
    assert {m["id"] for m in data["modes"]["availableModes"]} == {"ask", "code", "yolo"}
    options = {o["id"]: o for o in data["configOptions"]}
    model = options["model"]
    assert model["category"] == "model" and model["type"] == "select"
    assert [v["value"] for group in model["options"] for v in group["options"]] == [
        "demo-swift",
        "demo-balanced",
        "demo-deep",
    ]
    assert options["mode"]["currentValue"] == data["modes"]["currentModeId"] == "code"
    (commands,) = client.of("available_commands_update")
    listed = {c["name"]: c for c in commands["availableCommands"]}
    assert set(listed) == {c.name for c in COMMANDS}
    assert all(c["description"] for c in listed.values())
    for name in ("title", "fill", "edit", "run", "flood", "slow"):
        assert listed[name]["input"]["hint"]
    (usage,) = client.of("usage_update")
    assert usage["used"] == 0 and usage["size"] == 200_000


async def test_prompt_streams_chunks_usage_title_and_meta(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        prompt = "please explain the architecture of this small project to me"
        response = await say(agent, sid, prompt)
        client = agent.client
        assert response.stop_reason == "end_turn"
        usage = response.usage
        assert usage is not None and usage.input_tokens > 0 and usage.output_tokens > 0
        assert usage.total_tokens >= usage.input_tokens + usage.output_tokens
        chunks = client.of("agent_message_chunk")
        assert len(chunks) > 5
        assert len({c["messageId"] for c in chunks}) == 1
        reply = client.text()
        assert prompt in reply
        (first_usage,) = client.of("usage_update")
        total_chars = len(prompt) + len(reply)
        assert abs(first_usage["used"] - total_chars / 4) <= 2
        assert first_usage["size"] == 200_000
        assert first_usage["cost"]["currency"] == "USD"
        assert first_usage["cost"]["amount"] > 0
        (info,) = client.of("session_info_update")
        assert info["title"] == "please explain the architecture of this…"
        assert info["_meta"]["messageCount"] == 2
        assert info["updatedAt"]

        client.clear()
        await say(agent, sid, "/title My renamed session")
        (info,) = client.of("session_info_update")
        assert info["title"] == "My renamed session"
        assert info["_meta"]["messageCount"] == 4
        (second_usage,) = client.of("usage_update")
        assert second_usage["cost"]["amount"] > first_usage["cost"]["amount"]
        assert second_usage["used"] > first_usage["used"]

        listed = await agent.conn.list_sessions()
        (entry,) = listed.sessions
        assert entry.title == "My renamed session"
        assert entry.field_meta == {"messageCount": 4}


async def test_help_lists_every_command(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/help")
        reply = agent.client.text()
    for command in COMMANDS:
        assert f"/{command.name}" in reply


async def test_fill_jumps_the_gauge(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        await say(agent, sid, "/fill 90")
        (usage,) = agent.client.of("usage_update")
        assert usage["used"] == 180_000
        agent.client.clear()
        await say(agent, sid, "hi")
        (usage,) = agent.client.of("usage_update")
        assert 180_000 < usage["used"] < 181_000


async def test_think_streams_thoughts_before_the_answer(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        response = await say(agent, sid, "/think")
        kinds = [k for k in agent.client.kinds() if k.endswith("_chunk")]
    assert response.usage.thought_tokens > 0
    assert kinds[0] == "agent_thought_chunk"
    assert kinds.count("agent_thought_chunk") > 3
    last_thought = max(i for i, k in enumerate(kinds) if k == "agent_thought_chunk")
    assert kinds[last_thought + 1 :] and set(kinds[last_thought + 1 :]) == {"agent_message_chunk"}


async def test_plan_progresses(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/plan")
        plans = agent.client.of("plan")
    assert len(plans) >= 3
    statuses = [[e["status"] for e in p["entries"]] for p in plans]
    assert set(statuses[0]) == {"pending"}
    assert any("in_progress" in s for s in statuses)
    assert set(statuses[-1]) == {"completed"}
    assert len(plans[-1]["entries"]) >= 3


async def test_flood_sends_n_chunks_of_markdown(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        response = await say(agent, sid, "/flood 2000")
        chunks = agent.client.of("agent_message_chunk")
    assert response.stop_reason == "end_turn"
    assert len(chunks) == 2000
    assert all(len(c["content"]["text"]) == 20 for c in chunks)
    text = "".join(c["content"]["text"] for c in chunks)
    for marker in ("## ", "- item", "```python", "| --- |"):
        assert marker in text


async def test_slow_turn_is_cancelled_promptly(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["response"] = await say(agent, sid, "/slow")

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            with anyio.fail_after(60):
                while len(agent.client.of("agent_message_chunk")) < 3:
                    await anyio.sleep(0.01)
            await agent.conn.cancel(session_id=sid)
            with anyio.fail_after(60):  # a hang guard: the turn itself would take 30 s
                while "response" not in result:
                    await anyio.sleep(0.01)
        assert result["response"].stop_reason == "cancelled"
        # It stopped then and there: the rest of the turn never came.
        assert "Finished the slow turn" not in agent.client.text()
        # The session still works after a cancelled turn.
        assert (await say(agent, sid, "still there?")).stop_reason == "end_turn"


async def test_crash_exits_non_zero_mid_turn(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        with anyio.fail_after(60):
            with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a dead peer
                await say(agent, sid, "/crash")
            returncode = await agent.process.wait()
        assert returncode != 0
        assert agent.client.of("agent_message_chunk")


# ---------------------------------------------------------------------- tools


async def test_edit_with_permission_writes_through_client(state_dir: Path, work_dir: Path) -> None:
    target = work_dir / "notes.py"
    target.write_text("print('hi')\n")
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        response = await say(agent, sid, "/edit notes.py")
        client = agent.client
    assert response.stop_reason == "end_turn"
    assert client.reads == [str(target)]
    (start,) = client.of("tool_call")
    assert start["kind"] == "edit" and start["status"] == "pending"
    (diff,) = start["content"]
    assert diff["type"] == "diff" and diff["path"] == str(target)
    assert diff["oldText"] == "print('hi')\n"
    assert diff["newText"].startswith("print('hi')\n# Edited by the acp-tui demo agent")
    assert start["locations"][0]["path"] == str(target)
    (request,) = client.permission_requests
    assert {o["kind"] for o in request["options"]} == {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }
    assert request["toolCall"]["toolCallId"] == start["toolCallId"]
    statuses = [u.get("status") for u in client.of("tool_call_update") if "status" in u]
    assert statuses == ["in_progress", "completed"]
    assert target.read_text() == diff["newText"]


async def test_edit_rejected_leaves_file_alone(state_dir: Path, work_dir: Path) -> None:
    target = work_dir / "keep.txt"
    target.write_text("original\n")
    async with run_agent(state_dir, RecordingClient(choice="reject_once")) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/edit keep.txt")
        client = agent.client
    assert target.read_text() == "original\n"
    assert client.writes == []
    assert client.of("tool_call_update")[-1]["status"] == "failed"


async def test_edit_allow_always_is_remembered(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir, RecordingClient(choice="allow_always")) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/edit new_file.md")
        await say(agent, sid, "/edit new_file.md")
        client = agent.client
    assert len(client.permission_requests) == 1
    assert len(client.writes) == 2
    assert (work_dir / "new_file.md").read_text().count("Edited by the acp-tui demo agent") == 2


async def test_edit_and_run_without_capabilities_explain(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir, fs=False, terminal=False) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "/edit a.txt")
        await say(agent, sid, "/run echo hi")
        client = agent.client
    assert client.of("tool_call") == []
    assert client.permission_requests == []
    text = client.text()
    assert "writeTextFile" in text and "terminal" in text
    assert not (work_dir / "a.txt").exists()


async def test_run_uses_a_client_terminal(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        response = await say(agent, sid, "/run echo hello-from-terminal && pwd")
        client = agent.client
    assert response.stop_reason == "end_turn"
    (start,) = client.of("tool_call")
    assert start["kind"] == "execute"
    assert len(client.permission_requests) == 1
    ((terminal_id, terminal),) = client.terminals.items()
    assert terminal.command == "/bin/sh"
    assert terminal.args == ["-c", "echo hello-from-terminal && pwd"]
    assert terminal.cwd == str(work_dir)
    assert terminal.released
    updates = client.of("tool_call_update")
    embedded = [
        u for u in updates if u.get("content") == [{"type": "terminal", "terminalId": terminal_id}]
    ]
    assert embedded
    assert updates[-1]["status"] == "completed"
    assert "hello-from-terminal" in client.text()


async def test_cancel_while_permission_is_pending(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir, RecordingClient(choice="wait")) as agent:
        sid = await new(agent, work_dir)
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["response"] = await say(agent, sid, "/edit pending.txt")

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            with anyio.fail_after(60):
                await agent.client.permission_asked.wait()
            await agent.conn.cancel(session_id=sid)
            agent.client.cancel_permissions.set()
        assert result["response"].stop_reason == "cancelled"
        assert agent.client.of("tool_call_update")[-1]["status"] == "failed"
        assert agent.client.writes == []


# ---------------------------------------------------------------------- sessions


async def test_list_pagination_and_cwd_filter(state_dir: Path, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    async with run_agent(state_dir) as agent:
        ids = []
        for index in range(23):
            sid = await new(agent, here)
            await say(agent, sid, f"session number {index}")
            ids.append(sid)
        for index in range(2):
            sid = await new(agent, there)
            await say(agent, sid, f"elsewhere {index}")
            ids.append(sid)
        # A session that never got a prompt is not listed.
        await new(agent, here)

        first = await agent.conn.list_sessions()
        assert len(first.sessions) == 20 and first.next_cursor
        second = await agent.conn.list_sessions(cursor=first.next_cursor)
        assert len(second.sessions) == 5 and second.next_cursor is None
        listed = [s.session_id for s in first.sessions + second.sessions]
        assert listed == list(reversed(ids))  # newest updatedAt first
        stamps = [s.updated_at for s in first.sessions + second.sessions]
        assert stamps == sorted(stamps, reverse=True)

        page = await agent.conn.list_sessions(cwd=str(here))
        assert len(page.sessions) == 20 and page.next_cursor
        rest = await agent.conn.list_sessions(cwd=str(here), cursor=page.next_cursor)
        assert len(rest.sessions) == 3 and rest.next_cursor is None
        assert {s.cwd for s in page.sessions + rest.sessions} == {str(here)}
        only = await agent.conn.list_sessions(cwd=str(there))
        assert [s.title for s in only.sessions] == ["elsewhere 1", "elsewhere 0"]

        with pytest.raises(RequestError):
            await agent.conn.list_sessions(cursor="not-a-cursor")


async def test_load_replays_everything_after_restart(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        for text in ("hello demo", "/think", "/plan", "/edit replay.txt", "/run echo replayed"):
            await say(agent, sid, text)
        live = agent.client
    live_message_ids = {u["messageId"] for u in live.of("agent_message_chunk")}
    live_text = live.text()
    live_thoughts = live.text("agent_thought_chunk")

    async with run_agent(state_dir) as agent:
        response = await agent.conn.load_session(cwd=str(work_dir), session_id=sid, mcp_servers=[])
        await agent.settle(sid, reopened=True)
        replay = agent.client
    assert response.modes.current_mode_id == "code"
    users = replay.of("user_message_chunk")
    assert [u["content"]["text"] for u in users] == [
        "hello demo",
        "/think",
        "/plan",
        "/edit replay.txt",
        "/run echo replayed",
    ]
    assert all(u["messageId"] for u in users)
    assert {u["messageId"] for u in replay.of("agent_message_chunk")} == live_message_ids
    assert replay.text() == live_text
    assert replay.text("agent_thought_chunk") == live_thoughts
    tools = replay.of("tool_call")
    assert [t["kind"] for t in tools] == ["edit", "execute"]
    assert all(t["status"] == "completed" for t in tools)
    assert tools[0]["content"][0]["type"] == "diff"
    assert "replayed" in tools[1]["content"][0]["content"]["text"]
    (plan,) = replay.of("plan")
    assert {e["status"] for e in plan["entries"]} == {"completed"}
    kinds = replay.kinds()
    assert kinds.index("available_commands_update") > kinds.index("tool_call")
    (info,) = replay.of("session_info_update")
    assert info["title"] == "hello demo"
    assert info["_meta"]["messageCount"] == len(users) + len(live_message_ids)
    (usage,) = replay.of("usage_update")
    assert usage["used"] > 0 and usage["cost"]["amount"] > 0


async def test_resume_close_delete(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        await say(agent, sid, "remember me")
        other = await new(agent, work_dir)
        await say(agent, other, "delete me")

    async with run_agent(state_dir) as agent:
        with pytest.raises(RequestError):  # not open in this process yet
            await say(agent, sid, "too early")
        await agent.conn.resume_session(cwd=str(work_dir), session_id=sid, mcp_servers=[])
        await agent.settle(sid, reopened=True)
        kinds = agent.client.kinds(sid)
        assert "agent_message_chunk" not in kinds and "user_message_chunk" not in kinds
        assert {"available_commands_update", "usage_update", "session_info_update"} <= set(kinds)
        assert (await say(agent, sid, "back again")).stop_reason == "end_turn"

        await agent.conn.close_session(session_id=sid)
        with pytest.raises(RequestError):
            await say(agent, sid, "closed")

        await agent.raw("session/delete", {"sessionId": other})
        listed = await agent.conn.list_sessions()
        assert [s.session_id for s in listed.sessions] == [sid]
        with pytest.raises(RequestError):
            await agent.conn.load_session(cwd=str(work_dir), session_id=other, mcp_servers=[])
        with pytest.raises(RequestError):
            await agent.raw("session/delete", {"sessionId": other})
    assert sorted(os.listdir(state_dir)) == [f"{sid}.json"]


async def test_mode_and_model_switch(state_dir: Path, work_dir: Path) -> None:
    async with run_agent(state_dir) as agent:
        sid = await new(agent, work_dir)
        agent.client.clear()
        await agent.conn.set_session_mode(session_id=sid, mode_id="ask")
        response = await agent.conn.set_config_option(
            config_id="model", session_id=sid, value="demo-deep"
        )
        values = {o.id: o.current_value for o in response.config_options}
        assert values["model"] == "demo-deep" and values["mode"] == "ask"
        await say(agent, sid, "which mode?")
        client = agent.client
        (mode,) = client.of("current_mode_update")
        assert mode["currentModeId"] == "ask"
        first, second = client.of("config_option_update")
        assert {o["id"]: o["currentValue"] for o in first["configOptions"]}["mode"] == "ask"
        assert {o["id"]: o["currentValue"] for o in second["configOptions"]}["model"] == "demo-deep"
        assert "Ask" in client.text() and "Demo Deep" in client.text()
        with pytest.raises(RequestError):
            await agent.conn.set_session_mode(session_id=sid, mode_id="no-such-mode")
        with pytest.raises(RequestError):
            await agent.conn.set_config_option(config_id="model", session_id=sid, value="gpt-9")

    async with run_agent(state_dir) as agent:
        loaded = await agent.conn.load_session(cwd=str(work_dir), session_id=sid, mcp_servers=[])
    assert loaded.modes.current_mode_id == "ask"


# ---------------------------------------------------------------------- raw wire


async def _raw_session(argv: list[str], work_dir: Path, prompts: list[str]) -> list[dict[str, Any]]:
    """A tiny JSON-RPC driver over the pipes: every line the agent wrote, in order."""
    process = await anyio.open_process(argv, stdin=-1, stdout=-1, stderr=-1)
    lines: list[dict[str, Any]] = []
    buffer = b""
    assert process.stdin and process.stdout

    async def call(message_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal buffer
        message = {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
        await process.stdin.send((json.dumps(message) + "\n").encode())
        while True:
            while b"\n" not in buffer:
                buffer += await process.stdout.receive()
            line, buffer = buffer.split(b"\n", 1)
            data = json.loads(line)
            lines.append(data)
            if data.get("method") == "session/request_permission":
                answer = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
                reply = {"jsonrpc": "2.0", "id": data["id"], "result": answer}
                await process.stdin.send((json.dumps(reply) + "\n").encode())
            elif data.get("method") == "fs/write_text_file":
                Path(data["params"]["path"]).write_text(data["params"]["content"])
                reply = {"jsonrpc": "2.0", "id": data["id"], "result": {}}
                await process.stdin.send((json.dumps(reply) + "\n").encode())
            elif data.get("id") == message_id and "method" not in data:
                return data

    async with process:
        with anyio.fail_after(60):
            caps = {"fs": {"readTextFile": False, "writeTextFile": True}, "terminal": False}
            await call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps})
            new = await call(1, "session/new", {"cwd": str(work_dir), "mcpServers": []})
            sid = new["result"]["sessionId"]
            for index, text in enumerate(prompts):
                params = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
                await call(2 + index, "session/prompt", params)
            await process.stdin.aclose()
            assert await process.wait() == 0
    return lines


async def test_v2_state_updates_on_the_wire(state_dir: Path, work_dir: Path) -> None:
    argv = demo_agent_argv(str(state_dir), chunk_delay=0, v2_updates=True)
    lines = await _raw_session(argv, work_dir, ["hello", "/edit v2.txt"])
    updates = [m["params"]["update"] for m in lines if m.get("method") == "session/update"]
    states = [u for u in updates if u["sessionUpdate"] == "state_update"]
    assert [s["state"] for s in states] == [
        "running",
        "idle",
        "running",
        "requires_action",
        "running",
        "idle",
    ]
    assert states[1]["stopReason"] == "end_turn"
    assert states[1]["usage"]["outputTokens"] > 0
    assert (work_dir / "v2.txt").exists()
    # The session/new response (id 1) comes before any update about the session it names.
    first_update = next(i for i, m in enumerate(lines) if m.get("method") == "session/update")
    assert first_update > next(i for i, m in enumerate(lines) if m.get("id") == 1)
    # Without the flag: no state_update at all; stdout carries nothing but JSON-RPC.
    plain = await _raw_session(demo_agent_argv(str(state_dir), chunk_delay=0), work_dir, ["hi"])
    assert all(m.get("jsonrpc") == "2.0" for m in plain)
    assert not [
        m
        for m in plain
        if m.get("params", {}).get("update", {}).get("sessionUpdate") == "state_update"
    ]


def test_argv_helper() -> None:
    argv = demo_agent_argv("/tmp/x", chunk_delay=0, v2_updates=True)
    assert argv[:3] == [sys.executable, "-m", "acp_tui.demo_agent"]
    assert argv[3:] == ["--state-dir", "/tmp/x", "--chunk-delay", "0.0", "--v2-updates"]
    assert demo_agent_argv() == [sys.executable, "-m", "acp_tui.demo_agent"]
    assert demo_agent_argv(require_auth=True)[-1] == "--require-auth"
