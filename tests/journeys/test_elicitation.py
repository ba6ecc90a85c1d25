"""The demo agent's questions and live events in a real terminal: ``/ask`` fills in a form
that the agent echoes, ``/ask url`` waits for the page, ``/notice`` and ``/compact`` show."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_form_a_page_a_notice_and_a_compaction(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")

    term.send("/ask")
    term.wait_until(lambda s: "Tab next field" in s, "the form, armed")
    term.type("Ada")
    term.press("C-s")
    term.wait_for("Every answer fits the schema")
    screen = term.wait_for('"Ada"')
    assert "The agent asks" not in screen
    assert_frame(term, "after the form")

    term.send("/ask url 1")
    # Armed is read from the armed hint itself: the unarmed one missing is not enough, since
    # a capture can catch the dialog's frame half drawn, before its hint row (an Enter sent
    # then is typing, not an answer, and the page waits for ever).
    term.wait_until(
        lambda s: "example.com" in s and "i I'll open it" in s, "the page to visit, armed"
    )
    term.press("i")
    term.wait_for("The site reported back")
    screen = term.wait_for("Done (the agent says)")
    assert "The agent asks" not in screen

    term.send("/notice warning Disk almost full")
    term.wait_for("▲ Disk almost full")

    term.send("/compact")
    # /compact takes an argument: the first Enter completes the command, the second sends it.
    term.wait_until(lambda s: "/compact" in s, "the command typed")
    term.press("Enter")
    screen = term.wait_for("Compacted the context")
    assert "Context compacted" in screen and "▸ Summary" in screen
    assert_frame(term, "after the compaction")


def test_escape_cancels_the_form_and_typing_goes_on(terminal: Callable[..., Terminal]) -> None:
    """Escape in a form cancels the turn it is part of, and its questions."""
    term = terminal(80, 24)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/ask")
    term.wait_until(lambda s: "Tab next field" in s, "the form, armed")
    term.press("Escape")
    term.wait_for("cancelled")
    term.wait_gone("Tab next field")
    term.send("still here")
    term.wait_for("You said")
    assert_frame(term, "after a cancelled form")
