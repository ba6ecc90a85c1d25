"""How "Search all sessions" looks (issue 43): the field with the words typed, the help line,
and the results, each two lines (agent, title, project, kind and time; then the snippet with
the words found in reverse), at 120x40 and at 80x24."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow
from acp_tui.ui.screens.search import SearchScreen
from tests.ui.chat_helpers import wait_for

#: Five and a half hours ago: "5 h ago" on every run.
AGO = 5.5 * 3600


def _index(tmp_path: Path) -> SearchIndex:
    at = time.time() - AGO
    index = SearchIndex(tmp_path / "search.sqlite3")
    sessions = [
        (
            SessionRow("config:claude", "claude", "c1", "/srv/shop", "Fix the cart", at),
            [
                ("user", "please refactor the basket module, it has grown too big"),
                ("agent", "The refactor is done: basket.py is split in three [bold]files[/]."),
            ],
        ),
        (
            SessionRow("config:codex", "codex", "x1", "/srv/blog", "Blog engine", at),
            [("thought", "a refactor of the renderer would make the feed simpler")],
        ),
        (SessionRow("config:codex", "codex", "x2", "/srv/blog", "Other", at), [("user", "hi")]),
    ]
    index.write(
        ("put", row, [EntryRow(i, kind, at, text) for i, (kind, text) in enumerate(e)], None)
        for row, e in sessions
    )
    return index


class _Host(App[None]):
    def __init__(self, index: SearchIndex) -> None:
        super().__init__()
        self.index = index

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(SearchScreen(self.index, query="refactor"))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_search_with_results(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The results for "refactor": three entries of two sessions of two agents, the word in
    reverse in each snippet, "[bold]" shown as typed (agent text is data)."""

    async def run_before(pilot: Pilot) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        screen.query_one(Input).cursor_blink = False
        await wait_for(pilot, lambda: screen.shown_for == "refactor", "the results")
        assert len(screen.hits) == 3
        await pilot.pause()

    assert snap_compare(_Host(_index(tmp_path)), terminal_size=size, run_before=run_before)
