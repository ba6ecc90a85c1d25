"""A session's life, as a person lives it in a real terminal: typing while the agent starts,
the queue (edit while the turn ends, remove, cancel), switching and resuming sessions across
restarts of the app, launches that leave nothing behind, a crash and Ctrl+R, and commands that
are no ACP agent at all."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.journeys.terminal import Terminal, agent_command


def click_button(term: Terminal, row_text: str, button: str, done: Callable[[str], bool]) -> None:
    """Click ``button`` ("edit", "remove") on the queue row that shows ``row_text``, until
    ``done(screen)``. A click is read against a screen that may move under it (the turn streams
    on and the row is found from a capture taken a moment before), so a click that found nothing
    under the pointer is clicked again, at most three times, while the row still shows."""
    for attempt in range(3):
        for row, line in enumerate(term.lines()):
            if row_text in line:
                column = line.rfind(f" {button}")
                assert column >= 0, f"no {button!r} on the row: {line!r}"
                term.click(column + 2, row)
                break
        else:
            if attempt == 0:
                raise AssertionError(f"no row with {row_text!r}:\n{term.screen()}")
            break  # the row went: the earlier click took effect late
        try:
            term.wait_until(done, f"the {button!r} click to take effect", timeout=8)
            return
        except AssertionError:
            if row_text not in term.screen():
                raise
    term.wait_until(done, f"the {button!r} click to take effect")


def test_a_message_typed_while_the_agent_starts_is_queued_then_answered(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """An agent slow to start, as claude-agent-acp is (its session/new takes some 5 s): held
    at initialize, then at session/new, until the test opens each gate (a file)."""
    init_gate, new_gate = tmp_path / "init-gate", tmp_path / "new-gate"
    gates = {"SDK_AGENT_INIT_GATE": str(init_gate), "SDK_AGENT_NEW_GATE": str(new_gate)}
    term = terminal()
    term.start(["--", *agent_command("sdk_agent.py")], env=gates)
    term.wait_for("New session")
    term.send("hello early")
    screen = term.wait_for("⏳ hello early")
    assert "initializing" in screen
    assert "not running" not in screen
    init_gate.touch()
    screen = term.wait_for("starting a new session")
    assert "⏳ hello early" in screen
    new_gate.touch()
    screen = term.wait_for("You said: hello early")
    assert "⏳" not in screen
    term.press("C-q")
    assert term.wait_exit() == 0


def test_queue_edit_while_the_turn_ends_remove_and_cancel(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("/slow 3")
    term.wait_for("working…")
    term.send("first queued")
    term.wait_for("⏳ first queued")
    click_button(term, "⏳ first queued", "edit", lambda screen: "✎ editing" in screen)
    term.type(" and edited")
    # The turn ends while the edit goes on: nothing is sent behind the person's back.
    screen = term.wait_for("Finished the slow turn.", timeout=30)
    screen = term.wait_until(lambda s: "working…" not in s, "the turn to end", twice=True)
    assert "✎ editing" in screen and "You said" not in screen
    term.press("Enter")
    screen = term.wait_for("first queued and edited", timeout=30)
    term.wait_for("You said")
    term.wait_until(lambda s: "✎" not in s and "⏳" not in s, "the queue to empty", twice=True)
    # Remove a queued message, then cancel the turn with Escape.
    term.send("/slow 30")
    term.wait_for("working…")
    term.send("never mind")
    term.wait_for("⏳ never mind")
    click_button(term, "⏳ never mind", "remove", lambda screen: "⏳ never mind" not in screen)
    term.press("Escape")
    screen = term.wait_for("cancelled")
    assert "never mind" not in screen.split("/slow 30")[-1]


def test_switch_sessions_then_continue_and_resume_after_restarting_the_app(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("alpha question")
    term.wait_for("You said")
    term.press("C-n")
    term.send("beta question")  # at once: it goes to the new session, not the one left
    term.wait_until(lambda s: s.count("You said") == 1 and "beta question" in s, "the second reply")
    # Both are in the sidebar; go back to the first one (a click on its row). The list may
    # still be moving (the new session's row goes on top): the row is found once it is still.
    term.wait_still()
    where = term.find("alpha question")
    assert where is not None
    term.click(where[0] + 2, where[1])
    term.wait_until(
        lambda s: "alpha question" in s and "You said" in s and "beta question" not in s[200:],
        "the first session again",
        twice=True,
    )
    term.press("C-q")
    assert term.wait_exit() == 0

    # --continue: the most recent conversation, without asking.
    again = terminal(name="continue")
    again.home = term.home  # the same data and config
    again.env = term.env
    again.start(["--demo", "--continue"])
    screen = again.wait_for(re.compile(r"You said"))
    assert "beta question" in screen
    again.press("C-q")
    assert again.wait_exit() == 0

    # --resume: the sessions, to choose from; Enter on the second opens it.
    chooser = terminal(name="resume")
    chooser.home = term.home
    chooser.env = term.env
    chooser.start(["--demo", "--resume"])
    chooser.wait_for("Choose a session to resume")
    chooser.press("Down", "Enter")
    chooser.wait_until(
        lambda s: "You said" in s and "alpha question" in s, "the chosen session", timeout=30
    )
    chooser.send("alpha follow-up")
    chooser.wait_for("ALPHA FOLLOW-UP")  # the reply, in the resumed session
    chooser.press("C-q")
    assert chooser.wait_exit() == 0


def test_launches_that_send_nothing_leave_no_session(terminal: Callable[..., Terminal]) -> None:
    first = terminal()
    for _ in range(3):
        run = terminal(name="launch")
        run.home, run.env = first.home, first.env
        run.start(["--demo"])
        run.wait_for("demo agent")
        run.wait_for("no sessions yet")
        run.press("C-q")
        assert run.wait_exit() == 0
    last = terminal(name="last")
    last.home, last.env = first.home, first.env
    last.start(["--demo", "--continue"])
    screen = last.wait_for("No earlier session")
    assert "Untitled" not in screen
    last.wait_for("no sessions yet")
    last.press("C-q")
    assert last.wait_exit() == 0


def test_a_crash_keeps_the_transcript_and_ctrl_r_reopens_the_session(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("remember this line")
    term.wait_for("You said")
    term.send("/crash")
    screen = term.wait_for("The agent exited")
    assert "remember this line" in screen and "Ctrl+R" in screen
    term.send("sent while down")
    term.wait_for("⏳ sent while down")
    term.press("C-r")
    term.wait_gone("The agent exited")
    # Reopened (the demo agent loads it): the old lines, then what waited is answered.
    screen = term.wait_until(
        lambda s: "SENT WHILE DOWN" in s and "⏳" not in s,
        "the queued message answered",
        twice=True,
    )
    assert "Crashing in the middle of this turn" in screen  # the transcript before the crash


def test_cat_is_no_acp_agent_and_can_be_quit(terminal: Callable[..., Terminal]) -> None:
    term = terminal()
    term.start(["--", "cat"])
    screen = term.wait_for("this is not an ACP agent")
    assert "method not found" not in screen
    term.press("C-q")
    assert term.wait_exit() == 1


def test_an_agent_that_never_answers_is_reported_and_can_be_quit(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(100, 30)
    (term.home / "config" / "acp-tui" / "config.toml").write_text("initialize_timeout = 2\n")
    term.start(["--", *agent_command("hostile_agent.py", "--at-start=hang-initialize")])
    screen = term.wait_for("not responding", timeout=20)
    assert "Ctrl+R" in screen and "Ctrl+Q" in screen
    term.press("C-q")
    term.wait_exit()
