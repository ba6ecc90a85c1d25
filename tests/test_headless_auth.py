"""`acp-tui ask` and sign-in: it never signs in itself (and never sends a terminal method to
authenticate); it exits 4 printing the exact command a terminal method runs. And `--protocol 2`."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
from pathlib import Path

from acp_tui.cli import headless
from acp_tui.cli.headless import EXIT_AUTH, EXIT_OK, Output
from acp_tui.cli.parse import parse
from acp_tui.demo_agent import demo_agent_argv


def ask(tmp_path: Path, agent: list[str], *args: str) -> tuple[int, str, str]:
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["ask", *args, "--cwd", str(tmp_path), "--", *agent])
    code = headless.run_ask(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


def test_ask_prints_the_terminal_sign_in_command_and_it_works(tmp_path: Path) -> None:
    state = tmp_path / "state"
    agent = demo_agent_argv(str(state), chunk_delay=0, require_auth=True)
    code, out, err = ask(tmp_path, agent, "hello")
    assert code == EXIT_AUTH and out == ""
    assert "requires authentication" in err and "Sign in in the terminal" in err
    command = err.split("run: ", 1)[1].strip()
    words = shlex.split(command)
    # cd to the session's directory when it is not ours, the method's env, then the agent's
    # own command line plus the method's args.
    if words[0] == "cd":
        assert words[1] == str(tmp_path) and words[2] == "&&"
        words = words[3:]
    assert words == ["ACP_TUI_DEMO_LOGIN=terminal", *agent, "--login"]
    # What a person does with it: run it in a terminal, answer, and ask again.
    env_name, env_value = words[0].split("=", 1)
    signed = subprocess.run(
        words[1:],
        env={**os.environ, env_name: env_value},
        cwd=tmp_path,
        input="Headless Person\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert signed.returncode == 0, signed.stdout
    code, out, err = ask(tmp_path, agent, "/login status")
    assert code == EXIT_OK and "Headless Person" in out


def test_ask_on_protocol_2_ends_the_turn_on_idle_and_prints_the_reply_once(
    tmp_path: Path,
) -> None:
    agent = demo_agent_argv(str(tmp_path / "state"), chunk_delay=0)
    code, out, err = ask(tmp_path, agent, "--protocol", "2", "--allow", "/run echo once-only")
    assert code == EXIT_OK, err
    assert out.count("exited with code 0") == 1 and "once-only" in out
    assert "allowed" in err and "stop: end_turn" in err
