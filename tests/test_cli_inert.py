"""The command line's own output follows the TUI's rule (issue 36): ``replay``, ``replay
--check``, ``sessions``, ``ask`` in text mode and every error message write text from outside
(a recording, an agent, a path, an argument) inert. ``ask --json`` keeps the agent's text as
data, ASCII-escaped; ``sessions --json`` writes a lone surrogate as U+FFFD, as ``ask --json``
does.

Each command runs as a person runs it (a subprocess, real pipes), the mirror agent putting
hostile strings in every field; stdout and stderr are read as a terminal would read them
(:mod:`tests.terminal_bytes`): no escape sequence, no control character but a line end,
nothing hidden.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.cli.headless_output import Output
from acp_tui.cli.say import say
from tests.agents import mirror_agent
from tests.terminal_bytes import tokens

MIRROR = [sys.executable, str(Path(mirror_agent.__file__).resolve())]
RECORDING = Path(__file__).resolve().parent / "data" / "recordings" / "demo-permission.jsonl"

#: Every kind of thing a terminal would act on, and what hides text.
HOSTILE = [
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]2;pwned\x1b\\",
    "\x1b]8;;https://evil.example\x1b\\L\x1b]8;;\x1b\\",
    "\x1b[2J\x1b[H\x1b[?1049h",
    "\x1bPq#0~\x1b\\",
    "\x1b_Gf=100\x1b\\",
    "\x9b31m\x9d0;t\x9c",
    "\x07\x08\r\x00\x7f",
    "\u202etxt.exe\u202c",
    "pay\u200bpal\U000e0041",
    "lone \ud800 surrogate",
    "\x1b",
]


def foreign(stream: str) -> list[str]:
    """What in ``stream`` a terminal would act on, or would hide (see tests.terminal_bytes)."""
    found = []
    for token in tokens(stream):
        if token.kind == "text":
            hidden = [c for c in token.data if c in "\u202e\u202c\u200b\U000e0041\ud800"]
            if hidden:
                found.append(f"hidden {hidden!r}")
        elif not (token.kind == "C0" and token.data in "\n\t"):
            found.append(f"{token.kind} {token.data!r}")
    return found


def run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def mirror(tmp_path: Path, strings: list[str] = HOSTILE) -> list[str]:
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(strings))
    return [*MIRROR, "--payload", str(payload)]


def decoded(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def test_ask_in_text_mode_writes_the_agent_inert(tmp_path: Path) -> None:
    """Every field of a turn (message, thought, tool call, plan, permission, form, page...)
    and the agent's error: stdout and stderr carry none of it raw."""
    for prompt in ("mirror", "fail"):
        done = run(tmp_path, "ask", prompt, "--deny", "--", *mirror(tmp_path))
        out, err = decoded(done.stdout), decoded(done.stderr)
        assert "mirrored" in out or prompt == "fail", (out, err)
        assert foreign(out) == [], out
        assert foreign(err) == [], err


def test_ask_json_keeps_the_agents_text_as_ascii_data(tmp_path: Path) -> None:
    done = run(tmp_path, "ask", "mirror", "--json", "--deny", "--", *mirror(tmp_path))
    assert done.stdout.isascii()
    stream = done.stdout.decode()
    events = [json.loads(line) for line in stream.splitlines()]
    texts = "".join(strings_in(events))
    assert "\x1b]52;c;ZXZpbA==\x07" in texts  # data, escaped in the stream: not lost
    assert "\ud800" not in texts and "\ufffd" in texts
    assert foreign(stream) == []


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings_in(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    return []


def test_sessions_write_titles_inert_and_json_like_ask(tmp_path: Path) -> None:
    """The table is inert; ``--json`` is ASCII and has U+FFFD where a title had a lone
    surrogate (it wrote ``\\ud800``, which strict JSON parsers refuse)."""
    agent = mirror(tmp_path, ["".join(HOSTILE)])  # every field holds all of them
    table = run(tmp_path, "sessions", "--", *agent)
    assert table.returncode == 0, table.stderr
    assert foreign(decoded(table.stdout)) == [] and foreign(decoded(table.stderr)) == []
    listed = run(tmp_path, "sessions", "--json", "--", *agent)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.isascii() and b"\\ud800" not in listed.stdout
    rows = json.loads(listed.stdout)
    assert any("\ufffd" in json.dumps(row, ensure_ascii=False) for row in rows)


def test_replay_check_writes_method_names_inert(tmp_path: Path) -> None:
    """A recording's method names, ids and error messages are the agent's: ``replay
    --check`` printed them raw to stdout."""
    lines = [json.loads(line) for line in RECORDING.read_bytes().splitlines() if line.strip()]
    for n, hostile in enumerate(HOSTILE):
        lines.append(
            {
                "t": 99.0 + n,
                "dir": "from_agent",
                "msg": {"jsonrpc": "2.0", "id": hostile, "method": hostile, "params": 7},
            }
        )
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = run(tmp_path, "replay", "--check", str(path))
    out = decoded(done.stdout)
    assert done.returncode == 1 and "protocol error" in out, out
    assert foreign(out) == [], out
    assert foreign(decoded(done.stderr)) == []


def test_error_messages_quote_paths_and_arguments_inert(tmp_path: Path) -> None:
    """A path that does not exist and an argument that is not a number, quoted back."""
    bad = "".join(HOSTILE[:8]).replace("\x00", "")
    missing = run(tmp_path, "replay", str(tmp_path / bad))
    assert missing.returncode == 2
    assert foreign(decoded(missing.stderr)) == [], missing.stderr
    wrong = run(tmp_path, "replay", "--speed", bad, str(RECORDING))
    assert wrong.returncode == 2
    assert foreign(decoded(wrong.stderr)) == [], wrong.stderr


@given(st.text())
def test_everything_the_command_line_writes_goes_through_one_rule(text: str) -> None:
    """``say`` and the headless output (notes, text, tables) write any text inert."""
    out, err = io.StringIO(), io.StringIO()
    say(text, file=out)
    output = Output(out, err)
    output.text(text)
    output.write_raw(text)
    output.note(text)
    output.error(text)
    assert foreign(out.getvalue()) == []
    assert foreign(err.getvalue()) == []
