"""Paging ``session/list`` cannot loop (issue 17): a ``nextCursor`` the agent sent before (a
repeat, or any cycle), or pages that never bring a new session, end the listing with a reason;
a session listed twice is one row."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import SessionStore
from acp_tui.store.store import MAX_STALE_PAGES


def page(ids: list[str], cursor: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {"sessions": [{"sessionId": i, "cwd": "/p"} for i in ids]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return result


def follow(store: SessionStore, pages: dict[str | None, dict[str, Any]], limit: int = 1000) -> int:
    """Page like the sidebar does; returns how many requests it took to stop."""
    cursor: str | None = None
    for requests in range(1, limit + 1):
        store.apply_list_page(pages[cursor], cwd="/p", cursor=cursor)
        state = store.list_state("/p")
        if state.complete:
            return requests
        cursor = state.next_cursor
    raise AssertionError("paging never stopped")


def test_a_repeated_cursor_stops_paging_and_says_why() -> None:
    store = SessionStore()
    pages = {None: page(["a"], "same"), "same": page(["a", "b"], "same")}
    assert follow(store, pages) == 2
    state = store.list_state("/p")
    assert state.complete and state.next_cursor is None
    assert state.stopped and "loops" in state.stopped
    assert [s.id for s in store.catalog("/p")] == ["a", "b"]  # one row each


def test_a_cursor_cycle_stops_paging() -> None:
    store = SessionStore()
    pages = {None: page(["a"], "x"), "x": page(["b"], "y"), "y": page(["c"], "x")}
    assert follow(store, pages) == 3
    assert store.list_state("/p").stopped
    assert {s.id for s in store.catalog("/p")} == {"a", "b", "c"}


def test_fresh_cursors_over_the_same_rows_stop_after_a_few_pages() -> None:
    store = SessionStore()
    pages: dict[str | None, dict[str, Any]] = {None: page(["a"], "c0")}
    for n in range(100):
        pages[f"c{n}"] = page(["a"], f"c{n + 1}")
    assert follow(store, pages) == 1 + MAX_STALE_PAGES
    assert "no new sessions" in (store.list_state("/p").stopped or "")


def test_a_refresh_lists_again_from_the_first_page() -> None:
    store = SessionStore()
    pages = {None: page(["a"], "same"), "same": page(["b"], "same")}
    follow(store, pages)
    assert follow(store, {None: page(["a"], "n"), "n": page(["z"], None)}) == 2
    state = store.list_state("/p")
    assert state.complete and state.stopped is None


@settings(max_examples=200, deadline=None)
@given(
    links=st.dictionaries(
        st.sampled_from(["c1", "c2", "c3", "c4", "c5"]),
        st.tuples(
            st.lists(st.sampled_from("abcdef"), max_size=3),
            st.sampled_from([None, "c1", "c2", "c3", "c4", "c5"]),
        ),
    ),
    first=st.tuples(
        st.lists(st.sampled_from("abcdef"), max_size=3), st.sampled_from([None, "c1", "c2", "c3"])
    ),
)
def test_any_cursor_graph_ends_and_lists_each_session_once(
    links: dict[str, tuple[list[str], str | None]], first: tuple[list[str], str | None]
) -> None:
    pages: dict[str | None, dict[str, Any]] = {None: page(*first)}
    for cursor in ["c1", "c2", "c3", "c4", "c5"]:
        ids, nxt = links.get(cursor, ([], None))
        pages[cursor] = page(ids, nxt)
    store = SessionStore()
    requests = follow(store, pages)
    assert requests <= 6  # at most one request per distinct cursor, plus the first
    ids = [s.id for s in store.catalog("/p")]
    assert len(ids) == len(set(ids))


@pytest.mark.anyio
async def test_list_all_sessions_stops_on_a_repeated_cursor_and_deduplicates() -> None:
    from acp_tui.protocol.agent_info import AgentInfo
    from acp_tui.protocol.client import AcpClient

    requests: list[str | None] = []

    class Fake(AcpClient):
        def __init__(self) -> None:
            self.agent = AgentInfo(capabilities={"sessionCapabilities": {"list": {}}})

        async def list_sessions(self, cwd: str | None = None, cursor: str | None = None) -> Any:
            requests.append(cursor)
            return page(["a", "b"], "again")

    notes: list[str] = []
    sessions = await Fake().list_all_sessions(None, notes=notes)
    assert [s["sessionId"] for s in sessions] == ["a", "b"]
    assert requests == [None, "again"]
    assert len(notes) == 1 and "cursor" in notes[0]
