"""Typing goes to the prompt after a click on something that has no use for keys: a tool call
block, a thought, a queued message's "remove" button; and editing keys typed just before a key
that opens something else (Ctrl+P, Ctrl+B) edit the prompt."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame, prompt_text
from tests.journeys.terminal import Terminal


def click_on(term: Terminal, text: str, *, settle: bool = True) -> None:
    """Click on ``text``; first, unless told it stays put, until the screen stops moving."""
    if settle:
        term.wait_still()
    where = term.find(text)
    assert where is not None, f"{text!r} is not on the screen:\n{term.screen()}"
    term.click(*where)


def typed_reaches_the_prompt(term: Terminal, text: str) -> None:
    term.type(text)
    term.wait_until(lambda _: prompt_text(term) == text, f"{text!r} in the prompt")
    # Sent with Enter from there: the prompt has the focus, not only the text.
    term.press("Enter")
    term.wait_until(lambda _: prompt_text(term).startswith("Message the agent"), "sent")


def test_typing_after_clicking_a_tool_block_and_a_thought(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(120, 40)
    term.start(["--demo", "--yolo"])
    term.wait_header("New session")
    term.send("/run echo from-the-tool")
    term.wait_for("exited with code 0")
    click_on(term, "Run echo from-the-tool")
    typed_reaches_the_prompt(term, "after the tool block")
    term.wait_for("You said")
    term.send("/think about tests")
    term.wait_for("Done thinking")
    click_on(term, "Thinking")
    term.wait_for("▾ 💭 Thinking")  # the click opened it
    typed_reaches_the_prompt(term, "after the thought")
    term.wait_for("after the thought")
    assert_frame(term, "after the clicks")


def test_typing_after_removing_a_queued_message(terminal: Callable[..., Terminal]) -> None:
    term = terminal(120, 40)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/slow 30")
    term.wait_for("working…")
    term.send("a message for later")
    term.wait_for("⏳ a message for later")
    click_on(term, "remove", settle=False)  # right above the prompt, as the turn streams
    term.wait_gone("⏳ a message for later")
    term.type("typed after the click")
    term.wait_until(lambda _: prompt_text(term) == "typed after the click", "the prompt")
    term.press("Escape")  # cancels the slow turn; the draft stays
    term.wait_for("cancelled")
    assert prompt_text(term) == "typed after the click"
    assert_frame(term, "after the cancel")


@pytest.mark.textual_patch("key-order")
def test_backspaces_typed_just_before_ctrl_p_and_ctrl_b_edit_the_prompt(
    terminal: Callable[..., Terminal],
) -> None:
    """Ctrl+P and Ctrl+B act at once; the Backspaces read with them went to the palette or the
    sessions list opened meanwhile, and the prompt kept its text."""
    term = terminal(120, 40)
    term.start(["--demo"])
    term.wait_header("New session")
    term.type("hello world and more")
    term.wait_until(lambda _: prompt_text(term) == "hello world and more", "the text")
    term.press_together(*["BSpace"] * 5, "C-p")
    term.wait_for("Search for commands")
    term.press("Escape")
    term.wait_gone("Search for commands")
    term.wait_until(lambda _: prompt_text(term) == "hello world and", "five characters fewer")
    term.press_together(*["BSpace"] * 4, "C-b")
    term.wait_until(lambda _: prompt_text(term) == "hello world", "four more fewer")
    assert_frame(term, "after the keys")
