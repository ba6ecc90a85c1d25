"""The row under the prompt fits its width: the gauge's graphic, then the option controls from the
last one back give way (to a "☰ N more" button); the gauge's numbers never do, and a control is
never narrower than what it says."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.store.options import Choice, SessionOption
from acp_tui.ui.textual_patches.select import ClosedSelect
from acp_tui.ui.widgets.chat_bar import GAUGE_BAR_CELLS, ChatBar
from acp_tui.ui.widgets.option_controls import OptionChosen, OptionSelect, OptionToggle
from tests.ui.chat_helpers import closed_line, wait_for

pytestmark = pytest.mark.anyio


def select(key: str, category: str | None, name: str, values: list[str]) -> SessionOption:
    return SessionOption(
        f"config:{key}",
        key,
        "config",
        name,
        "",
        category,
        "select",
        tuple(Choice(v.lower(), v) for v in values),
        values[0].lower(),
    )


OPTIONS = [
    select("mode", "mode", "Mode", ["Code", "Ask"]),
    select("model", "model", "Model", ["Demo Swift", "Demo Deep"]),
    select("thought", "thought_level", "Thinking", ["Medium", "High"]),
    select("verbosity", "model_config", "Reply length", ["Normal", "Short"]),
    SessionOption("config:tools", "tools", "config", "Ask first", "", None, "boolean", (), True),
]


class BarApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[tuple[str, object]] = []

    def compose(self) -> ComposeResult:
        yield ChatBar(id="bar")

    def on_mount(self) -> None:
        bar = self.query_one(ChatBar)
        bar.show_options(OPTIONS)
        # The widest the gauge gets: high level, a cost with its currency.
        bar.gauge.set_usage(184_000, 200_000, 12.34, "USD")
        bar.fit()

    def on_option_chosen(self, event: OptionChosen) -> None:
        self.chosen.append((event.key, event.value))


def shown(bar: ChatBar) -> list[str]:
    return [key for key, control in bar.controls.items() if control.display]


@pytest.mark.parametrize("width", [200, 160, 120, 100, 90, 80, 70, 60, 50, 40])
async def test_the_row_fits_and_the_numbers_stay(width: int) -> None:
    app = BarApp()
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        gauge = bar.gauge
        assert "184K / 200K · 92% high · $12.34" in gauge.gauge_line()
        # Everything shown is inside the row, the gauge's text whole.
        assert gauge.region.right <= bar.region.right - 1, (width, shown(bar))
        assert gauge.region.width == gauge.width_for(gauge.bar_width)
        for control in bar.controls.values():
            if control.display:
                assert control.region.right <= gauge.region.x, (width, shown(bar))
                # Never cut: the control has the room its longest label needs.
                assert control.region.width >= ChatBar.width_of(control)
        # What does not fit is behind the button, which says how many.
        assert bar.hidden == [o.key for o in bar.options if o.key not in shown(bar)]
        if bar.hidden and bar.more.display:
            assert f"{len(bar.hidden)} more" in str(bar.more.label)
            assert bar.more.region.right <= gauge.region.x


async def test_what_gives_way_first() -> None:
    app = BarApp()
    async with app.run_test(size=(200, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        steps = []
        for width in range(200, 50, -5):
            await pilot.resize_terminal(width, 3)
            await pilot.pause()
            steps.append((bar.gauge.bar_width > 0, len(shown(bar))))
        # Everything at first; the graphic goes before any control does; then the controls go
        # from the last one back, the first ones staying.
        assert steps[0] == (True, 5)
        assert all(not has_bar for has_bar, count in steps if count < 5)
        assert any(not has_bar and count == 5 for has_bar, count in steps)
        counts = [count for _has_bar, count in steps]
        assert counts == sorted(counts, reverse=True) and counts[-1] < 5
        assert shown(bar) == list(bar.controls)[: len(shown(bar))]
        assert bar.gauge.bar_width in (0, GAUGE_BAR_CELLS)


async def test_controls_follow_the_agent_without_reporting_a_choice() -> None:
    app = BarApp()
    async with app.run_test(size=(200, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        thought = bar.controls["config:thought"]
        assert isinstance(thought, OptionSelect)
        assert thought.label_text(thought.value) == "Thinking: Medium"
        mode = bar.controls["config:mode"]
        assert isinstance(mode, OptionSelect) and mode.label_text("ask") == "Ask"
        toggle = bar.controls["config:tools"]
        assert isinstance(toggle, OptionToggle) and toggle.value is True
        # The agent's new values: drawn, not sent back as choices.
        changed = [
            *OPTIONS[:2],
            select("thought", "thought_level", "Thinking", ["High", "Medium"]),
            OPTIONS[3],
            SessionOption(
                "config:tools", "tools", "config", "Ask first", "", None, "boolean", (), False
            ),
        ]
        bar.show_options(changed)
        await pilot.pause()
        assert thought.value == "high" and toggle.value is False
        assert app.chosen == []
        # The person's choices are.
        thought.value = "medium"  # type: ignore[assignment]
        toggle.toggle()
        await pilot.pause()
        assert app.chosen == [("config:thought", "medium"), ("config:tools", True)]
        # An option that went away loses its control; a new one gets one, in its place.
        bar.show_options([OPTIONS[0], select("extra", "model", "Other", ["X"]), OPTIONS[1]])
        await pilot.pause()
        assert list(bar.controls) == ["config:mode", "config:extra", "config:model"]
        children = [c for c in bar.children if c in bar.controls.values()]
        assert [c.key for c in children] == list(bar.controls)  # type: ignore[attr-defined]
        # Ids stay unique: the model select keeps #model-select, the newcomer gets another.
        assert bar.controls["config:model"].id == "model-select"
        assert bar.controls["config:extra"].id == "option-extra"


async def test_a_control_shown_again_before_it_has_drawn_itself_takes_the_value() -> None:
    """Switching sessions draws the options twice in a row (the new session's stand-in, then
    the session): a control mounted by the first draw and not composed yet must take the
    second draw's value, not fail (it used to raise NoMatches: "A display error occurred")."""
    app = BarApp()
    async with app.run_test(size=(200, 3)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        fresh = select("effort", "model_config", "Effort", ["Low", "High"])
        bar.show_options([*OPTIONS, fresh])
        again = select("effort", "model_config", "Effort", ["High", "Low"])
        bar.show_options([*OPTIONS, again])  # same turn of the loop: not composed yet
        await pilot.pause()
        await pilot.pause()
        control = bar.controls["config:effort"]
        assert isinstance(control, OptionSelect) and control.value == "high"
        assert "Effort: High" in closed_line(control)
        assert app.chosen == []


@pytest.mark.textual_patch("lazy-select")
async def test_a_select_is_one_widget_until_opened() -> None:
    """Closed, an option select is itself and one line (no list of choices: a chat bar of
    Textual's selects was a third of an app's start)."""
    app = BarApp()
    async with app.run_test(size=(160, 12)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        mode = bar.controls["config:mode"]
        assert isinstance(mode, OptionSelect)
        assert [type(node) for node in mode.walk_children()] == [ClosedSelect]
        assert mode.choices_list is None
        mode.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: mode.choices_list is not None, "the list, mounted")


async def test_a_select_chooses_by_key_and_by_mouse() -> None:
    """Opened with Enter an option select is Textual's list: Escape closes it choosing
    nothing, Down and Enter choose; a click opens it too, and a click on a choice chooses. Each
    choice is reported once, and the closed line shows it."""
    app = BarApp()
    async with app.run_test(size=(160, 12)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChatBar)
        mode, model = bar.controls["config:mode"], bar.controls["config:model"]
        assert isinstance(mode, OptionSelect) and isinstance(model, OptionSelect)
        line = closed_line(mode)
        assert line.startswith("Code") and line.rstrip().endswith("▼")

        mode.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: mode.expanded and app.focused is mode.choices_list, "open")
        await wait_for(pilot, lambda: closed_line(mode).rstrip().endswith("▲"), "its arrow")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not mode.expanded and app.focused is mode, "closed")
        assert app.chosen == [] and mode.value == "code"

        await pilot.press("enter")
        await wait_for(pilot, lambda: mode.expanded, "open again")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.chosen == [("config:mode", "ask")], "the choice")
        assert not mode.expanded and mode.value == "ask"
        await wait_for(pilot, lambda: closed_line(mode).startswith("Ask"), "the choice shown")

        await pilot.click(model)
        await wait_for(pilot, lambda: model.expanded and model.choices_list is not None, "open")
        choices = model.choices_list
        assert choices is not None
        # Under the closed line, one row a choice (compact: no border); the second: "Demo Deep".
        await wait_for(pilot, lambda: choices.region.height == 2, "the list on screen")
        assert choices.region.y == model.region.y + 1
        await pilot.click(choices, offset=(3, 1))
        await wait_for(pilot, lambda: app.chosen[-1:] == [("config:model", "demo deep")], "it")
        assert not model.expanded and len(app.chosen) == 2
        await wait_for(pilot, lambda: closed_line(model).startswith("Demo Deep"), "it, shown")
