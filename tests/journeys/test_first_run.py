"""First run: launch on an agent, see it ready, send a message, read the reply."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, agent_command


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_first_message_gets_a_reply_from_the_demo_agent(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.wait_for("New session")  # the header's title (the session is made by the message)
    term.send("hello there")
    screen = term.wait_for("You said")
    assert "hello there" in screen
    # The whole screen is there: the prompt's bottom border and the gauge row.
    assert "▁▁▁" in screen
    assert "/ 200K" in screen


def test_first_message_gets_a_reply_from_the_sdk_agent(terminal: Callable[..., Terminal]) -> None:
    """An agent written with the official ACP Python SDK, not ours."""
    term = terminal()
    term.start(["--", *agent_command("sdk_agent.py")])
    term.wait_for("SDK Test Agent")
    term.wait_for("New session")  # the header's title (the session is made by the message)
    term.send("ping")
    term.wait_for("You said: ping")


def test_ctrl_q_quits_with_status_0(terminal: Callable[..., Terminal]) -> None:
    term = terminal()
    term.start(["--demo"])
    term.wait_for("Message the agent")
    term.press("C-q")
    assert term.wait_exit() == 0
