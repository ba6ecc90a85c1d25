"""Sidebar rows show each session's live state (issue 19, parallel sessions): working with its
elapsed time (the clock moves on its own), waiting for you, done with unread output (cleared
once the session is shown), error; glyph and words coloured by theme variables."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest
from textual.app import App, ComposeResult

from acp_tui.store import SessionStore, live_state
from acp_tui.ui.widgets.session_status import (
    ATTENTION_GLYPH,
    BUSY_GLYPH,
    ERROR_GLYPH,
    UNREAD_GLYPH,
    row_status,
)
from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio

CWD = "/work/proj"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


class StatusApp(App[None]):
    CSS = "Screen { layout: horizontal; }"
    AUTO_FOCUS = None

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock()
        self.store = SessionStore(clock=self.clock)
        self.store.set_agent_capabilities({"loadSession": True, "sessionCapabilities": {}})
        self.store.subscribe(lambda: self.call_later(self._take))

    def compose(self) -> ComposeResult:
        yield SessionsSidebar(self.store, CWD, now=self.clock, tz=UTC, home="/home/tester")

    def on_mount(self) -> None:
        self._take()  # dirty before the subscription: start clean, or it never wakes

    def _take(self) -> None:
        changes = self.store.take_changes()
        if SessionsSidebar.wants(changes):
            self.query_one(SessionsSidebar).refresh_rows()


def screen_text(app: App[Any]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _sessions(store: SessionStore) -> None:
    for sid, title in [
        ("s-work", "Working one"),
        ("s-wait", "Waiting one"),
        ("s-done", "Finished one"),
        ("s-fail", "Failing one"),
        ("s-here", "On screen"),
    ]:
        store.register_session(sid, cwd=CWD, title=title)
        store.prompt_sent(sid, "go")
    store.set_viewing("s-here")
    store.set_activity("s-wait", "requires_action")
    store.prompt_finished("s-done", {"stopReason": "end_turn"})
    store.prompt_finished("s-fail", None, error="the agent exited")
    store.prompt_finished("s-here", {"stopReason": "end_turn"})


def _row(text: str, title: str) -> tuple[str, str]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if title in line:
            return line, lines[i + 1]
    raise AssertionError(f"no row {title!r} in\n{text}")


async def test_each_live_state_has_its_glyph_and_words_and_the_working_clock_moves() -> None:
    app = StatusApp()
    async with app.run_test(size=(60, 20)) as pilot:
        _sessions(app.store)
        await wait_for(pilot, lambda: "waiting for you" in screen_text(app), "the rows")
        text = screen_text(app)
        title, meta = _row(text, "Working one")
        assert BUSY_GLYPH in title and "working 0 s" in meta
        title, meta = _row(text, "Waiting one")
        assert ATTENTION_GLYPH in title and "waiting for you" in meta
        title, meta = _row(text, "Finished one")
        assert UNREAD_GLYPH in title and "done · unread" in meta
        title, meta = _row(text, "Failing one")
        assert ERROR_GLYPH in title and "error" in meta
        title, meta = _row(text, "On screen")
        assert not any(g in title for g in (BUSY_GLYPH, UNREAD_GLYPH, ERROR_GLYPH))
        assert "unread" not in meta
        # Nothing changes in the store: the tick the chat screen gives the sidebar once a
        # second redraws the running clock (the sidebar's own 30 s refresh is not waited for).
        app.clock.now += 75
        await pilot.pause()
        assert "working 0 s" in screen_text(app)
        app.query_one(SessionsSidebar).tick_working()
        await pilot.pause()
        assert "working 1 min 15 s" in screen_text(app)


async def test_unread_output_is_read_once_the_session_is_shown() -> None:
    app = StatusApp()
    async with app.run_test(size=(60, 20)) as pilot:
        _sessions(app.store)
        await wait_for(pilot, lambda: "done · unread" in screen_text(app), "the unread row")
        app.store.set_viewing("s-done")
        await wait_for(pilot, lambda: "done · unread" not in screen_text(app), "read")


def test_the_row_colours_come_from_theme_variables() -> None:
    for component in ("busy", "attention", "unread", "failed"):
        rule = next(
            line
            for line in SessionList.DEFAULT_CSS.splitlines()
            if f".sessions-list--{component} " in line
        )
        assert "color: $" in rule and "#" not in rule, rule


def test_row_status_follows_the_store() -> None:
    clock = Clock()
    store = SessionStore(clock=clock)
    store.register_session("a", cwd=CWD)
    state = store.get("a")
    assert state is not None
    assert row_status(state, clock()) is None and live_state(state) is None
    store.prompt_sent("a", "go")
    clock.now += 3725
    status = row_status(state, clock())
    assert status is not None and status.text == "working 1 h 02 min"


async def test_a_change_repaints_only_the_rows_that_look_different() -> None:
    """A running session's usage, its clock or its state: only its own lines are repainted,
    not the whole list (which made every frame of a streaming reply redraw the whole height of
    the screen beside the transcript); what is on screen is right either way."""
    app = StatusApp()
    async with app.run_test(size=(60, 20)) as pilot:
        _sessions(app.store)
        await wait_for(pilot, lambda: "waiting for you" in screen_text(app), "the rows")
        await pilot.pause()
        lst = app.query_one(SessionList)
        work_row = next(i for i, row in enumerate(lst.rows) if row.id == "s-work")
        repainted: list[tuple[int, int]] = []
        refresh_lines = lst.refresh_lines

        def spy(y_start: int, line_count: int = 1) -> None:
            repainted.append((y_start, line_count))
            refresh_lines(y_start, line_count)

        lst.refresh_lines = spy  # type: ignore[method-assign]
        full = 0
        refresh = lst.refresh

        def counting_refresh(*regions: Any, **flags: Any) -> Any:
            nonlocal full
            full += not regions
            return refresh(*regions, **flags)

        lst.refresh = counting_refresh  # type: ignore[method-assign]
        # The clock of the working row moves: its second line only.
        app.clock.now += 5
        app.query_one(SessionsSidebar).tick_working()
        await pilot.pause()
        assert repainted == [(work_row * 2 + 1, 1)] and full == 0
        assert "working 5 s" in screen_text(app)
        # Its state changes (the turn ends): its own two lines only.
        repainted.clear()
        app.store.prompt_finished("s-work", {"stopReason": "end_turn"})
        await wait_for(pilot, lambda: bool(repainted) or full > 0, "the repaint")
        await pilot.pause()
        assert full == 0
        assert {line for start, count in repainted for line in range(start, start + count)} <= {
            work_row * 2,
            work_row * 2 + 1,
        }, repainted
        title, meta = _row(screen_text(app), "Working one")
        assert UNREAD_GLYPH in title and "done · unread" in meta
        # Nothing changes: nothing is repainted.
        repainted.clear()
        lst.refresh_changed()
        await pilot.pause()
        assert repainted == [] and full == 0
