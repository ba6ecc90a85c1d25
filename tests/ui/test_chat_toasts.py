"""Toasts stay short and out of the way; context details are a panel that stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets._toast import Toast

from acp_tui.store.entries import Notice
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.context import ContextDetailsScreen
from acp_tui.ui.toasts import TOAST_CHARS, TOAST_LINES, toast_text
from acp_tui.ui.widgets.prompt import PromptEditor
from tests.ui.chat_helpers import (
    demo_app,
    fixture_app,
    run_palette_command,
    send,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio


def test_toast_text_keeps_two_lines_and_cuts_the_rest() -> None:
    text = "first line\n\n  second line  \nthird line\nfourth"
    assert toast_text(text) == "first line\nsecond line…"
    assert toast_text("short") == "short"
    long = toast_text("x" * 500)
    assert len(long) == TOAST_CHARS and long.endswith("…")
    many = toast_text("\n".join(f"line {n}" for n in range(20)))
    assert many.count("\n") == TOAST_LINES - 1
    # Escape sequences from the agent are never passed to the terminal.
    assert "\x1b" not in toast_text("\x1b[31mred\x1b[0m")


def toasts(screen: ChatScreen) -> list[Toast]:
    return list(screen.query(Toast))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_the_threshold_notice_is_short_and_covers_neither_prompt_nor_gauge(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/fill 92")
        await wait_for(pilot, lambda: bool(toasts(screen)), "the threshold toast")
        await pilot.pause(0.3)  # its animation in
        (toast,) = toasts(screen)
        text = str(toast.render())
        assert "92% used" in text and "start a new session" in text
        assert toast.region.height <= 2 + 2  # two lines of text and its padding
        for name in ("#prompt", "#bar", "#gauge", "#status-line"):
            region: Region = screen.query_one(name).region
            assert not toast.region.overlaps(region), (name, toast.region, region)


async def test_context_details_open_from_the_palette_and_the_gauge_and_stay(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: "31.4K" in screen.query_one("#gauge").render().plain, "")  # type: ignore[attr-defined]
        await run_palette_command(pilot, "Context details")
        panel = app.screen
        assert isinstance(panel, ContextDetailsScreen)
        assert "31,400 of 200,000 tokens" in panel.details()
        assert "Cost: $0.05" in panel.details()
        # It stays (a toast would be gone by now) until dismissed.
        await pilot.pause(1.2)
        assert app.screen is panel
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the panel to close")
        # A click on the gauge opens it too; Enter closes it.
        await pilot.click("#gauge")
        await wait_for(pilot, lambda: isinstance(app.screen, ContextDetailsScreen), "the panel")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, "the panel to close")
        assert not toasts(screen)


async def test_a_long_agent_error_is_a_short_toast_and_kept_whole_in_the_transcript(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        details = "\n".join(f"  at frame {n} [bold]not markup[/bold]" for n in range(30))
        screen.controller.events.on_error(  # type: ignore[union-attr]
            f"session/set_mode failed: internal error\n{details}"
        )
        await wait_for(pilot, lambda: bool(toasts(screen)), "the toast")
        (toast,) = toasts(screen)
        text = str(toast.render())
        assert "session/set_mode failed" in text and "frame 5" not in text
        state = screen.store.get(screen.session_id)
        notices = [e for e in state.transcript if isinstance(e, Notice)]
        assert notices and notices[-1].title == "session/set_mode failed: internal error"
        assert "at frame 29 [bold]not markup[/bold]" in (notices[-1].description or "")
        assert screen.query_one(PromptEditor).text == ""
