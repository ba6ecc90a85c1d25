"""Search all sessions (issue 43), in a real terminal: a word said three sessions ago to
another agent (the official SDK's test agent, configured) is found from the demo agent's
view with Ctrl+F, and Enter starts that agent, reopens the session and lands on the word
(scrolled to it: later messages are below it)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command

FILLERS = 8


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_word_said_to_another_agent_is_found_and_enter_lands_on_it(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    sdk = agent_command("sdk_agent.py")
    state = term.home / "sdk-state"
    state.mkdir()
    config = term.home / "config" / "acp-tui" / "config.toml"
    config.write_text(
        f"[agents.sdk]\ncommand = {json.dumps(sdk[0])}\nargs = {json.dumps(sdk[1:])}\n"
        f"env = {{ SDK_AGENT_STATE_DIR = {json.dumps(str(state))} }}\n"
    )
    # Three sessions with the SDK agent; the word in the first, with more said after it.
    term.start(["--agent", "sdk"], cwd=term.home)
    term.wait_header("New session")
    term.send("the quokka sleeps tonight")
    term.wait_for("You said: the quokka sleeps tonight")
    for n in range(FILLERS):
        term.send(f"filler {n}")
        term.wait_for(f"You said: filler {n}")
    for other in ("second session", "third session"):
        term.press("C-n")
        term.wait_header("New session")
        term.send(other)
        term.wait_for(f"You said: {other}")
    term.press("C-q")
    assert term.wait_exit() == 0

    # Another run, another agent on screen.
    again = terminal(*size)
    again.home = term.home
    again.env.update(term.env)
    again.start(["--demo"], cwd=term.home)
    again.wait_header("New session")
    again.send("hello demo")
    again.wait_for("You said")
    again.press("C-f")
    again.wait_for("Search all sessions")
    again.type("quokka")
    screen = again.wait_until(
        lambda s: "the quokka sleeps tonight" in s and "sdk" in s and "found" in s,
        "the word found, in the SDK agent's session",
    )
    assert "filler" not in screen  # only what holds the word
    assert "You said: the quokka sleeps tonight" in screen  # the snippet, its spaces kept
    again.press("Enter")
    # The SDK agent starts, its session is loaded, and the view lands on the word: the
    # fillers said after it are further down, the last of them off screen.
    landed = again.wait_until(
        lambda s: (
            "Search all sessions" not in s
            and s.splitlines()[0].lstrip().startswith("sdk")  # the SDK agent's view
            and "You said: the quokka sleeps tonight" in s
            and f"You said: filler {FILLERS - 1}" not in s  # scrolled up to the word
        ),
        "the session shown at the word",
    )
    assert "the quokka sleeps tonight" in landed
    assert_frame(again, "landed on the word")
    again.press("C-q")
    assert again.wait_exit() == 0


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_session_forgotten_with_ctrl_r_is_found_no_more(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"], cwd=term.home)
    term.wait_header("New session")
    term.send("the wombat [bold]sings[/]")
    term.wait_for("You said")
    term.press("C-f")
    term.wait_for("Search all sessions")
    term.type("wombat")
    screen = term.wait_until(lambda s: "found ·" in s, "the word found")
    assert "the wombat [bold]sings[/]" in screen  # agent text, never markup
    term.press("C-r")
    term.wait_for("Forgotten")
    term.type(" ")  # searched again: the index holds it no more
    term.wait_for("Nothing found")
    term.press("Escape")
    term.wait_gone("Search all sessions")
    assert_frame(term, "back in the chat")
    term.press("C-q")
    assert term.wait_exit() == 0
