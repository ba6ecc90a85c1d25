"""KeyFooter: one widget drawing the screen's keys on one line; it repaints when what it shows
changes, and only then, never mounts anything, never cuts a key, and runs a clicked key."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.key_footer import PALETTE_EDGE, KeyFooter
from tests.ui.chat_helpers import answer_permission, demo_app, send, wait_for, wait_for_ready

pytestmark = pytest.mark.anyio


class CountingFooter(KeyFooter):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def render(self) -> Text:
        self.paints += 1
        return super().render()


class FooterApp(App[None]):
    BINDINGS = [
        Binding("f2", "save", "Save", id="save"),
        Binding("f3", "kill", "Kill"),
        Binding("f5", "long", "A rather long description of a key"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.can_kill = True
        self.saved = 0
        self.killed = 0

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield CountingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "kill":
            return True if self.can_kill else None  # None: shown disabled
        return True

    def action_save(self) -> None:
        self.saved += 1

    def action_kill(self) -> None:
        self.killed += 1

    def action_long(self) -> None:
        pass


class Dialog(ModalScreen[None]):
    BINDINGS = [Binding("f6", "app.pop_screen", "Close the dialog")]

    def compose(self) -> ComposeResult:
        yield Label("a dialog")


def shown(app: FooterApp) -> dict[str, bool]:
    """The keys shown, but the palette's (always there), each with whether it is enabled."""
    footer = app.query_one(CountingFooter)
    return {entry.description: entry.enabled for entry in footer.entries if not entry.palette}


def bottom_row(app: App[None]) -> str:
    return app.screen._compositor.render_strips()[-1].text


async def test_focus_moves_that_change_no_key_repaint_nothing() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        footer = app.query_one(CountingFooter)
        await wait_for(
            pilot,
            lambda: (
                shown(app)
                == {"Save": True, "Kill": True, "A rather long description of a key": True}
            ),
            "the keys",
        )
        await pilot.pause()
        entries, paints, widgets = (
            footer.entries,
            footer.paints,
            len(list(app.screen.walk_children())),
        )
        for target in ("#two", "#one", "#two", "#one"):
            app.query_one(target, Input).focus()
            await pilot.pause()
            app.refresh_bindings()
            await pilot.pause()
        assert footer.entries is entries
        assert footer.paints == paints
        assert len(list(app.screen.walk_children())) == widgets, "a footer mounts nothing"


async def test_a_key_that_changes_is_shown_changed_and_drawn_dim_when_disabled() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        footer = app.query_one(CountingFooter)
        await wait_for(pilot, lambda: shown(app).get("Kill") is True, "Kill")
        app.can_kill = False
        app.refresh_bindings()
        await wait_for(pilot, lambda: shown(app).get("Kill") is False, "Kill disabled")
        line = footer.render()
        start = line.plain.index("f3")
        assert line.get_style_at_offset(app.console, start).dim
        assert not line.get_style_at_offset(app.console, line.plain.index("f2")).dim
        app.set_keymap({"save": "f4"})
        await wait_for(pilot, lambda: "f4" in {entry.key for entry in footer.entries}, "f4")
        await wait_for(pilot, lambda: "f4 Save" in bottom_row(app), "f4 drawn")


async def test_a_click_runs_the_key_and_a_disabled_one_rings_the_bell() -> None:
    app = FooterApp()
    bells: list[None] = []
    app.bell = lambda: bells.append(None)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 10)) as pilot:
        footer = app.query_one(CountingFooter)
        await wait_for(pilot, lambda: bool(footer.placed), "the keys drawn")
        save = next(place for place in footer.placed if place.entry.action == "save")
        await pilot.click(CountingFooter, offset=(save.x + 1, 0))
        await wait_for(pilot, lambda: app.saved == 1, "Save run by a click")
        app.can_kill = False
        app.refresh_bindings()
        await wait_for(pilot, lambda: shown(app).get("Kill") is False, "Kill disabled")
        kill = next(place for place in footer.placed if place.entry.action == "kill")
        await pilot.click(CountingFooter, offset=(kill.x + 1, 0))
        await wait_for(pilot, lambda: bool(bells), "the bell")
        assert app.killed == 0
        gap = max(place.x + place.width for place in footer.placed if not place.entry.palette)
        await pilot.click(CountingFooter, offset=(gap + 1, 0))
        await pilot.pause()
        assert app.saved == 1 and app.killed == 0, "a click between keys runs nothing"


