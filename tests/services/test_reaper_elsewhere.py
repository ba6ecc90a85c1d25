"""Where there is no subreaper (macOS, the BSDs), the marks still end what an agent's terminal
left behind: the reaper reads processes through psutil, not Linux's ``/proc``. Run in a
process of its own that takes itself for macOS (``sys.platform``) once psutil and asyncio
have loaded their real backends, so the reaper's own choices are macOS's."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.services.test_reaper import alive

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys, time
    import anyio, psutil  # their real backends first
    sys.platform = "darwin"
    from acp_tui.protocol import reaper
    from acp_tui.services.terminals import TerminalManager

    PIDS = sys.argv[1]

    async def main() -> None:
        async with TerminalManager(kill_grace=1.0) as manager:
            created = await manager.create({
                "sessionId": "s",
                "command": "setsid sleep 300 & echo $! > $PIDS",
                "env": [{"name": "PIDS", "value": PIDS}],
            })
            ref = {"sessionId": "s", "terminalId": created["terminalId"]}
            await manager.wait_for_exit(ref)
            with anyio.fail_after(10):
                while not open(PIDS).read().strip():
                    await anyio.sleep(0.02)
            daemon = int(open(PIDS).read())
            assert reaper.is_marked(daemon), "the daemon carries no mark"
            print("daemon", daemon, flush=True)
            await manager.release(ref)
        print("subreaper", reaper.has_subreaper(), "sweeping", reaper.enable(), flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="imitates macOS on Linux")
def test_without_a_subreaper_a_terminals_daemon_still_dies_on_release(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.write_text("")
    script = tmp_path / "elsewhere.py"
    script.write_text(SCRIPT)
    result = subprocess.run(
        [sys.executable, str(script), str(pids)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    daemon = int(pids.read_text())
    try:
        assert not alive(daemon), "the daemon outlived its terminal's release"
        assert result.returncode == 0, result.stderr
        assert "subreaper False sweeping True" in result.stdout
    finally:
        if alive(daemon):
            subprocess.run(["kill", "-9", str(daemon)], check=False)
