"""Search all sessions in the app: the screen (results as you type, the match highlighted,
agent text shown literally, the keys), and Enter landing on the entry in its agent's view,
the agent started when it does not run (a real SDK agent, its session loaded)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from acp_tui.config.schema import Config
from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSource
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.search_index import EntryRow, SearchHit, SearchIndex, SessionRow
from acp_tui.store.search_query import parse_query
from acp_tui.store.search_writer import SearchWriter
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.search import SearchScreen
from acp_tui.ui.widgets.transcript import Transcript
from tests.ui.chat_helpers import (
    app_settings,
    run_palette_command,
    send,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

AGENTS = Path(__file__).resolve().parents[1] / "agents"


def _demo(tmp_path: Path) -> list[str]:
    return demo_agent_argv(state_dir=str(tmp_path / "demo-state"), chunk_delay=0)


def _index(tmp_path: Path) -> SearchIndex:
    index = SearchIndex(tmp_path / "search.sqlite3")
    rows = [
        (
            SessionRow("config:claude", "claude", "c1", "/home/me/shop", "Fix the cart"),
            [
                "we should [bold]refactor[/] the basket module",
                "the refactor is done",
            ],
        ),
        (SessionRow("config:codex", "codex", "x1", "/srv/blog", "Blog"), ["nothing about it"]),
    ]
    index.write(
        ("put", row, [EntryRow(i, "agent", 1_000.0, t) for i, t in enumerate(texts)], None)
        for row, texts in rows
    )
    return index


class _Host(App[None]):
    def __init__(
        self, index: SearchIndex, forget: Callable[[SearchHit], None] | None = None
    ) -> None:
        super().__init__()
        self.index = index
        self.forget = forget
        self.chosen: list[SearchHit | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(SearchScreen(self.index, forget=self.forget), self.chosen.append)


def _options(screen: SearchScreen) -> list[str]:
    results = screen.query_one(OptionList)
    return [str(results.get_option_at_index(i).prompt) for i in range(results.option_count)]


async def test_results_come_as_you_type_and_the_match_is_highlighted_literally(
    tmp_path: Path,
) -> None:
    app = _Host(_index(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"refac")  # a word being typed: a prefix
        await wait_for(pilot, lambda: len(screen.hits) == 2, "two results")
        shown = _options(screen)
        assert "[bold]refactor[/]" in "".join(shown)  # agent text, never markup
        assert all("claude" in line and "Fix the cart" in line for line in shown)
        prompt = screen.query_one(OptionList).get_option_at_index(0).prompt
        highlighted = [
            prompt.plain[span.start : span.end]  # type: ignore[union-attr]
            for span in prompt.spans  # type: ignore[union-attr]
            if "reverse" in str(span.style)
        ]
        assert highlighted and all(text.lower().startswith("refac") for text in highlighted)
        # Filters narrow; a bad date is said.
        for key in " @codex":
            await pilot.press("space" if key == " " else key)
        await wait_for(pilot, lambda: screen.hits == [] and screen.shown_for, "no result")
        await pilot.press(*" before:soon")
        await wait_for(
            pilot,
            lambda: "before:soon" in str(screen.query_one("#search-note", Static).render()),
            "the bad date said",
        )


async def _down_to_the_second(app: _Host, pilot: Pilot[None]) -> tuple[SearchScreen, OptionList]:
    """Type a word with two results and move to the second."""
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*"refactor")
    await wait_for(pilot, lambda: len(screen.hits) == 2, "two results")
    results = screen.query_one(OptionList)
    await pilot.press("down")
    await wait_for(pilot, lambda: results.highlighted == 1, "the second highlighted")
    return screen, results


async def test_up_down_and_enter_choose_and_escape_closes(tmp_path: Path) -> None:
    app = _Host(_index(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _ = await _down_to_the_second(app, pilot)
        second = screen.hits[1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chosen == [second], "the second result chosen")
        again = SearchScreen(app.index)
        app.push_screen(again, app.chosen.append)
        await wait_for(pilot, lambda: app.screen is again and again.is_mounted, "open again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.chosen == [second, None], "closed with nothing")


async def test_the_same_search_again_keeps_the_result_moved_to(tmp_path: Path) -> None:
    """Under load a debounce can read the final text early and the search for it run twice:
    the second answer reset the highlight to the first result, so Enter opened the wrong
    one. The result moved to stays highlighted when it is still there."""
    app = _Host(_index(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, results = await _down_to_the_second(app, pilot)
        second = screen.hits[1]
        text = screen.query_one(Input).value
        screen._show(text, parse_query(text), list(screen.hits))  # the same answer again
        assert results.highlighted == 1
        screen._show(text, parse_query(text), [second])  # the index changed: it moved up
        assert results.highlighted == 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chosen == [second], "the result moved to, chosen")


async def test_enter_typed_before_the_results_opens_the_best(tmp_path: Path) -> None:
    app = _Host(_index(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"basket", "enter")
        await wait_for(pilot, lambda: len(app.chosen) == 1, "a result chosen")
        assert app.chosen[0] is not None and app.chosen[0].position == 0


def _config(tmp_path: Path) -> Config:
    return Config.model_validate(
        {
            "agents": {
                "sdk": {
                    "command": sys.executable,
                    "args": [str(AGENTS / "sdk_agent.py")],
                    "env": {"SDK_AGENT_STATE_DIR": str(tmp_path / "sdk-state")},
                    "label": "SDK agent",
                }
            }
        }
    )


async def test_a_word_said_to_another_agent_is_found_and_enter_lands_on_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "sdk-state").mkdir()
    config = _config(tmp_path)
    data = tmp_path / ".data"
    sdk = resolve_agent(AgentSource.configured("sdk"), config).spec
    first = make_app(
        AppSettings(agent=sdk, data_dir=data), ui=UiSettings(theme="textual-dark"), config=config
    )
    async with first.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await send(pilot, "the quokka sleeps")
        for n in range(12):  # enough that the word is scrolled off when the session opens
            await send(pilot, f"filler message number {n}")
        screen = first.screen
        assert isinstance(screen, ChatScreen)
        session_id = screen.session_id
        await wait_for(
            pilot,
            lambda: (
                sum(
                    "filler" in getattr(e, "text", "")
                    for e in screen.store.get(session_id).transcript  # type: ignore[union-attr]
                )
                >= 24
            ),
            "every reply",
        )
    # Quitting wrote the index. Now only the demo agent runs.
    settings, ui = app_settings(_demo(tmp_path), tmp_path, data_dir=data)
    second = make_app(settings, ui=ui, config=config)
    async with second.run_test(size=(120, 40)) as pilot:
        assert isinstance(second, AcpTuiApp)
        await wait_for_session(pilot)
        await run_palette_command(pilot, "Search all sessions")
        search = second.screen
        assert isinstance(search, SearchScreen)
        await pilot.press(*"quokka")
        await wait_for(pilot, lambda: bool(search.hits), "the word found")
        assert search.hits[0].label == "SDK agent" and search.hits[0].session_id == session_id
        await pilot.press("enter")
        await wait_for(pilot, lambda: "config:sdk" in second.agent_views, "the SDK agent's view")
        view = second.agent_views["config:sdk"]

        def landed() -> bool:
            if second.screen is not view or view.session_id != session_id:
                return False
            transcript = view.query_one(Transcript)
            region = transcript.content_region
            return (
                any(
                    "quokka" in getattr(entry, "text", "")
                    and any(
                        w.region.y >= region.y and w.region.y < region.bottom
                        for w in transcript.children
                        if getattr(w, "entry", None) is entry
                    )
                    for entry in transcript.entries
                )
                and not transcript.following
            )

        def state() -> str:
            """What the screen showed, for a failure."""
            transcript = view.query_one(Transcript)
            rows = [
                (w.region.y, transcript.entries.index(entry))
                for entry in transcript.entries
                if "quokka" in getattr(entry, "text", "")
                for w in transcript.children
                if getattr(w, "entry", None) is entry
            ]
            notes = [n.message for n in second._notifications]
            return (
                f"screen={type(second.screen).__name__} view.session={view.session_id} "
                f"transcript.session={transcript.session_id} entries={len(transcript.entries)} "
                f"quokka rows (y, index)={rows} content={transcript.content_region} "
                f"scroll_y={transcript.scroll_y} max={transcript.max_scroll_y} "
                f"following={transcript.following} shown={transcript.shown_count} "
                f"notes={notes}"
            )

        try:
            await wait_for(pilot, landed, "the entry with the word on screen")
        except AssertionError as error:
            raise AssertionError(f"{error}: {state()}") from None


async def test_without_an_index_the_key_says_so(tmp_path: Path) -> None:
    settings, ui = app_settings(_demo(tmp_path), tmp_path)
    app = make_app(settings, ui=ui, workspace=Workspace())
    async with app.run_test(size=(80, 24)) as pilot:
        notes: list[str] = []
        original = app.notify

        def record(message: str, **kwargs: object) -> None:
            notes.append(message)
            original(message, **kwargs)  # type: ignore[arg-type]

        app.notify = record  # type: ignore[method-assign]
        await wait_for_session(pilot)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: any("no search index" in n for n in notes), "said")


async def test_ctrl_f_opens_the_search(tmp_path: Path) -> None:
    writer = SearchWriter(tmp_path / "s.sqlite3")
    settings, ui = app_settings(_demo(tmp_path), tmp_path)
    app = make_app(settings, ui=ui, workspace=Workspace(search=writer))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_session(pilot)
        await send(pilot, "hello walrus")
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), "the search")
        search = app.screen
        assert isinstance(search, SearchScreen)
        await pilot.press(*"walrus")
        # What this run said is found while it runs (the feed, the writer's thread).
        await wait_for(pilot, lambda: bool(search.hits), "this session found")
        assert search.hits[0].kind == "user"


async def test_ctrl_r_forgets_the_highlighted_session(tmp_path: Path) -> None:
    index = _index(tmp_path)
    forgotten: list[SearchHit] = []

    def forget(hit: SearchHit) -> None:
        forgotten.append(hit)
        index.write([("forget", hit.agent, hit.session_id)])

    app = _Host(index, forget)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"refactor")
        await wait_for(pilot, lambda: len(screen.hits) == 2, "two results")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.hits == [], "its results gone")
        assert [h.session_id for h in forgotten] == ["c1"]
        await pilot.press("space")  # searched again: the index holds it no more
        await wait_for(pilot, lambda: screen.shown_for == "refactor ", "searched again")
        assert screen.hits == []
