"""A whole session in an 80x24 terminal: a tool call with a permission, a second turn, a new
session with Ctrl+N and back to the first through the sidebar; the frame (prompt border, bar
with the gauge, footer) holds at every step."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal


def test_a_whole_session_at_80x24(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    term.start(["--demo"])
    term.wait_header("New session")
    # The agent starts before the UI loads (acp_tui.session.launch.prestart), so its name can reach
    # the header a frame before the prompt is first painted: the start is the ready prompt.
    term.wait_for("Message the agent")
    assert_frame(term, "at the start")

    term.send("/run echo first-session")
    term.wait_for("Permission requested")
    term.wait_for("1-4 choose")
    term.press("1")
    term.wait_for("exited with code 0")
    term.wait_gone("working…")
    assert_frame(term, "after the permission")

    term.send("hello again")
    term.wait_for("You said")
    term.wait_gone("working…")
    assert_frame(term, "after the second turn")

    term.press("C-n")
    term.wait_until(
        lambda s: "New session" in s.split("\n", 1)[0] and "You said" not in s,
        "a new session",
        twice=True,
    )
    assert_frame(term, "in the new session")
    term.send("in the second session")  # its first message makes (and lists) the session
    term.wait_for("You said")
    term.wait_gone("working…")

    term.press("C-b")
    term.wait_for("Sessions · this folder (2)")
    assert_frame(term, "with the sidebar open")
    # Newest first: the new session, then the first one.
    term.press("Down", "Enter")
    term.wait_until(
        lambda s: "/run echo first-session" in s.split("\n", 1)[0], "the first session again"
    )
    term.wait_for("hello again")  # its transcript is back
    assert_frame(term, "back in the first session")
    # The prompt has the focus again: typing and Enter send there.
    term.send("third turn")
    screen = term.wait_for("third turn")
    assert "third turn" in screen
    term.wait_gone("working…")
    assert_frame(term, "after a turn in the reopened session")
