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
    others = ("Fix flaky test", "Refactor the config loader", "Add dark mode toggle")
    # The filter applies as it is typed ("m" alone matches every row: the folder's path has
    # one); once "memo" is applied only the matches are left.
    term.wait_until(
        lambda s: (
            "Matches in this folder" in s
            and "Investigate memory leak" in s
            and not any(other in s for other in others)
        ),
        "only the matches of 'memo'",
    )
    assert "memo" in term.lines()[2]  # what was typed is in the box, as typed
    term.press("Escape")
    screen = term.wait_for("Sessions · this folder")
    assert "Fix flaky test in the parser" in screen
    assert "Filter sessions…" in screen  # the box is empty again
    assert_frame(term, "after the filter")
