"""Hostile agents in a real terminal (issue 17): what the person sees when an agent tries to
spoof a question, run a command with a hostile environment, crash with children running, or
leave a daemon behind when acp-tui quits."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.journeys.terminal import Terminal, agent_command


def hostile(*flags: str) -> list[str]:
    return ["--", *agent_command("hostile_agent.py", *flags)]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_spoofed_question_shows_the_agents_text_on_its_own_line(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    term.start(hostile())
    term.wait_for("Hostile Agent")
    term.wait_until(lambda s: "Message the agent" in s, "the prompt")
    term.send("spoof-terminal")
    screen = term.wait_for("Allow this once")
    assert "Run this command?" in screen and "changes PATH" in screen
    assert "ls\\n\\nSAFE: read-only command" in screen
    for row in screen.splitlines():
        assert not row.strip(" █▎▏▕│┃").startswith("SAFE"), f"a spoofed line: {row!r}"
    term.press("Escape")
    screen = term.wait_for("terminal refused")
    assert "Allow this once" not in screen
    # The session goes on.
    term.send("still here")
    term.wait_for("You said: still here")


def test_a_crash_with_children_is_seen_they_die_and_ctrl_r_keeps_the_transcript(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    pids_file = tmp_path / "children.pid"
    history = tmp_path / "history.jsonl"
    term = terminal(120, 40)
    term.start(hostile("--load=short", f"--history={history}"))
    term.wait_until(lambda s: "Message the agent" in s, "the prompt")
    term.send("first message")
    term.wait_for("You said: first message")
    term.send("second message")
    term.wait_for("You said: second message")
    term.send(f"orphans-then-crash {pids_file}")
    screen = term.wait_for("The agent exited (exit code 3)")
    assert "Ctrl+R" in screen
    pids = [int(word) for word in pids_file.read_text().split()]
    term.wait_until(lambda s: not any(alive(pid) for pid in pids), "the orphans to die")
    term.press("C-r")
    screen = term.wait_for("Kept the transcript you saw")
    assert "You said: second message" in screen
    term.send("third message")
    term.wait_for("You said: third message")


def test_quitting_stops_what_the_agent_left_running(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    pid_file = tmp_path / "daemon.pid"
    term = terminal(120, 40)
    term.start(hostile())
    term.wait_until(lambda s: "Message the agent" in s, "the prompt")
    term.send(f"spawn-daemon {pid_file}")
    term.wait_for("Started a daemon.")
    daemon = int(pid_file.read_text())
    assert alive(daemon)
    term.press("C-q")
    assert term.wait_exit() == 0
    term.wait_until(lambda s: not alive(daemon), "the daemon to be gone")


def test_the_agent_started_before_the_screen_is_the_one_used_and_a_restart_spawns_anew(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """acp-tui starts the agent before it loads its UI (acp_tui.session.launch.prestart): the first
    connection uses that process (one start, not two), a crash and Ctrl+R start one more, and
    quitting leaves none running."""
    starts = tmp_path / "starts"
    counted = ["sh", "-c", f'echo $$ >> {starts}; exec "$@"', "sh"]
    term = terminal(120, 40)
    term.start(["--", *counted, *agent_command("hostile_agent.py", "--load=short")])
    term.wait_until(lambda s: "Message the agent" in s, "the prompt")
    term.send("first message")
    term.wait_for("You said: first message")
    first = [int(word) for word in starts.read_text().split()]
    assert len(first) == 1, f"one agent started, not {len(first)}"
    term.send("crash")
    term.wait_for("The agent exited (exit code 3)")
    term.press("C-r")
    term.wait_for("Kept the transcript you saw")
    term.send("second message")
    term.wait_for("You said: second message")
    both = [int(word) for word in starts.read_text().split()]
    assert len(both) == 2 and both[0] == first[0]
    term.press("C-q")
    assert term.wait_exit() == 0
    term.wait_until(lambda s: not any(alive(pid) for pid in both), "no agent left running")
