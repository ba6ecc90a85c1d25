"""The client's system prompt in a real terminal with the demo agent: set on the command line
(120x40) or for a project in the config (80x24), quoted back by the agent's ``/system``,
shown whole from the palette, and sent again with a new session; a whole session around it
(a tool call with its permission, a second turn, a session switch)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal
from tests.journeys.test_several_agents import configure_sdk_agent

RULES = "Answer like a pirate.\nNever use [b]markup[/b]."


def _start(term: Terminal, from_config: bool) -> None:
    work = term.home / "work"
    work.mkdir()
    (work / "rules.md").write_text(RULES)
    if from_config:
        (term.home / "config" / "acp-tui" / "config.toml").write_text(
            f'[projects."{work}"]\nsystem_prompt = "@rules.md"\n'
        )
        term.start(["--demo"], cwd=work)
    else:
        term.start(["--demo", "--system-prompt", "@rules.md"], cwd=work)


@pytest.mark.parametrize(
    ("size", "from_config"), [((120, 40), False), ((80, 24), True)], ids=["120x40", "80x24"]
)
def test_the_agent_gets_it_with_each_session_and_the_palette_shows_it(
    terminal: Callable[..., Terminal], size: tuple[int, int], from_config: bool
) -> None:
    term = terminal(*size)
    _start(term, from_config)
    term.wait_header("New session")
    term.send("/system")
    term.wait_for("system prompt for this session (append, 46 characters)")
    term.wait_for("Never use [b]markup[/b].")
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    assert_frame(term, "after /system")
    # A tool call with its permission, then a second turn.
    term.send("/edit notes.txt")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_gone("Permission requested")
    term.wait_until(lambda s: "working" not in s, "the edit to end", twice=True)
    term.send("second turn")
    term.wait_for("You said")
    term.wait_until(lambda s: "working" not in s, "the second turn to end", twice=True)
    # The palette names the one in force, and shows it whole.
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type("System prompt")
    origin = "projects" if from_config else "--system-prompt"
    term.wait_for(origin)
    term.press("Enter")
    screen = term.wait_for("Answer like a pirate.")
    assert "System prompt: append, sent with each session" in screen, screen
    assert "From" in screen and origin in screen, screen  # (wrapped at 80 columns)
    assert "Never use [b]markup[/b]." in screen, screen
    term.press("Escape")
    term.wait_gone("Answer like a pirate.")
    # Another session: it goes with that one too.
    term.press("C-n")
    term.wait_header("New session")
    term.send("/system")
    term.wait_for(re.compile(r"system prompt for this session \(append, 46 characters\)"))
    term.wait_until(lambda s: "working" not in s, "the last turn to end", twice=True)
    assert_frame(term, "in the second session")


def test_an_agent_that_does_not_take_it_gets_none_and_the_person_is_told_once(
    terminal: Callable[..., Terminal],
) -> None:
    """The official SDK's agent advertises no system prompt: nothing is sent, the person is
    told once (not again with the next session), and the session works as ever."""
    term = terminal(80, 24)
    configure_sdk_agent(term)
    term.start(["--agent", "sdk", "--system-prompt", "Answer like a pirate."])
    # Said first, so that a toast cut short still says it.
    term.wait_for("System prompt not sent")
    term.wait_header("sdk")
    # A tool call with its permission, then a second turn.
    term.send("permission please")
    term.wait_for("Permission requested")
    term.wait_until(lambda s: "choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_for("outcome:")
    term.wait_until(lambda s: "working" not in s, "the turn to end", twice=True)
    term.send("hello sdk")
    term.wait_for("You said: hello sdk")
    term.wait_gone("System prompt not sent", timeout=60)
    # Another session: said once was enough.
    term.press("C-n")
    term.wait_header("New session")
    term.send("again sdk")
    term.wait_for("You said: again sdk")
    term.wait_until(lambda s: "working" not in s, "the last turn to end", twice=True)
    assert "System prompt not sent" not in term.screen()
    assert_frame(term, "in the second session")
