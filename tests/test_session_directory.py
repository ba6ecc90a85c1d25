"""The session browser across agents (acp_tui.session.workspace.directory): merge order, paging,
filters by agent and text, the local index, hostile names and titles."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.directory import (
    AGENT_NAME_CELLS,
    PageRequest,
    SessionDirectory,
    parse_filter,
    short_agent_name,
)
from acp_tui.store import SessionStore

LISTS = {"sessionCapabilities": {"list": {}}, "loadSession": True}


#: What the directory reads of a workspace: its controllers by key (here, any keys).
Agents = dict[str, Any]


def _start(workspace: Agents, key: str) -> SessionStore:
    """Agent ``key`` (its command line: the key's words), keyed ``key`` in the workspace."""
    parts = AgentParts(AgentSpec(argv=tuple(key.split()), cwd="/w"))
    workspace[key] = parts.controller()
    return parts.store


def _agent(workspace: Agents, key: str, *, can_list: bool = True) -> SessionStore:
    store = _start(workspace, key)
    store.set_agent_capabilities(LISTS if can_list else {})
    return store


def _page(*items: tuple[str, str | None, str], cursor: str | None = None) -> dict[str, Any]:
    """Sessions as (id, updatedAt or None, cwd)."""
    sessions = []
    for sid, updated, cwd in items:
        row: dict[str, Any] = {"sessionId": sid, "cwd": cwd, "title": f"title {sid}"}
        if updated is not None:
            row["updatedAt"] = updated
        sessions.append(row)
    return {"sessions": sessions, "nextCursor": cursor}


def _ts(minute: int) -> str:
    return f"2026-01-01T10:{minute:02d}:00Z"


def _ids(rows: Any) -> list[tuple[str, str]]:
    return list(zip(rows.keys, [s.id for s in rows.sessions], strict=True))


def test_rows_of_every_agent_merge_by_last_update_with_their_agent() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    b = _agent(workspace, "beta")
    a.apply_list_page(_page(("a1", _ts(50), "/w"), ("a2", _ts(20), "/w"), ("a3", None, "/w")))
    b.apply_list_page(_page(("b1", _ts(40), "/w"), ("b2", _ts(10), "/w"), ("b3", None, "/w")))
    directory = SessionDirectory(workspace, primary="beta")
    rows = directory.rows(None)
    assert _ids(rows) == [
        ("alpha", "a1"),
        ("beta", "b1"),
        ("alpha", "a2"),
        ("beta", "b2"),
        # Without a time: last, the primary agent's first, each agent's own order kept.
        ("beta", "b3"),
        ("alpha", "a3"),
    ]
    assert rows.complete


def test_equal_times_and_equal_ids_of_two_agents_stay_apart() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    b = _agent(workspace, "beta")
    # Two agents may well use the same session ids (two runs of one program).
    a.apply_list_page(_page(("s1", _ts(30), "/w")))
    b.apply_list_page(_page(("s1", _ts(30), "/w")))
    directory = SessionDirectory(workspace, primary="alpha")
    rows = directory.rows(None)
    assert _ids(rows) == [("alpha", "s1"), ("beta", "s1")]
    assert rows.index_of("beta", "s1") == 1
    assert rows.index_of("alpha", "s1") == 0
    assert rows.index_of("gamma", "s1") == -1


def test_scope_and_archived_views_apply_to_every_agent() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    b = _agent(workspace, "beta")
    a.apply_list_page(_page(("a1", _ts(5), "/w"), ("a2", _ts(6), "/elsewhere")))
    b.apply_list_page(_page(("b1", _ts(7), "/elsewhere"), ("b2", _ts(8), "/w")))
    b.set_archived("b2", True)
    directory = SessionDirectory(workspace)
    assert [s.id for s in directory.rows("/w").sessions] == ["a1"]
    assert [s.id for s in directory.rows(None).sessions] == ["b1", "a2", "a1"]
    assert [s.id for s in directory.rows(None, archived=True).sessions] == ["b2"]


def test_filter_by_agent_and_by_text() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "claude-agent-acp")
    b = _agent(workspace, "codex-acp")
    a.apply_list_page(_page(("a1", _ts(1), "/w"), ("fix-a", _ts(2), "/w")))
    b.apply_list_page(_page(("b1", _ts(3), "/w"), ("fix-b", _ts(4), "/w")))
    directory = SessionDirectory(workspace, names={"codex-acp": "codex"})
    assert [s.id for s in directory.rows(None, text="@codex").sessions] == ["fix-b", "b1"]
    assert [s.id for s in directory.rows(None, text="@CLA").sessions] == ["fix-a", "a1"]
    assert [s.id for s in directory.rows(None, text="fix").sessions] == ["fix-b", "fix-a"]
    assert [s.id for s in directory.rows(None, text="@cl fix").sessions] == ["fix-a"]
    assert [s.id for s in directory.rows(None, text="fix @cl").sessions] == ["fix-a"]
    # Several agent words: any of them.
    both = directory.rows(None, text="@codex @claude fix").sessions
    assert [s.id for s in both] == ["fix-b", "fix-a"]
    assert directory.rows(None, text="@nobody").sessions == []


