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


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_dialog_shows_the_command_once_and_no_markdown(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    """The demo agent, as Claude's and Codex's adapters do, titles the call "Run `cmd`" and
    sends the command again as a ```sh block: the dialog shows it once, in plain words."""
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/run echo once-only")
    screen = term.wait_until(lambda s: "1-4 choose" in s, "the armed dialog")
    rows = screen.splitlines()
    top = next(i for i, row in enumerate(rows) if "Permission requested" in row)
    bottom = next(i for i, row in enumerate(rows) if "allow once" in row)
    details = "\n".join(rows[top + 2 : bottom])  # under "Agent: · Session:", over the options
    assert "Run echo once-only" in details
    assert details.count("once-only") == 2, details  # the title and "$ echo once-only"
    assert "```" not in details and "`" not in details
    term.press("1")
    screen = term.wait_for("exited with code 0")
    assert "Run echo once-only  [done]" in screen  # the tool block's title: no backticks
