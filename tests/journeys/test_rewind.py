"""Rewind in a real terminal: a turn that writes a file through the client, creates one and
deletes one directly on disk is rewound (code) with Esc Esc, after its review, and every file
is back byte for byte while the project's own git state is untouched. The demo agent at
120x40 (``/change``, around a tool call with its permission, a second turn and a session
switch) and the official SDK's agent at 80x24 (``writefiles``, with a file the person changed
after the turn: a conflict, left as the person made it unless kept). The conversation at
80x24: an exact fork with the demo agent, a labelled reconstruction with the SDK's."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.checkpoints.helpers import git_state, make_project, tree_bytes
from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command


def _project(term: Terminal, prefix: str) -> Path:
    work = make_project(term.home / "work")
    (work / f"{prefix}notes.txt").write_text("my notes\n")
    (work / f"{prefix}delete-me.txt").write_text("please keep me\n")
    return work


def _idle(term: Terminal, what: str) -> None:
    term.wait_until(lambda s: "working" not in s, what, twice=True)


def _rewind_code(term: Terminal) -> str:
    """Esc Esc, the last turn, "Code only": the review, as it shows."""
    term.press("Escape")
    term.press("Escape")
    term.wait_for("Rewind to before")
    term.press("Enter")
    term.wait_for("rewind what?")
    term.press("Down")
    term.press("Enter")
    term.wait_for("Rewind files to before turn")
    return term.wait_for("y rewind")  # the review's keys are armed


def test_the_demo_agents_turn_is_rewound_with_esc_esc(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    work = _project(term, "")
    term.start(["--demo"], cwd=work)
    term.wait_header("New session")
    # A tool call with its permission first (a file the rewind then puts back too).
    term.send("/edit other.txt")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_gone("Permission requested")
    term.wait_for("to other.txt through the client")
    _idle(term, "the edit to end")
    state, before = git_state(work), tree_bytes(work)
    term.send("/change notes.txt created.txt delete-me.txt")
    term.wait_for("Rewind with Esc Esc")
    _idle(term, "the change to end")
    assert (work / "created.txt").exists() and not (work / "delete-me.txt").exists()
    review = _rewind_code(term)
    for name in ("created.txt", "delete-me.txt", "notes.txt"):
        assert name in review, review
    assert tree_bytes(work) != before  # nothing is written before the confirmation
    term.press("y")
    term.wait_for("3 files put back")
    assert tree_bytes(work) == before  # the first turn's other.txt is still there
    assert git_state(work) == state
    assert_frame(term, "after the rewind")
    # A second turn, then another session and back.
    term.send("second turn")
    term.wait_for("You said")
    _idle(term, "the second turn to end")
    term.press("C-n")
    term.wait_header("New session")
    term.press("Escape")
    term.press("Escape")
    term.wait_for("No checkpoints in this session yet")
    assert_frame(term, "a new session")


def test_the_sdk_agents_turn_is_rewound_and_a_conflict_is_asked(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(80, 24)
    work = _project(term, "sdk-")
    state, before = git_state(work), tree_bytes(work)
    term.start(["--", *agent_command("sdk_agent.py")], cwd=work)
    term.wait_header("New session")
    term.send("please writefiles now")
    term.wait_until(lambda s: (work / "sdk-created.txt").exists(), "the agent's writes", twice=True)
    _idle(term, "the turn to end")
    # The person edits a file the turn changed: a conflict.
    (work / "sdk-notes.txt").write_text("my notes\nmine, after the turn\n")
    review = _rewind_code(term)
    assert "▲ sdk-notes.txt" in review and "changed by you after that turn" in review, review
    term.press("y")
    term.wait_for("2 files put back")
    after = tree_bytes(work)
    assert after.pop("sdk-notes.txt") == b"my notes\nmine, after the turn\n"
    expected = dict(before)
    expected.pop("sdk-notes.txt")
    assert after == expected
    assert git_state(work) == state
    assert_frame(term, "after the rewind")


def test_in_the_home_folder_checkpoints_are_off_said_and_no_turn_waits(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    home = term.home / "person"
    for n in range(200):
        (home / f"folder{n % 10}").mkdir(parents=True, exist_ok=True)
        (home / f"folder{n % 10}" / f"file{n}.txt").write_text(f"{n}\n")
    term.start(["--demo"], cwd=home, env={"HOME": str(home)})
    term.wait_header("New session")
    term.send("hello")
    # Said as the first turn begins (nothing is walked), and the turn does not wait.
    term.wait_for("You said", timeout=15)
    screen = term.wait_for("Checkpoints are off here")
    assert "your home folder is not a project" in screen, screen
    _idle(term, "the turn to end")
    assert not (term.home / "data" / "acp-tui" / "checkpoints" / "repos").exists()
    assert_frame(term, "with the note")


def _rewind_conversation(term: Terminal) -> None:
    """Esc Esc, the last turn, "Conversation only"."""
    term.press("Escape")
    term.press("Escape")
    term.wait_for("Rewind to before")
    term.press("Enter")
    term.wait_for("rewind what?")
    term.press("Down")
    term.press("Down")
    term.press("Enter")


def test_the_conversation_is_an_exact_fork_with_the_demo_and_rebuilt_with_the_sdk_agent(
    terminal: Callable[..., Terminal],
) -> None:
    """The demo agent forks at a message: the new session is its own conversation up to the
    turn (the next message is its turn 2). The SDK's agent does not: a labelled
    reconstruction."""
    term = terminal(80, 24)
    work = _project(term, "")
    term.start(["--demo"], cwd=work)
    term.wait_header("New session")
    term.send("hello there")
    term.wait_for(re.compile(r"This\s+is\s+turn\s+1"))
    _idle(term, "the first turn to end")
    term.send("a second thing")
    term.wait_for(re.compile(r"This\s+is\s+turn\s+2"))
    _idle(term, "the second turn to end")
    _rewind_conversation(term)
    term.wait_for("Rewound conversation (an exact fork)")
    term.wait_for("(rewound to turn 2)")
    assert_frame(term, "the exact fork")
    term.send("and now?")
    term.wait_for(re.compile(r"This\s+is\s+turn\s+2"))
    term.close()

    sdk = terminal(80, 24)
    work = _project(sdk, "sdk-")
    sdk.start(["--", *agent_command("sdk_agent.py")], cwd=work)
    sdk.wait_header("New session")
    sdk.send("hello there")
    sdk.wait_for("You said")
    _idle(sdk, "the first turn to end")
    sdk.send("a second thing")
    sdk.wait_for("You said: a second thing")
    _idle(sdk, "the second turn to end")
    _rewind_conversation(sdk)
    sdk.wait_for("Rewound conversation (a reconstruction)")
    assert_frame(sdk, "the reconstruction")
