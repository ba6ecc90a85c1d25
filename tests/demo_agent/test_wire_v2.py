"""Protocol v2 (draft): a client that initializes with version 2 gets a v2 agent. Every
message is checked against the v2 schema; the SDK speaks only v1, so this is raw JSON-RPC."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from wire_client import CallFailed, WireAgent, wire_agent

pytestmark = pytest.mark.anyio

ALLOW = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


async def allow(params: dict[str, Any]) -> dict[str, Any]:
    return ALLOW


def of_turn(agent: WireAgent, mark: int, session_id: str) -> list[dict[str, Any]]:
    return [
        m["params"]["update"]
        for m in agent.since(mark)
        if m.get("method") == "session/update" and m["params"]["sessionId"] == session_id
    ]


async def test_initialize_negotiates_v2(state_dir: Path) -> None:
    async with wire_agent(state_dir, version=2, caps={"auth": {"terminal": {}}}) as agent:
        init = agent.init
        with pytest.raises(CallFailed) as no_load:
            await agent.call(
                "session/load", {"sessionId": "x", "cwd": "/", "mcpServers": []}, check=False
            )
        with pytest.raises(CallFailed) as no_authenticate:
            await agent.call("authenticate", {"methodId": "demo-sign-in"}, check=False)
    assert init["protocolVersion"] == 2
    assert init["info"]["name"] == "acp-tui-demo"
    session = init["capabilities"]["session"]
    assert session["prompt"] == {"image": {}, "audio": {}, "embeddedContext": {}}
    assert {"delete", "additionalDirectories", "fork", "title", "archive"} <= set(session)
    methods = {m["methodId"]: m for m in init["authMethods"]}
    assert methods["demo-sign-in"]["type"] == "agent"
    assert methods["demo-terminal-login"]["env"] == [
        {"name": "ACP_TUI_DEMO_LOGIN", "value": "terminal"}
    ]
    assert no_load.value.code == no_authenticate.value.code == -32601
    # A newer client gets the highest version at or below what it asked for.
    async with wire_agent(state_dir, version=2, requested_version=7) as agent:
        assert agent.init["protocolVersion"] == 2
    async with wire_agent(state_dir, version=1) as agent:
        assert agent.init["protocolVersion"] == 1


async def test_prompt_answers_on_acceptance_and_ends_with_idle(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        new = await agent.call("session/new", {"cwd": str(work_dir), "mcpServers": []})
        sid = new["sessionId"]
        assert [c["type"] for c in new["availableCommands"]] == ["command"] * len(
            new["availableCommands"]
        )
        assert "modes" not in new
        assert all("configId" in o for o in new["configOptions"])
        mark = agent.mark()
        idle = await agent.prompt(sid, "hello version two")
        messages = agent.since(mark)
    message_id = idle["accepted"]["messageId"]
    answer = next(i for i, m in enumerate(messages) if "result" in m)
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    first_chunk = next(
        i
        for i, m in enumerate(messages)
        if m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    )
    assert answer < first_chunk  # answered before the turn ran
    (user,) = [u for u in updates if u["sessionUpdate"] == "user_message"]
    assert user["messageId"] == message_id
    assert user["content"] == [{"type": "text", "text": "hello version two"}]
    states = [u for u in updates if u["sessionUpdate"] == "state_update"]
    assert [s["state"] for s in states] == ["running", "idle"]
    assert idle["stopReason"] == "end_turn" and idle["usage"]["outputTokens"] > 0
    chunks = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    (whole,) = [u for u in updates if u["sessionUpdate"] == "agent_message"]
    assert {c["messageId"] for c in chunks} == {whole["messageId"]}
    assert whole["content"] == [
        {"type": "text", "text": "".join(c["content"]["text"] for c in chunks)}
    ]
    assert updates.index(whole) < updates.index(states[-1])


async def test_a_prompt_sent_again_with_its_key_is_taken_once(
    state_dir: Path, work_dir: Path
) -> None:
    """v2 preview idempotency keys: a retry with the key of a prompt taken before is answered
    with that prompt's messageId and runs nothing; another key is another prompt."""
    async with wire_agent(state_dir, version=2) as agent:
        sid = await agent.new_session(work_dir)
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}
        first = await agent.call("session/prompt", {**prompt, "idempotencyKey": "k1"})
        await agent.wait_update("state_update", state="idle")
        mark = agent.mark()
        again = await agent.call("session/prompt", {**prompt, "idempotencyKey": "k1"})
        await agent.wait_update("state_update", state="idle")
        retried = [
            m["params"]["update"]["sessionUpdate"]
            for m in agent.since(mark)
            if m.get("method") == "session/update"
        ]
        other = await agent.call("session/prompt", {**prompt, "idempotencyKey": "k2"})
        await agent.wait_update("user_message", messageId=other["messageId"])
        await agent.wait_update("agent_message")
        users = agent.updates("user_message", sid)
    assert again == first
    assert "user_message" not in retried and "agent_message_chunk" not in retried
    assert other["messageId"] != first["messageId"]
    assert [u["messageId"] for u in users] == [first["messageId"], other["messageId"]]


