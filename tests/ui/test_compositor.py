"""The chat screen's compositor (acp_tui/ui/textual_patches/compositor.py) draws exactly what
Textual's own draws, whole screens and partial updates, on real screens: a conversation with a
diff and a plan, a permission dialog over it, a scrolled transcript, a narrow terminal; and it
never asks a widget covered where it would be drawn for its lines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual.geometry import Region
from textual.pilot import Pilot

from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.textual_patches.compositor import CoveredSkipping
from tests.ui.chat_helpers import chat, fixture_app, send, settle, wait_for, wait_for_session

pytestmark = [pytest.mark.anyio, pytest.mark.textual_patch("compositor")]


def both_draw_the_same(compositor: Compositor, seed: int) -> None:
    """Whole screen, then partial updates of random regions: the same strips either way."""
    assert isinstance(compositor, CoveredSkipping)
    ours = compositor.render_strips()
    theirs = Compositor.render_strips(compositor)
    assert ours == theirs
    size = compositor.size
    rng = random.Random(seed)
    for _ in range(25):
        regions = set()
        for _ in range(rng.randint(1, 4)):
            x, y = rng.randrange(size.width), rng.randrange(size.height)
            regions.add(
                Region(x, y, rng.randint(1, size.width - x), rng.randint(1, size.height - y))
            )
        crop = Region.from_union(list(regions)).intersection(size.region)
        rows = {y for region in regions for y in region.line_range}
        mine = compositor._render_chops(crop, rows.__contains__)
        textual = Compositor._render_chops(compositor, crop, rows.__contains__)
        for y in sorted(rows):
            assert mine[y] == textual[y], f"row {y} of {regions}"


async def conversation(pilot: Pilot) -> ChatScreen:
    screen = await wait_for_session(pilot)
    await send(pilot, "conversation")
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    await wait_for(pilot, lambda: state.stop_reason == "end_turn", "the turn")
    await settle(pilot)
    return screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_chat_screen_draws_what_textual_draws(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await conversation(pilot)
        assert isinstance(screen._compositor, CoveredSkipping)
        both_draw_the_same(screen._compositor, 1)
        # Scrolled to the top of the transcript: other rows, other widgets in front.
        await pilot.press("ctrl+home")
        await settle(pilot)
        both_draw_the_same(screen._compositor, 2)


async def test_under_a_permission_dialog_too(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-by-id")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(screen._compositor, CoveredSkipping)
        both_draw_the_same(screen._compositor, 3)
        # The whole terminal as the person sees it: the dialog over the dimmed chat.
        assert app.screen._compositor.render_strips()


async def test_a_covered_widget_is_never_asked_for_its_lines(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await conversation(pilot)
        compositor = screen._compositor
        asked: list[str] = []
        for widget in compositor.visible_widgets:
            original = widget.render_lines

            def spy(crop: Region, widget: object = widget, original: object = original) -> object:
                asked.append(type(widget).__name__)
                return original(crop)  # type: ignore[operator]

            widget.render_lines = spy  # type: ignore[method-assign]
        compositor.render_strips()
        # The body and main column are covered whole by what they hold: drawn for nothing by
        # Textual's own compositor, never asked here.
        assert "ChatScreen" not in asked and "Horizontal" not in asked, asked
        assert "MarkdownLines" in asked and "PromptTextArea" in asked
        assert chat(app) is screen
