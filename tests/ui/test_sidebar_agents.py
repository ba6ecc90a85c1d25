"""The sidebar as one session browser across agents (issue 19): rows of every agent of the
workspace merged by last update, each marked with its agent, filtered by ``@agent`` and text,
paged per agent, opened with their agent's key; with one agent it is the list of old."""

from __future__ import annotations

import sys
import time
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.directory import SessionDirectory
from acp_tui.session.workspace.listing import run_for_listing, start_for_listing
from acp_tui.store import SessionStore
from acp_tui.ui.widgets.sidebar import LOADING_TEXT, SessionsSidebar
from tests.ui.chat_helpers import WAIT_LIMIT, wait_for

pytestmark = pytest.mark.anyio

CWD = "/work/proj"
BASE = 1_767_261_600.0  # 2026-01-01T10:00:00Z
NOW = BASE + 3600
SDK_AGENT = [sys.executable, str(Path(__file__).resolve().parents[1] / "agents" / "sdk_agent.py")]
LISTS = {"sessionCapabilities": {"list": {}}, "loadSession": True}


def clock() -> float:
    return NOW


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def catalog(prefix: str, count: int, minutes: int) -> list[dict[str, Any]]:
    """``count`` sessions of one agent, one every ``minutes`` minutes back from BASE."""
    return [
        {
            "sessionId": f"{prefix}-{i}",
            "cwd": CWD,
            "title": f"{prefix} task {i}",
            "updatedAt": iso(BASE - i * minutes * 60),
        }
        for i in range(count)
    ]


class AgentsApp(App[None]):
    """The sidebar over a workspace of agents (controllers made, never run: their stores are
    fed here), and a fake screen answering LoadMore per agent with pages of ``page`` rows."""

    CSS = "Screen { layout: horizontal; }"
    AUTO_FOCUS = None

    def __init__(self, agents: dict[str, list[dict[str, Any]]], *, page: int = 5) -> None:
        super().__init__()
        #: What the directory reads of a workspace: controllers by key (here, any keys).
        self.workspace: dict[str, SessionController] = {}
        self.catalogs = agents
        self.page = page
        self.primary = next(iter(agents))
        for key in agents:
            store = SessionStore(clock=clock)
            store.set_agent_capabilities(LISTS)
            self.workspace[key] = SessionController(AgentSpec((key,), cwd=CWD), store=store)
        self.requests: list[tuple[str | None, str | None, str | None]] = []
        self.opened: list[tuple[str, str | None]] = []
        self.answer = True

    def store(self, key: str) -> SessionStore:
        controller = self.workspace.get(key)
        assert controller is not None
        return controller.store

    def compose(self) -> ComposeResult:
        sidebar = SessionsSidebar(
            self.store(self.primary), CWD, now=clock, tz=UTC, home="/home/tester"
        )
        sidebar.model.agent_key = self.primary
        sidebar.model.directory = SessionDirectory(self.workspace, primary=self.primary)  # type: ignore[arg-type]
        yield sidebar

    def on_mount(self) -> None:
        self.theme = "textual-dark"

    @property
    def sidebar(self) -> SessionsSidebar:
        return self.query_one(SessionsSidebar)

    def on_sessions_sidebar_load_more(self, message: SessionsSidebar.LoadMore) -> None:
        self.requests.append((message.agent_key, message.cwd, message.cursor))
        if self.answer:
            self.answer_page(message.agent_key, message.cwd, message.cursor)

    def answer_page(self, asked: str | None, cwd: str | None, cursor: str | None) -> None:
        """A page of agent ``asked`` (``None``: the screen's own, as one agent's sidebar asks)."""
        key = asked or self.primary
        start = int(cursor or 0)
        rows = [s for s in self.catalogs[key] if cwd is None or s["cwd"] == cwd]
        end = start + self.page
        page = {"sessions": rows[start:end], "nextCursor": str(end) if end < len(rows) else None}
        self.store(key).apply_list_page(page, cwd=cwd, cursor=cursor)
        self.sidebar.set_loading(False, agent_key=asked)

    def on_sessions_sidebar_open(self, message: SessionsSidebar.Open) -> None:
        self.opened.append((message.session_id, message.agent_key))


def quiet(app: AgentsApp) -> bool:
    sidebar = app.sidebar
    return not sidebar._refresh_scheduled and not (sidebar.loading and app.answer)


async def settle(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, AgentsApp)
    deadline = time.monotonic() + WAIT_LIMIT
    while True:
        await pilot.pause()
        await wait_for(pilot, lambda: quiet(app), "the sidebar to settle")
        if quiet(app):
            return
        assert time.monotonic() < deadline, "the sidebar never settled"


