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
