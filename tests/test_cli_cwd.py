"""A working directory that is not one says which way it is not: missing, or not a directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.cli.parse import directory_problem, parse
from acp_tui.cli.tui import settings_from_invocation
from acp_tui.config.load import parse_config


def test_directory_problem(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    assert directory_problem(str(tmp_path)) is None
    assert directory_problem(str(file)) == "not a directory"
    assert directory_problem(str(tmp_path / "missing")) == "no such directory"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: (p / "notes.txt").write_text("x") and p / "notes.txt", "not a directory"),
        (lambda p: p / "missing", "no such directory"),
    ],
    ids=["file", "missing"],
)
def test_cwd_option_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(SystemExit) as exit_info:
        parse(["--cwd", str(path), "--demo"])
    assert exit_info.value.code == 2
    assert f"--cwd {path}: {message}" in capsys.readouterr().err


def test_the_installed_command_says_not_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    acp_tui = Path(sys.executable).parent / "acp-tui"
    result = subprocess.run(
        [str(acp_tui), "--cwd", str(file), "--demo"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "not a directory" in result.stderr and "no such directory" not in result.stderr


def test_a_configured_agent_cwd_that_is_a_file_is_reported(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    config, problems = parse_config(
        {"agents": {"demo": {"command": "demo-agent", "cwd": str(file)}}}, tmp_path / "c.toml"
    )
    assert problems == []
    found: list[str] = []
    settings = settings_from_invocation(parse(["--agent", "demo"]), config, found)
    assert settings.agent is not None
    assert found == [f"agents.demo.cwd: {file}: not a directory; using {settings.agent.cwd}"]
