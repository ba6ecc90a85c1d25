"""``acp-tui --demo --protocol 2`` in a real terminal: a whole session on the v2 draft (a tool
call whose permission is answered by key, the agent's own terminal shown in it, a second
turn), then a restart that reopens the session by resume-with-replay; and a forced
reconnect (the agent killed mid-turn) that runs no prompt twice."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.demo_agent.prompting import STALL_PID_FILE
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


def _stall_pid(home: Path) -> Path | None:
    """The demo writes its pid there when it takes ``/stall`` (its state dir is in the home)."""
    return next(home.rglob(STALL_PID_FILE), None)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_v2_session_survives_a_forced_reconnect_without_running_a_prompt_twice(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    """The v2 preview's idempotency keys: ``/stall`` makes the demo take the prompt and hold
    its answer; the agent is killed (SIGKILL) mid-turn. acp-tui says it reconnects, starts
    the agent again, resumes the session and sends the prompt again with its key: the agent
    (which took it) runs nothing twice; its state holds the message once, retried once; the
    screen shows it once, and the same session goes on."""
    term = terminal(*size)
    term.start(["--demo", "--protocol", "2"])
    term.wait_header("New session")
    term.send("first v2 turn")
    term.wait_for("FIRST V2 TURN")
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    term.send("/stall")
    deadline = time.monotonic() + 60
    while (pid_file := _stall_pid(term.home)) is None:
        assert time.monotonic() < deadline, f"the demo never took /stall:\n{term.screen()}"
        time.sleep(0.1)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    term.wait_for("reconnecting (attempt 1 of 3)")
    term.wait_gone("⏳ /stall")  # out of the queue: sent again
    term.wait_until(
        lambda s: "working" not in s and "initializing" not in s and "reconnecting in" not in s,
        "the retry answered",
        twice=True,
    )
    screen = term.wait_still()
    assert "Press Ctrl+R to restart" not in screen, screen
    assert screen.count("█ /stall") == 1, screen
    [session] = [p for p in pid_file.parent.glob("*.json")]
    history = json.loads(session.read_text())["history"]
    stalled = [item for item in history if item.get("text") == "/stall"]
    assert len(stalled) == 1 and stalled[0]["retries"] == 1, stalled
    # The same session goes on, with the new agent process.
    term.send("after the reconnect")
    term.wait_for("AFTER THE RECONNECT")
    assert_frame(term, "after the reconnect")
