"""The context gauge widget: states, level classes, crossing messages, snapshots."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.pilot import Pilot

from acp_tui.text.usage import ContextLevel
from acp_tui.ui.widgets.gauge import ContextGauge

_TURN = {
    "totalTokens": 53_000,
    "inputTokens": 35_000,
    "outputTokens": 12_000,
    "thoughtTokens": 5_000,
}


class GaugeApp(App[None]):
    """A bare app with one gauge, a fixed theme, and a log of the crossings it heard."""

    CSS = "Screen { align: left top; }"
    AUTO_FOCUS = None  # the gauge is the only focusable widget; snapshots show it unfocused

    def __init__(self, **usage: Any) -> None:
        super().__init__()
        self._usage = usage
        self.crossings: list[ContextLevel] = []
        self.details_requests = 0

    def compose(self) -> ComposeResult:
        yield ContextGauge(id="gauge")

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        if self._usage:
            self.query_one(ContextGauge).set_usage(**self._usage)

    def on_context_gauge_level_crossed(self, message: ContextGauge.LevelCrossed) -> None:
        self.crossings.append(message.level)

    def on_context_gauge_details_requested(self, message: ContextGauge.DetailsRequested) -> None:
        self.details_requests += 1


def _gauge(app: GaugeApp) -> ContextGauge:
    return app.query_one(ContextGauge)


def _level_classes(gauge: ContextGauge) -> set[str]:
    return {c for c in gauge.classes if c.startswith("-")}


# -- behaviour ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_never_reported_reads_dash() -> None:
    app = GaugeApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        assert gauge.gauge_line() == "context: -"
        assert _level_classes(gauge) == {"-unknown"}
        assert gauge.level is ContextLevel.UNKNOWN
        assert "not reported" in gauge.details_text()
        # Only one of the pair known is still "not reported", never a fake 0%.
        gauge.used = 31_400
        await pilot.pause()
        assert gauge.gauge_line() == "context: -"
        assert app.crossings == []


@pytest.mark.anyio
async def test_usage_before_any_prompt_shows_at_once() -> None:
    app = GaugeApp(used=31_400, context_size=200_000, cost_amount=0.045, cost_currency="USD")
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        assert gauge.gauge_line() == "▰▱▱▱▱▱▱▱ 31.4K / 200K · 16% · $0.05"
        assert _level_classes(gauge) == {"-normal"}
        assert isinstance(gauge.tooltip, Content)
        assert gauge.tooltip.plain == gauge.details_text()
        assert "31,400 of 200,000 tokens (15.7%)" in gauge.details_text()
        assert "Remaining: 168,600 tokens" in gauge.details_text()
        assert "Cost: $0.05" in gauge.details_text()


@pytest.mark.anyio
async def test_css_class_follows_level() -> None:
    app = GaugeApp()
    async with app.run_test() as pilot:
        gauge = _gauge(app)
        gauge.context_size = 10_000
        for used, css_class, word in [
            (7_499, "-normal", None),
            (7_500, "-filling", "filling"),
            (9_000, "-high", "high"),
            (9_500, "-critical", "critical"),
            (3_000, "-normal", None),
        ]:
            gauge.used = used
            await pilot.pause()
            assert _level_classes(gauge) == {css_class}, used
            line = gauge.gauge_line()
            assert (word is not None and line.endswith(f" {word}")) or (
                word is None and line.endswith("%")
            ), line
        gauge.used = None
        assert _level_classes(gauge) == {"-unknown"}


@pytest.mark.anyio
async def test_level_crossed_posted_once_per_crossing() -> None:
    app = GaugeApp()
    async with app.run_test() as pilot:
        gauge = _gauge(app)
        gauge.context_size = 200_000
        for used in (10_000, 40_000, 151_000, 155_000, 160_000, 170_000):
            gauge.used = used
            await pilot.pause()
        assert app.crossings == [ContextLevel.FILLING]
        for used in (181_000, 185_000, 189_000):  # into high, then stays
            gauge.used = used
            await pilot.pause()
        assert app.crossings == [ContextLevel.FILLING, ContextLevel.HIGH]
        for used in (160_000, 182_000):  # down to filling, up to high again: notified again
            gauge.used = used
            await pilot.pause()
        assert app.crossings == [ContextLevel.FILLING, ContextLevel.HIGH, ContextLevel.HIGH]
        gauge.used = 195_000
        await pilot.pause()
        gauge.used = 230_000  # over the window: still critical, no second message
        await pilot.pause()
        assert app.crossings[-1] is ContextLevel.CRITICAL
        assert len(app.crossings) == 4
        assert gauge.gauge_line() == "▰▰▰▰▰▰▰▰ 230K / 200K · 115% critical"


@pytest.mark.anyio
async def test_half_updated_pair_is_not_judged() -> None:
    """Setting ``used`` then ``context_size`` in one go is judged on the final pair only."""
    app = GaugeApp(used=100_000, context_size=200_000)
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        gauge.used = 400_000  # 200% of the old 200K window for a moment...
        gauge.context_size = 1_000_000  # ...but 40% of the new one
        await pilot.pause()
        assert gauge.level is ContextLevel.NORMAL
        assert app.crossings == []


@pytest.mark.anyio
async def test_size_change_is_followed() -> None:
    app = GaugeApp(used=190_000, context_size=200_000)
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        assert gauge.level is ContextLevel.CRITICAL
        assert app.crossings == [ContextLevel.CRITICAL]
        gauge.context_size = 1_000_000  # the agent switched to a 1M window
        await pilot.pause()
        assert gauge.level is ContextLevel.NORMAL
        assert _level_classes(gauge) == {"-normal"}
        assert gauge.gauge_line() == "▰▰▱▱▱▱▱▱ 190K / 1.0M · 19%"
        assert "190,000 of 1,000,000 tokens (19.0%)" in gauge.details_text()
        gauge.set_usage(960_000, 1_000_000)
        await pilot.pause()
        assert app.crossings == [ContextLevel.CRITICAL, ContextLevel.CRITICAL]


@pytest.mark.anyio
async def test_turn_usage_and_cost_in_details() -> None:
    app = GaugeApp(used=31_400, context_size=200_000, cost_amount=12, cost_currency="credits")
    async with app.run_test() as pilot:
        gauge = _gauge(app)
        gauge.turn_usage = _TURN
        await pilot.pause()
        details = gauge.details_text()
        assert "Cost: 12 credits" in details
        assert "Last turn: input 35,000 · output 12,000 · thought 5,000 · total 53,000" in details
        assert gauge.tooltip is not None and "Last turn" in gauge.tooltip.plain  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_agent_text_is_shown_literally() -> None:
    app = GaugeApp(used=1, context_size=100, cost_amount=1, cost_currency="[b]x[/b]\x1b[2J")
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        assert gauge.gauge_line().endswith("1 [b]x[/b]")  # the escape sequence removed whole
        assert "[b]x[/b]" in gauge.tooltip.plain  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_clear_returns_to_dash_and_forgets_crossings() -> None:
    app = GaugeApp(used=160_000, context_size=200_000)
    async with app.run_test() as pilot:
        await pilot.pause()
        gauge = _gauge(app)
        assert app.crossings == [ContextLevel.FILLING]
        gauge.turn_usage = _TURN
        gauge.clear()
        await pilot.pause()
        assert gauge.gauge_line() == "context: -"
        assert gauge.turn_usage is None
        gauge.set_usage(160_000, 200_000)  # another session, also filling: notified
        await pilot.pause()
        assert app.crossings == [ContextLevel.FILLING, ContextLevel.FILLING]


@pytest.mark.anyio
async def test_enter_and_a_click_ask_for_details() -> None:
    app = GaugeApp(used=31_400, context_size=200_000)
    async with app.run_test() as pilot:
        gauge = _gauge(app)
        gauge.focus()
        await pilot.pause()
        assert app.focused is gauge
        await pilot.press("enter")
        await pilot.pause()
        assert app.details_requests == 1
        await pilot.click(gauge)
        await pilot.pause()
        assert app.details_requests == 2


# -- snapshots ---------------------------------------------------------------------------------

_SIZE = (60, 3)


async def _settle(pilot: Pilot[None]) -> None:
    await pilot.pause()


def test_snapshot_normal_16_percent(snap_compare: Any) -> None:
    """16%: one filled cell of eight, `31.4K / 200K · 16%`, the plain foreground colour, no
    level word."""
    app = GaugeApp(used=31_400, context_size=200_000)
    assert snap_compare(app, terminal_size=_SIZE, run_before=_settle)


def test_snapshot_filling_80_percent(snap_compare: Any) -> None:
    """80%: six of eight cells, `160K / 200K · 80% filling` in yellow (theme warning, lightened)."""
    app = GaugeApp(used=160_000, context_size=200_000)
    assert snap_compare(app, terminal_size=_SIZE, run_before=_settle)


def test_snapshot_high_92_percent(snap_compare: Any) -> None:
    """92%: seven of eight cells, `184K / 200K · 92% high` in bold orange (theme warning,
    darkened)."""
    app = GaugeApp(used=184_000, context_size=200_000)
    assert snap_compare(app, terminal_size=_SIZE, run_before=_settle)


def test_snapshot_critical_97_percent_with_cost(snap_compare: Any) -> None:
    """97%: seven of eight cells (full only when full), `194K / 200K · 97% critical · $0.05`
    in bold red (theme error)."""
    app = GaugeApp(used=194_000, context_size=200_000, cost_amount=0.045, cost_currency="USD")
    assert snap_compare(app, terminal_size=_SIZE, run_before=_settle)


def test_snapshot_never_reported(snap_compare: Any) -> None:
    """Never reported: `context: -` in the muted text colour, no bar, no fake 0%."""
    app = GaugeApp()
    assert snap_compare(app, terminal_size=_SIZE, run_before=_settle)


async def _focus_gauge(pilot: Pilot[None]) -> None:
    pilot.app.query_one(ContextGauge).focus()
    await pilot.pause()


def test_snapshot_focused_high(snap_compare: Any) -> None:
    """Keyboard focus on the gauge at 92%: the same line in reverse video (orange block)."""
    app = GaugeApp(used=184_000, context_size=200_000)
    assert snap_compare(app, terminal_size=_SIZE, run_before=_focus_gauge)
