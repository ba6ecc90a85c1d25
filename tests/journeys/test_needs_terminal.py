"""A person who pipes the TUI (``acp-tui --demo | less``, ``< file``) is told at once that it
needs a terminal and what scripts use instead, rather than getting escape codes and a hang."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest

from tests.journeys.terminal import Terminal, installed_acp_tui

MESSAGE = "acp-tui needs a terminal; use `acp-tui ask` for scripts"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("redirect", ["< /dev/null", "| cat"], ids=["stdin", "stdout"])
def test_the_tui_without_a_terminal_says_so_and_exits_2(
    terminal: Callable[..., Terminal], size: tuple[int, int], redirect: str
) -> None:
    term = terminal(*size)
    acp_tui = shlex.quote(installed_acp_tui())
    # The shell stays after acp-tui (tmux 3.3 loses a dead pane's lines), and says the status
    # (in a pipeline, acp-tui's own: sh has no pipefail).
    term.start(
        ["-c", f'{{ {acp_tui} --demo; echo "status $?" >&2; }} {redirect}; exec sleep 600'],
        program="sh",
    )
    screen = term.wait_for("status ")
    assert screen.strip().splitlines() == [MESSAGE, "status 2"]  # nothing of the TUI drawn
