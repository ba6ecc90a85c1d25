"""A terminal power user's habits (issue 42), in a real terminal against the demo agent and
the official SDK's agent: the prompt written in ``$EDITOR``, Ctrl+R over the prompts sent."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.journeys.terminal import Terminal, agent_command

#: (agent arguments, what its reply to "draft words … from the editor" shows, the size)
AGENTS = {
    "demo-120x40": (["--demo"], 120, 40),
    "sdk-80x24": (["--", *agent_command("sdk_agent.py")], 80, 24),
}

#: An editor for the test: it owns the terminal (it asks for Enter there), then adds a line
#: to the file it was given and notes what it was handed.
EDITOR = """\
import json
import re
import sys
from pathlib import Path
path = Path(sys.argv[-1])
before = path.read_text()
Path(sys.argv[1]).write_text(before)
print("the test editor has the terminal: press Enter", flush=True)
sys.stdin.readline()
path.write_text(before + " and the second line\\nfrom the editor\\n")
"""


def _editor(home: Path) -> tuple[str, Path]:
    script = home / "editor.py"
    script.write_text(EDITOR)
    seen = home / "editor-saw.txt"
    return f"{sys.executable} {script} {seen}", seen


@pytest.mark.parametrize("case", list(AGENTS))
def test_the_prompt_round_trips_through_the_editor(
    terminal: Callable[..., Terminal], case: str
) -> None:
    args, cols, rows = AGENTS[case]
    term = terminal(cols=cols, rows=rows)
    command, seen = _editor(term.home)
    configured = case.startswith("sdk")
    if configured:
        # The key is configurable, and the footer lists the one in force.
        (term.home / "config" / "acp-tui" / "config.toml").write_text(
            '[keys]\nexternal-editor = "f4"\n'
        )
    term.start(args, env={"VISUAL": command, "EDITOR": "false"})
    term.wait_header("New session")
    # The footer is drawn after the header on a busy machine: wait for it, then read it.
    term.wait_until(lambda _: "Editor" in term.lines()[-1], "the footer's Editor key")
    footer = term.lines()[-1]
    assert ("f4 Editor" if configured else "Editor") in footer, footer
    term.type("draft words")
    term.wait_for("draft words")
    term.press("F4" if configured else "M-e")
    term.wait_for("the test editor has the terminal")
    term.press("Enter")
    screen = term.wait_for("from the editor")
    assert "draft words and the second line" in screen
    assert "the test editor has the terminal" not in screen  # the app is back
    assert seen.read_text() == "draft words"
    term.press("Enter")
    reply = "You said: draft words" if configured else "DRAFT WORDS AND THE SECOND LINE"
    term.wait_for(reply)


def test_an_editor_that_fails_leaves_the_prompt_as_it_was(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(cols=80, rows=24)
    term.start(["--demo"], env={"VISUAL": "", "EDITOR": "false"})
    term.wait_header("New session")
    term.type("keep me")
    term.wait_for("keep me")
    term.press("M-e")
    screen = term.wait_for("status 1")
    assert "keep me" in screen


@pytest.mark.parametrize("case", list(AGENTS))
def test_ctrl_r_finds_a_prompt_of_an_earlier_run_this_project_first(
    terminal: Callable[..., Terminal], case: str
) -> None:
    args, cols, rows = AGENTS[case]
    demo = case.startswith("demo")
    earlier = terminal(cols=cols, rows=rows)
    elsewhere, here = earlier.home / "elsewhere", earlier.home / "here"
    elsewhere.mkdir()
    here.mkdir()
    earlier.start(args, cwd=elsewhere)
    earlier.wait_header("New session")
    earlier.send("fix the flaky payment test")
    earlier.wait_for("FIX THE FLAKY" if demo else "You said: fix the flaky")
    earlier.press("C-q")
    assert earlier.wait_exit() == 0

    term = terminal(cols=cols, rows=rows, name="later")
    term.home, term.env = earlier.home, earlier.env  # the same data
    term.start(args, cwd=here)
    term.wait_header("New session")
    term.send("write the docs of the parser")
    term.wait_for("WRITE THE DOCS" if demo else "You said: write the docs")
    term.wait_gone("working…")
    term.press("C-r")
    term.wait_for("Search your prompts")
    term.type("the")
    screen = term.wait_for("2 found, 1 here")
    lines = screen.splitlines()
    docs = next(i for i, line in enumerate(lines) if line.strip() == "write the docs of the parser")
    flaky = next(i for i, line in enumerate(lines) if "fix the flaky payment test" in line)
    assert docs < flaky, screen  # this project first
    assert "· elsewhere" in lines[flaky], screen
    term.press("C-r")  # older, as in a shell
    term.press("Enter")
    term.wait_gone("Search your prompts")
    term.wait_until(
        lambda s: any(
            "fix the flaky payment test" in line and "▊" in line for line in s.splitlines()
        ),
        "the match in the prompt",
    )
    assert "working…" not in term.wait_still()  # put in the prompt, not sent
    term.press("Enter")
    term.wait_for("FIX THE FLAKY PAYMENT TEST" if demo else "You said: fix the flaky")


def test_ctrl_r_restarts_an_agent_that_exited_and_the_banner_says_so(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal(cols=80, rows=24)
    term.start(["--demo"])
    term.wait_header("New session")
    term.send("/crash")
    screen = term.wait_for("The agent exited")
    assert "Ctrl+R to restart" in " ".join(screen.split()), screen
    term.press("C-r")
    term.wait_gone("The agent exited")
    term.wait_until(lambda s: "Search your prompts" not in s, "no search")
    term.send("after the restart")
    term.wait_for("AFTER THE RESTART")
    term.press("C-r")  # the agent runs: the same key searches
    term.wait_for("Search your prompts")


def _prompts_sent(recording: Path) -> list[list[dict[str, object]]]:
    prompts = []
    for line in recording.read_text().splitlines()[1:]:
        record = json.loads(line)
        message = record.get("msg") or {}
        if record.get("dir") == "to_agent" and message.get("method") == "session/prompt":
            prompts.append(message["params"]["prompt"])
    return prompts


@pytest.mark.parametrize("case", list(AGENTS))
def test_shell_mode_runs_on_a_terminal_stops_and_attaches_on_the_wire(
    terminal: Callable[..., Terminal], case: str
) -> None:
    args, cols, rows = AGENTS[case]
    demo = case.startswith("demo")
    term = terminal(cols=cols, rows=rows)
    project = term.home / "project"
    (project / "a-folder").mkdir(parents=True)
    (project / "a-file.txt").write_text("x")
    recording = term.home / "wire.jsonl"
    term.start(["--record", str(recording), *args], cwd=project)
    term.wait_header("New session")
    term.send("hello")
    term.wait_for("HELLO" if demo else "You said: hello")
    term.wait_gone("working…")
    # A listing on a real terminal: ls colours it (the folder in bold blue, as ls says).
    term.send("!ls --color=auto")
    term.wait_for("exit 0")
    screen = term.wait_for("a-file.txt")
    assert "$ ls --color=auto" in screen
    assert re.search(r"\x1b\[[0-9;]*1[;m][^\n]*a-folder", term.coloured()), term.coloured()
    # Escape stops a command (and cancels no turn).
    term.send("!echo started; sleep 30")
    term.wait_for("running… (Esc stops it)")
    term.press("Escape")
    term.wait_for("ended by SIGINT")
    assert len(_prompts_sent(recording)) == 1  # nothing of it went to the agent
    # !! attaches it: it goes with the next message, and only with it.
    term.send("!!printf 'step 1\\rstep 2 of 2\\n'; exit 3")
    term.wait_for("exit 3 · attached to the next message")
    output = [line.split("▌", 1)[-1].strip() for line in term.screen().splitlines()]
    assert "step 2 of 2" in output and "step 1" not in output  # the carriage return drew
    term.send("what failed")
    term.wait_for("WHAT FAILED" if demo else "You said: what failed")
    term.wait_gone("working…")
    term.send("and now")
    term.wait_for("AND NOW" if demo else "You said: and now")
    _first, attached, after = _prompts_sent(recording)
    assert attached[0] == {"type": "text", "text": "what failed"}
    said = "I ran `printf 'step 1\\rstep 2 of 2\\n'; exit 3` in my terminal (exit 3)"
    if demo:  # takes embedded context: a resource
        assert attached[1]["text"].startswith(said)
        assert attached[2]["type"] == "resource"
        assert attached[2]["resource"]["text"] == "step 2 of 2"
    else:  # text
        assert attached[1]["text"].startswith(said) and "step 2 of 2" in attached[1]["text"]
    assert after == [{"type": "text", "text": "and now"}]


def _png(width: int, height: int) -> bytes:
    """A real PNG of one colour (its header says its size, which the demo agent reports)."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.fixture
