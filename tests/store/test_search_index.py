"""The search index of every session: query reading, FTS5 and its LIKE fallback, filters,
the writer's thread and the store's feed."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import date, datetime
from pathlib import Path

import pytest

from acp_tui.store import SessionStore
from acp_tui.store.search_feed import MESSAGE_CHARS, TOOL_OUTPUT_CHARS, SearchFeed, entry_text
from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow, snippet_of
from acp_tui.store.search_query import fts_expression, parse_query
from acp_tui.store.search_writer import SearchWriter

TODAY = date(2026, 3, 10)


def _day(text: str) -> float:
    d = date.fromisoformat(text)
    return time.mktime(datetime(d.year, d.month, d.day).timetuple())


# -- reading a query -------------------------------------------------------------------------------


def test_words_and_every_filter_are_read() -> None:
    q = parse_query(
        'deploy "blue green" @Claude in:Shop after:2026-03-01 before:yesterday', today=TODAY
    )
    assert q.terms == ("deploy", "blue green")
    assert q.agents == ("claude",)
    assert q.projects == ("shop",)
    assert q.after == _day("2026-03-01")
    assert q.before == _day("2026-03-09")
    assert q.problems == ()


@pytest.mark.parametrize(
    ("word", "day"),
    [("today", "2026-03-10"), ("3d", "2026-03-07"), ("2w", "2026-02-24"), ("2026-01-05", None)],
)
def test_dates_in_every_form(word: str, day: str | None) -> None:
    assert parse_query(f"x before:{word}", today=TODAY).before == _day(day or word)


def test_a_date_that_cannot_be_read_is_said_and_filters_nothing() -> None:
    q = parse_query("x before:soon", today=TODAY)
    assert q.before is None
    assert q.problems and "before:soon" in q.problems[0]


def test_a_filter_still_being_typed_is_no_filter_and_no_word() -> None:
    q = parse_query("deploy @", today=TODAY)
    assert (q.terms, q.agents) == (("deploy",), ())
    assert parse_query("in:", today=TODAY).empty


@pytest.mark.parametrize(
    "hostile",
    ['a" OR b', "NEAR(a b)", "text:secret", "a*", "-a", "(", '"', "AND", "^x", "a:b"],
)
def test_nothing_typed_is_fts5_syntax(hostile: str) -> None:
    index = SearchIndex(None)
    _put(index, "s1", ["a b text secret near and x"])
    # Every term is quoted: the query runs (a syntax error would log and return nothing).
    expression = fts_expression(parse_query(hostile + " "))
    if expression is not None:
        assert index._conn.execute(
            "SELECT count(*) FROM search_fts WHERE search_fts MATCH ?", (expression,)
        ).fetchone()


def test_the_word_being_typed_matches_as_a_prefix() -> None:
    assert fts_expression(parse_query("deplo")) == '"deplo" *'
    assert fts_expression(parse_query("deplo ")) == '"deplo"'


# -- the index -------------------------------------------------------------------------------------


def _put(
    index: SearchIndex,
    session_id: str,
    texts: list[str],
    *,
    agent: str = "config:claude",
    label: str = "claude",
    project: str = "/home/me/shop",
    at: float = 1_000.0,
    kind: str = "agent",
) -> None:
    row = SessionRow(agent, label, session_id, project, f"title of {session_id}", at)
    entries = [EntryRow(i, kind, at, text) for i, text in enumerate(texts)]
    index.write([("put", row, entries, None)])


@pytest.fixture(params=[True, False], ids=["fts5", "like"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> SearchIndex:
    made = SearchIndex(tmp_path / "search.sqlite3", fts=request.param)
    yield made
    made.close()


def test_a_word_is_found_with_its_session_agent_project_and_position(index: SearchIndex) -> None:
    _put(index, "s1", ["hello there", "we migrate the database tonight", "bye"])
    _put(index, "s2", ["nothing to see"], agent="config:codex", label="codex")
    [hit] = index.search(parse_query("database "))
    assert (hit.session_id, hit.agent, hit.label, hit.position) == (
        "s1",
        "config:claude",
        "claude",
        1,
    )
    assert (hit.project, hit.title) == ("/home/me/shop", "title of s1")
    start, end = hit.spans[0]
    assert hit.snippet[start:end].lower() == "database"


def test_every_word_must_occur(index: SearchIndex) -> None:
    _put(index, "s1", ["red apple", "green apple", "red pear"])
    assert [h.position for h in index.search(parse_query("red apple "))] == [0]


def test_filters_keep_their_agent_project_and_days(index: SearchIndex) -> None:
    _put(index, "a", ["deploy now"], agent="config:claude", label="Claude", at=_day("2026-03-01"))
    _put(
        index,
        "b",
        ["deploy later"],
        agent="config:codex",
        label="Codex",
        project="/srv/blog",
        at=_day("2026-03-05"),
    )
    found = lambda text: sorted(h.session_id for h in index.search(parse_query(text, today=TODAY)))  # noqa: E731
    assert found("deploy ") == ["a", "b"]
    assert found("deploy @claude") == ["a"]
    assert found("deploy @cod") == ["b"]
    assert found("deploy in:blog") == ["b"]
    assert found("deploy before:2026-03-05") == ["a"]
    assert found("deploy after:2026-03-05") == ["b"]
    assert found("@codex") == ["b"]  # filters alone list what they keep


def test_a_rewritten_entry_replaces_its_row_and_a_shorter_transcript_drops_the_rest(
    index: SearchIndex,
) -> None:
    _put(index, "s1", ["alpha", "beta", "gamma"])
    row = SessionRow("config:claude", "claude", "s1", "/p", "t", 0.0)
    index.write([("put", row, [EntryRow(0, "agent", 5.0, "delta")], 1)])
    assert index.search(parse_query("alpha ")) == []
    assert index.search(parse_query("gamma ")) == []
    [hit] = index.search(parse_query("delta "))
    assert hit.at == 1_000.0  # when it was first seen is kept
    assert index.stats().entries == 1


def test_a_forgotten_session_is_found_no_more(index: SearchIndex) -> None:
    _put(index, "s1", ["secret plan"])
    _put(index, "s2", ["secret plan too"])
    index.write([("forget", "config:claude", "s1")])
    assert [h.session_id for h in index.search(parse_query("secret "))] == ["s2"]
    assert index.stats().sessions == 1


def test_text_is_data(index: SearchIndex) -> None:
    hostile = "[bold red]boom[/] \x1b[31m 100% _under_ \\ '; DROP TABLE search_entries; --"
    _put(index, "s1", [hostile])
    for word in ("boom", "100", "under", "DROP"):
        [hit] = index.search(parse_query(word + " "))
        assert "boom[/]" in hit.snippet
    assert index.stats().entries == 1


def test_a_lone_surrogate_is_stored() -> None:
    index = SearchIndex(None)
    _put(index, "s\ud800", ["broken \ud800 text"])
    assert index.search(parse_query("broken "))


def test_without_fts5_the_fallback_says_so() -> None:
    assert SearchIndex(None, fts=False).note is not None
    assert SearchIndex(None, fts=True).note is None


def test_a_file_sqlite_cannot_read_is_put_aside(tmp_path: Path) -> None:
    path = tmp_path / "search.sqlite3"
    path.write_bytes(b"this is no database" * 100)
    index = SearchIndex(path)
    _put(index, "s1", ["fresh start"])
    assert index.search(parse_query("fresh "))
    assert list(tmp_path.glob("search.sqlite3.corrupt-*"))


def test_the_best_match_comes_first() -> None:
    index = SearchIndex(None, fts=True)
    _put(index, "s1", ["kiwi " + "filler " * 60])
    _put(index, "s2", ["kiwi kiwi kiwi"])
    assert index.search(parse_query("kiwi "))[0].session_id == "s2"


def test_a_snippet_shows_the_match_in_a_long_text() -> None:
    text = "word " * 500 + "needle" + " more" * 500
    snippet, spans = snippet_of(text, parse_query("needle "))
    assert len(snippet) < 200 and snippet.startswith("…") and snippet.endswith("…")
    assert [snippet[a:b] for a, b in spans] == ["needle"]


# -- the writer's thread ---------------------------------------------------------------------------


def test_the_writer_writes_on_its_own_thread_in_batches(tmp_path: Path) -> None:
    writer = SearchWriter(tmp_path / "s.sqlite3")
    threads: set[str] = set()
    original = writer.index.write

    def spy(ops):  # type: ignore[no-untyped-def]
        threads.add(threading.current_thread().name)
        return original(ops)

    writer.index.write = spy  # type: ignore[method-assign]
    row = SessionRow("a", "a", "s", "/p", "t")
    for position in range(500):
        writer.put(row, [EntryRow(position, "agent", 1.0, f"word{position}")], None)
    assert writer.flush()
    assert threads == {"acp-tui search index"}
    assert writer.batches < 500
    reader = writer.reader()
    assert reader.search(parse_query("word499 "))
    reader.close()
    writer.close()


# -- the store's feed ------------------------------------------------------------------------------


def _chunk(sid: str, kind: str, text: str) -> dict:
    return {
        "sessionId": sid,
        "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
    }


def _feed(store: SessionStore, writer: SearchWriter) -> SearchFeed:
    return SearchFeed(store, writer, agent="config:demo", label=lambda: "demo")


def test_the_feed_indexes_each_kind_and_bounds_it() -> None:
    writer = SearchWriter(None)
    store = SessionStore()
    store.register_session("s1", cwd="/proj", new=True)
    store.prompt_sent("s1", "please migrate the zebra table")
    store.apply(_chunk("s1", "agent_thought_chunk", "thinking about quokka"))
    store.apply(_chunk("s1", "agent_message_chunk", "done with the giraffe " + "x" * MESSAGE_CHARS))
    store.apply(
        {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Run okapi tests",
                "content": [
                    {
                        "type": "content",
                        "content": {"type": "text", "text": "ok " * TOOL_OUTPUT_CHARS + "late"},
                    }
                ],
            },
        }
    )
    store.prompt_finished("s1", {"stopReason": "end_turn"})
    feed = _feed(store, writer)
    assert feed.scan() == 4
    assert writer.flush()
    kinds = {
        word: [h.kind for h in writer.index.search(parse_query(word + " "))]
        for word in ("zebra", "quokka", "giraffe", "okapi", "late")
    }
    assert kinds == {
        "zebra": ["user"],
        "quokka": ["thought"],
        "giraffe": ["agent"],
        "okapi": ["tool"],
        "late": [],
    }
    [hit] = writer.index.search(parse_query("zebra "))
    assert (hit.label, hit.project, hit.position) == ("demo", "/proj", 0)


def test_a_stream_is_handed_over_again_only_when_it_changed() -> None:
    writer = SearchWriter(None)
    store = SessionStore()
    store.register_session("s1", cwd="/p", new=True)
    store.prompt_sent("s1", "hi")
    feed = _feed(store, writer)
    store.apply(_chunk("s1", "agent_message_chunk", "first "))
    assert feed.scan() == 2
    assert feed.scan() == 0
    store.apply(_chunk("s1", "agent_message_chunk", "second"))
    assert feed.scan() == 1
    writer.flush()
    assert writer.index.search(parse_query("second "))
    assert writer.index.stats().entries == 2


def test_a_replay_is_indexed_when_it_ends_and_a_shorter_one_drops_the_rest() -> None:
    writer = SearchWriter(None)
    store = SessionStore()
    feed = _feed(store, writer)
    store.begin_replay("s1", cwd="/p")
    store.apply(_chunk("s1", "user_message_chunk", "old question"))
    store.apply(_chunk("s1", "agent_message_chunk", "old answer"))
    assert feed.scan() == 0  # mid-replay: nothing yet
    store.end_replay("s1", {})
    assert feed.scan() == 2
    store.begin_replay("s1", cwd="/p")
    store.apply(_chunk("s1", "user_message_chunk", "old question"))
    store.end_replay("s1", {})
    feed.scan()
    writer.flush()
    assert writer.index.stats().entries == 1


def test_a_forgotten_session_is_not_indexed_again_for_what_it_said_before() -> None:
    writer = SearchWriter(None)
    store = SessionStore()
    store.register_session("s1", cwd="/p", new=True)
    store.prompt_sent("s1", "walrus")
    feed = _feed(store, writer)
    feed.scan()
    feed.forget("s1")
    feed.scan()
    writer.flush()
    assert writer.index.search(parse_query("walrus ")) == []
    store.prompt_sent("s1", "narwhal")
    feed.scan()
    writer.flush()
    assert writer.index.search(parse_query("narwhal "))


def test_entries_not_indexed() -> None:
    from acp_tui.store.entries import Notice

    assert entry_text(Notice(1, "a notice")) is None


def test_the_feed_scans_on_the_event_loop_after_the_store_changes() -> None:
    writer = SearchWriter(None)
    store = SessionStore()
    feed = SearchFeed(store, writer, agent="a", label=lambda: "a", interval=0.05).attach()

    async def stream() -> None:
        store.register_session("s1", cwd="/p", new=True)
        store.prompt_sent("s1", "hello")
        for word in ("streamed ", "words ", "arrive"):
            store.apply(_chunk("s1", "agent_message_chunk", word))
            store.take_changes()  # the screen takes them each frame
            await asyncio.sleep(0.01)
        for _ in range(200):
            await asyncio.sleep(0.01)
            writer.flush()
            if writer.index.search(parse_query("arrive ")):
                return
        raise AssertionError("never indexed")

    asyncio.run(stream())
    feed.detach()


# -- the launch spec: ``index = false`` ------------------------------------------------------------


def test_an_agent_with_index_false_feeds_nothing(tmp_path: Path) -> None:
    from acp_tui.config.schema import Config
    from acp_tui.session.launch.factory import AgentParts
    from acp_tui.session.launch.resolve import resolve_agent
    from acp_tui.session.launch.spec import AgentSource

    config = Config.model_validate(
        {"agents": {"kept": {"command": "a"}, "private": {"command": "b", "index": False}}}
    )
    writer = SearchWriter(None)
    kept = resolve_agent(AgentSource.configured("kept"), config).spec
    private = resolve_agent(AgentSource.configured("private"), config).spec
    assert (kept.index, private.index) == (True, False)
    assert AgentParts(private, search=writer).search is None
    kept_parts = AgentParts(kept, search=writer)
    assert kept_parts.search is not None
    for spec, parts in ((private, AgentParts(private, search=writer)), (kept, kept_parts)):
        parts.store.register_session("s-" + spec.key, cwd="/p", new=True)
        parts.store.prompt_sent("s-" + spec.key, f"word from {spec.name}")
        if parts.search is not None:
            parts.search.scan()
    writer.flush()
    assert [h.label for h in writer.index.search(parse_query("word "))] == ["kept"]


def test_one_or_two_letters_being_typed_are_no_prefix() -> None:
    assert fts_expression(parse_query("de")) == '"de"'
    assert fts_expression(parse_query("dep")) == '"dep" *'


def test_the_newest_matches_are_ranked_and_found_past_the_first_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import acp_tui.store.search_index as module

    monkeypatch.setattr(module, "RANGES", (3, None))
    monkeypatch.setattr(module, "WINDOW", 2)
    index = SearchIndex(None)
    _put(index, "old", ["the lemur is here"])  # far behind the first range
    _put(index, "new", [f"filler {n}" for n in range(10)])
    [hit] = index.search(parse_query("lemur "))
    assert hit.session_id == "old"


# -- days as ranges of row ids ---------------------------------------------------------------------


def _steps(index: SearchIndex, text: str) -> tuple[list[str], int]:
    """The sessions a query finds, and how many SQLite VM steps (in hundreds) it took."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    index._conn.set_progress_handler(count, 100)
    try:
        found = sorted({h.session_id for h in index.search(parse_query(text, today=TODAY))})
    finally:
        index._conn.set_progress_handler(None, 100)
    return found, steps[0]


