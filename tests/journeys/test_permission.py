"""A tool call that asks permission, answered by key, and the whole screen afterwards."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_after_a_permission_answered_by_key_every_row_is_still_there(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/run echo journey-check")
    term.wait_for("Permission requested")
    # Past the arming delay, then answer with the first option.
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    screen = term.wait_for("exited with code 0")
    assert "Permission requested" not in screen
    assert "▁▁▁" in screen, "the prompt's bottom border is cut off"
    assert "/ 200K" in screen, "the context gauge is cut off"
    assert "▇▇" not in screen, "a screen-level scrollbar appeared"
    assert_frame(term, "after the permission")
    # A second turn, and the rows are still there.
    term.send("and again")
    term.wait_for("You said")
    assert_frame(term, "after a second turn")
