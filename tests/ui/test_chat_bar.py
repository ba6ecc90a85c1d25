"""The row under the prompt fits its width: the selectors and the gauge's graphic give way, the
gauge's numbers never do."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.ui.widgets.chat_bar import SELECT_NARROW, SELECT_WIDE, ChatBar

pytestmark = pytest.mark.anyio


class BarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatBar(id="bar")

    def on_mount(self) -> None:
        bar = self.query_one(ChatBar)
        bar.mode_select.set_options([("Code", "code"), ("Ask", "ask")])
        bar.mode_select.value = "code"
        bar.model_select.set_options([("Demo Swift", "swift")])
        bar.model_select.value = "swift"
        bar.want(bar.mode_select, True)
        bar.want(bar.model_select, True)
        # The widest the gauge gets: high level, a cost with its currency.
        bar.gauge.set_usage(184_000, 200_000, 12.34, "USD")
        bar.fit()


def shown(bar: ChatBar) -> dict[str, int]:
    widths = {
        name: select.region.width
        for name, select in (("mode", bar.mode_select), ("model", bar.model_select))
        if select.display
    }
    widths["gauge"] = bar.gauge.region.width
    return widths


@pytest.mark.parametrize("width", [160, 120, 100, 90, 80, 70, 60, 50, 40])
async def test_the_row_fits_and_the_numbers_stay(width: int) -> None:
    app = BarApp()
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        gauge = bar.gauge
        text = gauge.gauge_line()
        assert "184K / 200K · 92% high · $12.34" in text
        # Everything shown is inside the row, the gauge's text whole.
        assert gauge.region.right <= bar.region.right - 1, (width, shown(bar))
        assert gauge.region.width == gauge.width_for(gauge.bar_width)
        for select in (bar.mode_select, bar.model_select):
            if select.display:
                assert select.region.right <= gauge.region.x, (width, shown(bar))


async def test_what_gives_way_first() -> None:
    app = BarApp()
    async with app.run_test(size=(160, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        steps = []
        for width in (160, 90, 70, 60, 40):
            await pilot.resize_terminal(width, 3)
            await pilot.pause()
            widths = shown(bar)
            steps.append((bar.gauge.bar_width > 0, widths.get("mode"), widths.get("model")))
        assert steps == [
            (True, SELECT_WIDE, SELECT_WIDE),  # everything
            (True, SELECT_NARROW, SELECT_NARROW),  # the selectors narrow first
            (False, SELECT_NARROW, SELECT_NARROW),  # then the graphic goes
            (False, None, SELECT_NARROW),  # then the mode selector
            (False, None, None),  # then the model selector; the numbers stay
        ]
