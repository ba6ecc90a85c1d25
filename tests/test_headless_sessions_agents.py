"""``acp-tui sessions --agent A --agent B`` / ``--all-agents`` (issue 19): the sessions of
several configured agents (the demo agent and the official-SDK agent, real processes) in one
table with an AGENT column or one JSON array with an ``agent`` field, newest first; an agent
that cannot start or list says so on stderr and the others still print."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tui.cli.headless_output import format_table
from acp_tui.cli.headless_sessions_agents import merge_rows
from acp_tui.cli.main import main as cli_main
from acp_tui.demo_agent import demo_agent_argv

AGENTS = Path(__file__).parent / "agents"
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]


def _toml_agent(name: str, argv: list[str], env: dict[str, str] | None = None) -> str:
    text = f"[agents.{json.dumps(name)}]\ncommand = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
    if env:
        text += "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }\n"
    return text


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config with the demo agent (one session made here by `ask`), the SDK agent (three
    sessions here), an agent that can neither list nor reopen, and one that does not exist."""
    config = tmp_path / "config.toml"
    config.write_text(
        "\n".join(
            [
                _toml_agent("demo", demo_agent_argv(state_dir=str(tmp_path / "demo-state"))),
                _toml_agent("sdk", SDK_AGENT),
                _toml_agent(
                    "nolist", SDK_AGENT, {"SDK_AGENT_NO_LIST": "1", "SDK_AGENT_NO_LOAD": "1"}
                ),
                _toml_agent("gone", [str(tmp_path / "no-such-agent")]),
            ]
        )
    )
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    work = tmp_path / "work"
    work.mkdir()
    assert cli_main(["ask", "hello from the demo", "--agent", "demo", "--cwd", str(work)]) == 0
    return work


def _sessions(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(["sessions", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_two_agents_in_one_table_newest_first(
    configured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _sessions(
        capsys, "--agent", "demo", "--agent", "sdk", "--cwd", str(configured)
    )
    assert code == 0, err
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["AGENT", "TITLE", "UPDATED", "CWD", "ID"]
    agents = [line.split()[0] for line in lines[1:]]
    ids = [line.split()[-1] for line in lines[1:]]
    # The demo session was made just now; the SDK agent's are from 2025 (pre-3 newest).
    assert agents == ["demo", "sdk", "sdk", "sdk"]
    assert ids[1:] == ["pre-3", "pre-2", "pre-1"]
    assert "hello from the demo" in lines[1]
    assert "\x1b" not in out and "Fix red bug␇ now" in out


def test_json_has_an_agent_field(configured: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _sessions(
        capsys, "--agent", "sdk", "--agent", "demo", "--cwd", str(configured), "--json"
    )
    assert code == 0, err
    rows = json.loads(out)
    assert [row["agent"] for row in rows] == ["demo", "sdk", "sdk", "sdk"]
    assert [row["sessionId"] for row in rows[1:]] == ["pre-3", "pre-2", "pre-1"]
    assert next(iter(rows[0])) == "agent"  # then the agent's own fields, as sent


def test_all_agents_lists_every_configured_one_and_says_which_failed(
    configured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _sessions(capsys, "--all-agents", "--cwd", str(configured))
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["demo", "sdk", "sdk", "sdk"]
    # One line each, as they happen (the agents start at once).
    errors = sorted(err.splitlines())
    assert len(errors) == 2, err
    assert errors[0].startswith("acp-tui: gone: cannot start agent")
    assert errors[1].startswith("acp-tui: nolist: ")
    assert "does not support listing sessions" in errors[1]
    # The first agent (in the config's order) that failed decides: nolist, unsupported (2).
    assert code == 2


def test_a_failing_agent_does_not_hide_the_others(
    configured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _sessions(
        capsys, "--agent", "gone", "--agent", "sdk", "--cwd", str(configured)
    )
    assert code == 127
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["pre-3", "pre-2", "pre-1"]
    assert "acp-tui: gone: cannot start agent" in err


def test_one_agent_and_usage_errors(configured: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # One --agent (even given twice) is `acp-tui sessions` as ever: no AGENT column.
    code, out, err = _sessions(capsys, "--agent", "sdk", "--agent", "sdk", "--cwd", str(configured))
    assert code == 0, err
    assert out.splitlines()[0].split() == ["TITLE", "UPDATED", "CWD", "ID"]
    code, out, err = _sessions(
        capsys, "--agent", "sdk", "--agent", "typo", "--cwd", str(configured)
    )
    assert code == 2 and out == ""
    assert "no agent named 'typo'" in err
    with pytest.raises(SystemExit) as raised:
        cli_main(["sessions", "--all-agents", "--demo"])
    assert raised.value.code == 2
    assert "give only one of --demo, --all-agents" in capsys.readouterr().err


def test_all_agents_with_one_configured_still_has_the_agent_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "one.toml"
    config.write_text(_toml_agent("sdk", SDK_AGENT))
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    code, out, err = _sessions(capsys, "--all-agents", "--cwd", str(tmp_path), "--json")
    assert code == 0, err
    assert [row["agent"] for row in json.loads(out)] == ["sdk"] * 3


def test_all_agents_without_any_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "none.toml"))
    code, out, err = _sessions(capsys, "--all-agents")
    assert code == 2 and out == ""
    assert "no agents in" in err


def test_merge_order_and_hostile_agent_names_in_the_table() -> None:
    rows = merge_rows(
        [
            ("a", [{"sessionId": "1", "updatedAt": "2025-01-01T00:00:00Z"}, {"sessionId": "2"}]),
            (
                "\x1b[31mb\nx",
                [
                    {"sessionId": "3", "updatedAt": "2025-01-02T00:00:00+00:00"},
                    {"sessionId": "4", "updatedAt": "not a time", "agent": "spoofed"},
                ],
            ),
        ]
    )
    assert [r["sessionId"] for r in rows] == ["3", "1", "2", "4"]
    assert rows[3]["agent"] == "\x1b[31mb\nx"  # the row's own "agent" never wins
    table = format_table(rows, agent_column=True)
    assert "\x1b" not in table
    assert [line.split()[0] for line in table.splitlines()] == ["AGENT", "b", "a", "a", "b"]
