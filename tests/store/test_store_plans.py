"""The unstable plan updates: a plan per id, updated in place, in each of its forms, and
marked when removed; the client advertises them (``clientCapabilities.plan``)."""

from __future__ import annotations

from typing import Any

from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, PlanSnapshot, UnknownUpdate


def update(store: SessionStore, **fields: Any) -> None:
    store.apply({"sessionId": "s", "update": fields})


def plans(store: SessionStore) -> list[PlanSnapshot]:
    state = store.get("s")
    assert state is not None
    return [e for e in state.transcript if isinstance(e, PlanSnapshot)]


def items(plan_id: str, *statuses: str) -> dict[str, Any]:
    entries = [
        {"content": f"step {i}", "priority": "medium", "status": status}
        for i, status in enumerate(statuses)
    ]
    return {"type": "items", "planId": plan_id, "entries": entries}


def test_a_plan_is_updated_in_place_however_much_is_said_between() -> None:
    store = SessionStore()
    store.register_session("s", cwd="/w")
    update(store, sessionUpdate="plan_update", plan=items("p1", "pending", "pending"))
    update(store, sessionUpdate="agent_message_chunk", content={"type": "text", "text": "step 0"})
    update(store, sessionUpdate="plan_update", plan=items("p1", "completed", "in_progress"))
    [plan] = plans(store)
    assert [e["status"] for e in plan.entries] == ["completed", "in_progress"]
    assert plan.version == 2 and plan.plan_id == "p1"
    state = store.get("s")
    assert state is not None and state.plan == plan.entries
    assert isinstance(state.transcript[-1], AgentMessage)  # the plan kept its place


def test_markdown_and_file_plans_and_several_plans_at_once() -> None:
    store = SessionStore()
    store.register_session("s", cwd="/w")
    update(
        store,
        sessionUpdate="plan_update",
        plan={"type": "markdown", "planId": "md", "content": "1. read\n2. write"},
    )
    update(
        store,
        sessionUpdate="plan_update",
        plan={"type": "file", "planId": "f", "uri": "file:///p.md"},
    )
    md, file = plans(store)
    assert (md.markdown, md.file_uri, md.entries) == ("1. read\n2. write", None, [])
    assert (file.markdown, file.file_uri) == (None, "file:///p.md")
    # Removing one marks it (it stays in the history); the other is untouched.
    update(store, sessionUpdate="plan_removed", planId="md")
    assert md.removed and not file.removed
    state = store.get("s")
    assert state is not None and state.plan == []  # the latest plan (the file) still stands
    update(store, sessionUpdate="plan_removed", planId="f")
    assert file.removed and state.plan is None
    # A plan removed and sent again is back.
    update(store, sessionUpdate="plan_update", plan=items("f", "pending"))
    assert not file.removed and file.entries[0]["content"] == "step 0"


def test_a_malformed_plan_update_is_reported_not_applied() -> None:
    store = SessionStore()
    store.register_session("s", cwd="/w")
    update(store, sessionUpdate="plan_update", plan={"type": "markdown", "planId": "p"})
    update(store, sessionUpdate="plan_update", plan={"type": "items", "entries": []})
    update(store, sessionUpdate="plan_removed")
    state = store.get("s")
    assert state is not None
    assert [e.kind for e in state.transcript] == ["unknown", "unknown", "unknown"]
    assert all(isinstance(e, UnknownUpdate) and e.error for e in state.transcript)
    assert plans(store) == []


def test_the_legacy_plan_does_not_merge_into_an_identified_one() -> None:
    store = SessionStore()
    store.register_session("s", cwd="/w")
    update(store, sessionUpdate="plan_update", plan=items("p1", "pending"))
    update(
        store,
        sessionUpdate="plan",
        entries=[{"content": "x", "priority": "low", "status": "pending"}],
    )
    first, second = plans(store)
    assert first.plan_id == "p1" and second.plan_id is None
    assert first.entries[0]["content"] == "step 0"
