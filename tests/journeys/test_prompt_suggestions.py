"""Prompt suggestions in a real terminal (issue 41, unstable ``prompt_suggestions_update``)
with the demo agent: chips under the prompt after a reply, Tab takes one into the prompt
(nothing sent until Enter), a click takes another (120x40), typing hides them; a tool call
with its permission, a second turn, and a new session that has none until its first reply."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal

CHIPS = re.compile(r"Suggested \(Tab\): (\S.*?)\s*$", re.M)


def _idle(term: Terminal) -> str:
    return term.wait_until(lambda s: "working…" not in s, "the turn to end", twice=True)


def _chips(term: Terminal) -> list[str]:
    screen = term.wait_for(CHIPS)
    match = CHIPS.search(screen)
    assert match is not None
    return [chip for chip in re.split(r"\s{3,}", match.group(1)) if chip]


def _prompt_row(term: Terminal) -> str:
    rows = term.lines()
    top = max(i for i, row in enumerate(rows) if "▔▔▔" in row)
    return rows[top + 1]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_chips_after_a_reply_taken_by_tab_or_a_click_sent_only_by_enter(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    assert "Suggested (Tab)" not in term.screen()
    term.send("hello")
    term.wait_for("You said")
    _idle(term)
    first, second, _ = _chips(term)
    assert_frame(term, "with the chips")
    # Tab takes the first, Tab again the next: in the prompt, not sent.
    term.press("Tab")
    term.wait_until(lambda s: first in _prompt_row(term), "the first suggestion in the prompt")
    term.press("Tab")
    term.wait_until(lambda s: second in _prompt_row(term), "the second suggestion in the prompt")
    assert "turn 2" not in term.screen()
    term.press("Enter")
    _idle(term)
    term.wait_until(lambda s: "Suggested (Tab)" in s and second not in _prompt_row(term), "sent")
    # Typing hides them; an emptied prompt shows them again.
    term.type("x")
    term.wait_gone("Suggested (Tab)")
    term.press("BSpace")
    term.wait_for("Suggested (Tab)")
    if size[0] >= 120:  # a click on a chip takes it
        chip = _chips(term)[0]
        term.wait_still()
        found = term.find(chip)
        assert found is not None
        term.click(found[0] + 1, found[1])
        term.wait_until(lambda s: chip in _prompt_row(term), "the clicked suggestion")
        term.press("C-u")  # not sent: the person clears it
        term.wait_until(lambda s: chip not in _prompt_row(term), "the prompt cleared")
    # A tool call with its permission, then a second turn.
    term.send("/edit notes.txt")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_gone("Permission requested")
    _idle(term)
    term.send("second turn")
    term.wait_for("You said")
    _idle(term)
    # A new session: none until its first reply.
    term.press("C-n")
    term.wait_header("New session")
    term.wait_gone("Suggested (Tab)")
    term.send("hi")
    term.wait_for("You said")
    _idle(term)
    term.wait_for("Suggested (Tab)")
    assert_frame(term, "in the new session")
