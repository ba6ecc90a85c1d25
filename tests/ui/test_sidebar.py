"""The sessions sidebar: paging, filter, open, live titles, busy marker, snapshots; and the paged
test agent (tests/agents/paged_agent.py) proven end to end through AcpClient."""

from __future__ import annotations

import importlib.util
import sys
import time
from datetime import UTC
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.store import SessionStore
from acp_tui.ui.widgets.session_status import BUSY_GLYPH
from acp_tui.ui.widgets.sidebar import (
    CLOSED_GLYPH,
    LOADING_TEXT,
    NO_LIST_HINT,
    SessionsSidebar,
    SidebarMessage,
    row_title,
    shorten_path,
)
from tests.ui.chat_helpers import WAIT_LIMIT, wait_for

AGENT_PATH = Path(__file__).resolve().parents[1] / "agents" / "paged_agent.py"


def _load_agent() -> ModuleType:
    spec = importlib.util.spec_from_file_location("paged_agent", AGENT_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


agent = _load_agent()

CWD = "/work/proj"
NOW = agent.BASE_TS + 10 * 60  # ten minutes after the newest listed session
SIZE = (60, 24)


def clock() -> float:
    return NOW


class SidebarApp(App[None]):
    """A bare app hosting the sidebar, a real store, and a fake "screen" that answers LoadMore
    with pages generated in-process (the paged agent's own functions)."""

    CSS = "Screen { layout: horizontal; }"
    AUTO_FOCUS = None

    def __init__(
        self,
        *,
        n_sessions: int = 250,
        can_list: bool = True,
        can_load: bool = True,
        can_resume: bool = True,
        answer: bool = True,
        initialized: bool = True,
    ) -> None:
        super().__init__()
        self.store = SessionStore(clock=clock)
        caps: dict[str, Any] = {"loadSession": can_load, "sessionCapabilities": {}}
        if can_list:
            caps["sessionCapabilities"]["list"] = {}
        if can_resume:
            caps["sessionCapabilities"]["resume"] = {}
        self.caps = caps
        if initialized:
            self.store.set_agent_capabilities(caps)
        self.catalog = agent.make_sessions(n_sessions, CWD)
        self.answer = answer
        self.requests: list[tuple[str | None, str | None]] = []
        self.opened: list[str] = []
        self.new_sessions = 0
        #: Every message of the sidebar, as it came.
        self.heard: list[SidebarMessage] = []
        self.store.subscribe(self._wake)

    def compose(self) -> ComposeResult:
        yield SessionsSidebar(self.store, CWD, now=clock, tz=UTC, home="/home/tester")

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self._take()  # the store was already dirty before we subscribed: start clean

    @property
    def sidebar(self) -> SessionsSidebar:
        return self.query_one(SessionsSidebar)

    # -- the fake screen --------------------------------------------------------------------
    def _wake(self) -> None:
        self.call_later(self._take)

    def _take(self) -> None:
        changes = self.store.take_changes()
        if SessionsSidebar.wants(changes):
            self.sidebar.refresh_rows()

    def answer_page(self, cwd: str | None, cursor: str | None) -> None:
        page = agent.list_page(self.catalog, cwd, cursor)
        self.store.apply_list_page(page, cwd=cwd, cursor=cursor)
        self.sidebar.loading = False

    def on_sessions_sidebar_load_more(self, message: SessionsSidebar.LoadMore) -> None:
        self.requests.append((message.cwd, message.cursor))
        if self.answer:
            self.answer_page(message.cwd, message.cursor)

    def on_sessions_sidebar_open(self, message: SessionsSidebar.Open) -> None:
        self.opened.append(message.session_id)

    def on_sessions_sidebar_new_session(self, message: SessionsSidebar.NewSession) -> None:
        self.new_sessions += 1

    @on(SidebarMessage)
    def _heard(self, message: SidebarMessage) -> None:
        self.heard.append(message)


def quiet(app: SidebarApp) -> bool:
    """Nothing left to do: every store change taken, no rebuild scheduled, and no page asked
    for that this app is going to answer."""
    sidebar = app.sidebar
    return (
        not app.store.dirty
        and not sidebar._refresh_scheduled
        and not (sidebar.loading and app.answer)
    )


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the sidebar is quiet, and still quiet once Textual is idle (a layout can
    scroll the list, and scrolling can ask for a page)."""
    app = pilot.app
    assert isinstance(app, SidebarApp)
    deadline = time.monotonic() + WAIT_LIMIT
    while True:
        await pilot.pause()
        await wait_for(pilot, lambda: quiet(app), "the sidebar to settle")
        if quiet(app):
            return
        assert time.monotonic() < deadline, "the sidebar never settled"


def row_lines(app: SidebarApp) -> list[str]:
    """The text of the sidebar list's visible lines."""
    lst = app.sidebar.session_list
    return [lst.render_line(y).text for y in range(lst.scrollable_content_region.height)]


def visible_text(app: SidebarApp) -> str:
    return "\n".join(row_lines(app))


# -- behaviour ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_first_page_then_pages_load_stepwise_near_the_end() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        state = app.store.list_state(CWD)
        # The first page was asked for with no cursor, scoped to this directory.
        assert app.requests[0] == (CWD, None)
        first_pages = state.pages
        # Not everything up front: one page, or two when the first fills less than the view.
        assert 1 <= first_pages <= 2
        assert not state.complete
        assert len(sidebar.rows) == 20 * first_pages
        assert all(s.cwd == CWD for s in sidebar.rows)
        assert "#0 Fix flaky test in the parser" in visible_text(app)
        assert "10 min ago" in visible_text(app)

        # Scrolling to the end asks for exactly one more page each time.
        sidebar.session_list.focus()
        seen = [state.pages]
        for _ in range(4):
            await pilot.press("end")
            await settle(pilot)
            seen.append(state.pages)
        assert seen == list(range(first_pages, first_pages + 5))
        assert len(sidebar.rows) == 20 * seen[-1]
        assert app.requests[1][1] is not None  # later pages carry the agent's cursor

        # Moving around the top does not page.
        await pilot.press("home")
        await settle(pilot)
        assert state.pages == seen[-1]


@pytest.mark.anyio
async def test_loading_row_while_a_request_is_outstanding() -> None:
    app = SidebarApp(answer=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.requests == [(CWD, None)]
        assert app.sidebar.loading
        assert LOADING_TEXT in visible_text(app)
        await settle(pilot)
        assert len(app.requests) == 1  # no second request while one is outstanding
        app.answer_page(CWD, None)
        await settle(pilot)
        assert LOADING_TEXT not in visible_text(app)
        assert len(app.sidebar.rows) == 20


@pytest.mark.anyio
async def test_failed_request_shows_error_and_does_not_spin() -> None:
    app = SidebarApp(answer=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.sidebar.set_loading(False, error="agent \x1b[31mexploded")
        await settle(pilot)
        assert "list failed (r: retry): agent e" in visible_text(app)
        assert "\x1b" not in visible_text(app)
        assert len(app.requests) == 1
        app.sidebar.session_list.focus()
        await pilot.press("r")
        await settle(pilot)
        assert len(app.requests) == 2


@pytest.mark.anyio
async def test_filter_narrows_and_keeps_paging() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        pages_before = app.store.list_state(CWD).pages
        sidebar.session_list.focus()
        await pilot.press("slash")
        await pilot.press(*"memory")
        await settle(pilot)
        assert sidebar.filter_text == "memory"
        state = app.store.list_state(CWD)
        # Paging went on while filtering, one request at a time, to the end.
        assert state.pages > pages_before
        assert state.complete
        assert sidebar.rows
        assert all("memory" in s.title.lower() for s in sidebar.rows)
        expected = [s for s in app.store.search("memory", CWD)]
        assert [s.id for s in sidebar.rows] == [s.id for s in expected]
        # The view starts at the best (newest) match.
        assert sidebar.highlighted_session_id() == sidebar.rows[0].id
        # Search also matches ids.
        await pilot.press("escape")
        await settle(pilot)
        assert sidebar.filter_text == ""
        assert len(sidebar.rows) == len(app.store.catalog(CWD))
        sidebar.set_filter("sess-00012")
        await settle(pilot)
        assert [s.id for s in sidebar.rows] == ["sess-00012"]


@pytest.mark.anyio
async def test_typing_in_the_filter_does_not_trigger_sidebar_keys() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.sidebar.session_list.focus()
        await pilot.press("slash", "a", "n")
        await settle(pilot)
        assert app.sidebar.filter_text == "an"
        assert app.sidebar.scope == "cwd"
        assert app.new_sessions == 0


@pytest.mark.anyio
async def test_enter_and_click_open_the_highlighted_session() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        third = sidebar.rows[2].id
        assert app.opened == [third]
        assert sidebar.highlighted_session_id() == third
        # Enter in the filter opens the highlighted match.
        await pilot.press("slash", *"sess-00005", "enter")
        await settle(pilot)
        assert app.opened[-1] == "sess-00005"
        # A click on a row's second line opens that row.
        sidebar.set_filter("")
        await settle(pilot)
        lst = sidebar.session_list
        await pilot.click(lst, offset=(5, 3))
        await settle(pilot)
        assert app.opened[-1] == sidebar.rows[1].id


@pytest.mark.anyio
async def test_every_message_of_the_sidebar_has_it_as_its_control() -> None:
    """Messages up with their control (Textual's guide): a handler can tell which sidebar
    asked (``@on(SessionsSidebar.Open, "#sidebar")``)."""
    app = SidebarApp(n_sessions=12)
    async with app.run_test(size=(60, 30)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        await pilot.press("enter", "n", "escape")
        await settle(pilot)
        kinds = {type(message) for message in app.heard}
        assert {
            SessionsSidebar.LoadMore,
            SessionsSidebar.Open,
            SessionsSidebar.NewSession,
            SessionsSidebar.Leave,
        } <= kinds
        assert all(message.control is sidebar for message in app.heard)


@pytest.mark.anyio
async def test_scope_toggle_and_new_session_keys() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        await pilot.press("a")
        await settle(pilot)
        assert sidebar.scope == "all"
        assert (None, None) in app.requests  # first page of the all-directories scope
        assert any(s.cwd != CWD for s in sidebar.rows)
        assert "/srv/other-project" in visible_text(app)
        sidebar.toggle_scope()
        await settle(pilot)
        assert sidebar.scope == "cwd"
        assert all(s.cwd == CWD for s in sidebar.rows)
        await pilot.press("n")
        await settle(pilot)
        assert app.new_sessions == 1


@pytest.mark.anyio
async def test_live_title_of_a_non_current_session_and_refresh_does_not_revert() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.current_session_id = "sess-00000"
        await settle(pilot)
        target = "sess-00002"
        # Opened earlier in this run (live, not current): its updates apply at once.
        app.store.register_session(target, cwd=CWD)
        sidebar.session_list.focus()
        await pilot.press("down")  # highlight sess-00001
        app.store.apply(
            {
                "sessionId": target,
                "update": {"sessionUpdate": "session_info_update", "title": "Renamed live"},
            }
        )
        await settle(pilot)
        assert "Renamed live" in visible_text(app)
        assert "#2 Add dark mode toggle" not in visible_text(app)
        # session/list refresh (first page again, the stale title): the live title stays.
        app.answer_page(CWD, None)
        await settle(pilot)
        assert app.store.get(target).title == "Renamed live"
        assert "Renamed live" in visible_text(app)
        assert sidebar.highlighted_session_id() == "sess-00001"


@pytest.mark.anyio
async def test_highlight_stays_on_its_session_when_rows_move() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        await pilot.press("down", "down", "down")
        highlighted = sidebar.highlighted_session_id()
        # A brand-new session appears at the top.
        await a_new_session_on_top(app, pilot)
        assert sidebar.highlighted_session_id() == highlighted
        assert "hello there" in visible_text(app)  # first prompt as the title


@pytest.mark.anyio
async def test_highlight_follows_the_current_session_once_it_is_listed() -> None:
    """The session on screen changes to one not listed yet (a new session): the highlight
    waits for it instead of adopting the row last left, so once it is listed it is the
    highlighted row and Down moves from there (it used to stay on the row last left)."""
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        await pilot.press("down", "down", "down")
        assert sidebar.highlighted_session_id() == "sess-00004"  # 3 is elsewhere
        sidebar.current_session_id = "new-1"
        await settle(pilot)
        # Any number of rebuilds before it is listed (titles, pages) change nothing.
        app.answer_page(CWD, None)
        await settle(pilot)
        app.store.register_session("new-1", cwd=CWD)
        app.store.prompt_sent("new-1", "hello there")
        await settle(pilot)
        assert sidebar.rows[0].id == "new-1"
        assert sidebar.highlighted_session_id() == "new-1"
        await pilot.press("down", "enter")
        assert app.opened == ["sess-00000"]


@pytest.mark.anyio
async def test_busy_marker_and_context_percent() -> None:
    app = SidebarApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        store = app.store
        store.register_session("sess-00001", cwd=CWD)

        async def usage_shown(used: int, size: int) -> tuple[str, str]:
            """The session's usage reported; its row's title and meta lines as shown."""
            store.apply(
                {
                    "sessionId": "sess-00001",
                    "update": {"sessionUpdate": "usage_update", "used": used, "size": size},
                }
            )
            await settle(pilot)
            lines = row_lines(app)
            title_line = next(line for line in lines if "#1 Refactor" in line)
            return title_line, lines[lines.index(title_line) + 1]

        turn = store.prompt_sent("sess-00001", "work hard")
        title_line, meta_line = await usage_shown(84_000, 200_000)
        assert BUSY_GLYPH in title_line
        assert meta_line.rstrip().endswith("42%")
        store.prompt_finished("sess-00001", {"stopReason": "end_turn"}, turn=turn)
        await settle(pilot)
        assert BUSY_GLYPH not in visible_text(app)
        # A little context reads as the gauge says it, "<1%", not "0%".
        _title_line, meta_line = await usage_shown(1_280, 1_000_000)
        assert meta_line.rstrip().endswith("<1%")


@pytest.mark.anyio
async def test_agent_without_list_shows_local_sessions_and_hint() -> None:
    app = SidebarApp(can_list=False, can_load=False, can_resume=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        assert app.requests == []
        assert sidebar.has_class("-no-list")
        hint = sidebar.query_one("#sidebar-hint")
        assert hint.display
        assert NO_LIST_HINT in str(hint.render())
        app.store.apply_index_records([_indexed("local-1", "Indexed here", NOW - 7200)])
        app.store.register_session("live-1", cwd=CWD, title="Open now")
        await settle(pilot)
        assert [s.id for s in sidebar.rows] == ["live-1", "local-1"]
        text = visible_text(app)
        assert "can't reopen" in text
        assert CLOSED_GLYPH in text


@pytest.mark.anyio
async def test_no_row_says_it_cannot_be_reopened_before_the_agent_says_what_it_can_do() -> None:
    """OpenCode takes 5-9 s to answer initialize: meanwhile every row of the local index read
    "can't reopen". Then the agent's word decides."""
    app = SidebarApp(can_list=False, can_load=False, can_resume=False, initialized=False)
    async with app.run_test(size=(120, 40)) as pilot:
        app.store.apply_index_records([_indexed("local-1", "Indexed here", NOW - 7200)])
        await settle(pilot)
        assert [s.id for s in app.sidebar.rows] == ["local-1"]
        text = visible_text(app)
        assert "Indexed here" in text
        assert "can't reopen" not in text and CLOSED_GLYPH not in text
        app.store.set_agent_capabilities(app.caps)
        await settle(pilot)
        assert "can't reopen" in visible_text(app)


async def a_new_session_on_top(app: SidebarApp, pilot: Any) -> None:
    """A brand-new session, prompted ("hello there"): it is the list's first row."""
    app.store.register_session("new-1", cwd=CWD)
    app.store.prompt_sent("new-1", "hello there")
    await settle(pilot)
    assert app.sidebar.rows[0].id == "new-1"


def _indexed(sid: str, title: str, updated: float) -> Any:
    from acp_tui.store import IndexedSession

    return IndexedSession(sid, CWD, title, None, updated, updated, None, None)


def test_row_title_and_paths_are_sanitised() -> None:
    from acp_tui.store import SessionState

    s = SessionState("x")
    assert row_title(s) == "Untitled"
    s.first_prompt = "  first line\nsecond"
    assert row_title(s) == "first line second"
    s.title = "[bold]not markup[/]\x1b[2J\x07 ok"
    assert row_title(s) == "[bold]not markup[/]␇ ok"  # escapes removed, the lone BEL shown
    assert shorten_path("/home/me/src/app", "/home/me", 40) == "~/src/app"
    assert shorten_path("/home/mea/x", "/home/me", 40) == "/home/mea/x"
    assert shorten_path("/a/very/long/path/to/somewhere", None, 12) == "…o/somewhere"


# -- the paged agent, for real ------------------------------------------------------------------


@pytest.mark.anyio
async def test_paged_agent_lists_loads_and_resumes(tmp_path: Path) -> None:
    received: list[tuple[str, Any]] = []
    store = SessionStore()
    with anyio.fail_after(60):  # a hang guard: generous for a busy machine
        async with AcpClient.launch(
            [sys.executable, str(AGENT_PATH), "--cwd", CWD],
            cwd=tmp_path,
            log_dir=tmp_path / "logs",
            on_notification=lambda method, params: received.append((method, params)),
        ) as client:
            info = await client.initialize()
            assert info.name == "paged-agent"
            assert info.can_list and info.can_load and info.can_resume
            store.set_agent_capabilities(info.capabilities)

            first = await client.list_sessions(CWD)
            assert len(first["sessions"]) == 20
            assert all(s["cwd"] == CWD for s in first["sessions"])
            store.apply_list_page(first, cwd=CWD)
            second = await client.list_sessions(CWD, first["nextCursor"])
            store.apply_list_page(second, cwd=CWD, cursor=first["nextCursor"])
            ids = [s["sessionId"] for s in first["sessions"] + second["sessions"]]
            assert len(set(ids)) == 40
            assert store.list_state(CWD).pages == 2
            everything = await client.list_all_sessions()
            assert len(everything) == 250
            assert everything == agent.make_sessions(250, CWD)

            # session/load replays the transcript before answering.
            sid = ids[5]
            store.begin_replay(sid, cwd=CWD)
            received.clear()
            result = await client.load_session(sid, CWD)
            for method, params in received:
                assert method == "session/update"
                store.apply(params)
            store.end_replay(sid, result)
            texts = [e.text for e in store.get(sid).transcript]
            assert texts == [f"What happened in {sid}?", "We fixed the parser and added a test."]

            # session/resume answers without replay.
            received.clear()
            for resumed in ids[6:8]:
                store.register_session(
                    resumed, cwd=CWD, response=await client.resume_session(resumed, CWD)
                )
            assert received == []

            # A prompt retitles another session live.
            prompt = [{"type": "text", "text": f"retitle {ids[7]} Brand new name"}]
            assert (await client.prompt(ids[6], prompt))["stopReason"] == "end_turn"
            # The agent sends the update before its answer; its handler may still be running.
            while not any(params.get("sessionId") == ids[7] for _method, params in received):
                await anyio.sleep(0.01)
            for _method, params in received:
                store.apply(params)
            assert store.get(ids[7]).title == "Brand new name"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("flags", "load", "resume", "list_"),
    [
        (["--resume-only"], False, True, True),
        (["--load-only"], True, False, True),
        (["--neither", "--no-list"], False, False, False),
    ],
)
async def test_paged_agent_capability_flags(
    tmp_path: Path, flags: list[str], load: bool, resume: bool, list_: bool
) -> None:
    with anyio.fail_after(60):  # a hang guard: generous for a busy machine
        async with AcpClient.launch(
            [sys.executable, str(AGENT_PATH), "--sessions", "30", *flags], cwd=tmp_path
        ) as client:
            info = await client.initialize()
            assert (info.can_load, info.can_resume, info.can_list) == (load, resume, list_)
            if list_:
                raw = await client.call("session/list", {})
                assert len(raw["sessions"]) == 20
            else:
                with pytest.raises(RpcError):
                    await client.call("session/list", {})
            sid = agent.session_id(3)
            for method, able in (("session/load", load), ("session/resume", resume)):
                params = {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []}
                if able:
                    assert await client.call(method, params) == {}
                else:
                    with pytest.raises(RpcError):
                        await client.call(method, params)


# -- snapshots ---------------------------------------------------------------------------------


async def _busy_and_current(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, SidebarApp)
    await settle(pilot)
    store = app.store
    store.register_session("sess-00000", cwd=CWD)
    store.register_session("sess-00002", cwd=CWD)
    store.prompt_sent("sess-00000", "keep going")
    store.apply(
        {
            "sessionId": "sess-00000",
            "update": {"sessionUpdate": "usage_update", "used": 62_000, "size": 200_000},
        }
    )
    store.apply(
        {
            "sessionId": "sess-00002",
            "update": {"sessionUpdate": "session_info_update", "title": "Live \x1b[31mtitle [b]x"},
        }
    )
    app.sidebar.current_session_id = "sess-00001"
    app.sidebar.toggle_scope()
    await settle(pilot)
    app.sidebar.session_list.focus()
    await pilot.press("down", "down")
    await settle(pilot)


def test_snapshot_titles_times_busy(snap_compare: Any) -> None:
    """All-folders scope, header `Sessions · all folders (45+)`. Row #0 has a yellow busy dot ●
    (running: `working 0 s`, yellow) and `31%` context at the right of its time line; #1 is the
    current session (accent bar ▎, bold title); #2 reads `Live title [b]x` literally (no escape, no
    markup); #3 is highlighted (primary background, the list has focus) and shows its other
    cwd `/srv/other-project`; #6 has no title and reads `Untitled`. Times step back by 37
    minutes: 47 min, 1 h, 2 h ago... (rsvg-convert drops leading spaces; browsers do not.)"""
    assert snap_compare(SidebarApp(), terminal_size=SIZE, run_before=_busy_and_current)


async def _filtered(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, SidebarApp)
    await settle(pilot)
    app.sidebar.session_list.focus()
    await pilot.press("slash", *"leak")
    await settle(pilot)


def test_snapshot_filtered(snap_compare: Any) -> None:
    """Filter box reads `leak` (cursor in it); header `Matches in this folder: 27` (every page
    was paged in while filtering); only `Investigate memory leak` rows of this folder (#3 and #31
    are elsewhere and absent: #10, #17, #24, #38...), the first highlighted, older rows showing
    `yesterday` / `2 days ago`."""
    assert snap_compare(SidebarApp(), terminal_size=SIZE, run_before=_filtered)


async def _no_list(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, SidebarApp)
    await settle(pilot)
    app.store.apply_index_records(
        [
            _indexed("local-1", "Set up CI", NOW - 3 * 3600),
            _indexed("local-2", "Port the parser", NOW - 2 * 86400),
        ]
    )
    app.store.register_session("live-1", cwd=CWD, title="Open now")
    app.sidebar.current_session_id = "live-1"
    await settle(pilot)


def test_snapshot_agent_without_list(snap_compare: Any) -> None:
    """An agent with neither session/list nor load/resume: a yellow italic hint `this agent
    cannot list sessions: showing sessions started here`; `Open now` (live, current, just now);
    `Set up CI` (3 h ago) and `Port the parser` (2 days ago) greyed with ⊘ and `can't reopen`
    at the right."""
    app = SidebarApp(can_list=False, can_load=False, can_resume=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=_no_list)


@pytest.mark.anyio
async def test_until_the_person_chooses_the_highlight_stays_on_the_most_recent_row() -> None:
    """The local index is listed first (a session opened here before), the agent's list comes
    after with newer sessions above it: the highlight goes to the newest, the row --resume
    says it offers (it stuck to the first row it had, kimi-cli's tester got an older session
    on Enter). Once the person moves it, it stays on their choice (the test above)."""
    app = SidebarApp(answer=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.sidebar
        sidebar.session_list.focus()
        older = agent.BASE_TS - 3 * agent.STEP_SECONDS
        app.store.apply_index_records([_indexed("sess-00003", "Opened here before", older)])
        await settle(pilot)
        assert sidebar.highlighted_session_id() == "sess-00003"  # the only row so far
        app.answer_page(CWD, None)
        await settle(pilot)
        assert sidebar.rows[0].id == "sess-00000"
        assert sidebar.highlighted_session_id() == "sess-00000"
        await pilot.press("down", "down")
        chosen = sidebar.highlighted_session_id()
        await a_new_session_on_top(app, pilot)
        assert sidebar.highlighted_session_id() == chosen
