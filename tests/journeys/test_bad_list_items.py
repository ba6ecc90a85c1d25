"""An agent whose arrays each hold one malformed item: the person sees every good item (the
commands, the modes, the plan's steps, the tool call) and no "unknown update" row."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.terminal import Terminal, agent_command


def test_one_bad_item_hides_none_of_the_good_ones(terminal: Callable[..., Terminal]) -> None:
    term = terminal(cols=80, rows=24)
    term.start(["--", *agent_command("bad_items_agent.py")])
    term.wait_for("New session")
    term.send("check the gateway")
    screen = term.wait_for("every good item arrived")
    assert "Fix the retry loop" in screen and "Read the gateway code" in screen
    assert "Reading gateway.py" in screen
    assert "unknown update" not in screen
    term.type("/")
    screen = term.wait_for("/retries")
    assert "/gateway" in screen
    assert "Code" in screen  # the modes, one of three left out
    term.press("BSpace")
    term.press("C-q")
    assert term.wait_exit() == 0
