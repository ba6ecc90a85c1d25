"""KeyFooter: the footer rebuilds its keys when what it shows changes, and only then."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from acp_tui.ui.widgets.key_footer import KeyFooter
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio


class CountingFooter(KeyFooter):
    def __init__(self) -> None:
        super().__init__()
        self.rebuilds = 0

    async def recompose(self) -> None:
        self.rebuilds += 1
        await super().recompose()


class FooterApp(App[None]):
    BINDINGS = [
        Binding("f2", "save", "Save", id="save"),
        Binding("f3", "kill", "Kill"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.can_kill = True

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield CountingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "kill":
            return True if self.can_kill else None  # None: shown disabled
        return True

    def action_save(self) -> None:
        pass

    def action_kill(self) -> None:
        pass


def shown(app: FooterApp) -> dict[str, bool]:
    """The keys shown, but the palette's (always there), each with whether it is enabled."""
    keys = app.query(FooterKey)
    return {
        key.description: not key.has_class("-disabled")
        for key in keys
        if key.action != "command_palette"
    }


async def test_focus_moves_that_change_no_key_rebuild_nothing() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        footer = app.query_one(CountingFooter)
        await pilot.pause()
        assert shown(app) == {"Save": True, "Kill": True}
        before = footer.rebuilds
        for target in ("#two", "#one", "#two", "#one"):
            app.query_one(target, Input).focus()
            await pilot.pause()
            app.refresh_bindings()
            await pilot.pause()
        assert footer.rebuilds == before
        assert shown(app) == {"Save": True, "Kill": True}


async def test_a_key_that_changes_is_shown_changed() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert shown(app) == {"Save": True, "Kill": True}
        app.can_kill = False
        app.refresh_bindings()
        await wait_for(pilot, lambda: shown(app) == {"Save": True, "Kill": False}, "Kill disabled")
        app.set_keymap({"save": "f4"})
        await wait_for(pilot, lambda: "f4" in {key.key for key in app.query(FooterKey)}, "f4")
