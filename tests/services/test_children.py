"""The processes acp-tui runs itself keep their exit status while the subreaper collects
orphans (CI caught shell mode's ``exit 3`` shown as "exit 0": the reaper had taken the status,
and Python's ``subprocess`` reads a stolen one as 0). Every way acp-tui starts a child of its
own is checked with the reaper collecting as fast as it can beside it."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.protocol import reaper
from acp_tui.services import children
from acp_tui.services.checkpoints.shadow import ShadowError, ShadowRepo
from acp_tui.services.shell import ShellCommand

pytestmark = pytest.mark.skipif(
    not reaper.supported() or not sys.platform.startswith("linux"),
    reason="the subreaper is Linux's",
)

ROUNDS = 40


@pytest.fixture
def reaping() -> Iterator[None]:
    """The subreaper on, and a thread collecting exited children without pause. Afterwards
    none of the test's children is still registered: each was forgotten once waited for
    (the set is the process's: children of earlier tests in this worker may be in it)."""
    assert reaper.enable() and reaper.has_subreaper()
    before = set(reaper._registered)
    done = threading.Event()

    def collect() -> None:
        while not done.is_set():
            reaper.reap()

    thread = threading.Thread(target=collect, daemon=True)
    thread.start()
    yield
    done.set()
    thread.join(5)
    assert not reaper._registered - before


def test_run_keeps_the_exit_status(reaping: None) -> None:
    codes = [children.run(["sh", "-c", f"exit {n % 7 + 1}"]).returncode for n in range(ROUNDS)]
    assert codes == [n % 7 + 1 for n in range(ROUNDS)]


def test_run_is_subprocess_run(reaping: None, tmp_path: Path) -> None:
    done = children.run(["sh", "-c", "cat; echo err >&2; exit 2"], input=b"in", capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, b"in", b"err\n")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        children.run(["sh", "-c", "exit 5"], check=True)
    assert failed.value.returncode == 5
    with pytest.raises(subprocess.TimeoutExpired):
        children.run(["sleep", "30"], timeout=0.2)
    with pytest.raises(FileNotFoundError):
        children.run([str(tmp_path / "no-such-program")])


def test_shell_mode_keeps_the_exit_status(reaping: None, tmp_path: Path) -> None:
    for n in range(ROUNDS // 4):
        ended = threading.Event()
        codes: list[int] = []

        def on_exit(code: int, codes: list[int] = codes, ended: threading.Event = ended) -> None:
            codes.append(code)
            ended.set()

        command = ShellCommand(
            f"printf 'step 1\\rstep 2\\n'; exit {n + 1}",
            tmp_path,
            on_output=lambda data: None,
            on_exit=on_exit,
        )
        command.start()
        assert ended.wait(10)
        assert codes == [n + 1]


def test_a_failed_git_is_a_failure(reaping: None, tmp_path: Path) -> None:
    """A snapshot whose git fails is never taken for one that worked."""
    project = tmp_path / "project"
    project.mkdir()
    shadow = ShadowRepo(tmp_path / "store", project)
    shadow.ensure()
    for _ in range(ROUNDS // 4):
        with pytest.raises(ShadowError):
            shadow._run("cat-file", "-e", "0" * 40)
