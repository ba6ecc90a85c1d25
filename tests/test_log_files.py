"""The log folder stays bounded (issue 38): the client's log is rotated by size as acp-tui
starts, and the oldest agent logs (one per agent run) are deleted beyond a count and a total
size, both set in the config file's ``[logs]``; never one just written, never anything that
is not a plain agent log."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acp_tui.config.log_files import (
    CLIENT_LOG,
    CLIENT_LOG_BYTES,
    client_log_handler,
    prune_agent_logs,
)

HOUR = 3600.0


def make_logs(folder: Path, count: int, size: int = 10, age: float = HOUR) -> list[Path]:
    """``count`` agent logs, the first the oldest, each an hour or more old."""
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    made = []
    for number in range(count):
        path = folder / f"agent-20260101-0000{number:02d}-{1000 + number}.log"
        path.write_bytes(b"x" * size)
        stamp = now - age - (count - number) * 60
        os.utime(path, (stamp, stamp))
        made.append(path)
    return made


def test_the_oldest_beyond_the_count_go(tmp_path: Path) -> None:
    logs = make_logs(tmp_path, 40)
    deleted = prune_agent_logs(tmp_path, keep=30, max_bytes=10**9)
    assert sorted(deleted) == sorted(logs[:10])
    assert sorted(tmp_path.iterdir()) == sorted(logs[10:])


def test_the_oldest_beyond_the_size_go(tmp_path: Path) -> None:
    logs = make_logs(tmp_path, 10, size=1000)
    prune_agent_logs(tmp_path, keep=100, max_bytes=3500)
    assert sorted(tmp_path.iterdir()) == sorted(logs[-3:])


def test_only_plain_agent_logs_are_deleted_and_never_a_fresh_one(tmp_path: Path) -> None:
    logs = make_logs(tmp_path, 5)
    client = tmp_path / CLIENT_LOG
    client.write_text("client\n")
    rotated = tmp_path / f"{CLIENT_LOG}.1"
    rotated.write_text("older\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    outside = tmp_path.parent / "outside.log"
    outside.write_text("keep\n")
    link = tmp_path / "link.log"
    link.symlink_to(outside)
    folder = tmp_path / "folder.log"
    folder.mkdir()
    for path in (client, rotated, notes):
        os.utime(path, (0, 0))
    fresh = tmp_path / "fresh.log"  # a run that has just begun, maybe another acp-tui's
    fresh.write_text("starting\n")
    prune_agent_logs(tmp_path, keep=1, max_bytes=1)
    left = set(tmp_path.iterdir())
    assert {client, rotated, notes, link, folder, fresh} <= left
    assert not any(path in left for path in logs)
    assert outside.read_text() == "keep\n"


def test_a_folder_that_cannot_be_read_deletes_nothing(tmp_path: Path) -> None:
    assert prune_agent_logs(tmp_path / "missing", keep=1, max_bytes=1) == []


def test_the_client_log_is_rotated_at_its_size(tmp_path: Path) -> None:
    log = tmp_path / CLIENT_LOG
    log.write_bytes(b"a" * CLIENT_LOG_BYTES)
    client_log_handler(tmp_path).close()
    assert (tmp_path / f"{CLIENT_LOG}.1").stat().st_size == CLIENT_LOG_BYTES
    assert log.stat().st_size == 0
    log.write_bytes(b"b" * CLIENT_LOG_BYTES)
    client_log_handler(tmp_path).close()
    assert (tmp_path / f"{CLIENT_LOG}.2").read_bytes()[:1] == b"a"
    assert (tmp_path / f"{CLIENT_LOG}.1").read_bytes()[:1] == b"b"
    log.write_bytes(b"c" * CLIENT_LOG_BYTES)
    client_log_handler(tmp_path).close()  # the oldest falls off: three files at most
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        CLIENT_LOG,
        f"{CLIENT_LOG}.1",
        f"{CLIENT_LOG}.2",
    ]
    assert (tmp_path / f"{CLIENT_LOG}.2").read_bytes()[:1] == b"b"
    small = tmp_path / "small"
    small.mkdir()
    (small / CLIENT_LOG).write_text("short\n")
    client_log_handler(small).close()
    assert (small / CLIENT_LOG).read_text() == "short\n"


@pytest.mark.parametrize(
    ("table", "kept"), [("", 30), ("[logs]\nkeep = 5\n", 5)], ids=["default", "configured"]
)
def test_acp_tui_keeps_what_the_config_says(tmp_path: Path, table: str, kept: int) -> None:
    """A real run (`acp-tui ask` on the demo agent): the old logs beyond the config's count
    are gone, its own new log is there."""
    state = tmp_path / "state"
    folder = state / "acp-tui" / "log"
    old = make_logs(folder, 40)
    config = tmp_path / "config.toml"
    config.write_text(table)
    env = {**os.environ, "XDG_STATE_HOME": str(state), "ACP_TUI_CONFIG": str(config)}
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ask", "hi", "--demo"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    left = set(folder.iterdir())
    assert {path for path in old if path in left} == set(old[-kept:])
    assert len(left - set(old)) == 1  # this run's own agent log


def test_a_bad_logs_table_is_reported(tmp_path: Path) -> None:
    from acp_tui.config.load import load_config

    config = tmp_path / "config.toml"
    config.write_text("[logs]\nkeep = 0\nmax_megabytes = -1\n")
    loaded, problems = load_config(config)
    assert any("logs.keep" in problem for problem in problems), problems
    assert any("logs.max_megabytes" in problem for problem in problems), problems
    assert loaded.logs.keep == 30
