"""A configured agent that writes down what it is sent, for the tests of one launch spec
(tests/test_one_launch_spec.py, tests/test_launch_drifts.py, the journeys): only the command
line's entry point is used here, so the tests that use it ran before and after issue 37."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main as cli_main

AGENTS = Path(__file__).resolve().parent / "agents"
RECORDING_AGENT = [sys.executable, str(AGENTS / "recording_agent.py")]
PROMPT = "read @notes.md please"


class Recorder:
    """A config file (at ``config``) with two agents of one command line, accounts ``one``
    and ``two``, each with every setting a spec has; a project under ``root`` with a file to
    mention; and what the agents were sent."""

    def __init__(self, root: Path, config: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.extra = root / "extra"
        self.project.mkdir(parents=True)
        self.extra.mkdir()
        (self.project / "notes.md").write_text("# Notes\nremember the milk\n")
        self.log = root / "wire.jsonl"
        self.config = config
        self.write_config()

    def write_config(self) -> None:
        agent = json.dumps(RECORDING_AGENT[0])
        script = json.dumps(RECORDING_AGENT[1])
        accounts = ""
        for name in ("one", "two"):
            accounts += (
                f"[agents.{name}]\ncommand = {agent}\nargs = [{script}]\n"
                f"env = {{ RECORDING_AGENT_LOG = {json.dumps(str(self.log))}, "
                f'RECORDING_AGENT_ACCOUNT = "{name}" }}\n'
                f"cwd = {json.dumps(str(self.project))}\n"
                'additional_directories = ["../extra"]\n'
                "protocol = 2\n"
                "client_files = false\n"
                f'label = "Recorder {name}"\n'
                "[[agents." + name + '.mcp_servers]]\nname = "fs"\ncommand = "/opt/mcp-fs"\n\n'
            )
        self.config.write_text(accounts)

    def records(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def runs(self) -> list[list[dict[str, Any]]]:
        """The messages of each start of the agent, in order (each begins with initialize)."""
        runs: list[list[dict[str, Any]]] = []
        for record in self.records():
            if record["method"] == "initialize":
                runs.append([])
            runs[-1].append(record)
        return runs


class Setup(Recorder):
    """A :class:`Recorder` whose config file is the one the command line reads, in a data
    directory of its own, with ``root`` the current directory."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(root, root / "config.toml")
        monkeypatch.setenv("ACP_TUI_CONFIG", str(self.config))
        monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
        monkeypatch.setenv("XDG_STATE_HOME", str(root / "state"))
        monkeypatch.chdir(root)


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Setup:
    return Setup(tmp_path, monkeypatch)


def ask(*args: str) -> tuple[int, str, str]:
    """``acp-tui ARGS`` as the command line runs it (config file, resolver and all)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli_main.main(list(args))
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()
