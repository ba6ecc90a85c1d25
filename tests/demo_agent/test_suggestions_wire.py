"""The demo agent's prompt suggestions on the wire (unstable ``prompt_suggestions_update``,
every message checked against the schema with the newer pages' additions): sent after each
reply to a client that advertises ``session.promptSuggestions`` (v1 and v2), ``/suggest``
chooses them or withdraws them, and a client that did not advertise them gets none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wire_client import WireAgent, v1_caps, wire_agent

pytestmark = pytest.mark.anyio


def offered(agent: WireAgent, session_id: str) -> list[list[str]]:
    """Each update's suggestions, as the text of their prompts."""
    return [
        [" ".join(b["text"] for b in s["prompt"] if b["type"] == "text") for s in u["suggestions"]]
        for u in agent.updates("prompt_suggestions_update", session_id)
    ]


@pytest.mark.parametrize("version", [1, 2])
async def test_after_each_reply_to_a_client_that_takes_them(
    state_dir: Path, work_dir: Path, version: int
) -> None:
    session: dict[str, Any] = {"promptSuggestions": {}}
    caps = {"session": session} if version == 2 else v1_caps(session=session)
    async with wire_agent(state_dir, version=version, caps=caps) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "hello")
        first = offered(agent, sid)
        await agent.prompt(sid, "/suggest Run the tests | Explain [b]this[/b]")
        chosen = offered(agent, sid)[-1]
        await agent.prompt(sid, "/suggest")
        withdrawn = offered(agent, sid)[-1]
    assert len(first) == 1 and len(first[0]) == 3 and all(t.startswith("/") for t in first[0])
    assert chosen == ["Run the tests", "Explain [b]this[/b]"]
    assert withdrawn == []


async def test_none_to_a_client_that_did_not_advertise_them(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "hello")
        await agent.prompt(sid, "/suggest A | B")
        kinds = set(agent.kinds())
    assert "prompt_suggestions_update" not in kinds
    assert "does not offer prompt suggestions" in agent.text(sid)
