"""``python -m acp_tui.demo_agent --login``: the demo agent's terminal sign-in step.

A client that supports terminal authentication runs this in the person's real terminal
(the agent's own command plus the auth method's ``args`` and ``env``). It talks to the
person on stdin/stdout, not ACP: it asks for a name, writes a token into the agent's state
directory and exits 0; any other ending (no answer, Ctrl-C, end of input) exits 1, which
tells the client the sign-in failed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from acp_tui.demo_agent.auth import LOGIN_ENV, write_token
from acp_tui.demo_agent.sessions import now_iso

MAX_NAME = 60


def run_login(state_dir: Path, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    method = os.environ.get(LOGIN_ENV, "command line")
    stdout.write(
        "acp-tui demo agent: sign in\n"
        "(Nothing leaves this machine: the demo agent stores your name in\n"
        f" {state_dir} and treats that as being signed in.)\n\n"
    )
    for _attempt in range(3):
        stdout.write("Your name: ")
        stdout.flush()
        try:
            line = stdin.readline()
        except KeyboardInterrupt:
            line = ""
        if not line:
            stdout.write("\nNot signed in.\n")
            return 1
        name = " ".join(line.split())[:MAX_NAME]
        if name:
            write_token(state_dir, name, method, now_iso())
            stdout.write(f"Signed in as {name}. You can go back to your client now.\n")
            stdout.flush()
            return 0
        stdout.write("A name, please (anything will do).\n")
    stdout.write("Not signed in.\n")
    return 1