async def test_thoughts_plans_and_options_in_v2(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/think")
        (thought,) = agent.updates("agent_thought")
        assert thought["content"][0]["text"] == agent.text(sid, "agent_thought_chunk")
        await agent.prompt(sid, "/plan")
        await agent.prompt(sid, "/plan clear")
        assert agent.updates("plan") == []
        plan_ids = {u["plan"]["planId"] for u in agent.updates("plan_update")}
        (removed,) = agent.updates("plan_removed")
        assert removed["planId"] in plan_ids
        result = await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "confirm_tools", "type": "boolean", "value": False},
        )
        assert {o["configId"]: o["currentValue"] for o in result["configOptions"]}[
            "confirm_tools"
        ] is False
        await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "mode", "type": "id", "value": "ask"},
        )
        for bad in (
            {"configId": "mode", "value": "ask"},  # v2 names the type
            {"configId": "mode", "type": "boolean", "value": True},
            {"configId": "nope", "type": "id", "value": "x"},
        ):
            with pytest.raises(CallFailed) as refused:
                await agent.call(
                    "session/set_config_option", {"sessionId": sid, **bad}, check=False
                )
            assert refused.value.code == -32602
        assert agent.updates("current_mode_update") == []


async def test_edit_writes_the_file_itself(state_dir: Path, work_dir: Path) -> None:
    target = work_dir / "notes.txt"
    target.write_text("first line\n")
    handlers = {"session/request_permission": allow}
    async with wire_agent(state_dir, version=2, handlers=handlers) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/edit notes.txt")
        (request,) = agent.requests("session/request_permission")
        updates = agent.updates("tool_call_update")
    assert target.read_text().startswith("first line\nEdited by the acp-tui demo agent")
    params = request["params"]
    assert params["title"] == "Allow: Edit notes.txt"
    assert params["subject"]["type"] == "tool_call"
    assert params["subject"]["toolCall"]["toolCallId"] == updates[0]["toolCallId"]
    assert agent.updates("tool_call") == []
    (diff,) = updates[0]["content"]
    assert diff["changes"] == [{"operation": "modify", "path": str(target), "fileType": "text"}]
    assert diff["patch"]["format"] == "git_patch"
    assert "+Edited by the acp-tui demo agent" in diff["patch"]["text"]
    assert [u.get("status") for u in updates] == ["pending", "in_progress", "completed"]


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
async def test_run_in_an_agent_owned_terminal(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(
        state_dir, version=2, handlers={"session/request_permission": allow}
    ) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/run echo out-line && echo err-line >&2 && pwd")
        await agent.prompt(sid, "/run exit 3")
        (first, second) = agent.requests("session/request_permission")
        terminals = agent.updates("terminal_update")
        output = agent.updates("terminal_output_chunk")
        tools = agent.updates("tool_call_update")
    assert first["params"]["subject"] == {
        "type": "command",
        "command": "echo out-line && echo err-line >&2 && pwd",
        "cwd": str(work_dir),
        "toolCallId": tools[0]["toolCallId"],
    }
    started, ended, started_2, ended_2 = terminals
    assert started["capabilities"] == {"cancel": {}} and started["cwd"] == str(work_dir)
    assert ended["exitStatus"] == {"exitCode": 0} and ended["capabilities"] is None
    assert started_2["command"] == "exit 3" and ended_2["exitStatus"] == {"exitCode": 3}
    text = b"".join(
        base64.b64decode(o["data"]) for o in output if o["terminalId"] == started["terminalId"]
    )
    assert text.decode().splitlines() == ["out-line", "err-line", str(work_dir)]
    embedded = [
        u
        for u in tools
        if u.get("content") == [{"type": "terminal", "terminalId": started["terminalId"]}]
    ]
    assert embedded
    finals = [u["status"] for u in tools if u.get("status") in ("completed", "failed")]
    assert finals == ["completed", "failed"]
    assert second["params"]["subject"]["command"] == "exit 3"


@pytest.mark.skipif(shutil.which("sleep") is None, reason="needs sleep")
async def test_terminal_cancel_stops_the_command(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(
        state_dir, version=2, handlers={"session/request_permission": allow}
    ) as agent:
        sid = await agent.new_session(work_dir)
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["idle"] = await agent.prompt(sid, "/run sleep 60")

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            started = await agent.wait_update("terminal_update", command="sleep 60")
            assert (
                await agent.call(
                    "terminal/cancel", {"sessionId": sid, "terminalId": started["terminalId"]}
                )
                == {}
            )
        ended = agent.updates("terminal_update")[-1]
        with pytest.raises(CallFailed):
            await agent.call(
                "terminal/cancel", {"sessionId": sid, "terminalId": started["terminalId"]}
            )
    assert ended["exitStatus"] == {"signal": "SIGTERM"}
    assert result["idle"]["stopReason"] == "end_turn"
    assert agent.updates("tool_call_update")[-1]["status"] == "failed"


async def test_cancel_ends_the_turn_and_withdraws_held_prompts(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        sid = await agent.new_session(work_dir)
        slow = [{"type": "text", "text": "/slow 30"}]
        first = await agent.call("session/prompt", {"sessionId": sid, "prompt": slow})
        await agent.wait_update("agent_message_chunk")
        # Written before the cancel, so the agent holds it (the turn is busy) when it
        # reads the cancel: a prompt not yet inserted, which the cancel withdraws.
        held = await agent.send_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "held"}]}
        )
        await agent.notify("session/cancel", {"sessionId": sid})
        idle = await agent.wait_update("state_update", state="idle")
        with pytest.raises(CallFailed) as withdrawn:
            await agent.result(held)
        assert idle["stopReason"] == "cancelled"
        assert withdrawn.value.code == -32800
        users = agent.updates("user_message")
        assert [u["messageId"] for u in users] == [first["messageId"]]
        # The session goes on.
        assert (await agent.prompt(sid, "after"))["stopReason"] == "end_turn"


