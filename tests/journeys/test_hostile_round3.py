"""The round 3 hostile agent in a real terminal (issue 17): agent text that enters a text field
never reaches the terminal (an agent command's OSC 0 and screen clear, Tab-completed into the
prompt, retitled the window and cleared the screen), and a recording never runs anything."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, agent_command

SIZES = pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])


@SIZES
def test_a_completed_command_name_neither_retitles_the_window_nor_clears_the_screen(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--", *agent_command("hostile3_agent.py")])
    term.wait_until(lambda screen: "New session" in screen.split("\n")[0], "an open session")
    before = term.title()
    term.type("commands objects")
    term.wait_for("commands objects")
    term.press("Enter")
    term.wait_for("Commands sent.")
    term.type("/cm")
    term.wait_for("/cmd 0/x")
    term.press("Tab")
    # The command is in the prompt as text: its escapes are gone, and what was on screen and
    # did not change since (the header, the footer) is still there: nothing cleared it.
    term.wait_for("/cmd 0/x")
    screen = term.wait_still()
    assert screen.startswith(" Hostile Agent 6.6.6"), screen
    assert "palette" in screen.rstrip().split("\n")[-1], screen
    assert term.title() == before and "pwn" not in term.title()
    term.press("C-q")
    assert term.wait_exit() == 0
