"""The TUI refuses to start without a terminal on stdin and stdout (it would write escape
codes into a pipe and wait for keys for ever): one line on stderr, exit 2. ``--serve`` and
the headless commands are not the TUI and are unaffected."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.cli.terminal import NEEDS_TERMINAL, terminal_problem

DATA = Path(__file__).parent / "data" / "recordings"
#: A hang guard: the refusal takes well under a second; the TUI started into a pipe never ends.
LIMIT = 60


def _run(*args: str, stdin: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    env = {key: value for key, value in os.environ.items() if key != "TEXTUAL_DRIVER"}
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        stdin=stdin,
        capture_output=True,
        timeout=LIMIT,
        env=env,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--demo"],
        [],
        ["--", sys.executable, "-c", "pass"],
        ["replay", str(DATA / "demo-permission.jsonl")],
    ],
    ids=["demo", "launcher", "command", "replay"],
)
def test_the_tui_into_pipes_says_it_needs_a_terminal_and_exits_2(args: list[str]) -> None:
    result = _run(*args)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == NEEDS_TERMINAL
    assert result.stdout == b""  # no escape codes written into the pipe


def test_a_terminal_on_stdin_is_not_enough_when_stdout_is_a_pipe() -> None:
    leader, follower = pty.openpty()
    try:
        result = _run("--demo", stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == NEEDS_TERMINAL
    assert result.stdout == b""


def test_the_headless_commands_run_without_a_terminal() -> None:
    ask = _run("ask", "hello", "--demo")
    assert ask.returncode == 0 and b"hello" in ask.stdout
    check = _run("replay", "--check", str(DATA / "demo-permission.jsonl"))
    assert check.returncode == 0 and b"no protocol errors" in check.stdout


def test_terminals_on_both_pass_and_a_textual_driver_of_its_own_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    leader, follower = pty.openpty()
    try:
        with open(follower, closefd=False) as tty:
            monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
            assert terminal_problem(tty, tty) is None
            assert terminal_problem(io.StringIO(), tty) == NEEDS_TERMINAL
            assert terminal_problem(tty, io.StringIO()) == NEEDS_TERMINAL
            # textual-serve runs the app (--serve) on pipes with its web driver.
            monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
            assert terminal_problem(io.StringIO(), io.StringIO()) is None
    finally:
        os.close(follower)
        os.close(leader)