def x_display(tmp_path: Path) -> Iterator[str]:
    """An X server of its own (Xvfb), for the clipboard; CI installs Xvfb and xclip."""
    if shutil.which("Xvfb") is None or shutil.which("xclip") is None:
        pytest.skip("needs Xvfb and xclip (apt-get install xvfb xclip; .ci/run does)")
    for _attempt in range(20):
        number = random.randrange(100, 60000)
        if not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            assert server.poll() is None, "Xvfb did not start"
            assert time.monotonic() < deadline, "Xvfb did not start in time"
            time.sleep(0.05)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("case", list(AGENTS))
def test_ctrl_v_attaches_the_image_on_the_x_clipboard(
    terminal: Callable[..., Terminal], case: str, x_display: str
) -> None:
    args, cols, rows = AGENTS[case]
    demo = case.startswith("demo")
    term = terminal(cols=cols, rows=rows)
    image = term.home / "shot.png"
    image.write_bytes(_png(7, 5))
    env = {"DISPLAY": x_display}
    # xclip stays, serving the clipboard, until the X server ends.
    subprocess.run(
        ["xclip", "-selection", "clipboard", "-t", "image/png", "-i", str(image)],
        env={**os.environ, **env},
        check=True,
        timeout=20,
    )
    term.start(args, env=env)
    term.wait_header("New session")
    term.type("/image what is it" if demo else "what is it")
    term.press("C-v")
    screen = term.wait_for(re.compile(r"clipboard-\d{8}-\d{6}\.png"))
    pasted = list((term.home / "data" / "acp-tui" / "pasted").glob("clipboard-*.png"))
    assert [path.read_bytes() for path in pasted] == [image.read_bytes()], screen
    term.press("Enter")
    if demo:  # takes images: attached, its chip under the message
        term.wait_for("7×5 pixels")
        term.wait_for("image/png")
    else:  # takes none: said, and the message stays to be changed
        screen = term.wait_for("Not sent:")
        assert "clipboard-" in screen and "You said" not in screen


