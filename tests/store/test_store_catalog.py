"""Catalog: session/list pages, ordering, live overrides, search, capabilities, ISO parsing."""

from __future__ import annotations

import time
from typing import Any

import pytest

from acp_tui.store import SessionStore, parse_iso


def info(sid: str, updated: str | None = None, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"sessionId": sid, "cwd": extra.pop("cwd", "/p")}
    if updated is not None:
        d["updatedAt"] = updated
    d.update(extra)
    return d


def ids(store: SessionStore, cwd: str | None = None) -> list[str]:
    return [s.id for s in store.catalog(cwd)]


def test_pages_merge_ordered_newest_first_missing_last() -> None:
    store = SessionStore()
    w = store.apply_list_page(
        {
            "sessions": [info("b", "2025-10-02T00:00:00Z"), info("none1")],
            "nextCursor": "c1",
        }
    )
    assert w == []
    assert store.list_state().next_cursor == "c1" and not store.list_state().complete
    store.apply_list_page(
        {
            "sessions": [
                info("a", "2025-10-03T00:00:00+00:00"),
                info("c", "2025-10-01T12:00:00.123456789Z"),
                info("bad", "yesterday-ish"),
            ]
        },
        cursor="c1",
    )
    assert ids(store) == ["a", "b", "c", "none1", "bad"]
    st = store.list_state()
    assert st.complete and st.next_cursor is None and st.pages == 2


def test_list_scopes_and_cwd_filter() -> None:
    store = SessionStore()
    store.apply_list_page({"sessions": [info("x", cwd="/a")], "nextCursor": "n"}, cwd="/a")
    store.apply_list_page({"sessions": [info("y", cwd="/b")]})
    assert store.list_state("/a").next_cursor == "n"
    assert store.list_state(None).complete
    assert ids(store, "/a") == ["x"]
    assert set(ids(store)) == {"x", "y"}


def test_refresh_with_first_page_resets_pagination() -> None:
    store = SessionStore()
    store.apply_list_page({"sessions": [], "nextCursor": "n"})
    store.apply_list_page({"sessions": []}, cursor="n")
    store.apply_list_page({"sessions": [], "nextCursor": "m"})
    st = store.list_state()
    assert st.pages == 1 and st.next_cursor == "m"


def test_live_title_wins_and_survives_stale_refresh() -> None:
    clock = [parse_iso("2025-10-05T00:00:00Z") or 0.0]
    store = SessionStore(clock=lambda: clock[0])
    store.apply_list_page({"sessions": [info("s", "2025-10-01T00:00:00Z", title="Old")]})
    store.register_session("s", cwd="/p")
    store.apply(
        {"sessionId": "s", "update": {"sessionUpdate": "session_info_update", "title": "Live"}}
    )
    assert store.get("s").title == "Live"  # type: ignore[union-attr]
    # refresh still carrying the stale title (older updatedAt): live title survives
    store.apply_list_page({"sessions": [info("s", "2025-10-01T00:00:00Z", title="Old")]})
    assert store.get("s").title == "Live"  # type: ignore[union-attr]
    # a genuinely newer listing (renamed elsewhere later) wins
    store.apply_list_page({"sessions": [info("s", "2025-10-09T00:00:00Z", title="Renamed")]})
    assert store.get("s").title == "Renamed"  # type: ignore[union-attr]


def test_live_meta_survives_stale_refresh() -> None:
    store = SessionStore(clock=lambda: 2e9)
    store.apply_list_page({"sessions": [info("s", "2025-10-01T00:00:00Z", _meta={"a": 1})]})
    store.register_session("s")
    store.apply(
        {"sessionId": "s", "update": {"sessionUpdate": "session_info_update", "_meta": {"b": 2}}}
    )
    store.apply_list_page({"sessions": [info("s", "2025-10-01T00:00:00Z", _meta={"a": 1})]})
    assert store.get("s").meta == {"a": 1, "b": 2}  # type: ignore[union-attr]


def test_live_updated_at_reorders() -> None:
    store = SessionStore()
    store.apply_list_page(
        {"sessions": [info("a", "2025-10-03T00:00:00Z"), info("b", "2025-10-02T00:00:00Z")]}
    )
    assert ids(store) == ["a", "b"]
    store.register_session("b")
    store.apply(
        {
            "sessionId": "b",
            "update": {"sessionUpdate": "session_info_update", "updatedAt": "2025-10-04T00:00:00Z"},
        }
    )
    assert ids(store) == ["b", "a"]
    # a stale listing does not move it back
    store.apply_list_page({"sessions": [info("b", "2025-10-02T00:00:00Z")]})
    assert ids(store) == ["b", "a"]


def test_new_live_session_appears_at_top() -> None:
    store = SessionStore(clock=time.time)
    store.apply_list_page({"sessions": [info("old", "2025-01-01T00:00:00Z")]})
    store.register_session("fresh", cwd="/p")
    assert ids(store)[0] == "fresh"


def test_malformed_pages_do_not_raise() -> None:
    store = SessionStore()
    assert store.apply_list_page(None)
    w = store.apply_list_page(
        {"sessions": [1, {"sessionId": 2}, info("ok", title=5)], "nextCursor": 3}
    )
    assert len(w) == 2
    assert ids(store) == ["ok"]
    assert store.get("ok").title is None  # type: ignore[union-attr]
    assert store.list_state().complete
    assert store.apply_list_page({"sessions": "x"})


