"""A newcomer's first minutes (issue 38) in a real terminal on the demo agent: the welcome
until the first message, F1 opens acp-tui's key sheet; the agent's own ``/help`` wins the
name and acp-tui's is ``//help``, each sent at once by Enter;
Ctrl+B goes to a sidebar that shows and hides only one it is in; at 80 columns the sidebar
has given way; archiving the session on screen opens the next one listed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal

SHEET = "acp-tui: keys and commands"
WELCOME = "F1 or ? (on an empty prompt)"


def close_sheet(term: Terminal) -> None:
    term.press("Escape")
    term.wait_gone(SHEET)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_first_minutes_of_a_newcomer(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    cols, _rows = size
    term = terminal(*size)
    term.start(["--demo"], cwd=term.home)
    # The first screen says which agent, where, and where the keys are.
    screen = term.wait_for(WELCOME)
    assert "demo agent" in screen and "Enter sends" in screen
    # The sidebar shows from 100 columns on; under them it has given way.
    assert ("Sessions · this folder" in screen) == (cols >= 100)
    # The bar (its gauge: "context: -" before a session, "0 / 200K" once the new session
    # opened early, as it does with an agent that can close it) and the footer.
    term.wait_until(
        lambda s: ("context:" in s or "/ 200K" in s) and "palette" in s, "the bar and the footer"
    )
    term.wait_still()
    assert_frame(term, "the welcome")

    # F1: acp-tui's key sheet, whatever the agent offers; F1 again closes it.
    term.press("F1")
    # Plain text, never markup: "[keys]" is drawn as written. Waited for with the title: tmux
    # keeps no frame whole, and a capture can catch the sheet half drawn (CI did once).
    term.wait_until(
        lambda s: SHEET in s and "[keys] in the config file" in s, "the key sheet, whole"
    )
    term.press("F1")
    term.wait_gone(SHEET)

    # The first message: the welcome gives way to the conversation.
    term.send("plan the trip")
    term.wait_for("You said")
    term.wait_gone(WELCOME)
    # The agent has a /help of its own: "/help" is the agent's, "//help" acp-tui's, and
    # Enter on either sends it at once (no second Enter to send a completion).
    term.type("/help")
    term.wait_for("//help")
    term.press("Enter")
    term.wait_for("every command I know")
    term.wait_until(lambda s: s.count("/help") >= 1 and SHEET not in s, "the agent's reply")
    term.type("//help")
    term.press("Enter")
    term.wait_for(SHEET)
    close_sheet(term)

    # Ctrl+B: to the sidebar (shown first if it gave way), drawn as having the focus; again,
    # from inside it, hides it and the prompt has the keys.
    term.press("C-b")
    term.wait_until(lambda s: "Sessions · this folder (1)" in s, "the sidebar, focused")
    term.wait_until(lambda s: "b Branch" in s and "e Rename" in s, "the sidebar's keys")
    term.press("C-b")
    term.wait_gone("Sessions · this folder")
    term.type("x")
    term.wait_until(lambda s: "▊ x" in s, "typing lands in the prompt")
    assert_frame(term, "after the sidebar hid")
    term.press("BSpace")

    # Archiving the session on screen goes on to the next one listed, not to an empty view.
    term.press("C-n")
    term.wait_header("New session")
    term.send("second trip")
    term.wait_header("second trip")
    term.press("C-b")
    term.wait_until(lambda s: "Sessions · this folder (2)" in s, "both listed")
    term.wait_until(lambda s: "b Branch" in s and "e Rename" in s, "the sidebar's keys")
    term.press("x")
    term.wait_for("Archived “second trip”")
    term.wait_header("plan the trip")
    term.press("C-q")
    assert term.wait_exit() == 0
