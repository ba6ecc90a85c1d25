"""The byte gate in a real terminal (issue 36): the installed ``acp-tui`` in a pseudo-terminal
on the mirror agent, whose every field holds escape sequences, controls and invisible
characters; a turn with its permission, form and page dialogs, the command and file
completions (files named with them too), the palette, the sidebar, then Ctrl+Q. Every byte
the program wrote to its terminal is read as a terminal reads it (:mod:`tests.terminal_bytes`):
nothing but the app's and Textual's driver's own sequences, no control in text, nothing hidden.

A pty rather than tmux: tmux draws its own screen, and the point is the app's bytes. The
in-process property tests (tests/ui/test_byte_gate.py) vary the strings; this proves the
real driver writes what they saw.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bench.blackbox.home import honest_environment, installed_acp_tui, isolated_env, prepare_home
from bench.blackbox.terminal import PtyTerminal
from tests.agents import mirror_agent
from tests.terminal_bytes import DRIVER_CSI, problems

LIMIT = 60.0

#: One of each kind (DEC private modes left out: Textual's driver writes those itself, so the
#: stream alone could not tell; the in-process tests judge them per write).
HOSTILE = [
    "osc52\x1b]52;c;ZXZpbA==\x07end",
    "osc2\x1b]2;pwned\x1b\\end",
    "osc8\x1b]8;;https://evil.example\x1b\\L\x1b]8;;\x1b\\end",
    "csi\x1b[2J\x1b[3;3H\x1b[6n\x1b[21t\x1b[41mend",
    "dcs\x1bPq#0~\x1b\\apc\x1b_Gf=100\x1b\\pm\x1b^x\x1b\\sos\x1bXy\x1b\\end",
    "c1\x9b31m\x9d0;t\x9c\x90d\x9c\x85end",
    "c0\x07\x08\r\x0b\x0c\x00\x7f\x1bcend",
    "bidi\u202etxt.exe\u202c\u2066iso\u2069end",
    "hidden pay\u200bpal\u2060\ufeff tag\U000e0041\U000e007fend",
    "surrogate \ud800 end",
    "lone esc\x1b",
]


class RecordingTerminal(PtyTerminal):
    """A :class:`PtyTerminal` that keeps every byte the program wrote."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.raw = bytearray()
        feed = self.stream.feed

        def keep(data: bytes) -> None:
            self.raw += data
            feed(data)

        self.stream.feed = keep  # type: ignore[method-assign]


def close_list(term: PtyTerminal, shown: str, *keys: str) -> None:
    """Press ``keys`` (what was typed, erased), until the list showing ``shown`` is gone."""
    term.press(*keys)
    term.wait_until(lambda rows: not any(shown in row for row in rows), LIMIT, "the list closed")


def test_a_hostile_agent_in_a_real_terminal_writes_nothing_foreign(tmp_path: Path) -> None:
    home = prepare_home(tmp_path / "home", "project")
    project = home / "project"
    (home / "config" / "acp-tui" / "config.toml").write_text(
        'notifications = "off"\ndesktop_notifications = "off"\nsidebar = true\n'
    )
    for n, text in enumerate(HOSTILE):
        name = f"f{n}-" + text.replace("/", "_").replace("\0", "_")
        try:
            (project / name).write_text("x")
        except (UnicodeError, OSError):
            continue
    payload = home / "payload.json"
    payload.write_text(json.dumps(HOSTILE))
    agent = [sys.executable, str(Path(mirror_agent.__file__).resolve()), "--payload", str(payload)]
    env = {**honest_environment(), **isolated_env(home)}
    with RecordingTerminal([installed_acp_tui(), "--", *agent], env=env, cwd=project) as term:
        term.start()
        term.wait_for("Message the agent", LIMIT)
        term.type("mirror")
        term.press("enter")
        term.wait_for("Permission requested", LIMIT)
        term.press("escape")
        # Escape in a form would cancel the whole turn: Decline (Shift+Tab from the first
        # field wraps to it) answers the form only, and the turn goes on to the page to visit.
        term.wait_for("Tab next field", LIMIT)
        term.press("shift+tab", "enter")
        term.wait_for("visit a page", LIMIT)
        term.press("escape")
        term.wait_for("mirrored", LIMIT)
        term.type("/")
        term.wait_for("/mirror", LIMIT)
        close_list(term, "/mirror", "backspace")
        term.type("@f")
        term.wait_for("f0-osc52", LIMIT)
        close_list(term, "f0-osc52", "backspace", "backspace")
        # Chosen from the list, a file named with an escape sequence is mentioned by its
        # escapes (visible text) and reaches the agent; nothing of its name reaches the
        # terminal raw, in the prompt, the message or its chip.
        term.type("see @f0-")
        term.wait_for("f0-osc52", LIMIT)
        term.press("tab")
        term.wait_for('@"f0-osc52\\x1b]52;c;ZXZpbA==\\x07end"', LIMIT)
        term.press("enter")
        term.wait_for('You said: see @"f0-osc52\\x1b', LIMIT)
        term.write(b"\x10")  # Ctrl+P
        term.type("mode")
        term.wait_for("Mode:", LIMIT)
        term.press("escape")
        term.write(b"\x11")  # Ctrl+Q
        assert term.process is not None
        assert term.process.wait(timeout=LIMIT) == 0
        stream = bytes(term.raw).decode("utf-8", "surrogateescape")
    found = problems([stream], own_csi=DRIVER_CSI)
    assert not found, f"{len(found)} foreign sequence(s):\n" + "\n".join(found[:12])
    assert "osc52" in stream and "mirrored" in stream  # the text itself was drawn
    assert os.path.exists(payload)
