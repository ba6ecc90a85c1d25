"""Your status line (issue 42) in a real terminal, against the demo agent and the official
SDK's agent, at 120x40 and 80x24: the items chosen in the config and the line of a status
command that reads the session's state as JSON, on the row above the footer; it appears,
updates after a permission and a second turn, follows a session switch, shows its output
literally, and leaves the rest of the frame where it was."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command

#: (acp-tui's arguments, what a reply shows, the prompt that asks a permission)
AGENTS = {
    "demo": (["--demo"], "HELLO THERE", "/run echo status-journey"),
    "sdk": (["--", *agent_command("sdk_agent.py")], "You said: hello there", "permission now"),
}
SIZES = {"120x40": (120, 40), "80x24": (80, 24)}

#: The status command: the turn count from its JSON, how many times it ran (a counter in a
#: file), and markup that must show as typed.
SCRIPT = """\
import json, sys
from pathlib import Path
state = json.load(sys.stdin)
counter = Path(sys.argv[1])
runs = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(runs))
print(f"turns={state['turn']['count']} [b]as-typed[/b] runs={runs}\\x1b[31m")
"""


def configure(term: Terminal) -> Path:
    script = term.home / "status.py"
    script.write_text(SCRIPT)
    counter = term.home / "status-runs"
    (term.home / "config" / "acp-tui" / "config.toml").write_text(
        f'status_items = ["mode", "cwd"]\nstatus_command = "{sys.executable} {script} {counter}"\n'
    )
    return counter


def own_row(term: Terminal) -> str:
    """The row above the footer: your status line."""
    return term.lines()[-2]


def wait_line(term: Terminal, pattern: str) -> str:
    """Wait until your status line matches ``pattern``; the row."""
    found = re.compile(pattern)
    term.wait_until(lambda _: bool(found.search(own_row(term))), f"the status line {pattern!r}")
    return own_row(term)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_status_commands_line_appears_and_updates(
    terminal: Callable[..., Terminal], agent: str, size: str
) -> None:
    args, reply, asks = AGENTS[agent]
    term = terminal(*SIZES[size])
    counter = configure(term)
    project = term.home / "project"
    project.mkdir()
    term.start(args, cwd=project)
    term.wait_header("New session")
    row = wait_line(term, r"turns=0 \[b\]as-typed\[/b\] runs=\d+")
    assert "project" in row  # the cwd item
    assert "[31m" not in row and "\x1b" not in row
    assert "palette" in term.lines()[-1]  # the footer stays on the last row

    # A turn with a tool call that asks permission.
    term.send(asks)
    term.wait_until(lambda s: "Permission requested" in s and "choose" in s, "the armed dialog")
    term.press("1")
    term.wait_gone("Permission requested")
    wait_line(term, r"turns=1 ")
    term.wait_gone("working…", timeout=60)
    assert_frame(term, "after the permission", own_status=True)

    # The second turn: the line visibly updates.
    term.send("hello there")
    term.wait_for(reply)
    row = wait_line(term, r"turns=2 \[b\]as-typed\[/b\] runs=(\d+)")
    runs = int(re.search(r"runs=(\d+)", row).group(1))  # type: ignore[union-attr]
    assert runs >= 3, row  # it ran again as the session changed
    assert int(counter.read_text()) >= runs
    assert_frame(term, "after the second turn", own_status=True)

    # Another session: its own state.
    term.press("C-n")
    term.wait_header("New session")
    wait_line(term, r"turns=0 ")
    assert_frame(term, "in a new session", own_status=True)
    term.press("C-q")
    assert term.wait_exit() == 0
