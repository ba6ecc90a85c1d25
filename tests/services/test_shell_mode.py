"""Shell mode's command (issue 42): on a real terminal, in its directory; stopped by SIGINT,
killed when it ignores it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from acp_tui.services import shell as shell_module
from acp_tui.services.shell import ShellCommand


def _group_runs(pgid: int, name: str) -> bool:
    """Whether a process called ``name`` runs in the process group ``pgid`` (Linux /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        if comm == name and int(fields[2]) == pgid:
            return True
    return False


def _run(
    command: str, cwd: Path, *, stop_after: str | None = None, running: str | None = None
) -> tuple[bytes, int]:
    output = bytearray()
    ended = threading.Event()
    codes: list[int] = []
    seen = threading.Event()

    def on_output(data: bytes) -> None:
        output.extend(data)
        if stop_after is not None and stop_after.encode() in output:
            seen.set()

    def on_exit(code: int) -> None:
        codes.append(code)
        ended.set()

    run = ShellCommand(command, cwd, on_output=on_output, on_exit=on_exit, columns=77, rows=11)
    run.start()
    if stop_after is not None:
        assert seen.wait(10), bytes(output)
        if running is not None:
            # The shell forks the command after the echo: an interrupt in between reaches
            # the shell alone (as Ctrl+C would in a terminal), and the kill ends it later.
            pid = run.pid
            assert pid is not None
            deadline = time.monotonic() + 10
            while not _group_runs(pid, running):
                assert time.monotonic() < deadline, f"{running} never started"
                time.sleep(0.01)
        run.stop()
    assert ended.wait(15), bytes(output)
    return bytes(output), codes[0]


def test_the_command_runs_on_a_terminal_of_the_size_in_its_directory(tmp_path: Path) -> None:
    output, code = _run("test -t 1 && echo tty; stty size; pwd; exit 4", tmp_path)
    assert code == 4
    lines = output.decode().splitlines()
    assert lines[:3] == ["tty", "11 77", str(tmp_path)]


def test_stop_interrupts_it(tmp_path: Path) -> None:
    _output, code = _run("echo started; sleep 30", tmp_path, stop_after="started", running="sleep")
    assert code == -2  # SIGINT


def test_one_that_ignores_the_interrupt_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_module, "GRACE_SECONDS", 0.3)
    _output, code = _run(
        "trap '' INT; echo started; sleep 30", tmp_path, stop_after="started", running="sleep"
    )
    assert code == -9
