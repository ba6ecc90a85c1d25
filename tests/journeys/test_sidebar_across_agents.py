"""Picking another agent's session from the list of every agent's sessions, in a real
terminal: that agent's view comes up with the list still beside it."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.journeys.terminal import Terminal, agent_command


def test_the_list_stays_beside_a_session_of_another_agent(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    sdk = agent_command("sdk_agent.py")
    (term.home / "config" / "acp-tui" / "config.toml").write_text(
        f"[agents.sdk]\ncommand = {json.dumps(sdk[0])}\nargs = {json.dumps(sdk[1:])}\n"
    )
    term.start(["--demo", "--agent", "sdk"])
    term.wait_header("New session")
    # The SDK agent's view: its list hidden (Ctrl+B goes there, again hides it).
    term.press("C-g")
    term.wait_for("(2/2, Ctrl+G next)")
    term.wait_for("Sessions · this folder")
    term.press("C-b")
    term.press("C-b")
    term.wait_gone("Sessions · this folder")
    # Back in the demo agent's view, its list shows both agents' sessions.
    term.press("C-g")
    term.wait_for("(1/2, Ctrl+G next)")
    term.wait_for("Write docs")
    term.press("C-b")
    term.type("Write docs")
    term.wait_for("Matches in this folder: 1")
    term.press("Enter")
    screen = term.wait_for("(2/2, Ctrl+G next)  Write docs")
    screen = term.wait_for("Sessions · this folder")
    assert "Write docs" in screen
    term.press("C-q")
    assert term.wait_exit() == 0
