"""An agent that runs its commands in terminals of its own (codex-acp's way: the tool call names
a terminal acp-tui never made, its output in the updates' ``_meta``), in a real terminal: the
tool block shows the command, the output and the exit; a terminal the agent reports nothing of
is said plainly, never "terminal <id> (released)"."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_output_of_an_agents_own_terminal_shows_in_its_tool_block(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--", *agent_command("own_terminal_agent.py")])
    term.wait_header("New session")
    term.send("list the folder")
    screen = term.wait_for("[exit 0]")
    assert "$ bash -lc 'ls -la'" in screen and "notes.txt" in screen and "plan.md" in screen
    assert "released" not in screen
    term.wait_for("Listed the folder.")
    term.send("a silent one")
    term.wait_until(
        lambda s: "run by the agent in a terminal of its own" in s and "output to show" in s,
        "said plainly",
    )
    assert "released" not in term.screen()
    assert_frame(term, "after the second turn")
    term.press("C-q")
    assert term.wait_exit() == 0