def test_a_date_filter_does_not_look_at_every_entry_holding_the_word(index: SearchIndex) -> None:
    """A word said in thousands of old entries but never in the days asked for: the days are
    a range of row ids, so the answer (nothing) does not walk every entry holding the word."""
    _put(index, "older", ["deploy once"], at=_day("2024-01-01"))
    for n in range(20):
        _put(index, f"old{n}", [f"deploy step {i}" for i in range(400)], at=_day("2025-06-01"))
    _put(index, "new", ["nothing of that", "still nothing"], at=_day("2026-03-08"))
    assert "old19" in _steps(index, "deploy ")[0]
    found, steps = _steps(index, "deploy after:2026-03-01")
    assert found == []
    assert steps < 100, steps  # walking the 8,000 entries holding the word took thousands
    found, steps = _steps(index, "deploy before:2025-01-01")
    assert found == ["older"]
    assert steps < 100, steps
    assert _steps(index, "deploy after:2027-01-01")[0] == []  # no entry said since


def test_entries_indexed_out_of_time_order_keep_their_days(index: SearchIndex) -> None:
    """A session indexed late (a reindex, an old session opened today) holds old entries at
    new row ids: the ranges widen to hold them, and each entry's own time still decides."""
    _put(index, "march", ["deploy now"], at=_day("2026-03-05"))
    _put(index, "january", ["deploy then"], at=_day("2026-01-05"))
    _put(index, "february", ["deploy between"], at=_day("2026-02-05"))
    found = lambda text: _steps(index, text)[0]  # noqa: E731
    assert found("deploy after:2026-02-01") == ["february", "march"]
    assert found("deploy before:2026-02-01") == ["january"]
    assert found("deploy after:2026-01-01 before:2026-03-01") == ["february", "january"]
    assert found("after:2026-03-01") == ["march"]
    assert found("before:2026-01-01") == []


def test_an_index_of_the_layout_before_the_days_gains_them(tmp_path: Path) -> None:
    path = tmp_path / "search.sqlite3"
    index = SearchIndex(path)
    _put(index, "a", ["deploy now"], at=_day("2026-03-05"))
    _put(index, "b", ["deploy then"], at=_day("2026-01-05"))
    with index._lock:  # the file as an acp-tui of layout 3 left it
        index._conn.executescript(
            "DROP TRIGGER search_days_ai; DROP TABLE search_days; PRAGMA user_version = 3;"
        )
    index.close()
    again = SearchIndex(path)
    try:
        found = sorted(h.session_id for h in again.search(parse_query("deploy after:2026-02-01")))
        assert found == ["a"]
        assert again.stats().entries == 2
    finally:
        again.close()