def visible_text(app: AgentsApp) -> str:
    lst = app.sidebar.session_list
    return "\n".join(lst.render_line(y).text for y in range(lst.scrollable_content_region.height))


def shown(app: AgentsApp) -> list[tuple[str, str]]:
    lst = app.sidebar.session_list
    return [(lst.row_agents[i], s.id) for i, s in enumerate(lst.rows)]


async def test_rows_of_every_agent_merge_by_time_each_marked_with_its_agent() -> None:
    app = AgentsApp({"claude": catalog("c", 3, 10), "codex": catalog("x", 3, 7)})
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        # Each agent's first page was asked for, through its own key.
        assert sorted(r[0] or "" for r in app.requests) == ["claude", "codex"]
        assert shown(app) == [
            ("claude", "c-0"),
            ("codex", "x-0"),
            ("codex", "x-1"),
            ("claude", "c-1"),
            ("codex", "x-2"),
            ("claude", "c-2"),
        ]
        lines = visible_text(app).splitlines()
        assert "c task 0" in lines[0]
        # The second line of a row names its agent before the time.
        assert lines[1].split()[:2] == ["claude", "1"]
        assert lines[3].split()[:2] == ["codex", "1"]
        header = str(app.sidebar.query_one("#sidebar-header").render())
        assert "(6)" in header
        assert app.sidebar.query_one("#sidebar-filter", Input).placeholder == (
            "Filter sessions… (@agent)"
        )


async def test_agent_and_text_filters() -> None:
    app = AgentsApp({"claude": catalog("c", 3, 10), "codex": catalog("x", 3, 7)})
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        app.sidebar.set_filter("@cod")
        await settle(pilot)
        assert [key for key, _ in shown(app)] == ["codex"] * 3
        app.sidebar.set_filter("@cod task 1")
        await settle(pilot)
        assert shown(app) == [("codex", "x-1")]
        app.sidebar.set_filter("task 2")
        await settle(pilot)
        assert shown(app) == [("codex", "x-2"), ("claude", "c-2")]
        app.sidebar.set_filter("@nobody")
        await settle(pilot)
        assert shown(app) == [] and "no matches" in visible_text(app)


async def test_pages_are_asked_per_agent_lazily_near_the_end() -> None:
    app = AgentsApp({"claude": catalog("c", 40, 3), "codex": catalog("x", 40, 2)}, page=10)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        first = len(app.requests)
        assert {r[0] for r in app.requests} == {"claude", "codex"}
        assert len(app.sidebar.rows) < 80  # not everything up front
        assert "+" in str(app.sidebar.query_one("#sidebar-header").render())
        app.sidebar.session_list.focus()
        await pilot.press("end")
        await settle(pilot)
        assert len(app.requests) > first
        later = app.requests[first:]
        assert all(cursor is not None for _, _, cursor in later)
        for _ in range(10):
            await pilot.press("end")
            await settle(pilot)
        assert len(app.sidebar.rows) == 80
        assert "+" not in str(app.sidebar.query_one("#sidebar-header").render())
        times = [s.updated_ts or 0 for s in app.sidebar.rows]
        assert times == sorted(times, reverse=True)


async def test_loading_and_a_failed_agent_say_which() -> None:
    app = AgentsApp({"claude": catalog("c", 3, 10), "codex": catalog("x", 3, 7)})
    app.answer = False
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: len(app.requests) == 2, "both first pages asked")
        await pilot.pause()
        assert LOADING_TEXT in visible_text(app)
        app.answer_page("claude", CWD, None)
        app.sidebar.set_loading(False, error="boom\x1b[31m", agent_key="codex")
        await pilot.pause()
        await wait_for(pilot, lambda: not app.sidebar._refresh_scheduled, "rebuilt")
        text = visible_text(app)
        assert "list failed (r: retry): codex: b…" in text  # cut to the sidebar's width
        footer = app.sidebar.session_list.footer
        assert footer == "list failed (r: retry): codex: boom"  # the escape sequence dropped
        assert [key for key, _ in shown(app)] == ["claude"] * 3
        # r asks the failed agent again.
        app.answer = True
        app.sidebar.session_list.focus()
        await pilot.press("r")
        await settle(pilot)
        assert len(shown(app)) == 6


