"""A terminal sign-in, run in the person's real terminal while the TUI steps aside.

The agent's own command (plus the method's ``args`` and ``env``) needs the terminal to itself:
Textual's ``App.suspend()`` gives it back as it was before the app started, the command runs
there in the foreground, and the app resumes when it ends (status 0: signed in).

The command runs from the event loop, blocking it, as Textual's own ``suspend`` example does:
nothing may paint over the sign-in while it runs. What the agent sends meanwhile waits in its
pipe and is read on return.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from textual.app import App, SuspendNotSupported

from acp_tui.session.auth.methods import TerminalLogin
from acp_tui.session.auth.signin import AuthNotDone
from acp_tui.text.safety import one_line

__all__ = ["run_terminal_login"]

#: Exit status when the command could not be started at all.
NOT_STARTED = 127


def _run(login: TerminalLogin, agent_name: str, write: Callable[[str], Any]) -> int:
    # Written to the real terminal (the TUI is suspended): every agent string is one line of
    # printable text here, the command's words are spelt by shell_word.
    write(
        f"\nacp-tui: {one_line(agent_name, 80)} asks you to sign in here "
        f"({one_line(login.method.label, 80)}).\n"
        f"Running: {login.command_line()}\n\n"
    )
    # Ctrl-C belongs to the sign-in: acp-tui ignores it meanwhile. A Python handler (not
    # SIG_IGN) so that the child starts with the default action.
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        try:
            status = subprocess.run(
                login.argv, cwd=login.cwd, env=login.environment(), check=False
            ).returncode
        except OSError as error:
            write(f"\nacp-tui: could not run the sign-in: {error}\n")
            status = NOT_STARTED
        if status != 0:
            write(f"\nacp-tui: the sign-in ended with status {status}. Press Enter to go back. ")
            try:
                sys.stdin.readline()
            except (OSError, ValueError, KeyboardInterrupt):
                pass
    finally:
        signal.signal(signal.SIGINT, previous)
    return status


async def run_terminal_login(app: App[Any], login: TerminalLogin, agent_name: str) -> int:
    """Suspend ``app``, run the sign-in in the terminal, resume; its exit status."""
    try:
        with app.suspend():
            return _run(login, agent_name, _write_stdout)
    except (SuspendNotSupported, RuntimeError):  # RuntimeError: no driver (not running)
        raise AuthNotDone(
            "this display cannot hand the terminal over to a sign-in; run it in a terminal "
            f"yourself, then try again: {login.command_line()}"
        ) from None


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
