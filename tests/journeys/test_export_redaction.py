"""A shared export with nothing leaked (issue 43), in a real terminal, against the demo agent
and the official SDK's agent: a message carrying an API key, a private key block (pasted),
paths in the home directory and another user's, and an e-mail address is exported with
``/export`` (Markdown) or ``/export html``; the review pane lists each redaction (its kind and
a masked preview, never the secret), ``y`` writes, and the file holds none of them. Then a
second turn and a new session go on as usual."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.journeys.frame import assert_frame
from tests.journeys.terminal import Terminal, agent_command

KEY = "sk-proj-" + "Zx4cVb7nMq2wEr5tYu8iOp1aSd3fGh6jKl9" * 2
PEM = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAx3abcDEFghiJKLmnoPQRstUVwxyz0123456789ABCDEFGHIJ",
    "KLmnoPQRstUVwxyz0123456789abcdefGHIJklmnOPQRstuvWXYZ0123456789ab",
    "-----END RSA PRIVATE KEY-----",
]
MAIL = "ops.lead@example.com"


def planted(home: str) -> list[str]:
    return [KEY, KEY[:24], PEM[1][:30], PEM[2][:30], MAIL, f"{home}/work", "/home/alice"]


def paste(term: Terminal, text: str) -> None:
    """Paste ``text`` as a terminal does (a bracketed paste: its lines stay in the prompt)."""
    buffer = term.home / "paste.txt"
    buffer.write_text(text, encoding="utf-8")
    term._tmux("load-buffer", "-b", "journey", str(buffer))
    term._tmux("paste-buffer", "-p", "-r", "-d", "-b", "journey", "-t", term.target)


def start(term: Terminal, agent: str) -> None:
    if agent == "demo":
        term.start(["--demo"], cwd=term.home)
        return
    sdk = agent_command("sdk_agent.py")
    state = term.home / "sdk-state"
    state.mkdir()
    config = term.home / "config" / "acp-tui" / "config.toml"
    config.write_text(
        f"[agents.sdk]\ncommand = {json.dumps(sdk[0])}\nargs = {json.dumps(sdk[1:])}\n"
        f"env = {{ SDK_AGENT_STATE_DIR = {json.dumps(str(state))} }}\n"
    )
    term.start(["--agent", "sdk"], cwd=term.home)


@pytest.mark.parametrize("agent", ["demo", "sdk"])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_an_export_lists_each_redaction_and_holds_none_of_them(
    terminal: Callable[..., Terminal], size: tuple[int, int], agent: str
) -> None:
    term = terminal(*size)
    home = str(Path.home())
    start(term, agent)
    term.wait_header("New session")
    message = "\n".join(
        [
            f"deploy with {KEY} please",
            *PEM,
            f"files: {home}/work/app.py and /home/alice/notes.txt, mail {MAIL}",
        ]
    )
    paste(term, message)
    term.wait_for(MAIL)
    term.press("Enter")
    # The reply (it quotes the message back) to its end.
    term.wait_for("command I know" if agent == "demo" else "You said", timeout=60)
    term.wait_gone("working…", timeout=60)

    fmt = "html" if size[0] == 80 else "md"
    term.send("/export html" if fmt == "html" else "/export")
    what = "HTML" if fmt == "html" else "Markdown"
    screen = term.wait_for(f"Export as {what}")
    # Armed, the hint says how to write; every kind is listed, each with a masked preview.
    screen = term.wait_for("y write export")
    rows = [line for line in screen.splitlines() if "redact " in line]
    assert rows, screen
    listed = "\n".join(rows)
    for kind in ("secret", "private key", "home directory", "e-mail address"):
        assert kind in listed, screen
    assert "sk-p••••••" in listed
    for secret in planted(home):
        assert secret not in listed, secret
    # The whole pane fits: its buttons, its hint to the end, its bottom border.
    assert "Write export" in screen and "Cancel" in screen and "█▄▄▄▄" in screen, screen
    term.press("y")
    toast = term.wait_for("Transcript exported")
    assert "redacted" in toast
    term.wait_gone(f"Export as {what}")
    exported = sorted((term.home / "data" / "acp-tui" / "exports").glob(f"acp-tui-*.{fmt}"))
    assert len(exported) == 1
    text = exported[0].read_text(encoding="utf-8")
    assert "Redacted by acp-tui" in text and "deploy with" in text
    for secret in planted(home):
        assert secret not in text, secret

    # The session goes on: a second turn, then a new session.
    term.send("second turn")
    term.wait_for("SECOND TURN" if agent == "demo" else "You said: second turn", 60)
    term.press("C-n")
    term.wait_header("New session")
    assert_frame(term, "a new session after the export")
    term.press("C-q")
    assert term.wait_exit() == 0
