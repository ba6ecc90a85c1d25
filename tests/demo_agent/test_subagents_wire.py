"""The demo agent's subagents and background work, on the wire (raw JSON-RPC, every message
checked against the schema of the negotiated version): ``/subagents`` starts two children
(one asks a permission that names it) and waits; ``session/cancel`` on a child stops it
alone; ``/background`` leaves a watcher, a terminal (v2) and a child running after its turn,
each stopped by its own cancel; a client that did not advertise subagents gets none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from wire_client import WireAgent, v1_caps, wire_agent

pytestmark = pytest.mark.anyio

SUBAGENTS = v1_caps(subagents={})


def announced(agent: WireAgent, parent: str) -> list[str]:
    ids: list[str] = []
    for update in agent.updates("subagent_update", parent):
        if update["sessionId"] not in ids:
            ids.append(update["sessionId"])
    return ids


def states(agent: WireAgent, parent: str, child: str) -> list[dict[str, Any]]:
    return [
        u["state"]
        for u in agent.updates("subagent_update", parent)
        if u["sessionId"] == child and "state" in u
    ]


@pytest.mark.parametrize("version", [1, 2])
async def test_two_children_work_ask_and_report(
    state_dir: Path, work_dir: Path, version: int
) -> None:
    asked: list[dict[str, Any]] = []

    async def allow(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    caps = {} if version == 2 else SUBAGENTS
    handlers = {"session/request_permission": allow}
    async with wire_agent(state_dir, version=version, caps=caps, handlers=handlers) as agent:
        parent = await agent.new_session(work_dir)
        ended = await agent.prompt(parent, "/subagents")
        children = announced(agent, parent)
        first = agent.updates("subagent_update", parent)[0]
        for child in children:
            # Its task came from the parent, in its own session; its report went back.
            task = agent.updates("session_message", child)[0]
            assert task["senderSessionId"] == parent and task["recipientSessionId"] == child
            assert agent.text(child)  # it worked, in its own session
            assert states(agent, parent, child)[-1] == {"state": "idle", "stopReason": "end_turn"}
            if version == 2:
                assert agent.updates("state_update", child)[-1]["state"] == "idle"
        reports = agent.updates("session_message", parent)
    assert ended["stopReason"] == "end_turn"
    assert len(children) == 2
    assert first["capabilities"] == {"cancel": {}} and first["title"]
    assert {r["senderSessionId"] for r in reports} == set(children)
    # The permission request names the child, never the parent.
    assert [p["sessionId"] for p in asked] == [children[1]]
    # The tool call that delegated links both children.
    delegate = next(
        u for u in agent.updates(session_id=parent) if u.get("toolCallId", "").startswith("deleg")
    )
    assert [c for c in delegate["content"] if c["type"] == "session"] == [
        {"type": "session", "sessionId": child} for child in children
    ]


async def test_cancelling_one_child_stops_it_alone(state_dir: Path, work_dir: Path) -> None:
    """The second child waits on its permission; session/cancel on it ends it cancelled (its
    question withdrawn or answered cancelled), while the first finishes."""
    waiting = anyio.Event()
    release = anyio.Event()

    async def hold(params: dict[str, Any]) -> dict[str, Any]:
        waiting.set()
        await release.wait()
        return {"outcome": {"outcome": "cancelled"}}

    async with wire_agent(
        state_dir, caps=SUBAGENTS, handlers={"session/request_permission": hold}
    ) as agent:
        parent = await agent.new_session(work_dir)
        async with anyio.create_task_group() as group:
            result: dict[str, Any] = {}

            async def prompt() -> None:
                result.update(await agent.prompt(parent, "/subagents"))

            group.start_soon(prompt)
            await waiting.wait()
            research, tests = announced(agent, parent)
            await agent.notify("session/cancel", {"sessionId": tests})
            release.set()
        assert states(agent, parent, tests)[-1] == {"state": "idle", "stopReason": "cancelled"}
        assert states(agent, parent, research)[-1]["stopReason"] == "end_turn"
    assert result["stopReason"] == "end_turn"  # the parent's turn went on
    assert "1 finished, 1 cancelled" in agent.text(parent)


async def test_no_subagents_for_a_client_that_did_not_advertise_them(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir) as agent:
        parent = await agent.new_session(work_dir)
        await agent.prompt(parent, "/subagents")
        await agent.prompt(parent, "/background 1")
        kinds = set(agent.kinds())
    assert "did not advertise `subagents`" in agent.text(parent)
    assert not kinds & {"subagent_update", "session_message", "session_message_chunk"}


async def test_v2_background_is_listed_and_each_item_cancels_on_its_own(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        sid = await agent.new_session(work_dir)
        idle = await agent.prompt(sid, "/background 60")
        listed = {
            (b["type"], next(v for k, v in b.items() if k != "type")) for b in idle["background"]
        }
        kinds = {kind for kind, _ in listed}
        ids = dict(listed)
        # Each was announced, cancellable, before the list named it.
        watcher = agent.updates("tool_call_update", sid)[0]
        assert watcher["toolCallId"] == ids["tool_call"] and watcher["capabilities"] == {
            "cancel": {}
        }
        terminal = agent.updates("terminal_update", sid)[0]
        assert terminal["terminalId"] == ids["terminal"] and terminal["capabilities"]
        assert announced(agent, sid) == [ids["subagent"]]
        assert (
            await agent.call("tool_call/cancel", {"sessionId": sid, "toolCallId": ids["tool_call"]})
            == {}
        )
        await agent.wait_update("tool_call_update", toolCallId=ids["tool_call"], status="failed")
        assert (
            await agent.call("terminal/cancel", {"sessionId": sid, "terminalId": ids["terminal"]})
            == {}
        )
        ended = await agent.wait_update("terminal_update", terminalId=ids["terminal"])
        await agent.wait_for(
            lambda: any("exitStatus" in u for u in agent.updates("terminal_update", sid))
        )
        await agent.notify("session/cancel", {"sessionId": ids["subagent"]})
        await agent.wait_for(
            lambda: any(
                s.get("stopReason") == "cancelled" for s in states(agent, sid, ids["subagent"])
            )
        )
        # The last state lists nothing: every item ended, each said so first.
        await agent.wait_for(lambda: agent.updates("state_update", sid)[-1].get("background") == [])
    assert kinds == {"tool_call", "terminal", "subagent"}
    assert ended["capabilities"] == {"cancel": {}}


async def test_v1_watcher_runs_on_after_the_turn_until_session_cancel(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir, caps=SUBAGENTS) as agent:
        sid = await agent.new_session(work_dir)
        ended = await agent.prompt(sid, "/background 60")
        watcher = agent.updates("tool_call", sid)[0]
        assert ended["stopReason"] == "end_turn" and watcher["status"] == "in_progress"
        assert "capabilities" not in watcher  # v1 has no tool_call/cancel
        await agent.notify("session/cancel", {"sessionId": sid})
        done = await agent.wait_update(
            "tool_call_update", toolCallId=watcher["toolCallId"], status="failed"
        )
        child = announced(agent, sid)[0]
        assert states(agent, sid, child)[-1] == {"state": "running"}  # the child runs on
    assert done["content"][0]["content"]["text"] == "Cancelled."
