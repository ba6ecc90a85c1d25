"""Branch, rename and archive over real pipes to the demo agent, and richer prompts: every
request the client sends is checked against the ACP schema (v1 with its unstable parts)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.agent import ops as session_ops
from acp_tui.session.agent.controller import ControllerEvents, SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.attachments import PromptCapabilities, build_prompt
from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, UserMessage
from acp_tui.store.local_index import LocalIndex
from tests.demo_agent.schema_check import check_message
from tests.test_attachments import PNG

pytestmark = pytest.mark.anyio

FIXTURE_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "fixture_agent.py")]


def sent(controller: SessionController) -> list[dict[str, Any]]:
    assert controller.client is not None
    return [
        json.loads(record.text)
        for record in list(controller.client.connection.traffic)
        if record.direction == "out" and record.text and '"method"' in record.text
    ]


@asynccontextmanager
async def running(
    argv: list[str], cwd: Path, errors: list[str]
) -> AsyncIterator[SessionController]:
    controller = SessionController(
        AgentSpec(argv, cwd=str(cwd)),
        store=SessionStore(),
        face=FaceHooks(events=ControllerEvents(on_error=errors.append)),
    )

    async def open_nothing(controller: SessionController) -> None:
        return None

    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run, open_nothing)
        with anyio.fail_after(30):
            await controller.ready.wait()
        try:
            yield controller
        finally:
            controller.request_stop()


async def turn(controller: SessionController, session_id: str, blocks: list[dict[str, Any]]) -> str:
    controller.send_prompt(session_id, "", blocks)
    state = controller.store.get(session_id)
    assert state is not None
    with anyio.fail_after(30):
        while controller.is_busy(session_id):
            await anyio.sleep(0.02)
    return [e for e in state.transcript if isinstance(e, AgentMessage)][-1].text


async def test_branch_rename_archive_and_rich_prompts_against_the_demo_agent(
    tmp_path: Path,
) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "notes.md").write_text("remember the milk\n")
    errors: list[str] = []
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    async with running(argv, tmp_path, errors) as controller:
        store = controller.store
        source = await controller.new_session()
        caps = PromptCapabilities.from_agent(
            controller.agent.capabilities if controller.agent else {}
        )
        assert caps.image and caps.embedded_context
        built = build_prompt("/image @shot.png @notes.md", tmp_path, caps)
        reply = await turn(controller, source, built.blocks)
        assert "an image: `image/png`" in reply and "an embedded resource" in reply
        assert "18 bytes" in reply  # the file's text travelled with the prompt

        # Branch: a new session, open and shown, with the conversation and its title.
        store.pin_title(source, "Groceries")
        branch = await session_ops.fork(controller, source)
        assert branch != source and controller.is_open(branch)
        assert controller.current_session_id == branch
        state = store.get(branch)
        assert state is not None and state.title == "Groceries (branch)"
        users = [e for e in state.transcript if isinstance(e, UserMessage)]
        assert [b["type"] for b in users[0].content] == ["text", "image", "resource"]
        # The agent has the conversation too: the branch answers as its next turn.
        reply = await turn(controller, branch, [{"type": "text", "text": "and then?"}])
        assert "This is turn 2 of this session" in reply
        source_state = store.get(source)
        assert source_state is not None and len(source_state.transcript) < len(state.transcript)

        # Rename: the agent stores it; a later title from the agent does not replace it.
        shown, stored = await session_ops.rename(store, controller, branch, "  Shopping\n list ")
        assert (shown, stored) == ("Shopping list", True)
        store.apply(
            {
                "sessionId": branch,
                "update": {"sessionUpdate": "session_info_update", "title": "Agent's idea"},
            }
        )
        assert store.get(branch).title == "Shopping list"  # type: ignore[union-attr]

        # Archive: gone from the list, listed with the filter "only", back when unarchived.
        await session_ops.set_archived(controller, source, True)
        assert not controller.is_open(source)
        await controller.list_sessions(str(tmp_path), None)
        assert source not in [s.id for s in store.catalog(str(tmp_path))]
        await controller.list_sessions(str(tmp_path), None, archived=True)
        assert [s.id for s in store.catalog(str(tmp_path), archived=True)] == [source]
        await session_ops.set_archived(controller, source, False)
        await controller.list_sessions(str(tmp_path), None)
        assert source in [s.id for s in store.catalog(str(tmp_path))]
        assert store.catalog(str(tmp_path), archived=True) == []
        # Listed: the agent kept the title it was given.
        listed = {s.id: s.title for s in store.catalog(str(tmp_path))}
        assert listed[branch] == "Shopping list"
        requests = sent(controller)
    assert errors == []
    for message in requests:
        check_message(message, 1)
    methods = [m["method"] for m in requests]
    for method in ("session/fork", "session/set_title", "session/archive", "session/unarchive"):
        assert method in methods
    fork = next(m["params"] for m in requests if m["method"] == "session/fork")
    assert fork == {"sessionId": source, "cwd": str(tmp_path), "mcpServers": []}
    filters = [m["params"].get("archived") for m in requests if m["method"] == "session/list"]
    assert filters == [None, "only", None]


async def test_a_rename_is_local_where_the_agent_cannot_store_titles(tmp_path: Path) -> None:
    errors: list[str] = []
    index = LocalIndex(tmp_path / "index.sqlite3", "fixture")
    async with running(FIXTURE_AGENT, tmp_path, errors) as controller:
        assert controller.agent is not None and not controller.agent.can_set_title
        session_id = await controller.new_session()
        shown, stored = await session_ops.rename(
            controller.store, controller, session_id, "Mine", index=index
        )
        assert (shown, stored) == ("Mine", False)
        assert "session/set_title" not in [m["method"] for m in sent(controller)]
        # Agent titles, live or listed, do not replace the person's.
        controller.store.apply(
            {
                "sessionId": session_id,
                "update": {"sessionUpdate": "session_info_update", "title": "Agent's"},
            }
        )
        controller.store.apply_list_page(
            {"sessions": [{"sessionId": session_id, "cwd": str(tmp_path), "title": "Listed"}]}
        )
        assert controller.store.get(session_id).title == "Mine"  # type: ignore[union-attr]
    assert index.local_titles() == {session_id: "Mine"}
    # A new run: the title comes back from the index, before and after the agent lists it.
    again = SessionStore()
    for sid, title in LocalIndex(tmp_path / "index.sqlite3", "fixture").local_titles().items():
        again.pin_title(sid, title)
    again.apply_list_page(
        {"sessions": [{"sessionId": session_id, "cwd": str(tmp_path), "title": "Listed"}]}
    )
    assert again.get(session_id).title == "Mine"  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        session_ops.rename_locally(again, session_id, " \n ")


def test_branch_titles() -> None:
    store = SessionStore()
    store.register_session("a", cwd="/w", new=True)
    store.prompt_sent("a", "fix the parser\nplease")
    assert session_ops.branch_title(store.get("a")) == "fix the parser (branch)"
    store.pin_title("a", "x" * 500)
    title = session_ops.branch_title(store.get("a"))
    assert title.endswith("… (branch)") and len(title) == session_ops.TITLE_LIMIT
    assert session_ops.branch_title(None) == "Untitled (branch)"
