"""Subagents and background work in a real terminal (issue 41), against the demo agent over
real pipes: ``/subagents`` starts two children, one asking a permission that names it and
its parent; each child's card opens its own transcript (a click at 120x40, the palette at
80x24) and Escape comes back; the sidebar lists the children under their parent; work left
running by ``/background`` is counted on the status line and cancelled, row by row, from
Ctrl+P → Background work; then a second turn and another session. With the official SDK's
agent beside the demo agent, the panel lists the demo's work from the SDK agent's view, goes
to it and cancels it there."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal
from tests.journeys.test_several_agents import configure_sdk_agent

IDLE = "the turn to end"


def _idle(term: Terminal) -> str:
    return term.wait_until(lambda s: "working…" not in s, IDLE, twice=True)


def _palette(term: Terminal, entry: str) -> None:
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type(entry)
    term.wait_for(entry)
    term.press("Enter")


def _subagents(term: Terminal) -> None:
    """``/subagents`` to its end, its child's permission allowed."""
    term.send("/subagents")
    screen = term.wait_for("Permission requested")
    assert "Subagent: Check the tests" in screen and "of: /subagents" in screen, screen
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_gone("Permission requested")
    term.wait_for("Both subagents are back: 2 finished", timeout=60)
    _idle(term)


def _open_child(term: Terminal, by_click: bool) -> None:
    if by_click:
        term.wait_still()
        found = term.find("⧉ Research the code  ✓ done")
        assert found is not None, term.screen()
        term.click(found[0] + 2, found[1])
    else:
        _palette(term, "Open subagent: Research the code")
    term.wait_header("subagent of /subagents")
    term.wait_for("Find where the parser lives")  # its task, from the parent
    term.wait_for("Read src/parser.py")  # its own tool call
    assert_frame(term, "in the child's view")
    term.press("Escape")
    term.wait_until(
        lambda s: "subagent of" not in s.split("\n", 1)[0] and "/subagents" in s.split("\n")[0],
        "back to the parent",
    )


def _background_cancelled(term: Terminal) -> None:
    """``/background``'s watcher and child, counted and cancelled from the panel."""
    term.send("/background 120")
    term.wait_for("2 running in the background")
    _idle(term)
    _palette(term, "Background work")
    screen = term.wait_for("subagent: Keep an eye on CI")
    assert "tool call: Watch for file changes" in screen, screen
    term.press("Down", "Delete")  # the second row: the child
    term.wait_for("Sent session/cancel")
    term.wait_gone("subagent: Keep an eye on CI")
    term.press("Delete")  # the watcher: v1 cancels it with its whole session
    term.wait_for("Nothing is running in the background.")
    term.press("Escape")
    term.wait_gone("Nothing is running in the background.")
    screen = term.wait_for("✗ cancelled")
    term.wait_gone("running in the background")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_cards_a_childs_view_the_sidebar_and_the_panel(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_header("New session")
    _subagents(term)
    assert_frame(term, "after /subagents")
    if size[0] >= 120:  # the sidebar shows: the children folded under their parent
        term.wait_for("▸ 2 subagents")
    _open_child(term, by_click=size[0] >= 120)
    # The sidebar: the children folded under their parent, unfolded with Right.
    term.press("C-b")
    term.wait_until(lambda s: "Archive" in s.splitlines()[-1], "the sidebar's keys")
    term.wait_for("2 subagents")  # unfolded when a child was opened: Left folds them
    term.press("Left")
    term.wait_for("▸ 2 subagents")
    term.wait_gone("subagent · done")
    term.press("Right")
    term.wait_for("▾ 2 subagents")
    term.wait_for("subagent · done")  # a child's row, under its parent
    term.press("Escape")
    term.wait_until(lambda s: "Archive" not in s.splitlines()[-1], "the prompt's keys")
    _background_cancelled(term)
    # A second turn, then another session and back.
    term.send("second turn")
    term.wait_for("You said")
    _idle(term)
    term.press("C-n")
    term.wait_header("New session")
    term.send("hello there")
    term.wait_for("You said")
    _idle(term)
    assert_frame(term, "in another session")


def test_the_panel_lists_and_cancels_the_demos_work_from_the_sdk_agents_view(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    configure_sdk_agent(term)
    term.start(["--demo", "--agent", "sdk"])
    term.wait_header("demo agent")
    term.send("/background 120")
    term.wait_for("2 running in the background")
    _idle(term)
    # The other agent: a tool call with its permission, a second turn; the count is the
    # workspace's, so it shows there too.
    term.press("C-g")
    term.wait_header("sdk 1.0")
    term.send("permission please")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_for("outcome:")
    _idle(term)
    term.send("hello sdk")
    term.wait_for("You said: hello sdk")
    _idle(term)
    term.wait_for("2 running in the background")
    _palette(term, "Background work")
    screen = term.wait_for("subagent: Keep an eye on CI")
    assert screen.count("demo agent") >= 2, screen
    # Enter goes to the work: the demo agent's session.
    term.press("Enter")
    term.wait_header("demo agent")
    _palette(term, "Background work")
    term.wait_for("subagent: Keep an eye on CI")
    term.press("Delete")
    term.wait_gone("tool call: Watch for file changes")
    term.press("Delete")
    term.wait_for("Nothing is running in the background.")
    term.press("Escape")
    term.wait_gone("running in the background")
    assert_frame(term, "the work cancelled")
