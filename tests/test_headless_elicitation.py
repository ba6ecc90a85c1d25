"""`acp-tui ask` against the demo agent: a form is declined (nobody is there to fill it in)
and stderr says so; a notice is one line on stderr; a url request is not offered."""

from __future__ import annotations

import io
from pathlib import Path

from acp_tui.cli import headless
from acp_tui.cli.headless import Output
from acp_tui.cli.parse import parse
from acp_tui.demo_agent import demo_agent_argv


def ask(tmp_path: Path, prompt: str) -> tuple[int, str, str]:
    output = Output(io.StringIO(), io.StringIO())
    agent = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    invocation = parse(["ask", prompt, "--cwd", str(tmp_path), "--", *agent])
    code = headless.run_ask(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


def test_a_form_is_declined_and_stderr_says_what_was_asked(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "/ask")
    assert code == 0
    assert "You **declined** the form (action `decline`)" in out
    assert "[question] declined a form (acp-tui ask cannot fill one in): About you" in err
    assert "Traceback" not in err


def test_a_url_request_is_not_offered_to_ask(tmp_path: Path) -> None:
    code, out, _ = ask(tmp_path, "/ask url 0")
    assert code == 0
    assert "did not advertise `elicitation.url`" in out


def test_a_notice_is_one_line_on_stderr(tmp_path: Path) -> None:
    code, out, err = ask(tmp_path, "/notice error Disk | almost full")
    assert code == 0
    assert "[error] Disk: almost full" in err.splitlines()
    assert "Disk" not in out.split("Sent")[0], "the notice is not part of the reply"
