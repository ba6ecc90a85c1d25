"""Transcript rules: chunks, message boundaries, upserts, tool calls, plans, notices, unknowns."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import (
    AgentMessage,
    AgentThought,
    Notice,
    PlanSnapshot,
    SessionStore,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.tool_content import FileDiff

SID = "s1"


def up(variant: str, /, **fields: Any) -> dict[str, Any]:
    return {"sessionId": SID, "update": {"sessionUpdate": variant, **fields}}


def text(kind: str, t: str, mid: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {"content": {"type": "text", "text": t}}
    if mid is not None:
        fields["messageId"] = mid
    return up(kind, **fields)


@pytest.fixture
def store() -> SessionStore:
    s = SessionStore(clock=lambda: 1000.0)
    s.register_session(SID, cwd="/w")
    return s


def tr(store: SessionStore) -> list[Any]:
    sess = store.get(SID)
    assert sess is not None
    return sess.transcript


# -- chunks and boundaries ------------------------------------------------------------------------


def test_chunks_append_to_current_message(store: SessionStore) -> None:
    for t in ["Hel", "lo", ", world"]:
        store.apply(text("agent_message_chunk", t))
    (msg,) = tr(store)
    assert isinstance(msg, AgentMessage)
    assert msg.text == "Hello, world"
    assert msg.content == [{"type": "text", "text": "Hello, world"}]
    assert msg.version == 3


def test_role_change_starts_new_message(store: SessionStore) -> None:
    store.apply(text("user_message_chunk", "hi"))
    store.apply(text("agent_thought_chunk", "hmm"))
    store.apply(text("agent_thought_chunk", "..."))
    store.apply(text("agent_message_chunk", "hello"))
    store.apply(text("user_message_chunk", "again"))
    kinds = [(type(e), e.text) for e in tr(store)]
    assert kinds == [
        (UserMessage, "hi"),
        (AgentThought, "hmm..."),
        (AgentMessage, "hello"),
        (UserMessage, "again"),
    ]


def test_message_id_change_starts_new_message(store: SessionStore) -> None:
    store.apply(text("agent_message_chunk", "a", "m1"))
    store.apply(text("agent_message_chunk", "b", "m1"))
    store.apply(text("agent_message_chunk", "c", "m2"))
    store.apply(text("agent_message_chunk", "d"))  # no id: continues the current message
    entries = tr(store)
    assert [(e.message_id, e.text) for e in entries] == [("m1", "ab"), ("m2", "cd")]


def test_interleaved_message_ids_go_to_their_message(store: SessionStore) -> None:
    store.apply(text("agent_message_chunk", "a", "m1"))
    store.apply(text("agent_message_chunk", "x", "m2"))
    store.apply(text("agent_message_chunk", "b", "m1"))
    assert [(e.message_id, e.text) for e in tr(store)] == [("m1", "ab"), ("m2", "x")]


def test_tool_call_between_chunks_splits_message(store: SessionStore) -> None:
    store.apply(text("agent_message_chunk", "before"))
    store.apply(up("tool_call", toolCallId="t1", title="Read"))
    store.apply(text("agent_message_chunk", "after"))
    assert [type(e) for e in tr(store)] == [AgentMessage, ToolCall, AgentMessage]


def test_unknown_update_does_not_split_message(store: SessionStore) -> None:
    store.apply(text("agent_message_chunk", "a"))
    store.apply(up("_vendor/progress", pct=3))
    store.apply(text("agent_message_chunk", "b"))
    msg, unk = tr(store)
    assert msg.text == "ab"
    assert isinstance(unk, UnknownUpdate)


def test_non_text_blocks_are_kept(store: SessionStore) -> None:
    img = {"type": "image", "mimeType": "image/png", "data": "AAAA"}
    store.apply(text("agent_message_chunk", "see "))
    store.apply(up("agent_message_chunk", content=img))
    store.apply(text("agent_message_chunk", "this"))
    (msg,) = tr(store)
    assert msg.text == "see this"
    assert msg.content == [
        {"type": "text", "text": "see "},
        img,
        {"type": "text", "text": "this"},
    ]


def test_text_is_cached_and_appending_is_linear(store: SessionStore) -> None:
    for i in range(20_000):
        store.apply(text("agent_message_chunk", str(i % 10)))
        if i % 5000 == 0:
            _ = tr(store)[0].text  # reading mid-stream must not break later appends
    msg = tr(store)[0]
    assert msg.text == "".join(str(i % 10) for i in range(20_000))
    assert msg.text is msg.text  # cached


# -- v2 upserts ----------------------------------------------------------------------------------


def test_user_and_agent_message_upserts(store: SessionStore) -> None:
    store.apply(up("user_message", messageId="u1", content=[{"type": "text", "text": "Q?"}]))
    store.apply(up("agent_message", messageId="a1", content=[{"type": "text", "text": "draft"}]))
    store.apply(up("agent_message", messageId="a1", content=[{"type": "text", "text": "final"}]))
    store.apply(up("agent_message", messageId="a2"))  # new id, no content: starts empty
    entries = tr(store)
    assert [(type(e), e.message_id, e.text) for e in entries] == [
        (UserMessage, "u1", "Q?"),
        (AgentMessage, "a1", "final"),
        (AgentMessage, "a2", ""),
    ]
    a1 = entries[1]
    store.apply(up("agent_message", messageId="a1"))  # omitted content: unchanged
    assert a1.text == "final"
    store.apply(up("agent_message", messageId="a1", content=None))  # null clears
    assert a1.text == ""


def test_chunks_then_upsert_same_id_replace(store: SessionStore) -> None:
    store.apply(text("agent_message_chunk", "par", "a1"))
    store.apply(text("agent_message_chunk", "tial", "a1"))
    store.apply(up("agent_message", messageId="a1", content=[{"type": "text", "text": "whole"}]))
    (msg,) = tr(store)
    assert msg.text == "whole"


def test_local_prompt_is_replaced_by_v2_echo_not_duplicated(store: SessionStore) -> None:
    store.prompt_sent(SID, "What is 2+2?")
    store.apply(
        up("user_message", messageId="u9", content=[{"type": "text", "text": "What is 2+2?"}])
    )
    (msg,) = tr(store)
    assert isinstance(msg, UserMessage)
    assert msg.message_id == "u9" and not msg.local_pending
    assert msg.text == "What is 2+2?"


def test_local_prompt_is_replaced_by_chunk_echo(store: SessionStore) -> None:
    store.prompt_sent(SID, "hello")
    store.apply(text("user_message_chunk", "hel", "u1"))
    store.apply(text("user_message_chunk", "lo", "u1"))
    store.apply(text("agent_message_chunk", "hi!", "a1"))
    assert [(e.kind, e.text) for e in tr(store)] == [("user", "hello"), ("agent", "hi!")]


def test_v2_prompt_response_binds_message_id(store: SessionStore) -> None:
    store.protocol_version = 2
    store.prompt_sent(SID, "hello")
    store.prompt_finished(SID, {"messageId": "u1"})
    store.apply(up("user_message", messageId="u1", content=[{"type": "text", "text": "hello"}]))
    (msg,) = tr(store)
    assert msg.message_id == "u1"


# -- tool calls ----------------------------------------------------------------------------------


def test_tool_call_create_and_patch_only_present_fields(store: SessionStore) -> None:
    store.apply(
        up(
            "tool_call",
            toolCallId="t1",
            title="Edit src/app.py",
            kind="edit",
            status="pending",
            rawInput={"path": "src/app.py"},
            locations=[{"path": "/w/src/app.py", "line": 3}],
        )
    )
    (tc,) = tr(store)
    assert isinstance(tc, ToolCall)
    assert (tc.title, tc.tool_kind, tc.status) == ("Edit src/app.py", "edit", "pending")
    v = tc.version
    diff = {"type": "diff", "path": "/w/src/app.py", "oldText": "a", "newText": "b"}
    term = {"type": "terminal", "terminalId": "term-1"}
    store.apply(up("tool_call_update", toolCallId="t1", status="completed", content=[diff, term]))
    assert tc.status == "completed"
    assert tc.title == "Edit src/app.py"  # untouched
    assert tc.tool_kind == "edit"
    assert tc.raw_input == {"path": "src/app.py"}
    assert tc.locations == [{"path": "/w/src/app.py", "line": 3}]
    assert tc.diffs == [FileDiff(path="/w/src/app.py", old_text="a", new_text="b")]
    assert tc.terminal_ids == ["term-1"]
    assert tc.version == v + 1
    store.apply(up("tool_call_update", toolCallId="t1", rawOutput={"ok": True}))
    assert tc.raw_output == {"ok": True}
    assert tc.content == [diff, term]


def test_tool_call_update_for_unknown_id_creates_entry(store: SessionStore) -> None:
    store.apply(up("tool_call_update", toolCallId="ghost", status="in_progress"))
    (tc,) = tr(store)
    assert isinstance(tc, ToolCall)
    assert tc.tool_call_id == "ghost" and tc.status == "in_progress"
    store.apply(up("tool_call", toolCallId="ghost", title="Run tests", kind="execute"))
    assert len(tr(store)) == 1  # upsert, not a duplicate
    assert tc.title == "Run tests" and tc.status == "in_progress"


def test_tool_call_content_chunk_appends(store: SessionStore) -> None:
    store.apply(up("tool_call", toolCallId="t1", title="Run"))
    block = {"type": "content", "content": {"type": "text", "text": "out"}}
    store.apply(up("tool_call_content_chunk", toolCallId="t1", content=block))
    store.apply(up("tool_call_content_chunk", toolCallId="t1", content=block))
    assert tr(store)[0].text == "outout"


# -- plan, notices, unknowns -----------------------------------------------------------------------


def test_plan_replaces(store: SessionStore) -> None:
    e1 = [{"content": "a", "priority": "high", "status": "pending"}]
    e2 = [{"content": "a", "priority": "high", "status": "completed"}, {"content": "b"}]
    store.apply(up("plan", entries=e1))
    store.apply(up("plan", entries=e2))
    sess = store.get(SID)
    assert sess is not None and sess.plan == e2
    (snap,) = tr(store)  # consecutive plans update one snapshot
    assert isinstance(snap, PlanSnapshot) and snap.entries == e2
    store.apply(text("agent_message_chunk", "working"))
    store.apply(up("plan", entries=e1))
    assert [type(e) for e in tr(store)] == [PlanSnapshot, AgentMessage, PlanSnapshot]
    assert sess.plan == e1
    store.apply(up("plan_removed", planId="p"))
    assert sess.plan is None


def test_plan_update_items(store: SessionStore) -> None:
    entries = [{"content": "x", "priority": "low", "status": "pending"}]
    store.apply(up("plan_update", plan={"type": "items", "planId": "p", "entries": entries}))
    sess = store.get(SID)
    assert sess is not None and sess.plan == entries


def test_agent_notice_and_client_notice(store: SessionStore) -> None:
    store.apply(up("notice", severity="warning", title="Rate limited", description="wait"))
    store.add_notice(SID, "Allowed once: Write src/app.py")
    store.add_notice(SID, "boom", severity="error")
    a, b, c = tr(store)
    assert isinstance(a, Notice) and (a.source, a.severity, a.title) == (
        "agent",
        "warning",
        "Rate limited",
    )
    assert isinstance(b, Notice) and (b.source, b.title) == (
        "client",
        "Allowed once: Write src/app.py",
    )
    assert isinstance(c, Notice) and c.severity == "error"


def test_unknown_variant_kept_raw(store: SessionStore) -> None:
    raw = {"sessionUpdate": "_vendor_thing", "thingId": "c", "status": "done"}
    store.apply({"sessionId": SID, "update": raw})
    (e,) = tr(store)
    assert isinstance(e, UnknownUpdate)
    assert e.raw == raw and e.error is None and e.update_kind == "_vendor_thing"


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "agent_message_chunk"},
        {"sessionUpdate": "agent_message_chunk", "content": "text"},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 5}},
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x"},
            "messageId": 3,
        },
        {"sessionUpdate": "user_message", "content": []},
        {"sessionUpdate": "agent_message", "messageId": "m", "content": "nope"},
        {"sessionUpdate": "tool_call", "toolCallId": 7},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": 1},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": {"a": 1}},
        {"sessionUpdate": "plan", "entries": "x"},
        {"sessionUpdate": "session_info_update", "title": 42},
        {"sessionUpdate": "session_info_update", "_meta": [1]},
        {"sessionUpdate": "current_mode_update", "currentModeId": None},
        {"sessionUpdate": "config_option_update", "configOptions": [1]},
        {"sessionUpdate": "available_commands_update"},
        {"sessionUpdate": "state_update", "state": 3},
        {"sessionUpdate": "notice", "title": None},
        {"sessionUpdate": ["unhashable"]},
        "not even a dict",
        None,
    ],
)
def test_malformed_update_becomes_unknown_entry(store: SessionStore, update: Any) -> None:
    before = store.get(SID).snapshot()  # type: ignore[union-attr]
    store.apply({"sessionId": SID, "update": update})
    entries = tr(store)
    assert len(entries) == 1
    e = entries[0]
    assert isinstance(e, UnknownUpdate)
    assert e.raw is update
    assert e.error  # says what was wrong
    after = store.get(SID).snapshot()  # type: ignore[union-attr]
    after.pop("transcript")
    before.pop("transcript")
    assert after == before  # nothing half-applied


def test_unroutable_params_recorded_not_raised(store: SessionStore) -> None:
    for bad in [None, 5, [], {"update": {}}, {"sessionId": 3, "update": {}}]:
        store.apply(bad)
    assert len(store.unrouted) == 5
    assert store.take_changes().unrouted


# -- tool calls a turn leaves unfinished ---------------------------------------------------------


def test_at_a_turns_end_only_pending_tool_calls_are_not_run_and_one_can_be_rejected(
    store: SessionStore,
) -> None:
    store.prompt_sent(SID, "do things")
    store.apply(up("tool_call", toolCallId="a", title="pending one", status="pending"))
    store.apply(up("tool_call", toolCallId="b", title="running one", status="in_progress"))
    store.apply(up("tool_call", toolCallId="c", title="asked, rejected", status="pending"))
    store.apply(up("tool_call", toolCallId="d", title="finished", status="completed"))
    store.apply(up("tool_call", toolCallId="e", title="asked, allowed", status="pending"))
    assert store.end_tool_call(SID, "c", "rejected")
    assert not store.end_tool_call(SID, "d", "rejected")  # finished: the agent's word stands
    assert not store.end_tool_call(SID, "nope", "rejected")
    assert store.end_tool_call(SID, "e", "allowed", only_pending=True)
    assert not store.end_tool_call(SID, "b", "allowed", only_pending=True)  # running already
    assert store.end_unfinished_tool_calls(SID, "not_run", only_pending=True) == 1
    calls = {e.tool_call_id: e.status for e in tr(store) if isinstance(e, ToolCall)}
    assert calls == {
        "a": "not_run",
        "b": "in_progress",
        "c": "rejected",
        "d": "completed",
        "e": "allowed",
    }
    store.apply(up("tool_call_update", toolCallId="c", status="failed"))
    assert {e.tool_call_id: e.status for e in tr(store) if isinstance(e, ToolCall)}["c"] == "failed"


def test_a_cancel_marks_the_turns_unfinished_tool_calls_and_the_agent_still_has_its_say(
    store: SessionStore,
) -> None:
    """The spec: the client SHOULD mark the turn's non-finished tool calls cancelled as it
    sends session/cancel, and still take the agent's updates after it."""
    store.apply(up("tool_call", toolCallId="old", title="earlier turn", status="pending"))
    store.prompt_sent(SID, "do things")
    store.apply(up("tool_call", toolCallId="a", title="pending one", status="pending"))
    store.apply(up("tool_call", toolCallId="b", title="running one", status="in_progress"))
    store.apply(up("tool_call", toolCallId="c", title="no status"))
    store.apply(up("tool_call", toolCallId="d", title="finished", status="completed"))
    store.apply(up("tool_call", toolCallId="e", title="failed", status="failed"))
    store.take_changes()
    assert store.end_unfinished_tool_calls(SID, "cancelled") == 3
    calls = {e.tool_call_id: e for e in tr(store) if isinstance(e, ToolCall)}
    assert {key: call.status for key, call in calls.items()} == {
        "old": "pending",  # another turn's: not this cancel's business
        "a": "cancelled",
        "b": "cancelled",
        "c": "cancelled",
        "d": "completed",
        "e": "failed",
    }
    # The views that show them hear of it.
    changed = store.take_changes().entries.get(SID, set())
    assert {calls[key].id for key in "abc"} <= changed
    # The agent's own final word replaces the client's guess.
    store.apply(up("tool_call_update", toolCallId="b", status="completed"))
    assert calls["b"].status == "completed"


def test_no_session_no_turn_nothing_marked(store: SessionStore) -> None:
    assert store.end_unfinished_tool_calls("nobody", "interrupted") == 0
    assert store.end_unfinished_tool_calls(SID, "interrupted") == 0
