"""Reopening a session whose transcript is on screen (issue 17: Ctrl+R after a crash) keeps
what the person saw: the agent's ``session/load`` replay is built apart and replaces it only
when it holds every message that was shown (it may hold more); a shorter or different replay
leaves the shown transcript in place, with a notice saying so."""

from __future__ import annotations

from typing import Any

from acp_tui.store import AgentMessage, Notice, SessionStore, UserMessage
from acp_tui.store.changes import PART_RESET

SID = "s1"


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


def shown_then_crashed() -> SessionStore:
    """Two turns shown; the second reply was cut short by a crash."""
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    for prompt, reply in (("first", "You said: first"), ("second", "You said: sec")):
        turn = store.prompt_sent(SID, prompt)
        store.apply(chunk("agent_message_chunk", reply))
        store.prompt_finished(SID, {"stopReason": "end_turn"}, turn=turn)
    store.take_changes()
    return store


def replay(store: SessionStore, pairs: list[tuple[str, str]], response: Any = {}) -> None:  # noqa: B006
    store.begin_replay(SID, cwd="/p", keep=True)
    for user, agent in pairs:
        store.apply(chunk("user_message_chunk", user))
        store.apply(chunk("agent_message_chunk", agent))
    store.apply(
        {
            "sessionId": SID,
            "update": {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [{"name": "x"}],
            },
        }
    )
    during = store.take_changes()
    assert PART_RESET not in during.sessions.get(SID, set()), "the kept transcript was dropped"
    assert not during.entries.get(SID), "replayed entries reached the screen mid-replay"
    store.end_replay(SID, response)


SEEN = [
    ("UserMessage", "first"),
    ("AgentMessage", "You said: first"),
    ("UserMessage", "second"),
    ("AgentMessage", "You said: sec"),
]


def test_a_shorter_replay_keeps_what_was_shown_and_says_so() -> None:
    store = shown_then_crashed()
    before = [e.id for e in store.get(SID).transcript]  # type: ignore[union-attr]
    replay(store, [("first", "You said: first")])
    assert conversation(store) == SEEN
    state = store.get(SID)
    assert state is not None and not state.replaying
    assert [e.id for e in state.transcript][: len(before)] == before
    notice = state.transcript[-1]
    assert isinstance(notice, Notice) and notice.title.startswith("Kept the transcript you saw")
    assert state.commands == [{"name": "x"}]  # session state from the replay still counts


def test_a_different_replay_of_the_same_length_is_not_taken() -> None:
    store = shown_then_crashed()
    replay(store, [("first", "You said: first"), ("summary", "Summarised.")])
    assert conversation(store) == SEEN


def test_a_replay_that_holds_everything_shown_is_taken() -> None:
    store = shown_then_crashed()
    replay(
        store,
        [("first", "You said: first"), ("second", "You said: second"), ("third", "More")],
    )
    assert conversation(store) == [
        ("UserMessage", "first"),
        ("AgentMessage", "You said: first"),
        ("UserMessage", "second"),
        ("AgentMessage", "You said: second"),  # the crash had cut it: the replay has it all
        ("UserMessage", "third"),
        ("AgentMessage", "More"),
    ]
    assert PART_RESET in store.take_changes().sessions[SID]
    assert not any(isinstance(e, Notice) for e in store.get(SID).transcript)  # type: ignore[union-attr]


def test_a_failed_load_keeps_the_transcript_silently() -> None:
    store = shown_then_crashed()
    replay(store, [("first", "You said: first")], response=None)
    assert conversation(store) == SEEN
    assert not any(isinstance(e, Notice) for e in store.get(SID).transcript)  # type: ignore[union-attr]


def test_without_a_shown_transcript_the_replay_is_the_transcript() -> None:
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    store.begin_replay(SID, cwd="/p", keep=True)
    store.apply(chunk("user_message_chunk", "only"))
    store.apply(chunk("agent_message_chunk", "reply"))
    store.end_replay(SID, {})
    assert conversation(store) == [("UserMessage", "only"), ("AgentMessage", "reply")]


