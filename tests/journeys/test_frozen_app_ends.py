"""A frozen acp-tui still ends: its event loop held for good (a busy loop in Python, a wait in
C), it ignored SIGHUP, SIGTERM and its terminal closing, and burned a core with its agent alive
and nobody to see it. A thread of its own hears the signal now: the app is asked to quit, and
ended with its agents when it cannot (acp_tui/ui/termination.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.ui.termination import QUIT_GRACE
from tests.journeys.terminal import Terminal
from tests.journeys.test_first_run import alive, children

FROZEN = str(Path(__file__).resolve().parent.parent / "fake_clients" / "frozen_acp_tui.py")
#: How long ending may take: the grace the app gets to quit in order, and some.
ENDED_WITHIN = QUIT_GRACE + 20.0


def frozen_demo(term: Terminal, mode: str, mark: Path) -> tuple[str, list[str]]:
    """acp-tui on the demo agent, a reply under way, then frozen; the pids of acp-tui and of
    its agent."""
    term.start([FROZEN, mode, "--demo"], program=sys.executable, env={"FROZEN_MARK": str(mark)})
    term.wait_for("Message the agent")
    term.send("/slow 30")
    term.wait_for("working…")
    shell = term._tmux("display", "-p", "-t", term.target, "#{pane_pid}").stdout.strip()
    (acp_tui,) = children(shell)
    agents = children(acp_tui)
    assert agents, "the demo agent runs as acp-tui's child"
    term.press("F12")
    deadline = time.monotonic() + 30
    while not mark.exists():
        assert time.monotonic() < deadline, "the app did not freeze"
        time.sleep(0.05)
    return acp_tui, agents


def wait_gone(pids: list[str]) -> None:
    deadline = time.monotonic() + ENDED_WITHIN
    for pid in pids:
        while alive(pid):
            assert time.monotonic() < deadline, f"process {pid} still runs"
            time.sleep(0.05)


@pytest.mark.parametrize(
    ("mode", "signal_name"), [("spin", "HUP"), ("spin", "TERM"), ("sleep", "HUP")]
)
def test_a_frozen_app_ends_on_a_signal_and_its_agent_with_it(
    terminal: Callable[..., Terminal], tmp_path: Path, mode: str, signal_name: str
) -> None:
    term = terminal(100, 24)
    acp_tui, agents = frozen_demo(term, mode, tmp_path / "frozen")
    subprocess.run(["kill", f"-{signal_name}", acp_tui], check=True)
    wait_gone([acp_tui, *agents])
    number = getattr(signal, f"SIG{signal_name}")
    assert term.wait_exit() == 128 + number
    if signal_name == "TERM":
        # The terminal is still there: given back its modes.
        modes = term._tmux(
            "display", "-p", "-t", term.target, "#{alternate_on} #{mouse_any_flag}"
        ).stdout.split()
        assert modes == ["0", "0"], "the alternate screen and mouse reporting are left on"


def test_a_frozen_app_ends_when_its_terminal_closes(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    term = terminal(100, 24)
    acp_tui, agents = frozen_demo(term, "spin", tmp_path / "frozen")
    term.close()
    wait_gone([acp_tui, *agents])
