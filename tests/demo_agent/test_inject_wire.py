"""The demo agent's ``session/inject`` (the mid-turn input RFD, steer only), on the wire and
checked against the schema (newer.json): accepted with a message id during a turn and taken
in at its next chunk (v2: echoed as ``user_message`` with that id), kept in the history for a
replay; refused with no turn, or in ``queue`` mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from wire_client import CallFailed, wire_agent

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("version", [1, 2])
async def test_a_steer_is_taken_into_the_running_turn(
    state_dir: Path, work_dir: Path, version: int
) -> None:
    async with wire_agent(state_dir, version=version) as agent:
        sid = await agent.new_session(work_dir)
        prompt = await agent.send_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/slow 5"}]}
        )
        await agent.wait_for(lambda: "(1/" in agent.text(sid))
        accepted = await agent.call(
            "session/inject",
            {"sessionId": sid, "mode": "steer", "content": [{"type": "text", "text": "go left"}]},
        )
        message_id = accepted["messageId"]
        await agent.wait_for(lambda: "you said “go left”" in agent.text(sid))
        if version >= 2:
            echo = await agent.wait_update("user_message", messageId=message_id)
            assert echo["content"] == [{"type": "text", "text": "go left"}]
        await agent.notify("session/cancel", {"sessionId": sid})
        await agent.result(prompt)
        if version < 2:
            # Kept in the history: session/load replays it where it went in.
            mark = agent.mark()
            await agent.call(
                "session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
            )
            replayed = "".join(
                m["params"]["update"]["content"].get("text", "")
                for m in agent.since(mark)
                if m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "user_message_chunk"
            )
            assert "go left" in replayed


async def test_inject_is_refused_with_no_turn_and_in_queue_mode(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        content = [{"type": "text", "text": "hello"}]
        with pytest.raises(CallFailed, match="no turn is running"):
            await agent.call(
                "session/inject", {"sessionId": sid, "mode": "steer", "content": content}
            )
        with pytest.raises(CallFailed, match="steer"):
            await agent.call(
                "session/inject", {"sessionId": sid, "mode": "queue", "content": content}
            )
