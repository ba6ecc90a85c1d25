"""A reply of megabytes is a widget of hundreds of thousands of rows: what Textual does per
layout must not grow with that height (issue 20: keystrokes waited behind it; the 50 MB reply's
peak memory held a set of every row): acp_tui/ui/textual_patches/tall.py."""

from __future__ import annotations

import random

import pytest
from textual._spatial_map import SpatialMap
from textual.app import App, ComposeResult
from textual.geometry import Offset, Region, Spacing
from textual.layout import WidgetPlacement
from textual.widget import Widget

from acp_tui.store.entries import AgentMessage
from acp_tui.ui.textual_patches.tall import GRID_SQUARES, coarse_spatial_map
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import AgentMessageView
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio

WORDS = "the agent reads the parser and finds two problems in the greeting code".split()


def reply(paragraphs: int) -> str:
    body = "".join(
        " ".join(WORDS[(n + k) % len(WORDS)] for k in range(60)) + f" ({n}).\n\n"
        for n in range(paragraphs)
    )
    return "FIRSTWORDS open it.\n\n" + body + "LASTWORDS"


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def on_screen(app: App[None], word: str) -> bool:
    return any(word in strip.text for strip in app.screen._compositor.render_strips())


def squares(widget: Widget) -> int:
    """Grid squares of the spatial map of ``widget``'s current arrangement."""
    arrangement = widget.arrange(widget.scrollable_content_region.size)
    return len(arrangement.spatial_map._map)


@pytest.mark.textual_patch("tall-widgets")
async def test_a_tall_reply_costs_its_containers_a_bounded_grid_and_no_set_of_rows() -> None:
    entry = AgentMessage(1)
    entry.append_text(reply(3_000))
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", [entry])
        await wait_for(pilot, lambda: on_screen(app, "LASTWORDS"), "the last words")
        view = app.query_one(AgentMessageView)
        lines = app.query_one(MarkdownLines)
        # The reply grows (its widgets change size), as a streamed one does at each frame.
        entry.append_text("\n\nMOREWORDS at the end.")
        entry.version += 1
        await transcript.sync_entries([entry], {entry.id})
        await wait_for(pilot, lambda: on_screen(app, "MOREWORDS"), "the new words")
        await pilot.pause()
        assert lines.size.height > 10_000  # tall indeed: 20-row squares would be 500+
        for container in (transcript, view):
            assert squares(container) <= GRID_SQUARES + 2, type(container).__name__
        # Nothing else of the widgets changed: the transcript still takes the focus (Home).
        assert transcript.can_focus
        for widget in (view, lines):
            dirty = len(widget._styles_cache._dirty_lines)
            assert dirty <= app.size.height, f"{type(widget).__name__}: {dirty} dirty rows"


def placement(widget: Widget, x: int, y: int, width: int, height: int) -> WidgetPlacement:
    return WidgetPlacement(Region(x, y, width, height), Offset(0, 0), Spacing(1, 0, 0, 0), widget)


def test_the_coarse_map_finds_what_textuals_own_finds() -> None:
    """Same placements found in every window (after the overlap cull every caller does), for
    stacks of short and very tall regions."""
    rng = random.Random(5)
    widgets = [Widget() for _ in range(40)]
    for _ in range(30):
        placements, y = [], 0
        for widget in widgets[: rng.randint(1, 40)]:
            height = rng.choice([1, 3, 12, 500, 40_000])
            placements.append(placement(widget, 0, y, 98, height))
            y += height + 1
        fine: SpatialMap[WidgetPlacement] = SpatialMap()
        fine.insert((p.region.grow(p.margin), p.offset, p.fixed, p.overlay, p) for p in placements)
        coarse = coarse_spatial_map(placements)
        assert coarse.total_region == fine.total_region
        for _ in range(20):
            window = Region(0, rng.randint(0, max(0, y - 1)), 100, rng.choice([1, 24, 40, 300]))

            def seen(spatial_map: SpatialMap[WidgetPlacement], window: Region = window) -> set[int]:
                return {
                    id(p)
                    for p in spatial_map.get_values_in_region(window)
                    if window.overlaps(p.region + p.offset)
                }

            assert seen(coarse) == seen(fine)
