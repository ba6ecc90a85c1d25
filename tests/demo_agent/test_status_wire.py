"""The demo agent's unstable status methods on the wire, every message checked against the
schema (with the newer pages' additions): ``auth/status`` and the ``auth/status_update`` it
pushes when its sign-in state changes (and only then), ``session/status`` (open, saved,
unknown) and ``session/options`` with the initial values ``session/new`` takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wire_client import CallFailed, WireAgent, wire_agent

pytestmark = pytest.mark.anyio


def pushed(agent: WireAgent) -> list[dict[str, Any]]:
    return [m["params"] for m in agent.notifications("auth/status_update")]


@pytest.mark.parametrize("version", [1, 2])
async def test_auth_status_is_answered_and_pushed_on_change(
    state_dir: Path, work_dir: Path, version: int
) -> None:
    async with wire_agent(state_dir, version=version) as agent:
        caps = agent.init["capabilities" if version == 2 else "agentCapabilities"]
        assert caps["auth"]["status"] == {}
        first = await agent.call("auth/status", {})
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "hello")
        quiet = pushed(agent)
        await agent.prompt(sid, "/signout")
        after_signout = pushed(agent)
        login = "auth/login" if version == 2 else "authenticate"
        mark = agent.mark()
        await agent.call(login, {"methodId": "demo-sign-in"})
        order = [m.get("method", "answer") for m in agent.since(mark)]
        asked = await agent.call("auth/status", {})
        await agent.prompt(sid, "hello again")
        final = pushed(agent)
    assert first == {"state": "not_required"}
    assert quiet == []  # nothing changed: nothing pushed
    assert after_signout == [{"state": "unauthenticated"}]
    # The push comes before the answer to the sign-in: the client has it by then.
    assert order == ["auth/status_update", "answer"]
    assert final[-1] == asked
    assert asked["state"] == "authenticated"
    assert asked["accounts"] == [{"label": "Demo sign-in", "name": "demo user", "active": True}]
    assert len(final) == 2


async def test_auth_status_is_answered_while_sign_in_is_required(
    state_dir: Path, work_dir: Path
) -> None:
    """Never refused with auth_required: a client asks it to learn whether it must sign in."""
    async with wire_agent(state_dir, extra_args=("--require-auth",)) as agent:
        status = await agent.call("auth/status", {})
        with pytest.raises(CallFailed) as refused:
            await agent.new_session(work_dir)
    assert status == {"state": "unauthenticated"}
    assert refused.value.code == -32000


@pytest.mark.parametrize("version", [1, 2])
async def test_session_status_open_saved_unknown(
    state_dir: Path, work_dir: Path, version: int
) -> None:
    async with wire_agent(state_dir, version=version) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "hello")
        open_ = await agent.call("session/status", {"sessionId": sid})
        await agent.call("session/close", {"sessionId": sid})
        saved = await agent.call("session/status", {"sessionId": sid})
        listed = await agent.call("session/list", {})
        with pytest.raises(CallFailed) as unknown:
            await agent.call("session/status", {"sessionId": "demo-0123456789abcdef"})
    assert open_ == {"status": "open"}
    assert saved == {"status": "saved"}
    assert unknown.value.code == -32002
    # Asking changed nothing: the session is not reopened by it.
    assert sid in {s["sessionId"] for s in listed["sessions"]}


async def test_session_options_before_a_session_and_initial_values(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir) as agent:
        assert agent.init["agentCapabilities"]["sessionCapabilities"]["options"] == {}
        offered = await agent.call("session/options", {"cwd": str(work_dir)})
        listed = await agent.call("session/list", {})
        model = next(o for o in offered["configOptions"] if o["id"] == "model")
        values = [v["value"] for g in model["options"] for v in g["options"]]
        other = next(v for v in values if v != model["currentValue"])
        result = await agent.call(
            "session/new",
            {
                "cwd": str(work_dir),
                "mcpServers": [],
                "configOptions": [
                    {"configId": "model", "value": other},
                    {"configId": "no-such-option", "value": "x"},  # ignored, not refused
                    {"configId": "model", "value": "no-such-model"},
                ],
            },
        )
        for_it = await agent.call(
            "session/options", {"cwd": str(work_dir), "sessionId": result["sessionId"]}
        )
    assert listed["sessions"] == []  # session/options made none
    started = next(o for o in result["configOptions"] if o["id"] == "model")
    assert started["currentValue"] == other
    assert next(o for o in for_it["configOptions"] if o["id"] == "model")["currentValue"] == other


async def test_v2_does_not_offer_session_options(state_dir: Path) -> None:
    async with wire_agent(state_dir, version=2) as agent:
        session_caps = agent.init["capabilities"]["session"]
        with pytest.raises(CallFailed) as missing:
            await agent.call("session/options", {"cwd": "/tmp"}, check=False)
    assert "options" not in session_caps and session_caps["status"] == {}
    assert missing.value.code == -32601


async def test_a_session_another_demo_agent_has_in_memory_is_open(
    state_dir: Path, work_dir: Path
) -> None:
    """Two clients on the same session (two acp-tui windows): the second one's agent says
    ``open`` while the first one's holds it, ``saved`` once it let it go or ended."""
    async with wire_agent(state_dir) as first:
        sid = await first.new_session(work_dir)
        await first.prompt(sid, "hello")
        async with wire_agent(state_dir) as second:
            held = await second.call("session/status", {"sessionId": sid})
            await first.call("session/close", {"sessionId": sid})
            closed = await second.call("session/status", {"sessionId": sid})
            await first.call(
                "session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
            )
            again = await second.call("session/status", {"sessionId": sid})
    async with wire_agent(state_dir) as third:
        ended = await third.call("session/status", {"sessionId": sid})
    assert held == {"status": "open"}
    assert closed == {"status": "saved"}
    assert again == {"status": "open"}
    assert ended == {"status": "saved"}
