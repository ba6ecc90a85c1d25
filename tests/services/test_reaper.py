"""No process started for an agent outlives acp-tui (issue 17): terminal commands that leave
their process group (``setsid``, daemons, a cleared environment) are killed on release, on
kill and at shutdown; an agent's children, orphaned when it crashes, die with it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol import reaper
from acp_tui.protocol.process import AgentProcess
from acp_tui.services.terminals import TerminalManager

pytestmark = [
    pytest.mark.anyio,
    # Linux's guarantees: the subreaper and /proc (tests/services/test_reaper_elsewhere.py:
    # what holds without them).
    pytest.mark.skipif(
        not reaper.supported() or not sys.platform.startswith("linux"),
        reason="the subreaper is Linux's",
    ),
]

SESSION = "sess-1"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def eventually_dead(pids: list[int], limit: float = 5.0) -> None:
    with anyio.fail_after(limit):
        while any(alive(pid) for pid in pids):
            await anyio.sleep(0.02)


def read_pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()]


async def wait_for_pids(path: Path, count: int) -> list[int]:
    with anyio.fail_after(10):
        while not path.exists() or len(path.read_text().split()) < count:
            await anyio.sleep(0.02)
    return read_pids(path)


@pytest.fixture(autouse=True)
def subreaper() -> None:
    assert reaper.enable()


# Each command leaves a `sleep 300` behind, outside the terminal's process group, and writes
# its pid to $PIDS.
DAEMONS = {
    "setsid in the background": "setsid sleep 300 & echo $! > $PIDS",
    "double fork": "(setsid sh -c 'echo $$ > $PIDS; exec sleep 300' &) ; sleep 0.2",
    "nohup and a cleared environment": (
        "env -i setsid sh -c 'echo $$ > \"$1\"; exec sleep 300' sh $PIDS & sleep 0.2"
    ),
}


@pytest.mark.parametrize("command", list(DAEMONS.values()), ids=list(DAEMONS))
async def test_release_kills_what_a_terminal_command_left_behind(
    tmp_path: Path, command: str
) -> None:
    pids = tmp_path / "pids"
    async with TerminalManager(kill_grace=1.0) as manager:
        created = await manager.create(
            {
                "sessionId": SESSION,
                "command": command,
                "env": [{"name": "PIDS", "value": str(pids)}],
            }
        )
        ref = {"sessionId": SESSION, "terminalId": created["terminalId"]}
        await manager.wait_for_exit(ref)
        daemon = (await wait_for_pids(pids, 1))[0]
        assert alive(daemon), "the command did not leave its daemon behind"
        await manager.release(ref)
        await eventually_dead([daemon])


async def test_shutting_the_terminals_down_kills_their_daemons(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    async with TerminalManager(kill_grace=1.0) as manager:
        await manager.create(
            {
                "sessionId": SESSION,
                "command": DAEMONS["setsid in the background"] + "; sleep 300",
                "env": [{"name": "PIDS", "value": str(pids)}],
            }
        )
        daemon = (await wait_for_pids(pids, 1))[0]
    await eventually_dead([daemon])


AGENT_THAT_SPAWNS_THEN_CRASHES = textwrap.dedent(
    """
    import os, subprocess, sys
    pids = sys.argv[1]
    child = subprocess.Popen(["sleep", "300"])                            # same group
    escaped = subprocess.Popen(["sleep", "300"], start_new_session=True)  # setsid
    cleared = subprocess.Popen(["sleep", "300"], start_new_session=True, env={})
    with open(pids, "w") as f:
        f.write(f"{child.pid} {escaped.pid} {cleared.pid}")
    sys.stderr.write("agent: crashing with three children\\n")
    os._exit(3)
    """
)


async def test_the_children_of_a_crashed_agent_die_with_it(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(AGENT_THAT_SPAWNS_THEN_CRASHES)
    pids_file = tmp_path / "pids"
    process = AgentProcess([sys.executable, str(script), str(pids_file)], log_dir=tmp_path)
    await process.start()
    async with anyio.create_task_group() as tg:
        tg.start_soon(process.drain_stderr)
        pids = await wait_for_pids(pids_file, 3)
        with anyio.fail_after(10):
            await process.exited.wait()
        assert process.returncode == 3
        # The exit itself ends them (they held its pipes, hiding the crash), before any
        # shutdown: the one with its environment cleared too, orphaned to us.
        await eventually_dead(pids)
        await process.shutdown(grace=0.5)


def test_what_acp_tui_itself_starts_is_never_swept(tmp_path: Path) -> None:
    """A browser opened from a link is acp-tui's, not an agent's: it carries the spare mark
    and survives every sweep, even orphaned and re-parented to us."""
    pids = tmp_path / "pids"
    subprocess.run(
        ["sh", "-c", f"setsid sleep 300 & echo $! > {pids}"], check=True, env=dict(os.environ)
    )
    browser = read_pids(pids)[0]
    try:
        reaper.sweep()
        assert alive(browser)
    finally:
        os.kill(browser, 9)


def test_a_process_caught_in_the_middle_of_an_exec_is_not_swept_for_it() -> None:
    """A browser acp-tui opens is still exec'ing when the shell that started it exits: its
    environment reads empty for a moment. That is not an orphan that cleared its own; the
    same sweep, seen through a stress of such starts, leaves every one alive."""
    pids: list[int] = []
    for _ in range(100):
        completed = subprocess.run(
            ["sh", "-c", "setsid sleep 300 >/dev/null 2>&1 & echo $!"],
            check=True,
            env=dict(os.environ),
            capture_output=True,
            text=True,
        )
        pids.append(int(completed.stdout))
        reaper.sweep()  # at once: the sleep is orphaned to us, most likely mid-exec
    try:
        assert [pid for pid in pids if not alive(pid)] == []
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)


class ScriptedProc:
    """One orphan of ours, read by read: each read of its environment (psutil's) or its
    ``/proc`` stat takes the next answer given."""

    PID = 4_000_000

    def __init__(
        self,
        environs: list[dict[str, str]],
        spans: list[tuple[int, int]],
        state: bytes = b"S",
        flags: int = 0x400000,
    ) -> None:
        self.environs = environs
        self.spans = spans
        self.state = state
        self.flags = flags
        self.killed: list[int] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(reaper, "_processes", lambda: [self.PID])
        monkeypatch.setattr(reaper, "_environ", self.environ)
        monkeypatch.setattr(reaper, "_stat_fields", self.stat)
        monkeypatch.setattr(reaper, "_children", lambda: {self.PID})
        monkeypatch.setattr(reaper.os, "kill", self.kill)

    def environ(self, pid: int) -> dict[str, str] | None:
        return self.environs.pop(0) if len(self.environs) > 1 else self.environs[0]

    def stat(self, pid: int) -> list[bytes]:
        start, end = self.spans.pop(0) if len(self.spans) > 1 else self.spans[0]
        parent = str(os.getpid()).encode()
        flags = str(self.flags).encode()
        fields = [self.state, parent, b"1", b"1", b"0", b"-1", flags, *[b"0"] * 40]
        return [*fields, str(start).encode(), str(end).encode(), b"0"]

    def kill(self, pid: int, sig: int) -> None:
        self.killed.append(pid)


def spare_environ() -> dict[str, str]:
    return {"HOME": "/root", reaper.SPARE_VAR: os.environ[reaper.SPARE_VAR]}


def test_an_environment_read_empty_mid_exec_is_read_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Empty while its place is 0 (the exec under way), then there, with our spare mark.
    proc = ScriptedProc([{}, {}, spare_environ()], [(0, 0), (0, 0), (700, 900)])
    proc.install(monkeypatch)
    reaper.sweep()
    assert proc.killed == []


def test_an_exec_between_two_reads_is_not_taken_for_an_empty_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The old program's place, an empty read, then the new program's place elsewhere.
    proc = ScriptedProc([{}, {}, spare_environ()], [(100, 300), (700, 900)])
    proc.install(monkeypatch)
    reaper.sweep()
    assert proc.killed == []


def test_an_orphan_that_really_cleared_its_environment_is_swept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Empty on every read, at one place that does not move: `env -i`, not an exec.
    proc = ScriptedProc([{}], [(700, 700)])
    proc.install(monkeypatch)
    reaper.sweep()
    assert proc.killed[:1] == [ScriptedProc.PID]


def test_an_orphan_stuck_mid_exec_is_left_after_a_bounded_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One that never settles (exiting, or paused by a busy machine) holds the sweep up only
    briefly, and is not killed on a guess."""
    proc = ScriptedProc([{}], [(0, 0)])
    proc.install(monkeypatch)
    started = time.monotonic()
    reaper.sweep()
    assert proc.killed == []
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(
    ("state", "flags"),
    [(b"Z", 0x400000), (b"X", 0x400000), (b"S", 0x208040)],
    ids=["zombie", "dead", "kernel thread"],
)
def test_what_never_shows_an_environment_does_not_hold_a_sweep_up(
    monkeypatch: pytest.MonkeyPatch, state: bytes, flags: int
) -> None:
    """A zombie, or a kernel thread (listed where acp-tui runs as root on a host), reads an
    empty environment at address 0 forever: not a process mid-exec to wait for, and nothing
    to kill. Every sweep would otherwise wait its whole settling time."""
    proc = ScriptedProc([{}], [(0, 0)], state=state, flags=flags)
    proc.install(monkeypatch)
    monkeypatch.setattr(reaper, "_SETTLE_SECONDS", 30.0)
    started = time.monotonic()
    reaper.sweep()
    assert proc.killed == []
    assert time.monotonic() - started < 5.0


async def test_a_live_agents_processes_are_not_swept_with_another(tmp_path: Path) -> None:
    async with TerminalManager(kill_grace=1.0) as manager:
        first = tmp_path / "first"
        second = tmp_path / "second"
        refs = []
        for pids in (first, second):
            created = await manager.create(
                {
                    "sessionId": SESSION,
                    "command": DAEMONS["setsid in the background"],
                    "env": [{"name": "PIDS", "value": str(pids)}],
                }
            )
            refs.append({"sessionId": SESSION, "terminalId": created["terminalId"]})
        keep = (await wait_for_pids(second, 1))[0]
        gone = (await wait_for_pids(first, 1))[0]
        await manager.release(refs[0])
        await eventually_dead([gone])
        assert alive(keep)
    await eventually_dead([keep])


async def test_orphans_that_exit_are_reaped(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    async with TerminalManager(kill_grace=1.0) as manager:
        created = await manager.create(
            {
                "sessionId": SESSION,
                "command": "setsid sleep 0.2 & echo $! > $PIDS",
                "env": [{"name": "PIDS", "value": str(pids)}],
            }
        )
        await manager.wait_for_exit({"sessionId": SESSION, "terminalId": created["terminalId"]})
        orphan = (await wait_for_pids(pids, 1))[0]
        with anyio.fail_after(5):
            while True:
                reaper.reap()
                if not os.path.exists(f"/proc/{orphan}"):
                    break  # reaped, not a zombie
                await anyio.sleep(0.05)


async def test_without_marks_the_process_group_still_goes_with_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Elsewhere (no /proc, no subreaper): the children that stayed in the agent's process
    group die with it; that is what those platforms allow."""
    script = tmp_path / "agent.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, subprocess, sys
            child = subprocess.Popen(["sleep", "300"])
            open(sys.argv[1], "w").write(str(child.pid))
            os._exit(3)
            """
        )
    )
    pids_file = tmp_path / "pids"
    monkeypatch.setattr(reaper, "supported", lambda: False)
    process = AgentProcess([sys.executable, str(script), str(pids_file)], log_dir=tmp_path)
    await process.start()
    async with anyio.create_task_group() as tg:
        tg.start_soon(process.drain_stderr)
        child = (await wait_for_pids(pids_file, 1))[0]
        with anyio.fail_after(10):
            await process.exited.wait()
        await eventually_dead([child])
        await process.shutdown(grace=0.5)