def test_search_title_cwd_id_case_insensitive() -> None:
    store = SessionStore()
    store.apply_list_page(
        {
            "sessions": [
                info("sess_AUTH", "2025-10-03T00:00:00Z", title="Fix login", cwd="/home/u/api"),
                info("sess_2", "2025-10-02T00:00:00Z", title="Auth timeout", cwd="/home/u/web"),
                info("sess_3", "2025-10-01T00:00:00Z", title=None, cwd="/srv/Auth-service"),
                info("sess_4", title="unrelated", cwd="/x"),
            ]
        }
    )
    assert [s.id for s in store.search("auth")] == ["sess_AUTH", "sess_2", "sess_3"]
    assert [s.id for s in store.search("WEB")] == ["sess_2"]
    assert [s.id for s in store.search("auth", cwd="/home/u/web")] == ["sess_2"]
    assert len(store.search("  ")) == 4
    store.register_session("sess_4")
    store.apply(
        {
            "sessionId": "sess_4",
            "update": {"sessionUpdate": "session_info_update", "title": "OAuth flow"},
        }
    )
    assert "sess_4" in [s.id for s in store.search("auth")]


def test_catalog_of_10000_sessions_paged_in_is_whole_sorted_and_searchable() -> None:
    # How fast this is, is measured where timings belong: bench/bench_sessions.py.
    store = SessionStore()
    for page in range(100):
        sessions = [
            info(
                f"s{page}-{i}",
                f"2025-{1 + (i % 12):02d}-{1 + (page % 28):02d}T00:00:{i % 60:02d}Z",
                title=f"t{i}",
            )
            for i in range(100)
        ]
        store.apply_list_page(
            {"sessions": sessions, "nextCursor": f"c{page}"},
            cursor=None if page == 0 else f"c{page - 1}",
        )
        store.catalog()  # the UI reads after each page
    hits = store.search("t42")
    assert len(store.catalog()) == 10_000
    assert len(hits) == 100
    ts = [s.updated_ts for s in store.catalog()]
    assert ts == sorted(ts, reverse=True)  # type: ignore[type-var]


def test_capabilities_and_open_method() -> None:
    store = SessionStore()
    store.apply_list_page({"sessions": [info("a")]})
    assert store.open_method("a") is None and not store.get("a").resumable  # type: ignore[union-attr]
    store.set_agent_capabilities({"loadSession": True})
    assert store.open_method("a") == "load" and store.get("a").resumable  # type: ignore[union-attr]
    store.set_agent_capabilities({"sessionCapabilities": {"resume": {}, "list": {}}})
    assert store.open_method("a") == "resume" and store.can_list
    store.register_session("a")
    assert store.open_method("a") == "live"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-10-29T14:22:15Z", 1761747735.0),
        ("2025-10-29T14:22:15z", 1761747735.0),
        ("2025-10-29T14:22:15+00:00", 1761747735.0),
        ("2025-10-29T16:22:15+02:00", 1761747735.0),
        ("2025-10-29 14:22:15", 1761747735.0),
        ("2025-10-29T14:22:15.5Z", 1761747735.5),
        ("2025-10-29T14:22:15.123456789Z", 1761747735.123456),
        ("not a date", None),
        ("", None),
        (None, None),
        (12345, None),
    ],
)
def test_parse_iso(value: Any, expected: float | None) -> None:
    got = parse_iso(value)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected)


def test_index_records_fill_gaps_only(tmp_path: Any) -> None:
    from acp_tui.store import LocalIndex

    idx = LocalIndex(tmp_path / "i.sqlite3", "agent --x")
    idx.remember("listed", cwd="/p", title="Index title", updated=100.0)
    idx.remember("local_only", cwd="/q", first_prompt="hello there\nmore", updated=50.0)
    store = SessionStore()
    store.apply_list_page(
        {"sessions": [info("listed", "2025-10-01T00:00:00Z", title="Agent title")]}
    )
    store.apply_index_records(idx.sessions())
    assert store.get("listed").title == "Agent title"  # type: ignore[union-attr]
    lo = store.get("local_only")
    assert lo is not None and lo.indexed and lo.cwd == "/q" and lo.display_title == "hello there"
    assert ids(store) == ["listed", "local_only"]
    idx.close()


def test_search_finds_an_untitled_session_by_the_first_prompt_its_row_shows() -> None:
    """An untitled session's row shows its first prompt: the filter looked only at the title,
    the folder and the id, and "hel" found no "hello there" row (OpenHands' tester)."""
    from acp_tui.store.local_index import IndexedSession

    store = SessionStore()
    store.apply_list_page({"sessions": [info("titled", title="Refactor the parser")]})
    store.apply_index_records(
        [
            IndexedSession(
                "remembered", "/p", None, "hello there, what is here", 1.0, 2.0, None, None
            )
        ]
    )
    store.register_session("live", cwd="/p")
    assert [s.id for s in store.search("HELLO")] == ["remembered"]
    store.prompt_sent("live", "Fix the flaky test\nin CI")
    assert [s.id for s in store.search("flaky")] == ["live"]
    assert [s.id for s in store.search("parser")] == ["titled"]
