"""Session options and additional directories, as a person uses them in a real terminal with
the demo agent: the thinking level by its key and by its select, the boolean toggle, the mode
key; ``--add-dir`` seen by the agent, and kept when the session is reopened."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal


def open_options(term: Terminal) -> None:
    """The popup with every option, from the palette."""
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type("Session options")
    term.wait_for("Every option of this session")
    term.press("Enter")
    term.wait_for("Changes go to the agent at once")
    term.wait_still()  # the first row has the focus


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_thinking_level_by_key_and_select_and_the_boolean_toggle(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(["--demo"])
    term.wait_for("demo agent")
    term.send("hello")
    term.wait_for("You said")
    term.wait_still()
    if size[0] >= 120:
        term.wait_for("Thinking: Medium")  # in the bar (at 80 columns, in the popup)
    # The key: Medium -> High (said in a toast), and the agent thinks at length.
    term.press("M-t")
    term.wait_for("Thinking: High")
    term.send("/think why")
    term.wait_for("Done thinking (level: High)")
    # The select: Off, and the agent answers without thinking.
    if size[0] >= 120:
        bar = term.lines()[-2]  # the row above the footer (a toast may say it too)
        assert "Thinking: High" in bar, term.screen()
        term.click(bar.index("Thinking: High") + 2, len(term.lines()) - 2)
        term.wait_for(re.compile(r"^ *Low ", re.M))
        # "Off" ends its row when the transcript beside it is blank there (trimmed by tmux).
        off = [
            (found.start(), row)
            for row, line in enumerate(term.lines())
            for found in [re.search(r" Off( |$)", line)]
            if found
        ]
        assert off, term.screen()
        term.click(off[0][0] + 2, off[0][1])
        term.wait_for("Thinking: Off")
        term.wait_still()
    else:
        # At 80 columns the bar keeps the mode and the model; the popup has every option.
        open_options(term)
        term.press("Tab", "Tab")
        term.wait_still()
        term.press("Enter")  # the thinking select, opened
        term.wait_for("▲")  # its list is open
        term.press("Home", "Enter")  # its first level: Off
        term.wait_for(re.compile(r"Thinking +Off"))
        term.press("Escape")
        term.wait_gone("Changes go to the agent at once")
    term.send("/think why")
    term.wait_for(re.compile(r"Thinking is Off for this session"))
    # The toggle: "Ask before tools" off, and /run runs without asking.
    open_options(term)
    term.press("Tab", "Tab", "Tab", "Tab", "Tab", "Tab")
    term.wait_still()
    term.press("Space")
    term.wait_for(re.compile(r"Ask before tools +▐.▌ off"))
    term.press("Escape")
    term.wait_gone("Changes go to the agent at once")
    term.send("/run echo hi")
    screen = term.wait_for(re.compile(r"Run `?echo hi`?.*(done|completed)|exit (code|status) 0"))
    assert "allow once" not in screen
    # Shift+Tab from the prompt: the next mode is one that skips the permission questions,
    # entered only with a yes; "n" passes it over to the next one, Ask.
    term.press("BTab")
    term.wait_for("skips the permission questions")
    term.wait_until(lambda s: "y Switch to" in s, "the question armed")
    term.press("n")
    term.wait_for(re.compile(r"Ask +▼"))
    assert "no asking" not in term.screen()
    # Shift+Tab on, and yes: the header marks the mode while it is in force.
    term.press("BTab")
    term.wait_for(re.compile(r"Code +▼"))
    term.press("BTab")
    term.wait_until(lambda s: "y Switch to" in s, "the question armed")
    term.press("y")
    term.wait_for("▲ YOLO: no asking")
    term.press("C-q")
    assert term.wait_exit() == 0


def test_add_dir_reaches_the_agent_and_a_reopen_sends_it_again(
    terminal: Callable[..., Terminal],
) -> None:
    base = terminal()
    project = base.home / "project"
    library = base.home / "library"
    project.mkdir()
    library.mkdir()
    # A directory that is not there: a clear error, and nothing starts.
    base.start(["--demo", "--add-dir", "../nowhere"], cwd=project)
    assert base.wait_exit() == 2
    said = re.sub(r"\s", "", base.screen())  # a long path wraps, where a space may go
    assert "--add-dir../nowhere:" in said and "nosuchdirectory" in said

    # 80 columns: no sidebar beside the answer (its border would be inside a wrapped path).
    term = terminal(80, 24, name="first")
    term.home, term.env = base.home, base.env
    term.start(["--demo", "--add-dir", "../library"], cwd=project)
    term.wait_header("New session")
    term.wait_for("+ library")  # the header says where else the session works
    term.send("/dirs")
    screen = term.wait_for("additional directory")
    said = re.sub(r"\s", "", screen)
    assert re.sub(r"\s", "", f"{library} (additional directory, exists)") in said
    term.press("C-q")
    assert term.wait_exit() == 0

    # Reopened without --add-dir: the session's directories go with it.
    again = terminal(80, 24, name="again")
    again.home, again.env = term.home, term.env
    again.start(["--demo", "--continue"], cwd=project)
    again.wait_for("+ library")
    again.send("/dirs")
    again.wait_until(lambda s: s.count("additional directory") >= 2, "the second answer")
    again.press("C-q")
    assert again.wait_exit() == 0
