"""Parallel sessions in a real terminal (issue 19): a slow turn, then a permission, in session 1
while the person chats in session 2: session 1's row shows it working, then waiting for you; a
toast names it and the key; the bell rings and the window title counts it; Ctrl+L goes there,
the dialog shows and is answered; the title is plain again."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.journeys.terminal import DEFAULT_TIMEOUT, Terminal


def wait_title(term: Terminal, title: str) -> None:
    deadline = time.monotonic() + DEFAULT_TIMEOUT
    while term.title() != title:
        if time.monotonic() > deadline:
            raise AssertionError(f"the title is {term.title()!r}, not {title!r}")
        time.sleep(0.05)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_background_permission_waits_for_the_person_who_jumps_there(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    wide = size[0] >= 100  # the sidebar shows by itself only where there is room
    term.send("/slow 8")
    term.wait_for("This turn takes about 8 seconds")
    term.send("/edit notes.txt")  # queued: it asks once the slow turn is over
    term.wait_for("⏳ /edit notes.txt")
    term.press("C-n")
    term.wait_header("New session")
    term.send("hello over here")
    term.wait_for("You said")
    if wide:
        term.wait_for("working ")
    # The toast wraps (beside the sidebar's rows): look for its words.
    screen = term.wait_until(
        lambda s: "“/slow 8” (demo agent)" in s and "needs" in s and "Ctrl+L to go" in s,
        "a toast naming the session, its agent and the key",
        timeout=DEFAULT_TIMEOUT + 10,
    )
    assert "Permission requested" not in screen  # it did not take the screen
    if wide:
        assert "waiting for you" in screen
    wait_title(term, "acp-tui · 1 waiting")
    assert term.rang()
    assert not (term.home / "notes.txt").exists()
    term.press("C-l")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_for("Wrote ")
    assert (term.home / "notes.txt").exists()
    wait_title(term, "acp-tui")
    assert term.wait_header("/slow 8")
