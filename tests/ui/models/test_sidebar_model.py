"""The sessions sidebar's model without an app (no Pilot): what the list shows for a scope, the
archive and a filter, the pages it asks for (per agent, never twice the same), what its last
row and header say, and which row stays highlighted."""

from __future__ import annotations

from typing import Any

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.directory import SessionDirectory
from acp_tui.store import SessionStore
from acp_tui.ui.models.sidebar import (
    CONNECTING_TEXT,
    LOADING_TEXT,
    PageAsked,
    SidebarModel,
)

CWD = "/home/tester/project"
LISTS = {"sessionCapabilities": {"list": {}}, "loadSession": True}
ARCHIVES = {"sessionCapabilities": {"list": {}, "archive": {}}, "loadSession": True}


def listing(prefix: str, count: int, cwd: str = CWD, start: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "sessionId": f"{prefix}-{i}",
            "cwd": cwd,
            "title": f"{prefix} task {i}",
            "updatedAt": f"2026-03-{28 - i:02d}T10:00:00Z",
        }
        for i in range(start, start + count)
    ]


def store_of(capabilities: dict[str, Any] | None = LISTS) -> SessionStore:
    store = SessionStore()
    if capabilities is not None:
        store.set_agent_capabilities(capabilities)
    return store


def answer(model: SidebarModel, store: SessionStore, page: PageAsked, rows: list[Any]) -> None:
    """What the screen does with a LoadMore: the page applied, the model told."""
    more = page.cursor is None and len(rows) == 5
    result = {"sessions": rows, "nextCursor": "5" if more else None}
    store.apply_list_page(result, cwd=page.cwd, cursor=page.cursor, archived=page.archived)
    model.set_loading(False, agent_key=page.agent_key)


def ids(model: SidebarModel) -> list[str]:
    return [s.id for s in model.build().rows]


# ---------------------------------------------------------------------------- one agent


def test_the_first_page_is_asked_once_then_the_next_only_near_the_end() -> None:
    store = store_of()
    model = SidebarModel(store, CWD)
    first = model.pages(near_end=False)
    assert first == [PageAsked(CWD, None, False)] and model.loading
    assert model.build().footer == LOADING_TEXT
    assert model.pages(near_end=True) == []  # one request at a time
    answer(model, store, first[0], listing("s", 5))
    assert ids(model) == [f"s-{i}" for i in range(5)]
    assert model.build().header == "Sessions · this folder (5+)"
    assert model.pages(near_end=False) == []  # far from the end: nothing more yet
    second = model.pages(near_end=True)
    assert second == [PageAsked(CWD, "5", False)]
    answer(model, store, second[0], listing("s", 2, start=5))
    assert model.pages(near_end=True) == []  # the list is complete
    view = model.build()
    assert view.header == "Sessions · this folder (7)" and view.footer is None


def test_a_page_that_brought_nothing_is_not_asked_again() -> None:
    store = store_of()
    model = SidebarModel(store, CWD)
    page = model.pages(near_end=False)[0]
    model.set_loading(False)  # answered, but the store learnt nothing
    assert model.pages(near_end=True) == []
    assert page == PageAsked(CWD, None, False)
    model.retry()
    assert model.pages(near_end=False) == [page]


def test_a_failed_list_says_why_and_r_retries() -> None:
    store = store_of()
    model = SidebarModel(store, CWD)
    model.pages(near_end=False)
    model.set_loading(False, error="boom\nsecond line")
    view = model.build()
    assert view.footer == "list failed (r: retry): boom second line" and view.footer_is_error
    assert model.allows("retry_load") and model.pages(near_end=True) == []
    model.retry()
    assert not model.allows("retry_load")
    assert model.pages(near_end=False) == [PageAsked(CWD, None, False)]


def test_what_the_last_row_says_while_starting_and_when_empty() -> None:
    store = store_of(None)
    model = SidebarModel(store, CWD)
    assert model.build().footer == CONNECTING_TEXT
    model.connecting = False
    assert model.build().footer == "no sessions yet"
    assert model.pages(near_end=False) == []  # it cannot list
    model.set_filter("nothing like it")
    assert model.build().footer == "no matches"


def test_scope_archive_and_filter_each_make_a_new_view() -> None:
    store = store_of(ARCHIVES)
    model = SidebarModel(store, CWD)
    store.apply_list_page({"sessions": listing("here", 2)}, cwd=CWD)
    store.apply_list_page({"sessions": listing("there", 1, cwd="/elsewhere")}, cwd=None)
    store.apply_list_page({"sessions": listing("old", 1)}, cwd=CWD, archived=True)
    model.highlight_moved("here-1", None)
    assert model.build().keep_id == "here-1"
    model.toggle_scope()
    view = model.build()
    assert model.scope_cwd is None and view.to_top
    assert [s.id for s in view.rows] == ["here-0", "there-0", "here-1"]
    assert view.header == "Sessions · all folders (3)"
    model.toggle_scope()
    model.toggle_archived()
    view = model.build()
    assert [s.id for s in view.rows] == ["old-0"] and view.header.startswith("Archived")
    assert model.allows("toggle_archived")
    model.toggle_archived()
    model.set_filter("task 1")
    view = model.build()
    assert [s.id for s in view.rows] == ["here-1"] and view.to_top
    assert view.header == "Matches in this folder: 1"
    assert model.cursor_id is None  # a filter starts from its first match
    assert not model.set_filter("task 1")  # the same text is no change


