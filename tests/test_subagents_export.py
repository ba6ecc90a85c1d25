"""A session's subagents in what leaves the app (issue 41): ``acp-tui ask --json`` carries each
child's own events, nested (its ``sessionId`` and ``parentSessionId``), with a ``subagent``
event per card; the Markdown export nests each child's transcript, quoted, under its card.
Both against the demo agent's ``/subagents`` over real pipes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.session.export.markdown import transcript_markdown
from tests.test_headless_controller import acp_tui
from tests.ui.chat_helpers import demo_app, wait_for_session
from tests.ui.test_subagents_ui import SIZE, subagents_done

pytestmark = pytest.mark.anyio


def test_ask_json_nests_each_childs_events_under_its_parent(tmp_path: Path) -> None:
    done = acp_tui(tmp_path, "ask", "--json", "--allow", "/subagents", "--demo")
    assert done.returncode == 0, done.stderr
    events: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    parent = events[0]["sessionId"]
    cards = [e for e in events if e["type"] == "subagent"]
    children = list(dict.fromkeys(e["childSessionId"] for e in cards))
    assert len(children) == 2 and all(e["sessionId"] == parent for e in cards)
    assert {e["title"] for e in cards} == {"Research the code", "Check the tests"}
    assert cards[-1]["status"] == "idle"
    for child in children:
        own = [e for e in events if e.get("sessionId") == child]
        # Its own words and tool call, each naming its parent; its task came from the parent.
        assert own and all(e["parentSessionId"] == parent for e in own)
        kinds = {e["type"] for e in own}
        assert {"message", "tool_call", "session_message"} <= kinds, kinds
        task = next(e for e in own if e["type"] == "session_message")
        assert task["senderSessionId"] == parent
    # Their reports reached the parent, in the parent's stream.
    reports = [e for e in events if e["type"] == "session_message" and e["sessionId"] == parent]
    assert {r["senderSessionId"] for r in reports} == set(children)


async def test_the_export_nests_each_childs_transcript_under_its_card(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        parent = await subagents_done(pilot, screen)
        state = screen.store.get(parent)
        assert state is not None
        text = transcript_markdown(state, screen.store.get)
        flat = transcript_markdown(state)
    assert "**Subagent** Research the code" in text
    research = text.index("**Subagent** Research the code")
    tests = text.index("**Subagent** Check the tests")
    nested = text[research:tests]
    # The child's task from its parent, its tool call and its words, quoted under its card.
    assert "> ## From " in nested and "> **Tool** read: Read src/parser.py" in nested, nested
    assert "> Found it:" in nested or "> Looking through the sources" in nested, nested
    # Without a way to find the children, the cards alone.
    assert "**Subagent** Research the code" in flat and "> **Tool**" not in flat
