"""Headless `ask` and `sessions` on the round 2 hostile agent (issue 17)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from acp_tui.cli import headless
from acp_tui.cli.headless import Output
from acp_tui.cli.parse import parse
from tests.agents import hostile_core as core

HOSTILE = [sys.executable, str(Path(core.__file__).with_name("hostile_agent.py"))]


def run(
    tmp_path: Path, command: str, *args: str, flags: tuple[str, ...] = ()
) -> tuple[int, str, str]:
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse([command, *args, "--cwd", str(tmp_path), "--", *HOSTILE, *flags])
    runner = headless.run_ask if command == "ask" else headless.run_sessions
    code = runner(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


def test_a_lone_surrogate_does_not_cut_stdout_short(tmp_path: Path) -> None:
    """Issue 17 #8: stdout stopped at the surrogate and `ask` still exited 0. Through a real
    pipe, as a script sees it."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "ask",
            "surrogate",
            "--cwd",
            str(tmp_path),
            "--",
            *HOSTILE,
        ],
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8")
    assert out == "Lone \ufffd surrogate in a reply. And the reply goes on.\n"
    assert b"Traceback" not in result.stderr


def test_sessions_with_a_repeated_cursor_lists_each_once_and_says_it_stopped(
    tmp_path: Path,
) -> None:
    """Issue 17 #11: a duplicate row, and a loop avoided only by luck."""
    for mode in ("repeat", "cycle", "fresh"):
        code, out, err = run(tmp_path, "sessions", "--all", flags=(f"--list={mode}",))
        assert code == 0, err
        ids = [line.split()[-1] for line in out.splitlines()[1:]]
        assert sorted(ids) == sorted(set(ids)), out
        assert "stopped listing" in err, err


def test_a_terminal_outside_is_refused_without_allow_outside(tmp_path: Path) -> None:
    """Issue 17 #3, headless: refused, with a clear line on stderr; allowed with the flag."""
    code, out, err = run(tmp_path, "ask", "terminal-outside /")
    assert code == 0, err
    assert "terminal refused" in out
    refusal = [line for line in err.splitlines() if line.startswith("acp-tui: refused:")]
    assert len(refusal) == 1 and "outside" in refusal[0] and "--allow-outside" in refusal[0]
    assert "Command: pwd" in refusal[0] and "Directory: /" in refusal[0]

    code, out, err = run(tmp_path, "ask", "terminal-outside /", "--allow-outside")
    assert code == 0, err
    assert "terminal ran: /" in out
    assert "acp-tui: allowed (--allow-outside):" in err


def test_a_terminal_with_a_loader_variable_is_refused(tmp_path: Path) -> None:
    _, out, err = run(tmp_path, "ask", "terminal-env LD_PRELOAD=/nonexistent.so")
    assert "terminal refused" in out
    assert "LD_PRELOAD" in err and "--allow-outside" in err
    _, out, err = run(tmp_path, "ask", "terminal-env GREETING=hi")
    assert "terminal ran: GREETING=hi" in out and "refused" not in err


def test_a_spoofing_path_is_one_escaped_line_on_stderr(tmp_path: Path) -> None:
    _, out, err = run(tmp_path, "ask", "spoof-read")
    assert "read refused" in out
    [line] = [line for line in err.splitlines() if "refused:" in line]
    assert "\\n\\n  SAFE: this file is inside your project\\n" in line
    assert not any(line.lstrip().startswith("SAFE") for line in err.splitlines())


def test_an_agent_that_closes_its_stdin_is_said_to_have_closed_its_input(
    tmp_path: Path,
) -> None:
    """Issue 17 #13, headless: the answer to its request cannot be written; the message says
    it closed its input, not its output."""
    code, out, err = run(tmp_path, "ask", "close-stdin ask", "--allow")
    assert code == headless.EXIT_CRASH, err
    assert core.CLOSED_STDIN in out
    [line] = [line for line in err.splitlines() if line.startswith("acp-tui: ")]
    assert "closed its input (stdin)" in line and "closed its output" not in line
