"""The agent's stderr log, as a person reads it: ``cat`` in the same terminal after a session
with an agent whose stderr carries escape sequences. Nothing in it acts on the terminal (the
title stays, the screen is not cleared) and every line is there to read."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable

from tests.journeys.terminal import Terminal, agent_command

HOSTILE = (
    "import sys; w = sys.stderr.buffer.write; "
    "w(b'before \\x1b]2;pwned by stderr\\x07 \\x1b]52;c;cm0gLXJmIH4=\\x07\\n'); "
    "w(b'\\x1b[2J\\x1b[H\\xff cleared?\\n'); sys.stderr.flush()"
)


def test_the_agent_log_is_safe_to_cat(terminal: Callable[..., Terminal]) -> None:
    term = terminal(cols=80, rows=24)
    agent = shlex.join(agent_command("sdk_agent.py"))
    script = f"{shlex.quote(sys.executable)} -c {shlex.quote(HOSTILE)}; exec {agent}"
    term.start(["--", "sh", "-c", script])
    term.wait_for("New session")
    term.press("C-q")
    assert term.wait_exit() == 0
    logs = sorted((term.home / "state" / "acp-tui" / "log").glob("sh-*.log"))
    assert logs, list((term.home / "state").rglob("*"))
    reader = terminal(cols=80, rows=24, name="reader")
    reader.start(["-c", f"echo TOP; cat {shlex.quote(str(logs[-1]))}; sleep 30"], program="sh")
    screen = reader.wait_for("cleared?")
    assert "TOP" in screen  # not cleared
    assert "pwned" not in reader.title()
    assert "before \\x1b]2;pwned by stderr\\x07 \\x1b]52;c;cm0gLXJmIH4=\\x07" in screen
