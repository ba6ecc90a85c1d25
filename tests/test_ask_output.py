"""``acp-tui ask`` as a script sees it: the reply on stdout ends with a newline, even when the
agent's text does not (so the shell prompt or the next command's output starts on its own line)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENTS = Path(__file__).resolve().parent / "agents"


def ask(tmp_path: Path, prompt: str, agent: list[str]) -> subprocess.CompletedProcess[str]:
    acp_tui = Path(sys.executable).parent / "acp-tui"
    return subprocess.run(
        [str(acp_tui), "ask", prompt, "--cwd", str(tmp_path), "--", *agent],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_reply_without_a_final_newline_gets_one(tmp_path: Path) -> None:
    # The fixture agent answers "You said: ping", with no newline at the end.
    result = ask(tmp_path, "ping", [sys.executable, str(AGENTS / "fixture_agent.py")])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "You said: ping\n"
    # The stop line is last; a loaded machine may put an "[info]" note about the project's
    # first snapshot before it.
    *notes, last = result.stderr.splitlines()
    assert last.startswith("stop: end_turn"), result.stderr
    assert all(note.startswith("[info] ") for note in notes), result.stderr


def test_the_sdk_agent_reply_ends_with_a_newline(tmp_path: Path) -> None:
    result = ask(tmp_path, "ping", [sys.executable, str(AGENTS / "sdk_agent.py")])
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("ping\n") and not result.stdout.endswith("\n\n")