def test_a_shell_block_is_shown_again_when_its_session_is_reopened(
    terminal: Callable[..., Terminal],
) -> None:
    first = terminal(cols=80, rows=24)
    project = first.home / "project"
    project.mkdir()
    first.start(["--demo"], cwd=project)
    first.wait_header("New session")
    first.send("hello")
    first.wait_for("HELLO")
    first.wait_gone("working…")
    first.send("!printf '\\033[32mgreen and kept\\033[0m\\n'")
    first.wait_for("exit 0")
    first.press("C-q")
    assert first.wait_exit() == 0

    again = terminal(cols=80, rows=24, name="again")
    again.home, again.env = first.home, first.env  # the same data
    again.start(["--demo", "--continue"], cwd=project)
    again.wait_for("HELLO")
    screen = again.wait_for("green and kept")
    assert "exit 0" in screen
    # Drawn green again (the app draws ANSI green in its theme's shade of it). Polled: tmux
    # (3.3) keeps no frame whole, and one capture can catch the transcript mid-repaint.
    pattern = re.compile(r"\x1b\[38;2;(\d+);(\d+);(\d+)mgreen and kept")
    deadline = time.monotonic() + 30
    while (colour := pattern.search(coloured := again.coloured())) is None:
        assert time.monotonic() < deadline, coloured
        time.sleep(0.1)
    red, green, blue = map(int, colour.groups())
    assert green > red and green > blue, colour.groups()
