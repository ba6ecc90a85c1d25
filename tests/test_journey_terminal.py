"""The journeys' terminal waits (tests/journeys/terminal.py), on a scripted screen: tmux keeps no
frame whole, so a wait for something to be gone must see it gone twice in a row, and a wait
for something there returns a screen two captures agree on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.journeys import terminal
from tests.journeys.terminal import Terminal


class ScriptedTerminal(Terminal):
    """A Terminal whose captures come from a list (no tmux)."""

    def __init__(self, captures: list[str]) -> None:  # no tmux to set up: no super()
        self._captures: Iterator[str] = iter(captures)
        self.taken = 0

    def screen(self) -> str:
        self.taken += 1
        return next(self._captures)


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "POLL_SECONDS", 0.0)
    monkeypatch.setattr(terminal, "SETTLE_POLL", 0.0)


def test_a_wait_for_something_gone_skips_a_half_drawn_capture() -> None:
    # The second capture is a frame caught half drawn: the dialog's hint row is not there yet.
    term = ScriptedTerminal(["Keys arm", "dialog, hint row missing", "Keys arm", "armed", "armed"])
    assert term.wait_gone("Keys arm") == "armed"
    assert term.taken == 5


def test_a_plain_wait_takes_the_first_capture_that_holds_once_settled() -> None:
    # It held, then moved on: what held is returned (the next capture only looked).
    term = ScriptedTerminal(["working", "done", "working"])
    assert term.wait_until(lambda screen: "working" not in screen, "the turn to end") == "done"
    assert term.taken == 3
    term = ScriptedTerminal(["working", "done", "working", "done", "done"])
    assert (
        term.wait_until(lambda screen: "working" not in screen, "the turn to end", twice=True)
        == "done"
    )
    assert term.taken == 5


def test_a_wait_returns_the_frame_drawn_whole() -> None:
    # The key sheet's title caught before its text (CI read it so once).
    title = "keys and commands"
    term = ScriptedTerminal(["prompt", title, f"{title} [keys]", f"{title} [keys]"])
    assert term.wait_for(title) == f"{title} [keys]"
    assert term.taken == 4


def test_a_screen_that_keeps_moving_gives_its_last_capture_that_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terminal, "SETTLE_SECONDS", 0.05)
    ticks = (f"working… {n} s" for n in range(1_000_000))
    term = ScriptedTerminal([])
    term._captures = ticks
    screen = term.wait_for("working…")
    assert screen.startswith("working…") and term.taken > 2
    assert screen == f"working… {term.taken - 1} s"