async def test_reload_asks_every_agent_for_its_first_page_again() -> None:
    """Ctrl+B (the screen calls reload): sessions made elsewhere appear, for every agent."""
    app = AgentsApp({"claude": catalog("c", 3, 10), "codex": catalog("x", 3, 7)})
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        app.requests.clear()
        app.catalogs["codex"].insert(0, {"sessionId": "x-new", "cwd": CWD, "updatedAt": iso(NOW)})
        app.sidebar.reload()
        await settle(pilot)
        assert sorted(app.requests, key=str) == [("codex", CWD, None), (None, CWD, None)]
        assert shown(app)[0] == ("codex", "x-new")


async def test_open_carries_the_agent_of_the_row_and_own_actions_stay_own() -> None:
    app = AgentsApp({"claude": catalog("c", 2, 10), "codex": catalog("c", 2, 7)})
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        # Same ids in both agents: each row is its agent's.
        assert shown(app) == [
            ("claude", "c-0"),
            ("codex", "c-0"),
            ("codex", "c-1"),
            ("claude", "c-1"),
        ]
        app.sidebar.session_list.focus()
        await pilot.press("down", "enter")
        assert app.opened == [("c-0", "codex")]
        # The palette's close / delete act on the screen's agent only.
        assert app.sidebar.highlighted_session_id() is None
        assert app.sidebar.highlighted_agent_key() == "codex"
        await pilot.press("up", "enter")
        assert app.opened[-1] == ("c-0", "claude")
        assert app.sidebar.highlighted_session_id() == "c-0"
        # The highlight stays on its agent's row when rows move (a newer session of the other).
        await pilot.press("down")
        app.store("claude").apply_list_page(
            {"sessions": [{"sessionId": "new", "cwd": CWD, "updatedAt": iso(NOW)}]},
            cwd=CWD,
            cursor="extra",
        )
        await wait_for(pilot, lambda: shown(app)[0] == ("claude", "new"), "the new row")
        await settle(pilot)
        assert app.sidebar.highlighted_agent_key() == "codex"
        assert app.sidebar.session_list.highlighted is not None
        assert app.sidebar.session_list.highlighted.id == "c-0"


async def test_one_agent_in_the_workspace_looks_as_before() -> None:
    app = AgentsApp({"claude": catalog("c", 3, 10)})
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        assert not app.sidebar.model.several_agents
        assert app.sidebar.session_list.row_agents == []
        assert "claude" not in visible_text(app)
        assert app.sidebar.query_one("#sidebar-filter", Input).placeholder == "Filter sessions…"
        assert app.requests == [(None, CWD, None)]  # the screen's own LoadMore, as ever
        app.sidebar.session_list.focus()
        await pilot.press("enter")
        assert app.opened == [("c-0", "claude")]


# -- through the chat screen, with two real agents over real pipes -----------------------------


async def test_chat_screen_lists_a_second_agent_and_opens_its_row_in_its_view(
    tmp_path: Path,
) -> None:
    """The demo agent on screen, the SDK agent started in the background for its sessions
    (as "Show sessions of" does): both agents' sessions in one list, each marked; a row of the
    SDK agent asks the app to show it in that agent's view, with that agent's key."""
    from tests.ui.chat_helpers import chat, demo_app, send, wait_for_session

    app = demo_app(tmp_path, tmp_path / "demo-state", show_sidebar=True)
    shown_sessions: list[tuple[str, str]] = []
    app.show_session = lambda key, session_id: shown_sessions.append((key, session_id))  # type: ignore[attr-defined]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hello from the demo")
        sdk = AgentSpec(tuple(SDK_AGENT), cwd=str(tmp_path), name="sdk")
        controller = start_for_listing(app.workspace, sdk)
        app.run_worker(run_for_listing(controller), exit_on_error=False)
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(
            pilot,
            lambda: (
                len({k for k in sidebar.session_list.row_agents}) == 2 and len(sidebar.rows) == 4
            ),
            "the sessions of both agents",
        )
        keys = sidebar.session_list.row_agents
        demo_key = screen.spec.key
        # The demo session is the newest; the SDK agent's three (listed two a page) follow,
        # newest first, with its name on each row.
        assert keys == [demo_key, sdk.key, sdk.key, sdk.key]
        assert [s.id for s in sidebar.rows[1:]] == ["pre-3", "pre-2", "pre-1"]
        lst = sidebar.session_list
        text = "\n".join(lst.render_line(y).text for y in range(10))
        assert "sdk-test-ag…" in text and "acp-tui-demo" in text
        assert "\x1b" not in text and "red bug" in text  # the SDK agent's hostile title
        # No session was opened in the SDK agent to list it.
        assert not any(s.live for s in controller.store.sessions.values())
        lst.focus()
        await pilot.press("home", "down", "enter")
        await wait_for(pilot, lambda: bool(shown_sessions), "the open request")
        assert shown_sessions == [(sdk.key, "pre-3")]
        # A row of the demo agent opens here, as ever.
        await pilot.press("home", "enter")
        assert chat(app).session_id == sidebar.rows[0].id
        assert shown_sessions == [(sdk.key, "pre-3")]
    assert controller.finished.is_set()  # quitting stopped the agent started to list


