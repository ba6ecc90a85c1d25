"""The transcript from the keyboard with the focus in the prompt: PgUp / PgDn, the "new output"
marker while scrolled up during a stream, Ctrl+End back down."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.frame import assert_frame, prompt_text
from tests.journeys.terminal import Terminal


def at_the_stream(term: Terminal) -> bool:
    """The rows right above the status line show the stream's latest ticks."""
    rows = term.lines()
    status = next((i for i, row in enumerate(rows) if "● working…" in row), None)
    return status is not None and any("/60)" in row for row in rows[max(0, status - 3) : status])


def test_page_up_during_a_stream_shows_the_marker_and_ctrl_end_jumps_down(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(100, 30)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/flood 120")  # many screens of text
    term.wait_for("/ 200K")
    term.wait_gone("working…")
    term.send("/slow 30")
    term.wait_for("(2/60)")
    term.wait_until(lambda _: at_the_stream(term), "the stream at the bottom")
    term.press("PageUp")
    term.wait_for("↓ new output")
    assert not at_the_stream(term)  # the view moved up
    term.press("PageUp")
    term.wait_until(lambda s: "/slow 30" not in s.split("▔▔▔")[0], "further up", twice=True)
    # Typing still goes to the prompt while reading up there.
    term.type("draft")
    term.wait_until(lambda _: prompt_text(term) == "draft", "the draft")
    term.press("C-End")
    term.wait_gone("↓ new output")
    term.wait_until(lambda _: at_the_stream(term), "back at the bottom, where the stream is")
    term.press("PageUp")
    term.wait_for("↓ new output")
    term.press("PageDown", "PageDown", "PageDown")
    term.wait_gone("↓ new output")  # paged back down to the end: following again
    assert_frame(term, "after scrolling")
    term.press("Escape")
    term.wait_for("cancelled")