async def test_close_reports_the_cancelled_turn_first(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        sid = await agent.new_session(work_dir)
        await agent.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/slow 30"}]}
        )
        await agent.wait_update("agent_message_chunk")
        mark = agent.mark()
        assert await agent.call("session/close", {"sessionId": sid}) == {}
        after = agent.since(mark)
        assert await agent.call("session/close", {"sessionId": "demo-never-was"}) == {}
    answer = next(i for i, m in enumerate(after) if "result" in m)
    idle = [
        i
        for i, m in enumerate(after)
        if m.get("params", {}).get("update", {}).get("state") == "idle"
    ]
    assert idle and idle[0] < answer
    assert after[idle[0]]["params"]["update"]["stopReason"] == "cancelled"
    assert not [m for m in after[answer + 1 :] if m.get("params", {}).get("sessionId") == sid]


async def test_resume_replays_from_the_start(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(
        state_dir, version=2, handlers={"session/request_permission": allow}
    ) as agent:
        sid = await agent.new_session(work_dir)
        for text in ("hello", "/think", "/plan", "/edit replay.txt", "/compact"):
            await agent.prompt(sid, text)
        live_agent_text = {u["messageId"]: u["content"] for u in agent.updates("agent_message")}
    async with wire_agent(state_dir, version=2) as agent:
        mark = agent.mark()
        result = await agent.call(
            "session/resume",
            {
                "sessionId": sid,
                "cwd": str(work_dir),
                "mcpServers": [],
                "replayFrom": {"type": "start"},
            },
        )
        before_answer = agent.since(mark)
        await agent.wait_update("usage_update")
        replayed = {u["messageId"]: u["content"] for u in agent.updates("agent_message")}
        users = [u["content"][0]["text"] for u in agent.updates("user_message")]
        kinds = agent.kinds(sid)
    assert users == ["hello", "/think", "/plan", "/edit replay.txt", "/compact"]
    assert replayed == live_agent_text
    assert {"agent_thought", "tool_call_update", "plan_update", "compaction_update"} <= set(kinds)
    assert "agent_message_chunk" not in kinds
    answer = next(i for i, m in enumerate(before_answer) if "result" in m)
    last = before_answer[answer - 1]["params"]["update"]
    assert last == {"sessionUpdate": "state_update", "state": "idle"}
    # The replay's end (v2 preview): once, after the history and before the current state.
    marks = [i for i, k in enumerate(kinds) if k == "replay_complete"]
    assert len(marks) == 1 and kinds[marks[0] + 1] == "state_update"
    assert "user_message" not in kinds[marks[0] :]
    assert before_answer[0]["params"]["update"]["sessionUpdate"] == "user_message"
    assert result["configOptions"] and result["availableCommands"]
    # Without replayFrom: no history, and still the current state before the answer.
    async with wire_agent(state_dir, version=2) as agent:
        await agent.call("session/resume", {"sessionId": sid, "cwd": str(work_dir)})
        assert agent.kinds(sid)[0] == "state_update"
        assert "user_message" not in agent.kinds(sid)
        assert "replay_complete" not in agent.kinds(sid)  # nothing replayed, no marker
        with pytest.raises(CallFailed) as bad:
            await agent.call(
                "session/resume",
                {"sessionId": sid, "cwd": str(work_dir), "replayFrom": {"type": "_bookmark"}},
            )
        assert bad.value.code == -32602


async def test_auth_login_and_logout(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir, version=2, extra_args=("--require-auth",)) as agent:
        with pytest.raises(CallFailed) as refused:
            await agent.new_session(work_dir)
        assert refused.value.code == -32000
        with pytest.raises(CallFailed):
            await agent.call("auth/login", {"methodId": "demo-terminal-login"})
        assert await agent.call("auth/login", {"methodId": "demo-sign-in"}) == {}
        sid = await agent.new_session(work_dir)
        assert await agent.call("auth/logout", {}) == {}
        with pytest.raises(CallFailed) as again:
            await agent.prompt(sid, "signed out")
        assert again.value.code == -32000


async def test_notices_compaction_and_forms_need_no_extra_capability(
    state_dir: Path, work_dir: Path
) -> None:
    async def form(params: dict[str, Any]) -> dict[str, Any]:
        return {
            "action": "accept",
            "content": {"name": "Ada", "cups": 1, "color": "red", "languages": ["c"]},
        }

    caps: dict[str, Any] = {"elicitation": {"form": {}}}
    async with wire_agent(
        state_dir, version=2, caps=caps, handlers={"elicitation/create": form}
    ) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/notice warning Heads up")
        await agent.prompt(sid, "/compact")
        await agent.prompt(sid, "/ask")
        states = [u["state"] for u in agent.updates("state_update")]
        assert agent.updates("notice")[0]["title"] == "Heads up"
        assert [u["status"] for u in agent.updates("compaction_update")] == [
            "in_progress",
            "completed",
        ]
        assert "Every answer fits the schema." in agent.text(sid)
    assert "requires_action" in states