def test_a_resume_that_replays_nothing_keeps_the_transcript_silently() -> None:
    store = shown_then_crashed()
    store.begin_replay(SID, cwd="/p", keep=True)
    store.end_replay(SID, {}, resumed=True)
    assert conversation(store) == SEEN
    assert not any(isinstance(e, Notice) for e in store.get(SID).transcript)  # type: ignore[union-attr]


def test_a_resume_that_replays_exactly_what_is_shown_keeps_what_is_shown() -> None:
    # kimi-cli replays on session/resume; its replayed tool calls name terminals it has
    # released, where the shown ones hold their output: the shown entries stay.
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    turn = store.prompt_sent(SID, "first")
    store.apply(chunk("agent_message_chunk", "You said: first"))
    store.prompt_finished(SID, {"stopReason": "end_turn"}, turn=turn)
    before = [e.id for e in store.get(SID).transcript]  # type: ignore[union-attr]
    store.begin_replay(SID, cwd="/p", keep=True)
    store.apply(chunk("user_message_chunk", "first"))
    store.apply(chunk("agent_message_chunk", "You said: first"))
    store.end_replay(SID, {}, resumed=True)
    state = store.get(SID)
    assert state is not None and [e.id for e in state.transcript] == before


def test_a_resume_that_replays_anyway_is_judged_as_a_load() -> None:
    # fast-agent replays on session/resume: what it replays is never added to what is shown.
    store = shown_then_crashed()
    store.begin_replay(SID, cwd="/p", keep=True)
    for user, agent in (("first", "You said: first"), ("second", "You said: second")):
        store.apply(chunk("user_message_chunk", user))
        store.apply(chunk("agent_message_chunk", agent))
    store.end_replay(SID, {}, resumed=True)
    assert conversation(store) == [*SEEN[:3], ("AgentMessage", "You said: second")]
    store = shown_then_crashed()
    replay_shorter = [("first", "You said: first")]
    store.begin_replay(SID, cwd="/p", keep=True)
    for user, agent in replay_shorter:
        store.apply(chunk("user_message_chunk", user))
        store.apply(chunk("agent_message_chunk", agent))
    store.end_replay(SID, {}, resumed=True)
    assert conversation(store) == SEEN
    notices = [e for e in store.get(SID).transcript if isinstance(e, Notice)]  # type: ignore[union-attr]
    assert len(notices) == 1


def test_two_prompts_replayed_in_a_row_are_set_apart_not_glued() -> None:
    """Codex replays a cancelled turn's prompt with no reply after it, then the next prompt,
    neither with a message id: they read "slowsecond turn after cancel". A replayed user chunk
    is a whole block: the next one starts a paragraph, in a fresh load and in a kept one."""
    for keep in (False, True):
        store = SessionStore()
        store.register_session(SID, cwd="/p", response={})
        store.begin_replay(SID, cwd="/p", keep=keep)
        store.apply(chunk("user_message_chunk", "slow"))
        store.apply(chunk("user_message_chunk", "second turn after cancel"))
        store.apply(chunk("user_message_chunk", "\nthird, already apart"))
        store.apply(chunk("agent_message_chunk", "ok"))
        store.end_replay(SID, {})
        assert conversation(store) == [
            ("UserMessage", "slow\n\nsecond turn after cancel\nthird, already apart"),
            ("AgentMessage", "ok"),
        ]


def test_a_live_user_echo_in_pieces_is_still_joined_as_sent() -> None:
    store = SessionStore()
    store.register_session(SID, cwd="/p", response={})
    store.apply(chunk("user_message_chunk", "hel"))
    store.apply(chunk("user_message_chunk", "lo"))
    assert conversation(store) == [("UserMessage", "hello")]