async def test_an_agent_that_cannot_list_shows_what_the_local_index_remembers(
    tmp_path: Path,
) -> None:
    """A second agent without session/list: its rows come from the local index (sessions
    started here with it earlier), merged with the demo agent's, marked with its name."""
    from acp_tui.config import locations
    from acp_tui.store.local_index import LocalIndex
    from tests.ui.chat_helpers import demo_app, wait_for_ready

    spec = AgentSpec(tuple(SDK_AGENT), cwd=str(tmp_path), env={"SDK_AGENT_NO_LIST": "1"})
    key = spec.key
    with LocalIndex(locations.local_index_file(tmp_path / ".data"), key) as index:
        index.remember(
            "remembered-1",
            cwd=str(tmp_path),
            title="Started here \x1b[31mlast week",
            updated=NOW,
        )
    app = demo_app(tmp_path, tmp_path / "demo-state", show_sidebar=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        controller = start_for_listing(app.workspace, spec)
        app.run_worker(run_for_listing(controller), exit_on_error=False)
        await wait_for(pilot, lambda: controller.store.capabilities_known, "the agent ready")
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: len(sidebar.rows) == 1, "the remembered session")
        assert sidebar.session_list.row_agents == [key]
        assert sidebar.rows[0].id == "remembered-1"
        lst = sidebar.session_list
        assert "Started here last week" in lst.render_line(0).text
        assert lst.render_line(1).text.split()[0] == "sdk-test-ag…"
        assert not controller.store.can_list


async def test_show_sessions_of_a_configured_agent_from_the_palette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Show sessions of: sdk" starts the configured agent in the background (not at
    start-up) through the workspace, and its sessions join the sidebar under its name."""
    import json

    from tests.ui.chat_helpers import demo_app, run_palette_command, wait_for_ready

    config = tmp_path / "config.toml"
    config.write_text(
        f"[agents.sdk]\ncommand = {json.dumps(SDK_AGENT[0])}\nargs = {json.dumps(SDK_AGENT[1:])}\n"
    )
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    app = demo_app(tmp_path, tmp_path / "demo-state", show_sidebar=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        key = "config:sdk"
        assert key not in app.workspace  # never at start-up
        await run_palette_command(pilot, "Show sessions of: sdk")
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: len(sidebar.rows) == 3, "the SDK agent's sessions")
        assert sidebar.session_list.row_agents == [key] * 3
        assert [s.id for s in sidebar.rows] == ["pre-3", "pre-2", "pre-1"]
        lst = sidebar.session_list
        assert lst.render_line(1).text.split()[0] == "sdk"  # its configured name
        controller = app.workspace.get(key)
        assert controller is not None and not controller.finished.is_set()
        # Running now: the palette offers it no more.
        assert not any("sdk" in str(c.title) for c in screen.other_agents.commands())
    assert controller.finished.is_set()


# -- the look ----------------------------------------------------------------------------------


async def _three_agents(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, AgentsApp)
    await settle(pilot)
    app.sidebar.current_session_id = "c-0"
    app.sidebar.session_list.focus()
    await pilot.press("down", "down")
    await settle(pilot)


def test_snapshot_three_agents(snap_compare: Any) -> None:
    """Three agents' sessions merged newest first. Each row's second line starts with its
    agent's name in its colour (claude: accent, codex: green, the third: blue), then the
    time. `c-0` is the current session (bar, bold); the third row (`t task 0`) is
    highlighted. The third agent's name is long and hostile (an escape sequence and markup in
    the config): cut to 12 characters, shown literally (`[bold]local…`), no style of its own."""
    app = AgentsApp(
        {
            "claude": catalog("c", 3, 10),
            "codex": catalog("x", 3, 7),
            "third": catalog("t", 2, 13),
        }
    )

    async def run_before(pilot: Pilot[None]) -> None:
        directory = app.sidebar.model.directory
        assert directory is not None
        directory.names["third"] = "\x1b[31m[bold]local-llama[/bold] model"
        await _three_agents(pilot)

    assert snap_compare(app, terminal_size=(60, 24), run_before=run_before)