def test_parse_filter() -> None:
    assert parse_filter("") == ((), "")
    assert parse_filter("  @Claude  fix bug ") == (("claude",), "fix bug")
    assert parse_filter("@ a@b") == ((), "a@b")


def test_first_pages_of_every_agent_then_next_pages_near_the_end() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    b = _agent(workspace, "beta")
    _agent(workspace, "gamma", can_list=False)
    directory = SessionDirectory(workspace)
    assert directory.pages_wanted("/w") == [
        PageRequest("alpha", "/w", None, False),
        PageRequest("beta", "/w", None, False),
    ]
    # One is on its way: not asked twice.
    assert directory.pages_wanted("/w", busy={"alpha"}) == [PageRequest("beta", "/w", None, False)]
    a.apply_list_page(_page(("a1", _ts(9), "/w"), cursor="a-next"), cwd="/w")
    b.apply_list_page(_page(("b1", _ts(8), "/w")), cwd="/w")
    assert not directory.rows("/w").complete
    # Lazily: the next page only when the view nears its end (or a search looks for more).
    assert directory.pages_wanted("/w") == []
    assert directory.pages_wanted("/w", near_end=True) == [
        PageRequest("alpha", "/w", "a-next", False)
    ]
    assert directory.pages_wanted("/w", text="x") == [PageRequest("alpha", "/w", "a-next", False)]
    # An agent filtered out is not asked.
    assert directory.pages_wanted("/w", text="@beta", near_end=True) == []
    a.apply_list_page(_page(("a2", _ts(7), "/w")), cwd="/w", cursor="a-next")
    assert directory.pages_wanted("/w", near_end=True) == []
    assert directory.rows("/w").complete
    assert [s.id for s in directory.rows("/w").sessions] == ["a1", "b1", "a2"]


def test_archived_pages_only_from_agents_that_archive() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    b = _agent(workspace, "beta")
    b.set_agent_capabilities({"sessionCapabilities": {"list": {}, "archive": {}}})
    del a
    directory = SessionDirectory(workspace)
    assert directory.pages_wanted(None, archived=True) == [PageRequest("beta", None, None, True)]


def test_a_list_that_stopped_says_which_agent() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    _agent(workspace, "beta")
    a.apply_list_page(_page(("a1", _ts(1), "/w"), cursor="c"), cursor=None)
    a.apply_list_page(_page(("a2", _ts(1), "/w"), cursor="c"), cursor="c")
    assert SessionDirectory(workspace).rows(None).stopped == "alpha: stopped: agent's list loops"


def test_rows_are_cached_until_a_store_changes() -> None:
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    _agent(workspace, "beta")
    a.apply_list_page(_page(("a1", _ts(1), "/w")))
    directory = SessionDirectory(workspace)
    first = directory.rows(None)
    assert directory.rows(None) is first
    a.pin_title("a1", "renamed")
    assert directory.rows(None) is not first
    assert directory.rows(None).sessions[0].title == "renamed"


