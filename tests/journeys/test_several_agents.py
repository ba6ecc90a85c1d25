"""Several agents in one app, in a real terminal (issue 19): the demo agent and the official-SDK
agent (configured as ``[agents.sdk]``) started together, a slow turn in one while chatting in
the other, one killed (its pid) and restarted with Ctrl+R while the other keeps working, and
quitting stops both; an agent of two that cannot start is said, exit 1."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from pathlib import Path

from tests.journeys.terminal import Terminal, agent_command


def configure_sdk_agent(term: Terminal) -> None:
    command, *args = agent_command("sdk_agent.py")
    (term.home / "config" / "acp-tui" / "config.toml").write_text(
        f"[agents.sdk]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"
    )


def pane_pid(term: Terminal) -> int:
    return int(term._tmux("display", "-p", "-t", term.target, "#{pane_pid}").stdout.strip())


def descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (the pane's shell), with its command line."""
    found: dict[int, str] = {}
    parents = {pid}
    changed = True
    while changed:
        changed = False
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) in found:
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent in parents:
                found[int(entry.name)] = cmdline
                parents.add(int(entry.name))
                changed = True
    return found


def agent_pid(term: Terminal, marker: str) -> int:
    pids = [pid for pid, cmd in descendants(pane_pid(term)).items() if marker in cmd]
    assert len(pids) == 1, f"one {marker} process expected: {descendants(pane_pid(term))}"
    return pids[0]


def test_two_agents_a_slow_turn_in_one_chat_in_the_other_crash_and_restart_one(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    configure_sdk_agent(term)
    term.start(["--demo", "--agent", "sdk"])
    term.wait_header("demo agent")
    term.wait_header("(1/2, Ctrl+G next)")
    demo_pid = agent_pid(term, "acp_tui.demo_agent")
    sdk_pid = agent_pid(term, "sdk_agent.py")

    # A slow turn in the demo agent, then the other agent while it runs.
    term.send("/slow 6")
    term.wait_for("working…")
    term.press("C-g")
    # Named as configured ([agents.sdk]), with its version from initialize.
    term.wait_header("sdk 1.0")
    term.wait_header("(2/2, Ctrl+G next)")
    term.send("hello sdk")
    term.wait_for("You said: hello sdk")
    term.press("C-g")
    term.wait_header("demo agent")
    # Never cancelled by the switches: it ends as it would have.
    screen = term.wait_for("Finished the slow turn.", timeout=40)
    assert "cancelled" not in screen

    # The SDK agent dies (killed): the demo agent's view says so, and keeps working.
    os.kill(sdk_pid, signal.SIGKILL)
    screen = term.wait_for("sdk: exited")
    assert "Ctrl+R" in screen
    term.send("still here")
    term.wait_for("You said")
    assert agent_pid(term, "acp_tui.demo_agent") == demo_pid

    # Its own view: the banner, Ctrl+R restarts it alone.
    term.press("C-g")
    term.wait_header("sdk 1.0")
    term.wait_for("The agent exited")
    term.press("C-r")
    term.wait_gone("The agent exited")
    term.send("after restart")
    term.wait_for("You said: after restart")
    assert agent_pid(term, "sdk_agent.py") != sdk_pid
    assert agent_pid(term, "acp_tui.demo_agent") == demo_pid

    # Quitting stops both.
    shell = pane_pid(term)
    term.press("C-q")
    assert term.wait_exit() == 0
    assert not [cmd for cmd in descendants(shell).values() if "agent" in cmd]


def test_one_of_two_agents_that_cannot_start_is_said_and_the_exit_code_is_1(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    missing = "no-such-agent-for-acp-tui"
    term.start(["--demo", "--", missing])
    term.wait_header("demo agent")
    screen = term.wait_for("could not start")
    assert f"{missing}: could not start" in screen  # the toast names the agent
    # The demo agent works all the same.
    term.send("hello")
    term.wait_for("You said")
    term.press("C-q")
    # Exit 1, as with one agent that cannot start (the line printed on the way out is
    # checked by tests/test_cli_several_agents.py: tmux clears it with the alternate screen).
    assert term.wait_exit() == 1
