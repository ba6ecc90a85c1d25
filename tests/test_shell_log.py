"""Shell-mode commands kept per session (issue 42): appended, read back, private, never a
traceback on a bad line."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config.shell_log import ShellLog


def test_records_round_trip_per_session_and_agent(tmp_path: Path) -> None:
    log = ShellLog(tmp_path / "shell", "demo")
    assert log.add("s1", {"command": "ls", "output": "a\r\n", "after": 1})
    assert log.add("s1", {"command": "pwd", "output": "/w\r\n", "after": 2})
    assert log.add("s2", {"command": "other"})
    assert [r["command"] for r in log.records("s1")] == ["ls", "pwd"]
    assert ShellLog(tmp_path / "shell", "another agent").records("s1") == []
    (path,) = [p for p in (tmp_path / "shell").iterdir() if "pwd" in p.read_text()]
    assert path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "shell").stat().st_mode & 0o777 == 0o700
    with path.open("a") as file:
        file.write("not json\n[1]\n")
    assert [r["command"] for r in log.records("s1")] == ["ls", "pwd"]


def test_a_link_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    log = ShellLog(tmp_path / "shell", "demo")
    assert log.add("s", {"command": "ls"})
    (path,) = (tmp_path / "shell").iterdir()
    target = tmp_path / "elsewhere.txt"
    target.write_text("")
    path.unlink()
    path.symlink_to(target)
    assert not log.add("s", {"command": "ls"})
    assert target.read_text() == ""
    assert log.records("s") == []
