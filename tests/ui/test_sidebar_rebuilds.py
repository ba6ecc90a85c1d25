"""The sidebar builds its rows when what it shows changed, not at every refresh asked for: an
app start asked for seven rebuilds, of which three showed something new ("connecting…",
"loading more…", the rows)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar
from tests.ui.chat_helpers import demo_app, send, wait_for, wait_for_ready

pytestmark = pytest.mark.anyio


def record_builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    builds: list[tuple[Any, ...]] = []
    real = SessionList.set_rows

    def set_rows(self: SessionList, rows: list[Any], **options: Any) -> None:
        builds.append(
            (tuple(row.id for row in rows), options.get("footer"), options.get("keep_id"))
        )
        real(self, rows, **options)

    monkeypatch.setattr(SessionList, "set_rows", set_rows)
    return builds


async def test_a_start_builds_the_rows_only_when_they_show_something_new(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    builds = record_builds(monkeypatch)
    asked: list[int] = []
    real_refresh = SessionsSidebar.refresh_rows

    def refresh_rows(self: SessionsSidebar) -> None:
        asked.append(1)
        real_refresh(self)

    monkeypatch.setattr(SessionsSidebar, "refresh_rows", refresh_rows)
    app = demo_app(tmp_path, tmp_path / "demo-state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: not sidebar.loading, "the first page")
        for _ in range(5):
            await pilot.pause(0.05)
        # The new session opened early (the demo agent can close it) changes the row to
        # keep highlighted, not the rows: one build more than without it.
        assert builds[-1][:2] == ((), "no sessions yet")
        assert len(builds) <= 4, builds
        assert len(asked) > len(builds), "refreshes were asked for that changed nothing"
        assert all(a != b for a, b in itertools.pairwise(builds)), builds
        # Something new is still shown at once: a session made by a message.
        await send(pilot, "hello")
        await wait_for(pilot, lambda: len(sidebar.rows) == 1, "the new session listed")
