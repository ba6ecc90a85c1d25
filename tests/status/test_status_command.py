"""The status command (issue 42): what one run gives (the first line, as data, bounded), how
it fails (a short note, never an exception), that nothing it starts outlives it, and how its
runs are paced (one a second at most, one at a time, only when there is something new). And
the git branch, read without running git or touching the repository."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.services.git_branch import GitBranch, head_file, read_branch
from acp_tui.services.status_command import MAX_CHARS, StatusOutput, run_status_command
from acp_tui.session.status.runner import StatusCommand, StatusPacer

PY = sys.executable


def wait_until(condition: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    """Polled, with a limit far above a loaded machine's worst case."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.02)


def run(command: str, state: bytes = b"{}\n", cwd: str = "/", limit: float = 5.0) -> StatusOutput:
    return asyncio.run(run_status_command(command, state, cwd, limit=limit))


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "status.py"
    path.write_text(body)
    return f"{PY} {path}"


# ------------------------------------------------------------------------------ one run


def test_the_command_reads_the_state_and_its_first_line_is_shown(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "import json, os, sys\n"
        "state = json.load(sys.stdin)\n"
        "print(f\"turns={state['turn']} in {os.getcwd()}\")\n"
        "print('a second line is not shown')\n",
    )
    output = run(command, json.dumps({"turn": 2}).encode(), str(tmp_path))
    assert output == StatusOutput(line=f"turns=2 in {tmp_path}")


def test_its_output_is_data_on_one_bounded_line(tmp_path: Path) -> None:
    """Colours and other escape sequences are removed, a lone control character shows as its
    symbol, bidi controls are dropped, bytes that are not UTF-8 become U+FFFD, and the line is
    cut; markup means nothing here (the widget draws it as plain text)."""
    command = script(
        tmp_path,
        "import sys\n"
        "sys.stdout.buffer.write(b'\\x1b[31mred\\x1b[0m \\x1b]52;c;b3duZWQ=\\x07[b]x[/b]\\x07"
        " \\xe2\\x80\\xae \\xff\\r\\nnext')\n",
    )
    assert run(command).line == "red [b]x[/b]␇ \ufffd"
    long = script(tmp_path, "print('x' * 100_000)")
    line = run(long).line
    assert len(line) == MAX_CHARS and line.endswith("…")


def test_a_command_that_prints_nothing_shows_nothing() -> None:
    assert run("true") == StatusOutput(line="")


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("exit 3", "exit 3"),
        ("echo partial; exit 1", "exit 1"),
        ("kill -9 $$", "ended by SIGKILL"),
        ("no-such-command-here-42", "exit 127"),
    ],
)
def test_a_failing_command_gives_a_short_note(command: str, problem: str) -> None:
    assert run(command) == StatusOutput(problem=problem)


