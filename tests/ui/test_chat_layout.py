"""The chat screen's frame holds at every size and whatever other screens were shown: header,
transcript, prompt (with its bottom border), the mode/model/gauge bar and the footer are all
inside the terminal, and the screen itself never scrolls."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widget import Widget

import acp_tui.ui.screens
from acp_tui.ui.screens.chat import ChatHeader, ChatScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.suggestion_chips import SuggestionChips
from tests.ui.chat_helpers import demo_app, fixture_app, send, wait_for, wait_for_session

pytestmark = pytest.mark.anyio

SCREENS_DIR = Path(acp_tui.ui.screens.__file__).parent
SIZES = [(120, 40), (80, 24), (60, 16)]


def screen_classes() -> list[type[Screen]]:
    found: list[type[Screen]] = []
    for module_info in pkgutil.iter_modules([str(SCREENS_DIR)]):
        module = importlib.import_module(f"acp_tui.ui.screens.{module_info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Screen) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_every_screen_stylesheet_is_scoped_to_its_screen() -> None:
    """A screen's CSS_PATH / CSS is global in Textual: an unscoped ``#body { height: auto }``
    in the permission dialog's stylesheet once collapsed the chat screen's body, pushing the
    bar and the prompt's border off screen for the rest of the run."""
    variables = App().get_css_variables()
    checked = 0
    for screen in screen_classes():
        sources: list[str] = []
        paths = screen.CSS_PATH if isinstance(screen.CSS_PATH, list) else [screen.CSS_PATH]
        for path in paths:
            if path:
                sources.append((Path(inspect.getfile(screen)).parent / path).read_text())
        if screen.CSS and "CSS" in vars(screen):
            sources.append(screen.CSS)
        for source in sources:
            sheet = Stylesheet(variables=variables)
            sheet.add_source(source, read_from=(screen.__name__, "css"))
            sheet.parse()
            for rule in sheet.rules:
                for selector_set in rule.selector_set:
                    first = selector_set.selectors[0].name
                    assert first == screen.__name__, (
                        f"{screen.__name__}: a rule starts with {selector_set.css!r}; start every "
                        f"rule with {screen.__name__} so it cannot restyle another screen"
                    )
                    checked += 1
    assert checked > 20  # the chat, permission and launcher stylesheets were read


def frame(screen: ChatScreen) -> dict[str, tuple[int, int, int, int]]:
    widgets: dict[str, Widget] = {
        "header": screen.query_one(ChatHeader),
        "body": screen.query_one("#body"),
        "transcript": screen.query_one("#transcript"),
        "prompt": screen.query_one(PromptEditor),
        "bar": screen.query_one("#bar"),
        "gauge": screen.query_one("#gauge"),
        "footer": screen.query_one(KeyFooter),
    }
    return {name: tuple(widget.region) for name, widget in widgets.items()}  # type: ignore[misc]


def assert_frame_fits(screen: ChatScreen) -> None:
    width, height = screen.size
    regions = frame(screen)
    header, body, bar, footer = (regions[n] for n in ("header", "body", "bar", "footer"))
    prompt = regions["prompt"]
    assert header[1] == 0
    assert body[1] == 1 and body[1] + body[3] == bar[1], regions
    assert bar[3] == 1 and bar[1] + 1 == footer[1] and footer[1] == height - 1, regions
    # The prompt ends right above the bar (or above the agent's suggestions, a row right
    # above the bar): its bottom border row is on screen.
    chips = screen.query_one(SuggestionChips)
    below = chips.region.y if chips.display and chips.region.height else bar[1]
    assert prompt[3] >= 3 and prompt[1] + prompt[3] == below, regions
    assert below == bar[1] or chips.region.y + chips.region.height == bar[1], regions
    for name, (x, y, w, h) in regions.items():
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height, (name, regions)
    assert screen.max_scroll_y == 0 and not screen.show_vertical_scrollbar


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_other_screens_stylesheets_leave_the_chat_frame_alone(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Every screen's stylesheet loaded into the app (as pushing each screen does) changes
    nothing in the chat screen's frame."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        await pilot.pause()
        assert_frame_fits(screen)
        before = frame(screen)
        for path in sorted(SCREENS_DIR.glob("*.tcss")):
            app.stylesheet.read(path)
        app.stylesheet.reparse()
        app.refresh_css()
        await pilot.pause()
        await pilot.pause()
        assert frame(screen) == before
        assert_frame_fits(screen)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_after_a_permission_the_whole_frame_is_still_there(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/run echo layout")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PermissionScreen), "the permission dialog"
        )
        # The status line ("waiting for you") shows under the dialog: still no overflow.
        assert_frame_fits(screen)
        dialog = app.screen
        assert isinstance(dialog, PermissionScreen)
        await wait_for(pilot, lambda: dialog.armed, "the dialog to arm")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the turn's end")
        assert_frame_fits(screen)
        await pilot.resize_terminal(size[0] - 10, size[1] - 4)
        await pilot.pause()
        assert_frame_fits(screen)


async def test_every_footer_key_fits_at_80_columns_while_a_turn_runs(tmp_path: Path) -> None:
    """The busiest footer (Escape cancels a running turn) at 80 columns: every key is drawn
    whole on the bottom row, the palette's key at its right end, nothing under it."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(pilot, lambda: screen.busy, "the turn to run")
        await pilot.pause()
        footer = screen.query_one(KeyFooter)
        await wait_for(
            pilot,
            lambda: any(place.entry.action.endswith("cancel_turn") for place in footer.placed),
            "Escape in the footer",
        )
        placed = {place.entry.key_display: place for place in footer.placed}
        assert {"esc", "^n", "^b", "^t", "^o", "^q", "^p"} <= set(placed), placed
        bottom = app.screen._compositor.render_strips()[-1].text
        palette = placed.pop("^p")
        assert palette.x + palette.width == 80
        assert bottom.rstrip().endswith("^p palette")
        for shown, place in placed.items():
            assert place.x + place.width <= palette.x, (shown, place, palette)
            key, description = footer._label(place.entry)
            assert bottom[place.x : place.x + place.width] == key + description
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancel")
