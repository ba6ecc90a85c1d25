"""``acp-tui --agent A --agent B --demo -- CMD``: several agents in the app, in the order given,
each once, each with its own settings (issue 19); commands of one agent still take one."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.cli.parse import agent_choices, parse
from acp_tui.cli.tui import agent_settings
from acp_tui.config.load import parse_config
from acp_tui.demo_agent import demo_agent_argv


def config_of(tmp_path: Path) -> object:
    config, problems = parse_config(
        {
            "agents": {
                "claude": {"command": "claude-agent-acp", "env": {"A": "1"}},
                "codex": {"command": "codex-acp", "args": ["--flag"], "label": "Codex"},
            }
        },
        tmp_path / "c.toml",
    )
    assert problems == []
    return config


@pytest.mark.parametrize(
    ("argv", "specs"),
    [
        (["--agent", "a", "--agent", "b"], [("config", "a"), ("config", "b")]),
        (["--demo", "--agent", "a"], [("demo", ""), ("config", "a")]),
        (["--agent=a", "--demo"], [("config", "a"), ("demo", "")]),
        (["--agent", "a", "--", "x", "--demo"], [("config", "a"), ("command", ["x", "--demo"])]),
        (["--agent", "a", "--agent", "a"], [("config", "a")]),
        (["--demo"], [("demo", "")]),
        ([], []),
    ],
)
def test_the_agents_come_in_the_order_given_each_once(
    argv: list[str], specs: list[tuple[str, object]]
) -> None:
    invocation = parse(argv)
    assert invocation.options.agent_choices == specs
    names = [value for kind, value in specs if kind == "config"]
    assert invocation.options.agent == (names[0] if names else None)


def test_an_abbreviated_agent_option_is_still_run() -> None:
    assert agent_choices(["--ag", "a"], ["a"], False, []) == [("config", "a")]


def test_ask_refuses_two_agents(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse(["ask", "hi", "--agent", "a", "--agent", "b"])
    assert exit_info.value.code == 2
    assert "give only one of" in capsys.readouterr().err


def test_sessions_keeps_its_own_list_of_agents() -> None:
    """``sessions --agent A --agent B`` lists both (one table): its ``--agent`` is a list."""
    assert parse(["sessions", "--agent", "a", "--agent", "b"]).options.agent == ["a", "b"]


def test_each_agent_gets_its_own_settings(tmp_path: Path) -> None:
    config = config_of(tmp_path)
    invocation = parse(
        ["--agent", "codex", "--demo", "--resume", "abc", "--agent", "claude", "--", "my", "agent"]
    )
    problems: list[str] = []
    made = agent_settings(invocation, config, problems)  # type: ignore[arg-type]
    specs = [s.agent for s in made if s.agent is not None]
    assert [list(spec.argv) for spec in specs] == [
        ["codex-acp", "--flag"],
        demo_agent_argv(),
        ["claude-agent-acp"],
        ["my", "agent"],
    ]
    assert [spec.label for spec in specs] == ["Codex", "demo agent", "claude", ""]
    assert specs[2].env == {"A": "1"} and specs[0].env is None and specs[3].env is None
    # A session id belongs to one agent: the first.
    assert made[0].resume == "abc" and all(s.resume is None for s in made[1:])
    assert problems == []


def test_two_configured_agents_of_one_command_line_are_two_agents(tmp_path: Path) -> None:
    """Two accounts of one program (the same command, another env) both run: an agent is
    its configured name, not its command line (they were merged, the second never started)."""
    config, _ = parse_config(
        {
            "agents": {
                "a": {"command": "same-agent", "env": {"ACCOUNT": "one"}},
                "b": {"command": "same-agent", "env": {"ACCOUNT": "two"}},
            }
        },
        tmp_path / "c.toml",
    )
    made = agent_settings(parse(["--agent", "a", "--agent", "b"]), config)
    specs = [s.agent for s in made if s.agent is not None]
    assert [(spec.argv, spec.env) for spec in specs] == [
        (("same-agent",), {"ACCOUNT": "one"}),
        (("same-agent",), {"ACCOUNT": "two"}),
    ]
    assert specs[0].key != specs[1].key


def test_the_same_agent_twice_is_one_agent(tmp_path: Path) -> None:
    """The same command line after -- and as --demo's, or a name given twice: one agent (its
    process runs many sessions)."""
    config = config_of(tmp_path)
    demo = demo_agent_argv()
    made = agent_settings(parse(["--demo", "--", *demo]), config)  # type: ignore[arg-type]
    assert [s.agent.argv for s in made if s.agent] == [tuple(demo)]


def test_one_agent_is_made_as_before(tmp_path: Path) -> None:
    config = config_of(tmp_path)
    (only,) = agent_settings(parse(["--agent", "claude", "--resume", "x"]), config)  # type: ignore[arg-type]
    assert only.agent is not None and only.agent.argv == ("claude-agent-acp",)
    assert only.resume == "x"


def test_every_agent_that_could_not_start_is_printed_and_the_exit_code_is_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two of three agents did not start: both lines are printed after the app, exit 1 (the
    other one ran: the person used it, and is told about the two on the way out too)."""
    import asyncio

    from acp_tui.cli import tui
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.session.workspace.workspace import Workspace
    from acp_tui.ui.preferences import UiSettings

    workspace = Workspace()
    workspace.note_start_failure("a", "acp-tui: cannot start `a`: command not found: a")
    workspace.note_start_failure("b", "acp-tui: cannot start `b`: command not found: b")
    made: dict[str, object] = {}

    class RanApp:
        def __init__(self) -> None:
            self.workspace = workspace

        async def run_async(self) -> int:
            return 0

    def fake_make_app(settings: AppSettings, **options: object) -> RanApp:
        made.update(options)
        return RanApp()

    monkeypatch.setattr("acp_tui.ui.app.make_app", fake_make_app)
    monkeypatch.setattr(tui, "settle_long_lived_objects", lambda: None)
    first = AppSettings(agent=AgentSpec(argv=("a",), cwd=str(tmp_path)))
    more = [AppSettings(agent=AgentSpec(argv=("b",), cwd=str(tmp_path)))]
    code = asyncio.run(tui._run_loaded_app(first, UiSettings(), None, [], more))
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        "acp-tui: cannot start `a`: command not found: a",
        "acp-tui: cannot start `b`: command not found: b",
    ]
    assert made["more_agents"] == more