async def test_the_key_under_the_mouse_is_highlighted_and_its_tooltip_shown() -> None:
    app = FooterApp()
    async with app.run_test(size=(100, 10)) as pilot:
        footer = app.query_one(CountingFooter)
        await wait_for(pilot, lambda: bool(footer.placed), "the keys drawn")
        palette = next(place for place in footer.placed if place.entry.palette)
        await pilot.hover(CountingFooter, offset=(palette.x + 2, 0))
        await wait_for(pilot, lambda: footer.hovered >= 0, "the hover")
        assert footer.entries[footer.hovered].palette
        assert footer.tooltip
        save = next(place for place in footer.placed if place.entry.action == "save")
        await pilot.hover(CountingFooter, offset=(save.x, 0))
        await wait_for(pilot, lambda: footer.entries[footer.hovered].action == "save", "moved")


@pytest.mark.parametrize("width", [100, 60, 45, 30, 12, 3])
@pytest.mark.parametrize("compact", [False, True])
async def test_keys_that_do_not_fit_are_left_out_whole_the_palette_stays_right(
    width: int, compact: bool
) -> None:
    app = FooterApp()
    async with app.run_test(size=(width, 6)) as pilot:
        footer = app.query_one(CountingFooter)
        footer.compact = compact
        await wait_for(pilot, lambda: bool(footer.entries), "the keys")
        await pilot.pause()
        # The footer's own columns (the app's screen may have a scrollbar beside it).
        region = footer.region
        row = bottom_row(app)[region.x : region.right]
        columns = region.width
        order = [entry for entry in footer.entries if not entry.palette]
        left = [place for place in footer.placed if not place.entry.palette]
        assert [place.entry for place in left] == order[: len(left)], "the order is kept"
        palette = [place for place in footer.placed if place.entry.palette]
        if palette:
            assert palette[0].x + palette[0].width == columns
            assert row[palette[0].x] == PALETTE_EDGE
        right = palette[0].x if palette else columns
        for place in left:
            assert place.x + place.width <= right, "nothing under the palette's key"
            key, description = footer._label(place.entry)
            assert row[place.x : place.x + place.width] == key + description, "drawn whole"
        if width >= 100:
            assert len(left) == len(order), "room for every key"


async def test_under_a_dialog_the_footer_shows_the_dialog_keys_not_its_screen() -> None:
    """The screen's keys do nothing while a dialog is open over it: the footer shows the
    dialog's, and its own again once the dialog is gone."""
    app = FooterApp()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "Save" in shown(app), "the screen's keys")
        app.push_screen(Dialog())
        await wait_for(pilot, lambda: shown(app) == {"Close the dialog": True}, "the dialog's")
        assert "Save" not in bottom_row(app)
        await pilot.press("f6")
        await wait_for(pilot, lambda: "Save" in shown(app), "the screen's keys again")
        await pilot.press("f2")
        assert app.saved == 1


async def test_a_permission_dialog_over_the_chat_hides_the_chat_keys(tmp_path: Path) -> None:
    """Ctrl+B (sessions) and the rest of the chat's keys are not offered under the permission
    dialog, whose own line lists its keys; answered, the chat's keys are back."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_ready(pilot)
        footer = screen.query_one(KeyFooter)
        await wait_for(pilot, lambda: "Sessions" in footer_descriptions(footer), "chat keys")
        await send(pilot, "/run ls")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the dialog")
        await wait_for(pilot, lambda: not footer_descriptions(footer), "no chat keys")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: app.screen is screen, "the dialog answered")
        await wait_for(pilot, lambda: "Sessions" in footer_descriptions(footer), "chat keys")


def footer_descriptions(footer: KeyFooter) -> list[str]:
    return [entry.description for entry in footer.entries if not entry.palette]
