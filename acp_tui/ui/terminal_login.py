"""A terminal sign-in, run in the person's real terminal while the TUI steps aside.

The agent's own command (plus the method's ``args`` and ``env``) needs the terminal to itself:
Textual's ``App.suspend()`` gives it back as it was before the app started, the command runs
there in the foreground, and the app resumes when it ends (status 0: signed in).

The command runs from the event loop, blocking it, as Textual's own ``suspend`` example does:
nothing may paint over the sign-in while it runs. What the agent sends meanwhile waits in its
pipe and is read on return.

How it runs, is reaped, and is ended when it ignores Ctrl-C:
:mod:`acp_tui.session.auth.terminal_run`.
"""

from __future__ import annotations

import sys
from typing import Any

from textual.app import App, SuspendNotSupported

from acp_tui.session.auth.methods import TerminalLogin
from acp_tui.session.auth.signin import AuthNotDone
from acp_tui.session.auth.terminal_run import run_login

__all__ = ["run_terminal_login"]


async def run_terminal_login(app: App[Any], login: TerminalLogin, agent_name: str) -> int:
    """Suspend ``app``, run the sign-in in the terminal, resume; its exit status."""
    try:
        with app.suspend():
            return run_login(login, agent_name, _write_stdout)
    except (SuspendNotSupported, RuntimeError):  # RuntimeError: no driver (not running)
        raise AuthNotDone(
            "this display cannot hand the terminal over to a sign-in; run it in a terminal "
            f"yourself, then try again: {login.command_line()}"
        ) from None


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
