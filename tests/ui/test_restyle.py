"""The chat screen is restyled on coming to the front only when its styles may be stale
(acp_tui/ui/screens/chat/restyle.py): once as a view opens, not twice, and again when it comes
back from behind another view. Its styles are never left stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget

from tests.ui.chat_helpers import demo_app, run_palette_command, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def styles_of(screen: Screen[Any]) -> dict[int, tuple[str, dict[str, object]]]:
    """Every widget's own styles (the rules the stylesheet gave it), by widget."""
    return {
        id(node): (repr(node), dict(node.styles.base._rules))
        for node in screen.walk_children(with_self=True)
        if isinstance(node, Widget)
    }


async def test_a_view_is_restyled_once_as_it_opens_and_again_after_another_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    restyled: list[str] = []
    update_node_styles = Widget.update_node_styles

    def counted(self: Widget, animate: bool = True) -> None:
        if isinstance(self, Screen):
            restyled.append(type(self).__name__)
        update_node_styles(self, animate)

    monkeypatch.setattr(Widget, "update_node_styles", counted)
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await pilot.pause()
        # Textual resumes a new view twice as it opens; the second found it styled already.
        assert restyled.count("ChatScreen") == 1
        # Nothing is stale: styling every widget again changes none of them.
        before = styles_of(screen)
        update_node_styles(screen, False)
        assert styles_of(screen) == before

        # Under a dialog and back: Textual does not restyle a screen a modal dialog covered
        # (its classes and focus were kept up to date); nothing is stale there either.
        await run_palette_command(pilot, "Session options")
        await wait_for(pilot, lambda: app.screen is not screen, "the options dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the chat")
        await pilot.pause()
        before = styles_of(screen)
        update_node_styles(screen, False)
        assert styles_of(screen) == before

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
