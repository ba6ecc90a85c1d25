"""``acp-tui --demo --protocol 2`` in a real terminal: a whole session on the v2 draft (a tool
call whose permission is answered by key, the agent's own terminal shown in it, a second
turn), then a restart that reopens the session by resume-with-replay."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_whole_v2_session_and_its_reopening(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo", "--protocol", "2"])
    term.wait_header("New session")
    term.send("/run echo v2-journey-output")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    screen = term.wait_for("[exit 0]")
    assert "v2-journey-output" in screen
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    assert_frame(term, "after the v2 tool call")
    term.send("second v2 turn")
    term.wait_for("SECOND V2 TURN")
    term.wait_until(lambda s: "working" not in s, "the second turn to end", twice=True)
    term.press("C-q")
    term.wait_exit()
    term.close()

    again = terminal(*size)
    again.home = term.home  # the same data: the session is known there
    again.env.update(term.env)
    again.start(["--demo", "--protocol", "2", "--continue"])
    again.wait_for("SECOND V2 TURN")
    again.send("third v2 turn")
    again.wait_for("THIRD V2 TURN")
    assert_frame(again, "after reopening on v2")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_prompt_whose_answer_was_lost_goes_again_after_ctrl_r_and_runs_once(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    """The v2 preview's idempotency keys: ``/drop`` makes the demo take the prompt and exit
    before answering it; the message waits, Ctrl+R sends it again with its key, and the agent
    (which took it) runs nothing twice: it does not exit again, the message shows once."""
    term = terminal(*size)
    term.start(["--demo", "--protocol", "2"])
    term.wait_header("New session")
    term.send("first v2 turn")
    term.wait_for("FIRST V2 TURN")
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    term.send("/drop")
    term.wait_for("before it answered your message")
    term.wait_for("Press Ctrl+R to restart")  # the agent is known to be gone
    term.press("C-r")
    term.wait_gone("Press Ctrl+R to restart")
    term.wait_gone("⏳ /drop")  # out of the queue: sent again
    term.wait_for("█ /drop")
    term.wait_until(
        lambda s: "working" not in s and "initializing" not in s, "the retry answered", twice=True
    )
    screen = term.wait_still()
    assert "The agent exited (exit code" not in screen, screen  # /drop did not run again
    assert screen.count("█ /drop") == 1, screen
    # Still the same agent process: a second turn goes.
    term.send("after the drop")
    term.wait_for("AFTER THE DROP")
    assert_frame(term, "after the retry")
