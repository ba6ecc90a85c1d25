"""The live state of every session (issue 19, parallel sessions): working (timed), waiting for
the person, done with unread output, error; read by the sidebar's rows through
:func:`acp_tui.store.live_state`."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import (
    LIVE_ERROR,
    LIVE_UNREAD,
    LIVE_WAITING,
    LIVE_WORKING,
    PART_STATE,
    SessionStore,
    live_state,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def _store(version: int = 1) -> tuple[SessionStore, Clock]:
    clock = Clock()
    store = SessionStore(protocol_version=version, clock=clock)
    for sid in ("one", "two"):
        store.register_session(sid, cwd="/w")
    store.set_viewing("one")
    return store, clock


def _state(sid: str, state: str, **extra: Any) -> dict[str, Any]:
    return {"sessionId": sid, "update": {"sessionUpdate": "state_update", "state": state, **extra}}


def _live(store: SessionStore, sid: str) -> str | None:
    state = store.get(sid)
    assert state is not None
    return live_state(state)


def test_a_running_turn_is_working_and_timed_from_its_start() -> None:
    store, clock = _store()
    store.prompt_sent("two", "go")
    clock.now += 42
    state = store.get("two")
    assert state is not None and _live(store, "two") == LIVE_WORKING
    assert clock() - (state.turn_started or 0) == 42
    store.prompt_finished("two", {"stopReason": "end_turn"})
    assert state.turn_started is None


def test_a_turn_that_ends_off_screen_leaves_unread_output_until_shown() -> None:
    store, _ = _store()
    store.prompt_sent("two", "go")
    store.prompt_finished("two", {"stopReason": "end_turn"})
    assert _live(store, "two") == LIVE_UNREAD
    store.take_changes()
    store.set_viewing("two")
    assert _live(store, "two") is None
    assert PART_STATE in store.take_changes().parts("two")


def test_a_turn_that_ends_on_screen_is_read_as_it_ends() -> None:
    store, _ = _store()
    store.prompt_sent("one", "go")
    store.prompt_finished("one", {"stopReason": "end_turn"})
    assert _live(store, "one") is None


def test_leaving_a_session_while_its_turn_runs_makes_its_end_unread() -> None:
    store, _ = _store()
    store.prompt_sent("one", "go")
    store.set_viewing("two")
    store.prompt_finished("one", {"stopReason": "end_turn"})
    assert _live(store, "one") == LIVE_UNREAD
    assert _live(store, "two") is None


def test_a_permission_pending_is_waiting_and_wins_over_working() -> None:
    store, _ = _store()
    store.prompt_sent("two", "go")
    store.set_activity("two", "requires_action")
    assert _live(store, "two") == LIVE_WAITING
    store.set_activity("two", "running")
    assert _live(store, "two") == LIVE_WORKING


@pytest.mark.parametrize("viewing", ["one", "two"])
def test_a_turn_that_fails_is_an_error_until_the_next_turn(viewing: str) -> None:
    store, _ = _store()
    store.set_viewing(viewing)
    store.prompt_sent("two", "go")
    store.prompt_finished("two", None, error="the agent exited")
    assert _live(store, "two") == LIVE_ERROR
    store.set_viewing("two")
    assert _live(store, "two") == LIVE_ERROR  # seen, but still what happened last
    store.prompt_sent("two", "again")
    assert _live(store, "two") == LIVE_WORKING


def test_v2_idle_state_update_ends_a_turn_off_screen_as_unread() -> None:
    store, _ = _store(version=2)
    store.apply(_state("two", "running"))
    assert _live(store, "two") == LIVE_WORKING
    store.apply(_state("two", "requires_action"))
    assert _live(store, "two") == LIVE_WAITING
    store.apply(_state("two", "idle", stopReason="end_turn"))
    assert _live(store, "two") == LIVE_UNREAD


def test_v2_idle_with_an_error_is_an_error() -> None:
    store, _ = _store(version=2)
    store.apply(_state("two", "running"))
    store.apply(_state("two", "idle", stopReason="error"))
    assert _live(store, "two") == LIVE_ERROR


def test_a_replay_is_not_a_turn_that_ended() -> None:
    store, _ = _store()
    store.begin_replay("two")
    assert _live(store, "two") is None
    store.end_replay("two", {})
    assert _live(store, "two") is None


def test_switching_touches_both_rows() -> None:
    store, _ = _store()
    store.take_changes()
    store.set_viewing("two")
    changes = store.take_changes()
    assert PART_STATE in changes.parts("one") and PART_STATE in changes.parts("two")
    store.set_viewing("two")
    assert not store.dirty
