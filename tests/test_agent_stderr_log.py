"""An agent's stderr log on disk is bounded (issue 17, round 3): an agent that logs in a loop
wrote every byte to the state directory, until the disk was full."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol.process import AgentProcess

pytestmark = pytest.mark.anyio

FLOOD = (
    "import sys\n"
    "line = b'e' * 99 + b'\\n'\n"
    "for _ in range(20_000): sys.stderr.buffer.write(line)\n"
    "sys.stderr.buffer.write(b'the last line\\n')\n"
)


async def test_a_stderr_flood_is_cut_in_the_log_and_its_end_kept_in_memory(
    tmp_path: Path,
) -> None:
    process = AgentProcess(
        [sys.executable, "-c", FLOOD], cwd=tmp_path, log_dir=tmp_path, log_limit=10_000
    )
    await process.start()
    with anyio.fail_after(60):
        await process.drain_stderr()
        await process.shutdown(1)
    assert process.log_path is not None
    log = process.log_path.read_text()
    # 2 MB went to stderr: the log keeps its first 10,000 bytes and says what it left out.
    assert len(log) < 11_000
    assert "the log is full" in log and "lines of stderr were not written" in log
    assert process.stderr_tail[-1] == "the last line"


HOSTILE = (
    "import sys\n"
    "w = sys.stderr.buffer.write\n"
    "w(b'title \\x1b]0;pwned\\x07 clip \\x1b]52;c;cm0gLXJmIH4=\\x07 clear \\x1b[2J\\x1bc end\\n')\n"
    "w(b'bell \\x07 del \\x7f c1 \\xc2\\x9b31m bidi \\xe2\\x80\\xae evil \\xe2\\x80\\xac\\n')\n"
    "w(b'bad utf-8 \\xff\\xfe here\\r\\n')\n"
    "w(b'caf\\xc3\\xa9 \\xe2\\x9c\\x93 tab\\tkept\\n')\n"
)


async def test_the_log_file_is_safe_to_cat_and_loses_nothing(tmp_path: Path) -> None:
    """Escape sequences, controls, bidi overrides and bytes that are no UTF-8, written by an
    agent to stderr: in the file each is its escape (text a terminal prints, not obeys), so
    `cat` of the log cannot set a title, write the clipboard or clear the screen."""
    process = AgentProcess([sys.executable, "-c", HOSTILE], cwd=tmp_path, log_dir=tmp_path)
    await process.start()
    with anyio.fail_after(60):
        await process.drain_stderr()
        await process.shutdown(1)
    assert process.log_path is not None
    log = process.log_path.read_bytes().decode("utf-8")  # valid UTF-8, all of it
    unsafe = [c for c in log if not (c.isprintable() or c in "\n\t")]
    assert unsafe == []
    # Nothing is lost: each is there as its escape, and plain text as it was.
    for shown in (
        "title \\x1b]0;pwned\\x07 clip \\x1b]52;c;cm0gLXJmIH4=\\x07 clear \\x1b[2J\\x1bc end",
        "bell \\x07 del \\x7f c1 \\x9b31m bidi \\u202e evil \\u202c",
        "bad utf-8 \\xff\\xfe here\n",
        "café ✓ tab\tkept",
    ):
        assert shown in log
    # In memory (for the banner and the stderr screen, which sanitise what they show).
    assert process.stderr_tail[2] == "bad utf-8 \ufffd\ufffd here"
