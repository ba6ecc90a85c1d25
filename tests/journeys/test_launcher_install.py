"""With no agent installed, the launcher lists every well-known agent with its install
command, and Enter copies one (tmux keeps what the app sends to the clipboard, OSC 52)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, installed_acp_tui


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_an_install_command_is_offered_and_copied(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    # Only acp-tui's own folder and the system's: no agent on this PATH.
    path = os.pathsep.join([os.path.dirname(installed_acp_tui()), "/usr/bin", "/bin"])
    term.start([], env={"PATH": path})
    term._tmux("set", "-g", "set-clipboard", "on")
    term.wait_for("No agent found on your PATH")
    term.wait_for("npm install -g @zed-industries/claude-agent-acp")
    term.wait_still()
    term.press("Tab")
    term.wait_still()
    for _ in range(3):  # Claude Code, its older adapter, Gemini CLI, then Codex
        term.press("Down")
        term.wait_still()
    term.press("Enter")
    term.wait_for("Copied: npm install -g")
    term.wait_until(
        lambda _s: (
            term._tmux("show-buffer", check=False).stdout
            == "npm install -g @zed-industries/codex-acp"
        ),
        "the command on the clipboard",
    )
    term.wait_for("choose an agent")  # nothing was started
    term.press("C-q")
    assert term.wait_exit() == 0
