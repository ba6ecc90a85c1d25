"""What the status line and the toasts say, read in a real terminal: the status follows the
session's state now (a cancel or a crash does not outlive a restart), and a "needs you" toast
reads whole at 80 columns."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.journeys.terminal import Terminal

#: The status line's own words for an ended turn (the transcript says "Cancelled", capital).
STALE = re.compile(r"(^|[\s▕])(cancelled|stopped: error)\s*$", re.MULTILINE)
#: The status while the agent restarts and the session reopens.
BUSY = re.compile(r"(initializing|loading|resuming|starting)[^\n]*…")


def test_a_cancel_and_a_crash_do_not_outlive_ctrl_r(terminal: Callable[..., Terminal]) -> None:
    term = terminal(cols=80, rows=24)
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("/slow 20")
    term.wait_for("working…")
    term.press("Escape")
    term.wait_until(lambda s: STALE.search(s) is not None, "the status to say cancelled")
    term.send("/crash")
    term.wait_for("The agent exited")
    term.wait_for("stopped: error")
    term.press("C-r")
    term.wait_gone("The agent exited")
    term.wait_until(lambda s: BUSY.search(s) is None, "the restart to finish")
    screen = term.wait_still(quiet=1.0)
    assert STALE.search(screen) is None, screen
    assert "Crashing in the middle of this turn" in screen
    term.send("after the restart")
    term.wait_for("AFTER THE RESTART")
    assert STALE.search(term.wait_gone("working…")) is None