def test_agents_that_cannot_list_show_the_local_index() -> None:
    workspace: Agents = {}
    _agent(workspace, "alpha")
    silent = _agent(workspace, "beta", can_list=False)
    record = SimpleNamespace(
        session_id="kept",
        title="from the index",
        first_prompt="hello",
        cwd="/w",
        updated=1_700_000_000.0,
        mode=None,
        additional_dirs=(),
    )
    asked: list[str] = []

    def records_of(key: str) -> list[Any]:
        asked.append(key)
        return [record] if key == "beta" else []

    directory = SessionDirectory(workspace)
    directory.use_index(records_of)
    directory.use_index(records_of)  # once per store
    assert asked == ["alpha", "beta"]
    assert silent.get("kept") is not None
    assert _ids(directory.rows("/w")) == [("beta", "kept")]


def test_restarted_agent_keeps_its_slot_and_its_new_store_is_read() -> None:
    workspace: Agents = {}
    _agent(workspace, "alpha")
    _agent(workspace, "beta")
    directory = SessionDirectory(workspace)
    assert [s.slot for s in directory.sources()] == [0, 1]
    workspace.get("alpha").finished.set()  # type: ignore[union-attr]
    fresh = _start(workspace, "alpha")
    fresh.set_agent_capabilities(LISTS)
    fresh.apply_list_page(_page(("new", _ts(3), "/w")))
    assert {s.key: s.slot for s in directory.sources()} == {"alpha": 0, "beta": 1}
    assert _ids(directory.rows(None)) == [("alpha", "new")]


@pytest.mark.parametrize(
    ("argv", "info", "expected"),
    [
        (["python", "-m", "acp_tui.demo_agent"], None, "demo_agent"),
        (["/usr/bin/python3.12", "-u", "-m", "pkg.agent"], None, "agent"),
        (["npx", "-y", "@zed-industries/claude-code-acp"], None, "claude-code…"),
        (["env", "A=1", "codex-acp", "--x"], None, "codex-acp"),
        (["goose", "acp"], None, "goose"),
        (["whatever"], "acp-tui-demo", "acp-tui-demo"),
        ([], None, "agent"),
    ],
)
def test_short_agent_names(argv: list[str], info: str | None, expected: str) -> None:
    assert short_agent_name(argv, info) == expected


def test_hostile_agent_names_and_titles_are_one_short_plain_line() -> None:
    workspace: Agents = {}
    store = _agent(workspace, "evil")
    store.apply_list_page(
        {
            "sessions": [
                {"sessionId": "x", "title": "\x1b[31mred[/]\nline two\x07", "updatedAt": _ts(1)}
            ]
        }
    )
    hostile = "\x1b]0;owned\x07[bold]boss[/bold]\nsecond line that is long"
    directory = SessionDirectory(workspace, names={"evil": hostile})
    name = directory.name_of("evil")
    assert len(name) <= AGENT_NAME_CELLS
    assert "\x1b" not in name and "\n" not in name and "\x07" not in name
    rows = directory.rows(None, text="@" + name[:3])
    assert [s.id for s in rows.sessions] == ["x"]
    # The title is the agent's data as stored: the row drawing sanitises it (row_title).
    assert rows.sessions[0].title is not None


def test_a_streamed_reply_does_not_change_the_rows_version() -> None:
    """The merged list is rebuilt when an agent's rows change, not for every reply chunk of
    a session in the background (that would cost a merge per frame)."""
    workspace: Agents = {}
    a = _agent(workspace, "alpha")
    _agent(workspace, "beta")
    a.register_session("live", cwd="/w")
    directory = SessionDirectory(workspace)
    before = directory.version()
    for n in range(3):
        a.take_changes()  # another view owns the change feed and takes it each frame
        a.apply(
            {
                "sessionId": "live",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"chunk {n} "},
                },
            }
        )
    assert directory.version() == before
    a.pin_title("live", "named")
    assert directory.version() != before
