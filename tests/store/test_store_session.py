"""Session-level rules: info, usage, modes, config, commands, held updates, turn lifecycle,
replay, change notification."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    PART_COMMANDS,
    PART_CONFIG,
    PART_MODES,
    PART_RESET,
    PART_STATE,
    PART_TITLE,
    PART_TRANSCRIPT,
    PART_USAGE,
    SessionState,
    SessionStore,
    UserMessage,
)

SID = "s1"


def up(variant: str, /, sid: str = SID, **fields: Any) -> dict[str, Any]:
    return {"sessionId": sid, "update": {"sessionUpdate": variant, **fields}}


def chunk(t: str, variant: str = "agent_message_chunk", sid: str = SID) -> dict[str, Any]:
    return up(variant, sid=sid, content={"type": "text", "text": t})


@pytest.fixture
def store() -> SessionStore:
    s = SessionStore(clock=lambda: 1000.0)
    s.register_session(SID, cwd="/w")
    return s


def sess(store: SessionStore, sid: str = SID) -> SessionState:
    s = store.get(sid)
    assert s is not None
    return s


# -- session_info_update ---------------------------------------------------------------------------


def test_session_info_omitted_unchanged_null_clears(store: SessionStore) -> None:
    store.apply(up("session_info_update", title="First", updatedAt="2025-01-01T00:00:00Z"))
    s = sess(store)
    assert s.title == "First" and s.updated_at == "2025-01-01T00:00:00Z"
    store.apply(up("session_info_update", _meta={"a": 1}))
    assert s.title == "First"  # omitted: unchanged
    assert s.updated_at == "2025-01-01T00:00:00Z"
    store.apply(up("session_info_update", title=None))
    assert s.title is None  # null clears
    assert s.display_title == SID


def test_session_info_meta_recursive_merge(store: SessionStore) -> None:
    store.apply(
        up("session_info_update", _meta={"tags": ["a"], "git": {"branch": "main", "dirty": True}})
    )
    store.apply(up("session_info_update", _meta={"git": {"dirty": None, "ahead": 2}, "p": "hi"}))
    s = sess(store)
    assert s.meta == {"tags": ["a"], "git": {"branch": "main", "ahead": 2}, "p": "hi"}
    store.apply(up("session_info_update", _meta={"tags": None}))
    assert s.meta == {"git": {"branch": "main", "ahead": 2}, "p": "hi"}
    store.apply(up("session_info_update", _meta=None))
    assert s.meta is None


# -- usage ---------------------------------------------------------------------------------------


def test_usage_update_replaces_context_usage(store: SessionStore) -> None:
    s = sess(store)
    assert s.context is None  # never reported
    store.apply(up("usage_update", used=0, size=200_000))
    assert s.context is not None and s.context.used == 0 and s.context.cost_amount is None
    store.apply(
        up("usage_update", used=53_000, size=200_000, cost={"amount": 0.045, "currency": "USD"})
    )
    assert (s.context.used, s.context.size) == (53_000, 200_000)
    assert (s.context.cost_amount, s.context.cost_currency) == (0.045, "USD")
    assert s.context.fraction == pytest.approx(0.265)
    store.apply(up("usage_update", used=60_000, size=200_000))
    # The tokens are replaced; the cost, the session's so far, is kept when an update leaves
    # it out (a null clears it: tests/store/test_store_numbers.py).
    assert s.context.used == 60_000 and s.context.cost_amount == 0.045


def test_prompt_response_usage_sets_last_turn_tokens(store: SessionStore) -> None:
    s = sess(store)
    assert s.last_turn_usage is None
    turn = store.prompt_sent(SID, "hi")
    store.prompt_finished(
        SID,
        {
            "stopReason": "end_turn",
            "usage": {
                "totalTokens": 10,
                "inputTokens": 7,
                "outputTokens": 3,
                "cachedReadTokens": 0,
            },
        },
        turn=turn,
    )
    u = s.last_turn_usage
    assert u is not None
    assert (u.total_tokens, u.input_tokens, u.output_tokens) == (10, 7, 3)
    assert u.cached_read_tokens == 0 and u.thought_tokens is None


# -- modes, config, commands ---------------------------------------------------------------------


def test_modes_config_commands(store: SessionStore) -> None:
    store.register_session(
        SID,
        response={
            "sessionId": SID,
            "modes": {
                "currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
            },
            "configOptions": [
                {
                    "id": "model",
                    "name": "Model",
                    "category": "model",
                    "type": "select",
                    "currentValue": "m1",
                    "options": [],
                }
            ],
        },
    )
    s = sess(store)
    assert s.current_mode_id == "ask" and [m["id"] for m in s.available_modes or []] == [
        "ask",
        "code",
    ]
    assert s.current_model == "m1"
    store.take_changes()
    store.apply(up("current_mode_update", currentModeId="code"))
    opts = [
        {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": "m2",
            "options": [],
        }
    ]
    store.apply(up("config_option_update", configOptions=opts))
    cmds = [{"name": "plan", "description": "Make a plan"}]
    store.apply(up("available_commands_update", availableCommands=cmds))
    assert s.current_mode_id == "code"
    assert s.current_model == "m2"
    assert s.commands == cmds
    assert store.take_changes().parts(SID) == {PART_MODES, PART_CONFIG, PART_COMMANDS}


# -- held updates --------------------------------------------------------------------------------


def test_updates_for_unknown_session_are_held_then_applied_in_order() -> None:
    store = SessionStore()
    store.apply(chunk("a", sid="new"))
    store.apply(
        up(
            "available_commands_update",
            sid="new",
            availableCommands=[{"name": "x", "description": ""}],
        )
    )
    store.apply(chunk("b", sid="new"))
    assert store.get("new") is None
    assert store.held_count("new") == 3
    store.register_session("new", cwd="/p")
    s = sess(store, "new")
    assert store.held_count() == 0
    assert [e.text for e in s.transcript] == ["ab"]
    assert s.commands == [{"name": "x", "description": ""}]


def test_updates_for_listed_only_session_are_held_until_opened() -> None:
    store = SessionStore()
    store.apply_list_page({"sessions": [{"sessionId": "old", "cwd": "/p"}]})
    store.apply(chunk("late", sid="old"))
    assert sess(store, "old").transcript == []
    store.begin_replay("old")
    assert [e.text for e in sess(store, "old").transcript] == ["late"]


# -- turn lifecycle --------------------------------------------------------------------------------


def test_v1_lifecycle(store: SessionStore) -> None:
    s = sess(store)
    assert s.activity == ACTIVITY_IDLE
    turn = store.prompt_sent(SID, [{"type": "text", "text": "do it"}])
    assert s.activity == ACTIVITY_RUNNING and s.stop_reason is None
    assert isinstance(s.transcript[0], UserMessage) and s.transcript[0].text == "do it"
    assert s.first_prompt == "do it"
    store.apply(chunk("done"))
    store.prompt_finished(SID, {"stopReason": "end_turn"}, turn=turn)
    assert s.activity == ACTIVITY_IDLE and s.stop_reason == "end_turn"
    # late updates after the turn: applied, never restart the turn
    store.apply(chunk(" (late)"))
    store.apply(up("tool_call_update", toolCallId="t9", status="completed"))
    assert s.activity == ACTIVITY_IDLE
    assert s.transcript[1].text == "done (late)"
    assert len(s.transcript) == 3


def test_v1_stale_prompt_response_does_not_end_newer_turn(store: SessionStore) -> None:
    s = sess(store)
    t1 = store.prompt_sent(SID, "one")
    t2 = store.prompt_sent(SID, "two")
    store.prompt_finished(SID, {"stopReason": "cancelled"}, turn=t1)
    assert s.activity == ACTIVITY_RUNNING
    store.prompt_finished(SID, {"stopReason": "end_turn"}, turn=t2)
    assert s.activity == ACTIVITY_IDLE and s.stop_reason == "end_turn"


def test_prompt_error_goes_idle_with_notice(store: SessionStore) -> None:
    s = sess(store)
    store.prompt_sent(SID, "x")
    store.prompt_finished(SID, error="Internal error: boom")
    assert s.activity == ACTIVITY_IDLE and s.stop_reason == "error"
    assert s.transcript[-1].kind == "notice" and s.transcript[-1].severity == "error"  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant", ["state_update", "state_change"])
@pytest.mark.parametrize("reason_key", ["stopReason", "stop_reason"])
def test_v2_lifecycle(variant: str, reason_key: str) -> None:
    store = SessionStore(protocol_version=2)
    store.register_session(SID)
    s = sess(store)
    turn = store.prompt_sent(SID, "hi")
    assert s.activity == ACTIVITY_RUNNING
    store.prompt_finished(SID, {"messageId": "u1"}, turn=turn)
    assert s.activity == ACTIVITY_RUNNING  # accepted only
    store.apply(up(variant, state="running"))
    store.apply(chunk("hello"))
    store.apply(up(variant, state="requires_action"))
    assert s.activity == ACTIVITY_REQUIRES_ACTION
    store.apply(up(variant, state="running"))
    assert s.turn == turn  # same turn
    store.apply(
        up(
            variant,
            state="idle",
            **{reason_key: "end_turn"},
            usage={"totalTokens": 5, "inputTokens": 3, "outputTokens": 2},
        )
    )
    assert s.activity == ACTIVITY_IDLE and s.stop_reason == "end_turn"
    assert s.last_turn_usage is not None and s.last_turn_usage.total_tokens == 5
    store.apply(chunk(" more"))  # after idle: applied, turn not restarted
    assert s.activity == ACTIVITY_IDLE
    # agent-initiated turn
    store.apply(up(variant, state="running"))
    assert s.activity == ACTIVITY_RUNNING and s.turn == turn + 1 and s.stop_reason is None


def test_v2_prompt_response_without_protocol_flag_is_acceptance(store: SessionStore) -> None:
    s = sess(store)
    store.prompt_sent(SID, "hi")
    store.prompt_finished(SID, {"messageId": "u1"})
    assert s.activity == ACTIVITY_RUNNING


def test_unknown_state_keeps_activity(store: SessionStore) -> None:
    store.prompt_sent(SID, "hi")
    store.apply(up("state_update", state="_vendor_paused"))
    assert sess(store).activity == ACTIVITY_RUNNING


# -- replay ----------------------------------------------------------------------------------------

REPLAY = [
    chunk("first question", "user_message_chunk"),
    chunk("answer"),
    up("tool_call", toolCallId="t1", title="Read", status="completed"),
    up("plan", entries=[{"content": "a", "priority": "low", "status": "pending"}]),
    chunk("second question", "user_message_chunk"),
    chunk("answer 2"),
]


def test_replay_rebuilds_transcript_and_loading_twice_does_not_duplicate() -> None:
    store = SessionStore(clock=lambda: 1.0)
    for _ in range(2):
        store.begin_replay(SID, cwd="/w")
        assert sess(store).replaying
        store.apply_many(REPLAY)
        store.end_replay(SID, {"modes": {"currentModeId": "ask", "availableModes": []}})
        s = sess(store)
        assert not s.replaying
        assert [e.kind for e in s.transcript] == [
            "user",
            "agent",
            "tool_call",
            "plan",
            "user",
            "agent",
        ]
        assert s.first_prompt == "first question"
        assert s.display_title == "first question"
        assert s.current_mode_id == "ask"
    changes = store.take_changes()
    assert PART_RESET in changes.parts(SID)
    assert changes.entries[SID] == {e.id for e in sess(store).transcript}


def test_replay_of_a_live_session_replaces_its_transcript(store: SessionStore) -> None:
    store.prompt_sent(SID, "hi")
    store.apply(chunk("hello"))
    store.begin_replay(SID)
    store.apply_many(REPLAY)
    store.end_replay(SID, {})
    assert len(sess(store).transcript) == len(REPLAY)


# -- change notification ---------------------------------------------------------------------------


def test_burst_of_chunks_wakes_once_until_taken(store: SessionStore) -> None:
    wakes: list[int] = []
    store.take_changes()
    unsubscribe = store.subscribe(lambda: wakes.append(1))
    for i in range(10_000):
        store.apply(chunk(str(i)))
    assert len(wakes) == 1
    changes = store.take_changes()
    assert changes.parts(SID) == {PART_TRANSCRIPT}
    assert changes.entries[SID] == {sess(store).transcript[0].id}
    assert not store.dirty and not store.take_changes()
    store.apply(up("usage_update", used=1, size=2))
    assert len(wakes) == 2
    assert store.take_changes().parts(SID) == {PART_USAGE}
    unsubscribe()
    store.apply(chunk("x"))
    assert len(wakes) == 2


def test_changes_report_entries_title_state_catalog(store: SessionStore) -> None:
    store.take_changes()
    store.apply(chunk("a"))
    store.apply(up("tool_call", toolCallId="t", title="T"))
    store.apply(up("session_info_update", title="New title"))
    store.prompt_sent(SID, "q")
    c = store.take_changes()
    s = sess(store)
    assert c.catalog_changed
    assert {PART_TRANSCRIPT, PART_TITLE, PART_STATE} <= c.parts(SID)
    assert c.entries[SID] == {e.id for e in s.transcript}


def test_failing_wake_does_not_break_store(store: SessionStore) -> None:
    def bad() -> None:
        raise RuntimeError("ui bug")

    store.take_changes()
    store.subscribe(bad)
    store.apply(chunk("a"))
    assert sess(store).transcript[0].text == "a"


def test_entry_versions_bump_on_change(store: SessionStore) -> None:
    store.apply(chunk("a"))
    e = sess(store).transcript[0]
    v = e.version
    store.apply(chunk("b"))
    assert e.version == v + 1


def test_held_updates_are_bounded() -> None:
    store = SessionStore(max_held_per_session=3)
    store.max_held_sessions = 2
    for i in range(5):
        store.apply(chunk(str(i), sid="a"))
    store.apply(chunk("x", sid="b"))
    store.apply(chunk("y", sid="c"))
    assert store.held_count("a") == 3 and store.held_count("b") == 1 and store.held_count("c") == 0
    assert store.held_dropped == 3
