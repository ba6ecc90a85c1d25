"""Where the sidebar shows: Ctrl+B by what the person sees, the width's say without the
person's choice, and the session shown after the one on screen is archived (issue 38, items
9 and 11)."""

from __future__ import annotations

import pytest

from acp_tui.ui.models.sidebar_placement import SidebarPlacement, neighbour


def test_without_a_choice_the_width_decides_and_crossing_it_hides_and_shows() -> None:
    placement = SidebarPlacement(None, 100)
    assert placement.at_start(120) is True
    assert placement.resized(110) is None  # still wide: nothing to do
    assert placement.resized(80) is False  # gives way
    assert placement.resized(90) is None
    assert placement.resized(100) is True  # comes back


def test_a_sidebar_shown_narrow_by_resume_stays_until_the_width_crosses() -> None:
    placement = SidebarPlacement(None, 100)
    assert placement.at_start(80) is False
    assert placement.resized(79) is None  # not crossing: one shown by /resume stays


@pytest.mark.parametrize("configured", [True, False])
def test_the_config_wins_over_the_width(configured: bool) -> None:
    placement = SidebarPlacement(configured, 100)
    assert placement.at_start(60 if configured else 200) is configured
    assert placement.resized(200) is None and placement.resized(60) is None


def test_ctrl_b_follows_what_is_seen_and_pins_the_choice() -> None:
    placement = SidebarPlacement(None, 100)
    placement.at_start(120)
    # Shown but the focus elsewhere (a rename just closed): it takes the focus, not hides.
    assert placement.step(shown=True, focused_inside=False) == "focus"
    assert placement.pinned is None
    assert placement.step(shown=True, focused_inside=True) == "hide"
    assert placement.resized(130) is None  # hidden by the person: the width does not undo it
    assert placement.step(shown=False, focused_inside=False) == "show"
    assert placement.resized(80) is None  # shown by the person: stays at 80 columns


@pytest.mark.parametrize(
    ("rows", "archived", "shown"),
    [
        (["a", "b", "c"], "b", "c"),  # the one below
        (["a", "b", "c"], "c", "b"),  # the last: the one above
        (["a", "b", "c"], "a", "b"),
        (["a"], "a", None),  # the only one: a new session
        (["a", "b"], "x", None),  # not listed
        ([], "a", None),
    ],
)
def test_the_session_after_an_archived_one(rows: list[str], archived: str, shown: str) -> None:
    assert neighbour(rows, archived) == shown
