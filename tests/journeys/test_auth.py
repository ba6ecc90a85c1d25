"""Terminal sign-in in a real terminal: the demo agent requires a sign-in (``/login``), the
picker shows what would run and takes no Enter of a message typed meanwhile, the TUI steps
aside for the agent's own login command, the person answers it there, and the TUI comes back
with the messages that needed the sign-in answered."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_login_suspends_the_tui_runs_the_agents_login_and_the_session_goes_on(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/login")
    term.wait_for("I require authentication")
    term.wait_until(lambda s: "working" not in s, "the /login turn to end", twice=True)
    term.send("hello from the journey")
    term.wait_for("needs you to sign in")
    term.wait_for("Sign in in the terminal")
    # The picker says what would run: the agent's own command and what it sets.
    screen = term.wait_for("--login")
    assert "ACP_TUI_DEMO_LOGIN=terminal" in screen.replace("\n", ""), screen
    assert "Agent: " in screen and "Session: " in screen
    # The person, not noticing it, sends another message: its Enter runs nothing (nothing is
    # pre-selected) and the message waits for the sign-in with the first.
    term.send("and another thing")
    term.wait_until(lambda s: "1-2 choose" in s, "the picker armed")
    screen = term.wait_still()
    assert "Your name:" not in screen and "needs you to sign in" in screen
    term.press("1")  # the terminal method, listed first: alone, it is chosen
    # The TUI is gone: the agent's own login step owns the terminal.
    screen = term.wait_for("Your name:")
    assert "Running:" in screen and "--login" in screen
    assert "Message the agent" not in screen
    term.send("Journey Person")
    # Back in the TUI, the message that needed the sign-in is answered.
    term.wait_for("Signed in (Sign in in the terminal)")
    term.wait_for("HELLO FROM THE JOURNEY")
    term.wait_for("AND ANOTHER THING")
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    assert_frame(term, "back from the sign-in")
    term.send("/login status")
    term.wait_for("signed in as Journey Person")


def test_ctrl_c_in_the_sign_in_ends_it_and_the_tui_comes_back(
    terminal: Callable[..., Terminal],
) -> None:
    """The sign-in is the terminal's job while it runs: Ctrl-C there is its own (the demo's
    login says "Not signed in"), acp-tui says how it ended, and Enter brings the TUI back,
    still working, the message waiting for a sign-in still there."""
    term = terminal(80, 24)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/login")
    term.wait_for("I require authentication")
    term.wait_until(lambda s: "working" not in s, "the /login turn to end", twice=True)
    term.send("hello")
    term.wait_until(lambda s: "1-2 choose" in s, "the picker armed")
    term.press("1")
    term.wait_for("Your name:")
    term.press("C-c")
    term.wait_for("Not signed in.")
    term.wait_for("the sign-in ended with status 1")
    term.press("Enter")
    # Back in the TUI, which says so; the message waits in the queue.
    term.wait_for("ended with status 1")
    term.wait_for("waits in the queue")
    term.send("and again")
    term.wait_until(lambda s: "1-2 choose" in s, "the picker again")
    term.press("2")  # the demo's other method: signed in without the terminal
    term.wait_for("HELLO")
