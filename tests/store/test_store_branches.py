"""The store's side of branch, rename and archive: pinned titles, the archived catalog and a
branch's copied transcript."""

from __future__ import annotations

from typing import Any

from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, ToolCall, UserMessage


def update(store: SessionStore, session_id: str, **fields: Any) -> None:
    store.apply({"sessionId": session_id, "update": fields})


def test_a_pinned_title_wins_over_every_title_the_agent_reports() -> None:
    store = SessionStore()
    store.register_session("s", cwd="/w")
    update(store, "s", sessionUpdate="session_info_update", title="Agent 1")
    store.pin_title("s", "Mine")
    update(store, "s", sessionUpdate="session_info_update", title="Agent 2")
    update(store, "s", sessionUpdate="session_info_update", title=None)
    store.apply_list_page(
        {
            "sessions": [
                {
                    "sessionId": "s",
                    "cwd": "/w",
                    "title": "Listed",
                    "updatedAt": "2999-01-01T00:00:00Z",
                }
            ]
        },
        cwd="/w",
    )
    store.register_session("s", cwd="/w", title="Registered")
    state = store.get("s")
    assert state is not None and state.title == "Mine" and state.title_pinned
    assert store.search("mine", "/w") == [state]


def test_a_pin_holds_for_a_session_heard_of_later() -> None:
    store = SessionStore()
    store.pin_title("later", "Mine")
    store.apply_list_page({"sessions": [{"sessionId": "later", "cwd": "/w", "title": "Listed"}]})
    state = store.get("later")
    assert state is not None and state.title == "Mine"


def test_archived_sessions_have_their_own_catalog_and_pages() -> None:
    store = SessionStore()
    store.apply_list_page(
        {"sessions": [{"sessionId": "a", "cwd": "/w"}, {"sessionId": "b", "cwd": "/w"}]},
        cwd="/w",
    )
    # Listed with the filter "only": archived even where the agent leaves the field out.
    store.apply_list_page(
        {"sessions": [{"sessionId": "c", "cwd": "/w"}], "nextCursor": "more"},
        cwd="/w",
        archived=True,
    )
    assert [s.id for s in store.catalog("/w")] == ["a", "b"]
    assert [s.id for s in store.catalog("/w", archived=True)] == ["c"]
    assert store.list_state("/w", archived=True).next_cursor == "more"
    assert store.list_state("/w").complete
    store.set_archived("a", True)
    store.set_archived("c", False)
    assert [s.id for s in store.catalog("/w")] == ["b", "c"]
    assert [s.id for s in store.search("a", "/w", archived=True)] == ["a"]
    # An agent that reports the field is believed.
    store.apply_list_page({"sessions": [{"sessionId": "b", "cwd": "/w", "archived": True}]})
    assert [s.id for s in store.catalog("/w")] == ["c"]


def test_a_branch_copies_the_transcript_and_shares_nothing_with_it() -> None:
    store = SessionStore()
    store.register_session("src", cwd="/w", new=True)
    store.prompt_sent(
        "src",
        [
            {"type": "text", "text": "hi"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
        ],
    )
    update(
        store,
        "src",
        sessionUpdate="agent_message_chunk",
        messageId="m1",
        content={"type": "text", "text": "hel"},
    )
    update(store, "src", sessionUpdate="tool_call", toolCallId="t1", title="Read", status="pending")
    store.prompt_finished("src", {"stopReason": "end_turn"})
    branch = store.register_fork(
        "br",
        "src",
        cwd="/w",
        response={
            "modes": {"availableModes": [{"id": "code", "name": "Code"}], "currentModeId": "code"}
        },
    )
    source = store.get("src")
    assert source is not None
    assert [e.kind for e in branch.transcript] == [e.kind for e in source.transcript]
    assert {e.id for e in branch.transcript}.isdisjoint(e.id for e in source.transcript)
    assert branch.live and not branch.draft and branch.current_mode_id == "code"
    assert branch.first_prompt == "hi"
    assert store.catalog("/w")[0] is branch  # the newest
    # Later updates to either go to its own copy.
    update(
        store,
        "br",
        sessionUpdate="agent_message_chunk",
        messageId="m1",
        content={"type": "text", "text": "lo"},
    )
    update(store, "br", sessionUpdate="tool_call_update", toolCallId="t1", status="completed")
    [mine] = [e for e in branch.transcript if isinstance(e, AgentMessage)]
    [theirs] = [e for e in source.transcript if isinstance(e, AgentMessage)]
    assert (mine.text, theirs.text) == ("hello", "hel")
    assert [e.status for e in branch.transcript if isinstance(e, ToolCall)] == ["completed"]
    assert [e.status for e in source.transcript if isinstance(e, ToolCall)] == ["pending"]
    [user] = [e for e in branch.transcript if isinstance(e, UserMessage)]
    assert [b["type"] for b in user.content] == ["text", "image"] and not user.local_pending


def test_a_branch_of_an_unknown_session_starts_empty() -> None:
    store = SessionStore()
    branch = store.register_fork("br", "nowhere", cwd="/w")
    assert branch.transcript == [] and branch.live
