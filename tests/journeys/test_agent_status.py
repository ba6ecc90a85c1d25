"""The agent's unstable status methods in a real terminal with the demo agent (issue 41):
the new session's selectors filled by ``session/options`` before any session exists, the
header following the sign-in the agent pushes (``auth/status_update``: "not signed in" after
``/signout``, signed in again from the picker that comes before the next message), with a
tool call and its permission, a second turn and another session around it; and "open
elsewhere" when a second window reopens a session the first one holds (``session/status``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal

SIGNED_IN = re.compile(r"● Demo sign-in")


def _idle(term: Terminal) -> str:
    return term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)


def _header(term: Terminal) -> str:
    return term.lines()[0]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_header_follows_the_pushed_sign_in_through_a_whole_session(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    # A first run: nothing remembered of the agent, yet its model shows before any session.
    term.wait_for("Demo Swift")
    assert "signed in" not in _header(term)  # no sign-in needed: nothing said
    term.send("/signout")
    term.wait_for("told your client so")
    term.wait_until(lambda s: "○ not signed in" in _header(term), "the header: not signed in")
    _idle(term)
    assert_frame(term, "signed out")
    # A tool call: the sign-in comes first (the agent said so), then its permission.
    term.send("/edit notes.txt")
    term.wait_for("needs you to sign in")
    term.wait_for("the agent says you are not signed in")
    term.wait_until(lambda s: "1-2 choose" in s, "the picker armed")
    term.press("2")  # the demo's own sign-in
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_gone("Permission requested")
    _idle(term)
    term.wait_until(lambda s: bool(SIGNED_IN.search(_header(term))), "the header: signed in")
    assert "not signed in" not in _header(term)
    # A second turn, then another session: the sign-in stays said.
    term.send("second turn")
    term.wait_for("You said")
    _idle(term)
    term.press("C-n")
    term.wait_header("New session")
    term.send("hello again")
    term.wait_for("HELLO AGAIN")
    _idle(term)
    assert SIGNED_IN.search(_header(term)), term.screen()
    assert_frame(term, "in the second session")


def test_a_second_window_on_the_same_session_says_open_elsewhere(
    terminal: Callable[..., Terminal],
) -> None:
    first = terminal(120, 40, name="first")
    work = first.home / "work"
    work.mkdir()
    first.start(["--demo"], cwd=work)
    first.wait_header("New session")
    first.send("hello from the first window")
    first.wait_for("HELLO FROM THE FIRST WINDOW")
    _idle(first)
    assert "open elsewhere" not in first.screen()
    # The same person, another window, the same data: --continue reopens that session.
    second = terminal(80, 24, name="second")
    shared = {name: value for name, value in first.env.items() if name.startswith("XDG_")}
    second.start(["--demo", "--continue"], cwd=work, env=shared)
    second.wait_for("HELLO FROM THE FIRST WINDOW")
    second.wait_until(lambda s: "⇄ open elsewhere" in _header(second), "the mark")
    _idle(second)
    assert_frame(second, "reopened while the first window holds it")
    second.send("hello from the second window")
    second.wait_for("HELLO FROM THE SECOND WINDOW")
    _idle(second)
    # The first window's own session is its own: not marked.
    assert "open elsewhere" not in _header(first)
