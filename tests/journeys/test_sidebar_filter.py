"""The sidebar filter, typed as a person types it: the rows narrow to the matches, Escape
brings them all back."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command


def test_the_filter_narrows_the_rows_and_escape_clears_it(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    # An agent with 60 past sessions in this folder (and a few elsewhere).
    term.start(["--", *agent_command("paged_agent.py", "--sessions", "60")])
    term.wait_header("New session")
    term.wait_for("Fix flaky test in the parser")
    term.press("C-b")  # to the sidebar's list
    term.press("/")  # to its filter
    term.type("memo")
    screen = term.wait_for("Matches in this folder")
    assert "Investigate memory leak" in screen
    for other in ("Fix flaky test", "Refactor the config loader", "Add dark mode toggle"):
        assert other not in screen, f"{other!r} still listed:\n{screen}"
    assert "memo" in term.lines()[2]  # what was typed is in the box, as typed
    term.press("Escape")
    screen = term.wait_for("Sessions · this folder")
    assert "Fix flaky test in the parser" in screen
    assert "Filter sessions…" in screen  # the box is empty again
    assert_frame(term, "after the filter")
