"""The chat screen is restyled on coming to the front only when its styles may be stale
(acp_tui/ui/textual_patches/restyle.py): not as a view opens (its widgets were styled as they were
mounted), and again when it comes back from behind another view. Its styles, its widgets'
component classes included, are never left stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget

from acp_tui.ui.textual_patches.restyle import Restyle
from tests.ui.chat_helpers import demo_app, run_palette_command, wait_for, wait_for_session

pytestmark = [pytest.mark.anyio, pytest.mark.textual_patch("restyle")]


def styles_of(screen: Screen[Any]) -> dict[int, tuple[str, dict[str, object], dict[str, object]]]:
    """Every widget's own styles (the rules the stylesheet gave it) and those of its component
    classes (the parts it draws itself: a list's cursor, an input's placeholder), by widget."""
    return {
        id(node): (
            repr(node),
            dict(node.styles.base._rules),
            {name: dict(styles.base._rules) for name, styles in node._component_styles.items()},
        )
        for node in screen.walk_children(with_self=True)
        if isinstance(node, Widget)
    }


#: Textual's own restyle of a node and its children (not the counting stand-in below).
_restyle = Widget.update_node_styles


def assert_nothing_stale(screen: Screen[Any]) -> None:
    """Styling every widget of ``screen`` again changes none of them."""
    before = styles_of(screen)
    _restyle(screen, False)
    assert styles_of(screen) == before


@pytest.fixture
def restyled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the screens Textual restyles from now on, one entry per restyle."""
    names: list[str] = []

    def counted(self: Widget, animate: bool = True) -> None:
        if isinstance(self, Screen):
            names.append(type(self).__name__)
        _restyle(self, animate)

    monkeypatch.setattr(Widget, "update_node_styles", counted)
    return names


async def test_a_view_is_not_restyled_as_it_opens_but_is_after_another_view(
    tmp_path: Path, restyled: list[str]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await pilot.pause()
        # Textual resumes a new view twice as it opens; its widgets were styled as mounted.
        assert restyled.count("ChatScreen") == 0
        assert_nothing_stale(screen)

        # Under a dialog and back: Textual does not restyle a screen a modal dialog covered
        # (its classes and focus were kept up to date); nothing is stale there either.
        await run_palette_command(pilot, "Session options")
        await wait_for(pilot, lambda: app.screen is not screen, "the options dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the chat")
        await pilot.pause()
        assert_nothing_stale(screen)

        # Behind another view (a mode switch, as another agent's view is shown), then in front
        # again: restyled, as Textual does.
        restyled.clear()
        mode = app.current_mode
        app.add_mode("elsewhere", Screen)
        app.switch_mode("elsewhere")
        await wait_for(pilot, lambda: app.screen is not screen, "another view in front")
        app.switch_mode(mode)
        await wait_for(pilot, lambda: app.screen is screen, "the chat in front again")
        await pilot.pause()
        assert restyled.count("ChatScreen") == 1


async def test_a_view_whose_theme_changed_as_it_opened_is_restyled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restyled: list[str]
) -> None:
    """The theme changed between the view's composing and its coming to the front: its widgets
    were styled with the old one, so it is restyled, as Textual would."""
    made = Restyle.__init__

    def then_the_theme_changes(self: Restyle, screen: Screen[Any]) -> None:
        made(self, screen)
        screen.app._invalidate_css()  # what a theme change does first

    monkeypatch.setattr(Restyle, "__init__", then_the_theme_changes)
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await pilot.pause()
        assert restyled.count("ChatScreen") == 1
        assert_nothing_stale(screen)
