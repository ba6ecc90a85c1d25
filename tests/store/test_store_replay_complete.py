"""v2's ``replay_complete`` (preview; https://agentclientprotocol.com/rfds/v2/session-replay-complete)
ends a resume's replay where the agent says so, before the response: the session stops
"replaying", the replay is judged as a load's is, and what follows is live (not history);
a marker outside a replay is a stray one, ignored."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import AgentMessage, Notice, SessionStore, UserMessage
from acp_tui.store.changes import PART_STATE

SID = "s1"
COMPLETE = {"sessionId": SID, "update": {"sessionUpdate": "replay_complete"}}


def chunk(kind: str, text: str) -> dict[str, Any]:
    return {
        "sessionId": SID,
        "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
    }


def conversation(store: SessionStore) -> list[tuple[str, str]]:
    state = store.get(SID)
    assert state is not None
    return [
        (type(e).__name__, e.text)
        for e in state.transcript
        if isinstance(e, UserMessage | AgentMessage)
    ]


@pytest.mark.parametrize("keep", [False, True], ids=["fresh", "kept"])
def test_the_marker_ends_the_replay_before_the_response(keep: bool) -> None:
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    state = store.begin_replay(SID, cwd="/p", keep=keep)
    store.apply(chunk("user_message_chunk", "first"))
    store.apply(chunk("agent_message_chunk", "You said: first"))
    assert state.replaying
    store.take_changes()
    store.apply(COMPLETE)
    # Over at the marker: the screen hears it now, not at the response.
    assert not state.replaying
    assert PART_STATE in store.take_changes().sessions[SID]
    assert conversation(store) == [("UserMessage", "first"), ("AgentMessage", "You said: first")]
    # After it, live: a message the agent streams now is no replay's, and the response that
    # follows takes nothing away.
    store.apply(chunk("agent_message_chunk", " (live)"))
    store.end_replay(SID, {"modes": None})
    assert conversation(store)[-1] == ("AgentMessage", "You said: first (live)")
    assert not state.replaying


def test_a_stray_marker_outside_a_replay_changes_nothing() -> None:
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    turn = store.prompt_sent(SID, "hi")
    store.apply(chunk("agent_message_chunk", "hello"))
    store.take_changes()
    store.apply(COMPLETE)
    state = store.get(SID)
    assert state is not None and not state.replaying and state.activity == "running"
    assert not store.take_changes().sessions.get(SID)
    store.prompt_finished(SID, {"stopReason": "end_turn"}, turn=turn)
    assert conversation(store) == [("UserMessage", "hi"), ("AgentMessage", "hello")]


def notices(store: SessionStore) -> list[str]:
    state = store.get(SID)
    assert state is not None
    return [e.title for e in state.transcript if isinstance(e, Notice)]


@pytest.mark.parametrize(
    ("marker", "answered", "truncated"),
    [(False, False, True), (True, False, False), (False, True, False), (True, True, False)],
    ids=["cut-short", "whole-then-failed", "answered-unmarked", "whole"],
)
def test_a_replay_without_its_end_nor_its_answer_is_said_to_be_cut_short(
    marker: bool, answered: bool, truncated: bool
) -> None:
    """The RFD's rule: a replay that ends without ``replay_complete`` and without a
    successful response is truncated; either one of them means the history is whole."""
    store = SessionStore()
    state = store.begin_replay(SID, cwd="/p")
    store.apply(chunk("user_message_chunk", "first"))
    store.apply(chunk("agent_message_chunk", "You said: first"))
    if marker:
        store.apply(COMPLETE)
    store.end_replay(SID, {} if answered else None)
    assert not state.replaying
    said = [text for text in notices(store) if "cut short" in text]
    assert len(said) == (1 if truncated else 0)
    assert conversation(store) == [("UserMessage", "first"), ("AgentMessage", "You said: first")]


def test_a_failed_replay_that_brought_nothing_says_nothing() -> None:
    store = SessionStore()
    store.begin_replay(SID, cwd="/p")
    store.end_replay(SID, None)
    assert notices(store) == []
