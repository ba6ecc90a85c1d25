"""Record and replay in a real terminal: a recording of a real session plays back with its
reply and its permission dialog, and a session recorded here replays as it was."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.journeys.terminal import Terminal

DATA = Path(__file__).resolve().parent.parent / "data" / "recordings"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_a_replay_shows_the_permission_dialog_and_the_reply(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    # At twice the recorded pace: the pacing is real, the journey short.
    term.start(["replay", "--speed", "2", str(DATA / "demo-permission.jsonl")])
    term.wait_for("replay · acp-tui demo agent")
    screen = term.wait_for("Permission requested")
    assert "Edit notes.txt" in screen
    term.wait_until(lambda s: "1-4 choose" in s, "the dialog's key hints")
    term.press("1")
    term.wait_for("Allowed once")
    screen = term.wait_for("AND A SECOND TURN")  # the recorded reply to the second turn
    assert "and a second turn" in screen
    assert "Permission requested" not in screen
    term.press("C-q")
    assert term.wait_exit() == 0


def test_a_session_recorded_here_replays_as_it_was(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    path = tmp_path / "recorded.jsonl"
    term = terminal(name="record")
    term.start(["--record", str(path), "--demo"])
    term.wait_header("New session")  # the agent is ready; the message makes the session
    term.send("hello from the journey")
    term.wait_for("HELLO FROM THE JOURNEY")
    term.press("C-q")
    assert term.wait_exit() == 0

    check = subprocess.run(
        [sys.executable, "-m", "acp_tui", "replay", "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr

    replay = terminal(name="replay")
    replay.start(["replay", "--fast", str(path)])
    screen = replay.wait_for("HELLO FROM THE JOURNEY")
    assert "replay · acp-tui demo agent" in screen
    assert "hello from the journey" in screen
    replay.press("C-q")
    assert replay.wait_exit() == 0