def test_the_highlight_follows_the_session_on_screen_and_waits_for_a_new_one() -> None:
    store = store_of()
    model = SidebarModel(store, CWD)
    model.agent_key = "me"
    store.apply_list_page({"sessions": listing("s", 3)}, cwd=CWD)
    assert model.set_current("s-2") and not model.set_current("s-2")
    view = model.build()
    assert view.keep_id == "s-2"
    model.kept(view, "s-2", None)
    assert model.cursor_id == "s-2"
    # A session just opened, not listed yet: still the one to keep when the list shows
    # another row highlighted meanwhile.
    model.set_current("new-1")
    view = model.build()
    model.kept(view, "s-0", None)
    assert model.cursor_id == "new-1" and model.cursor_agent == "me"


def test_a_build_that_would_show_the_same_rows_is_skipped() -> None:
    store = store_of()
    model = SidebarModel(store, CWD)
    assert model.stale()
    model.build()
    assert not model.stale()
    model.toggle_scope()
    model.build()
    assert model.stale()  # the build itself ended the new view: once more
    model.build()
    assert not model.stale()
    store.apply_list_page({"sessions": listing("s", 1)}, cwd=CWD)
    assert model.stale()


def test_keys_follow_what_the_agent_can_do() -> None:
    model = SidebarModel(store_of(LISTS), CWD)
    assert not model.allows("branch") and not model.allows("archive")
    assert not model.allows("toggle_archived") and model.allows("toggle_scope")
    model = SidebarModel(store_of(ARCHIVES), CWD)
    assert model.allows("archive") and model.allows("toggle_archived")
    assert model.build().offered == (False, True, True)


# ---------------------------------------------------------------------------- several agents


def several(*keys: str) -> tuple[SidebarModel, dict[str, SessionStore]]:
    """A view of the first of ``keys``' agents, beside the others (controllers made, never
    run: what the directory reads of a workspace is its controllers by key)."""
    workspace: dict[str, SessionController] = {}
    stores = {}
    for key in keys:
        stores[key] = store_of()
        workspace[key] = SessionController(AgentSpec((key,), cwd=CWD), store=stores[key])
    model = SidebarModel(stores[keys[0]], CWD)
    model.agent_key = keys[0]
    model.directory = SessionDirectory(workspace, primary=keys[0])  # type: ignore[arg-type]
    return model, stores


def test_several_agents_are_paged_each_on_its_own() -> None:
    model, stores = several("claude", "codex")
    assert model.several_agents
    asked = model.pages(near_end=False)
    assert asked == [PageAsked(CWD, None, False, "claude"), PageAsked(CWD, None, False, "codex")]
    assert model.pages(near_end=True) == []  # both on their way
    assert model.build().footer == LOADING_TEXT
    answer(model, stores["claude"], asked[0], listing("c", 5))
    model.set_loading(False, error="no such method", agent_key="codex")
    view = model.build()
    assert view.agents == ["claude"] * 5
    assert view.footer == "list failed (r: retry): codex: no such method"
    # The failed agent is asked nothing more until retried; the other pages on.
    assert model.pages(near_end=True) == [PageAsked(CWD, "5", False, "claude")]
    model.retry()
    model.set_loading(False, agent_key="claude")
    assert PageAsked(CWD, None, False, "codex") in model.pages(near_end=False)


def test_a_reload_asks_every_agent_for_its_first_page_again() -> None:
    model, stores = several("claude", "codex")
    for page in model.pages(near_end=False):
        answer(model, stores[page.agent_key or "claude"], page, listing(page.agent_key or "", 2))
    assert model.pages(near_end=False) == []
    reloaded = model.reload()
    assert reloaded == [PageAsked(CWD, None, False, "codex"), PageAsked(CWD, None, False)]
    assert model.loading
    # Only rows of the view's own agent are its to branch, rename or archive.
    assert model.own("claude") and model.own(None) and not model.own("codex")


def test_the_rows_of_other_agents_are_looked_at_when_their_stores_move() -> None:
    model, stores = several("claude", "codex")
    model.build()
    assert not model.others_moved()
    stores["codex"].apply_list_page({"sessions": listing("x", 1)}, cwd=CWD)
    assert model.others_moved()
    model.build()
    assert not model.others_moved()
