"""Typing is never an answer, in a real terminal (issue 36): a message typed at a permission
dialog that has been on screen a while ("1 more thing", "read the log") goes to the prompt
whole, the dialog stays unanswered and its raw view closed; the same keys alone answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame, prompt_text
from tests.journeys.terminal import Terminal


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_message_typed_at_an_armed_dialog_is_a_message(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/run echo burst-check")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog armed")
    term.type("read the log, ")  # a leading r would toggle the raw view
    # Armed again once the typing stops: a leading digit would choose an option.
    term.wait_until(lambda s: "1-4 choose" in s, "armed again")
    term.type("1 more thing")
    screen = term.wait_still()
    # (At 80x24 the dialog covers the prompt: what it holds is read once the dialog is gone.)
    assert "Permission requested" in screen and "▸ Raw input" in screen
    assert "exited with code" not in screen
    # Alone, 1 answers.
    term.wait_until(lambda s: "1-4 choose" in s, "armed again")
    term.press("1")
    screen = term.wait_for("exited with code 0")
    assert "Permission requested" not in screen
    term.wait_until(
        lambda _: prompt_text(term) == "read the log, 1 more thing", "all of it in the prompt"
    )
    assert_frame(term, "after the answer")
    term.press("Enter")
    term.wait_for("read the log, 1 more thing")
    term.wait_for("You said")