def test_a_directory_that_is_gone_is_a_note_not_an_exception(tmp_path: Path) -> None:
    output = run("echo hi", cwd=str(tmp_path / "gone"))
    assert output.line == "" and output.problem is not None
    assert output.problem.startswith("cannot run")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead: it waits for its parent (the init of the machine) to read it.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_a_command_that_hangs_is_killed_with_all_it_started(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"sleep 300 & echo $! > {pids}; sleep 300"
    started = time.monotonic()
    output = run(command, limit=0.5)
    assert output == StatusOutput(problem="no answer in 0.5 s")
    assert time.monotonic() - started < 30  # not a hang (the test limit is 300 s)
    child = int(pids.read_text())
    wait_until(lambda: not _alive(child), "the background child is killed")


def test_what_a_command_leaves_running_ends_with_it(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The leftover does not hold stdout (so the run ends), and would live on by itself.
    command = f"sleep 300 >/dev/null 2>&1 & echo $! > {pids}; echo done"
    assert run(command) == StatusOutput(line="done")
    wait_until(lambda: not _alive(int(pids.read_text())), "the leftover is killed")


def test_a_command_that_floods_its_output_is_cut_off() -> None:
    """Read up to a bound, then its pipe is closed (as ``| head`` does): the loop is not kept
    busy reading for the whole timeout."""
    started = time.monotonic()
    assert run("yes", limit=30) == StatusOutput(problem="printed too much")
    assert time.monotonic() - started < 30  # not a hang


def test_a_detached_process_holding_the_output_does_not_hang_the_run(tmp_path: Path) -> None:
    """A process that left the command's group and keeps its stdout open is not waited for
    beyond the timeout (nor killed: it is no longer the command's)."""
    pids = tmp_path / "pids"
    command = f"setsid sleep 300 & echo $! > {pids}; echo hi"
    started = time.monotonic()
    try:
        assert run(command, limit=0.5) == StatusOutput(problem="no answer in 0.5 s")
        assert time.monotonic() - started < 30  # not a hang
    finally:
        wait_until(lambda: pids.exists() and pids.read_text().strip() != "", "its pid")
        os.kill(int(pids.read_text()), 9)


def test_a_command_that_ignores_its_stdin_is_fine() -> None:
    assert run("echo ok", state=b"x" * 200_000).line == "ok"


def _running_with(token: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``token``."""
    import psutil

    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        with contextlib.suppress(psutil.Error):
            if process.info["status"] != psutil.STATUS_ZOMBIE and any(
                token in part for part in process.info["cmdline"] or ()
            ):
                found.append(process.pid)
    return found


@pytest.mark.parametrize("moment", ["at once", "while starting", "once running"])
def test_a_run_cancelled_at_any_moment_ends_promptly_and_leaves_nothing(
    tmp_path: Path, moment: str
) -> None:
    """Cancelled before, during or after its command starts: the run ends at once (asyncio's
    clean-up of a cancelled start is never waited on) and neither the command nor what it
    started is left running."""
    started = tmp_path / "started"
    # A duration no other process has: in the command lines of the shell and of its child.
    token = f"300.{os.getpid()}{time.monotonic_ns()}"
    command = f"sleep {token} & echo $$ > {started}; wait"

    async def scenario() -> None:
        task = asyncio.create_task(run_status_command(command, b"", "/", limit=60))
        if moment == "while starting":
            await asyncio.sleep(0)
        elif moment == "once running":
            while not started.exists() or not started.read_text().strip():
                await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)

    begun = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - begun < 30
    wait_until(lambda: not _running_with(token), "nothing of the command is left running")


# ------------------------------------------------------------------------------ pacing


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_pacer_runs_on_change_at_most_once_a_second_one_at_a_time() -> None:
    clock = Clock()
    pacer = StatusPacer(clock, min_interval=1.0, refresh=5.0)
    assert pacer.wait(b"a") == 0.0  # the first run: at once
    pacer.started(b"a")
    assert pacer.wait(b"b") is None  # one runs: never two at a time
    pacer.finished()
    clock.now = 0.3
    assert pacer.wait(b"b") == pytest.approx(0.7)  # changed: due a second after the start
    assert pacer.wait(b"a") is None  # unchanged: not due
    clock.now = 1.0
    assert pacer.wait(b"b") == 0.0
    pacer.started(b"b")
    pacer.finished()
    clock.now = 5.9
    assert pacer.wait(b"b") is None  # nothing new
    clock.now = 6.0
    assert pacer.wait(b"b") == 0.0  # but its own world may have changed: refreshed


def test_offers_coalesce_into_paced_runs() -> None:
    """A state that changes twenty times a second gives about one run a second, each with
    the state of its moment, and the last state is always run."""
    seen: list[bytes] = []
    shown: list[StatusOutput] = []

    async def runner(command: str, state: bytes, cwd: str) -> StatusOutput:
        seen.append(state)
        await asyncio.sleep(0.01)
        return StatusOutput(line=state.decode())

    async def scenario() -> float:
        command = StatusCommand(
            "x", shown.append, pacer=StatusPacer(min_interval=0.5), runner=runner
        )
        started = time.monotonic()
        for step in range(30):
            command.offer(f"s{step}".encode(), "/")
            await asyncio.sleep(0.05)
        while command.running or command._later is not None:
            await asyncio.sleep(0.02)
        took = time.monotonic() - started
        await command.stop()
        command.offer(b"after stop", "/")
        await asyncio.sleep(0.05)
        return took

    took = asyncio.run(scenario())
    assert seen[0] == b"s0" and seen[-1] == b"s29"
    # At most one start per interval (one more for the first, at once).
    assert len(seen) <= took / 0.5 + 2, (len(seen), took)
    assert len(seen) >= 2
    assert shown[-1] == StatusOutput(line="s29")
    assert b"after stop" not in seen


def test_a_state_that_does_not_change_is_not_run_again_within_the_refresh() -> None:
    runs: list[bytes] = []

    async def runner(command: str, state: bytes, cwd: str) -> StatusOutput:
        runs.append(state)
        return StatusOutput(line="x")

    async def scenario() -> None:
        command = StatusCommand(
            "x",
            lambda output: None,
            pacer=StatusPacer(min_interval=0.05, refresh=60),
            runner=runner,
        )
        for _ in range(10):
            command.offer(b"same", "/")
            await asyncio.sleep(0.06)
        await command.stop()

    asyncio.run(scenario())
    assert runs == [b"same"]


def test_a_runner_that_raises_gives_a_note() -> None:
    shown: list[StatusOutput] = []

    async def runner(command: str, state: bytes, cwd: str) -> StatusOutput:
        raise RuntimeError("boom")

    async def scenario() -> None:
        command = StatusCommand("x", shown.append, runner=runner)
        command.offer(b"s", "/")
        while command.running:
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert shown == [StatusOutput(problem="failed (see the log)")]


# ------------------------------------------------------------------------------ git branch


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_the_branch_of_a_repository_a_worktree_and_a_detached_head(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "trunk")
    git(
        repo,
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    (repo / "deep" / "er").mkdir(parents=True)
    assert GitBranch(str(repo / "deep" / "er")).current() == "trunk"
    git(repo, "worktree", "add", "-q", "-b", "feature/x", str(tmp_path / "wt"))
    assert GitBranch(str(tmp_path / "wt")).current() == "feature/x"
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    git(repo, "checkout", "-q", "--detach")
    assert GitBranch(str(repo)).current() == sha[:7]
    outside = tmp_path / "plain"
    outside.mkdir()
    assert head_file(outside) is None or head_file(outside) != repo / ".git" / "HEAD"


def test_the_branch_follows_a_checkout_and_nothing_of_git_is_touched(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    branch = GitBranch(str(repo))
    before = sorted((path, path.stat().st_mtime_ns) for path in (repo / ".git").rglob("*"))
    assert branch.current() == "main"
    assert branch.current() == "main"
    after = sorted((path, path.stat().st_mtime_ns) for path in (repo / ".git").rglob("*"))
    assert after == before  # read only: no lock, no index refresh, nothing written
    git(repo, "checkout", "-q", "-b", "other-branch")
    assert branch.current() == "other-branch"


def test_a_folder_that_becomes_a_repository_gets_its_branch(tmp_path: Path) -> None:
    folder = tmp_path / "later"
    folder.mkdir()
    branch = GitBranch(str(folder))
    if branch.current() is None:  # the test's own folder may be inside a repository
        git(folder, "init", "-q", "-b", "fresh")
        assert branch.current() == "fresh"


def test_a_strange_head_gives_no_branch(tmp_path: Path) -> None:
    head = tmp_path / "HEAD"
    head.write_bytes(b"\x1b]0;x\x07 not a ref")
    assert read_branch(head) is None
    head.write_bytes(b"")
    assert read_branch(head) is None
