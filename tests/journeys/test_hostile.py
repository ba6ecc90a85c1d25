"""A hostile agent in a real terminal (issue 17): no key approves by accident, agent text is
shown as written and never acts, a huge option list keeps its title and keys on screen, and a
crash with huge stderr lines still says how to recover."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.agents import hostile_agent as hostile
from tests.journeys.terminal import Terminal, agent_command

SIZES = pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])


def start_hostile(term: Terminal, *flags: str) -> None:
    term.start(["--", *agent_command("hostile_agent.py", *flags)])
    if "--hostile-text" in flags:
        # Its modes come with a session: made by the first message, or at once by Ctrl+N.
        term.wait_for("title[/][@click=app.quit]Q")  # its name: it answered initialize
        term.press("C-n")
        term.wait_for("mode1[/][@click=app")
    else:
        # The header's title (its first row; the footer names Ctrl+N "New session" from the
        # start).
        term.wait_until(lambda screen: "New session" in screen.split("\n")[0], "an open session")


def send(term: Terminal, text: str) -> None:
    """Type ``text``, see it in the prompt, then press Enter."""
    term.type(text)
    term.wait_for(text)
    term.press("Enter")


@SIZES
def test_typing_while_permission_dialogs_open_approves_nothing_and_loses_nothing(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    start_hostile(term)
    send(term, "permission-storm 2")
    term.wait_for("Permission requested")
    # The person was still typing a message with a "1" in it as the dialog came up.
    term.type("hello 1 world")
    screen = term.wait_for("hello 1 world")
    assert "Storm 0" in screen and "Permission requested" in screen, "the dialog was answered"
    # Armed only after a pause; then two 1s at once: a burst of typing (issue 36), both for
    # the prompt, nothing approved.
    term.wait_for("1-3 choose")
    term.press("1", "1")
    screen = term.wait_for("hello 1 world11")
    assert "Storm 0" in screen and "1 of 2" in screen, "the dialog was answered"
    # A 1 alone, once armed again, approves; the dialog that replaced it starts over.
    term.wait_for("1-3 choose")
    term.press("1")
    screen = term.wait_until(
        lambda screen: "2 of 2" in screen and "Keys arm in a moment" in screen,
        "the second request's dialog, not armed yet",
    )
    assert "Storm 1" in screen and "hello 1 world11" in screen
    assert "hello 1 world111" not in screen
    term.wait_for("1-3 choose")
    term.press("Escape")
    term.wait_for("answers: yes,no")
    assert term.exited() is None


@SIZES
def test_a_thousand_options_keep_the_title_and_keys_on_screen(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    start_hostile(term)
    send(term, "many-options 1000")
    screen = term.wait_for("(1,000 options)")
    assert hostile.MANY_OPTIONS_TITLE in screen
    term.press("End")
    screen = term.wait_for("Option 999")
    assert hostile.MANY_OPTIONS_TITLE in screen and "(1,000 options)" in screen
    term.press("Enter")
    term.wait_for("chose: opt-999")


def test_agent_markup_is_shown_as_written_and_never_acts(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    start_hostile(term, "--hostile-text")
    screen = term.wait_for("title[/][@click=app.quit]Q[/][link=https://evil.example]")
    assert "mode1[/][@click=app" in screen  # the mode selector
    assert "model1[/][@click=app" in screen  # the model selector
    # The palette lists the agent's modes as written; choosing one brings its error, as written.
    term.press("C-p")
    term.type("mode2")
    term.wait_for("Mode: mode2[/][@click=app.quit]Q")
    term.press("Enter")
    term.wait_for("error[/][@click=app.quit]Q")
    # Clicking on the agent's action markup, wherever it shows, does nothing (found on a
    # still screen, so that the click lands on it).
    term.wait_still()
    for needle in ("error[/][@click", "title[/][@click"):
        where = term.find(needle)
        assert where is not None, needle
        column, row = where
        term.click(column + len(needle) - 3, row)
    send(term, "are you still there")
    term.wait_for("You said: are you still there")
    assert term.exited() is None
    term.press("C-q")
    assert term.wait_exit() == 0


@SIZES
def test_a_crash_with_huge_stderr_lines_still_says_how_to_recover(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    start_hostile(term)
    send(term, "crash-long-stderr")
    # The turn's error line says the exit code first; the banner (how to recover, the
    # stderr's tail) follows it.
    screen = term.wait_for("Ctrl+R")
    assert f"exit code {hostile.LONG_STDERR_EXIT_CODE}" in screen
    assert "9:EEEE" in screen
