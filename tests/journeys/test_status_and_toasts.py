"""What the status line and the toasts say, read in a real terminal: the status follows the
session's state now (a cancel or a crash does not outlive a restart), and a "needs you" toast
reads whole at 80 columns."""

from __future__ import annotations

import json
import re
import sys
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


def test_a_needs_you_toast_reads_whole_at_80_columns(terminal: Callable[..., Terminal]) -> None:
    """A long agent label and a long session title: the toast still says what happened and
    the key to press, and names the session in words, not a word cut in its middle."""
    term = terminal(cols=80, rows=24)
    (term.home / "config" / "acp-tui" / "config.toml").write_text(
        "sidebar = true\n[agents.vibe]\n"
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["-m", "acp_tui.demo_agent"]\n'
        'label = "Mistral Vibe coding agent (local models)"\n'
    )
    term.start(["--agent", "vibe"])
    term.wait_for("New session")
    term.send("Investigate the flaky payment gateway integration tests")
    term.wait_for("Type /help")
    term.send("/slow 3")
    term.wait_for("working…")
    term.send("/run ls")
    term.wait_for("⏳ /run ls")
    term.press("C-n")
    screen = term.wait_for("Waiting for you", timeout=30)
    screen = term.wait_still()
    toast = " ".join(line.split("▌", 1)[1].strip() for line in screen.splitlines() if "▌" in line)
    assert "Ctrl+L to go there" in toast, screen
    assert "Investigate the flaky" in toast, screen


def test_the_resume_chooser_says_its_keys_whole_at_80_columns(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(cols=80, rows=24)
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("a session to come back to")
    term.wait_for("Type /help")
    term.press("C-q")
    assert term.wait_exit() == 0
    chooser = terminal(cols=80, rows=24, name="resume")
    chooser.home, chooser.env = term.home, term.env  # the same data and config
    chooser.start(["--demo", "--resume"])
    whole = "Choose a session to resume (↑ ↓ Enter), or Esc for a new one"
    chooser.wait_until(
        lambda s: whole in " ".join(s.replace("▕", " ").split()), "the whole status line"
    )
    chooser.press("Enter")
    chooser.wait_gone("Choose a session to resume")
    chooser.wait_header("a session to come back to")  # reopened
