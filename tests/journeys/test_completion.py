"""Tab completes acp-tui's options and sub-commands in bash, zsh and fish, once the shell has
loaded what ``acp-tui completion SHELL`` prints, as the README says."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, installed_acp_tui

#: Each shell started without the person's own files, and how the README loads its code.
SHELLS = {
    "bash": (["--norc", "--noprofile"], 'eval "$(acp-tui completion bash)"'),
    "zsh": (["-f"], 'autoload -U compinit && compinit -u && eval "$(acp-tui completion zsh)"'),
    "fish": (["--no-config"], "acp-tui completion fish | source"),
}


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("shell", list(SHELLS))
def test_tab_completes_options_and_commands(
    terminal: Callable[..., Terminal], shell: str, size: tuple[int, int]
) -> None:
    program = shutil.which(shell)
    assert program, f"{shell} is not installed (.ci/run installs it)"
    args, load = SHELLS[shell]
    path = f"{os.path.dirname(installed_acp_tui())}{os.pathsep}{os.environ.get('PATH', '')}"
    term = terminal(*size)
    term.start(args, program=program, env={"PATH": path, "PS1": "$ ", "SHELL": program})
    term.send(load)
    term.send("echo loaded")
    term.wait_for("\nloaded")
    term.type("acp-tui --conti")
    term.press("Tab")
    term.wait_for("acp-tui --continue")
    term.press("C-u")
    term.type("acp-tui rep")
    term.press("Tab")
    term.wait_for("acp-tui replay")
    term.press("C-u")
    term.type("acp-tui replay --ch")
    term.press("Tab")
    term.wait_for("acp-tui replay --check")
