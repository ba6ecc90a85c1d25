"""The launch spec (issue 37): an agent's identity, the one resolver's order (the command line
over the agent over the config over the defaults), and the local index written under the old
keys (the command line joined with spaces), which is read, never lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.config.load import Config
from acp_tui.session.launch.resolve import UnknownAgent, resolve_agent
from acp_tui.session.launch.spec import AgentSource, AgentSpec, LaunchOptions
from acp_tui.store.local_index import LocalIndex


def config(**agents: dict[str, object]) -> Config:
    return Config.model_validate({"agents": agents, "protocol": 2, "initialize_timeout": 7})


# ---------------------------------------------------------------------------------- identity


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (AgentSpec(argv=("a b",), cwd="/"), AgentSpec(argv=("a", "b"), cwd="/")),
        (AgentSpec(argv=("a",), cwd="/"), AgentSpec(argv=("a",), cwd="/", env={"K": "1"})),
        (
            AgentSpec(argv=("a",), cwd="/", env={"K": "1"}),
            AgentSpec(argv=("a",), cwd="/", env={"K": "2"}),
        ),
        (AgentSpec(argv=("a",), cwd="/", name="x"), AgentSpec(argv=("a",), cwd="/", name="y")),
        (AgentSpec(argv=("a",), cwd="/", name="a"), AgentSpec(argv=("a",), cwd="/")),
    ],
)
def test_different_agents_have_different_keys(one: AgentSpec, other: AgentSpec) -> None:
    assert one.key != other.key


def test_a_key_is_the_name_or_the_exact_command_and_env() -> None:
    named = AgentSpec(argv=("a",), cwd="/x", name="work", env={"K": "1"})
    assert named.key == "config:work"
    # The same configured agent elsewhere, with other settings: the same agent.
    assert AgentSpec(argv=("b",), cwd="/y", name="work").key == named.key
    plain = AgentSpec(argv=("a", "--flag"), cwd="/x")
    assert AgentSpec(argv=("a", "--flag"), cwd="/elsewhere").key == plain.key
    secret = AgentSpec(argv=("a",), cwd="/", env={"TOKEN": "sk-very-secret"})
    assert "sk-very-secret" not in secret.key  # it is stored in the local index
    same = AgentSpec(argv=("a",), cwd="/", env={"TOKEN": "sk-very-secret"})
    assert same.key == secret.key


def test_a_source_has_the_key_of_the_spec_it_resolves_to(tmp_path: Path) -> None:
    made = config(work={"command": "a", "env": {"K": "1"}})
    for source in (AgentSource.configured("work"), AgentSource.command(["a", "b c"], "A")):
        assert resolve_agent(source, made, LaunchOptions(cwd=str(tmp_path))).spec.key == (
            source.key
        )


def test_a_spec_cannot_be_changed_behind_its_back() -> None:
    env = {"K": "1"}
    servers = [{"name": "fs", "command": "x"}]
    spec = AgentSpec(argv=["a"], cwd="/", env=env, mcp_servers=servers)  # type: ignore[arg-type]
    env["K"] = "2"
    servers[0]["command"] = "y"
    assert spec.env == {"K": "1"} and spec.mcp_server_list()[0]["command"] == "x"
    with pytest.raises(TypeError):
        spec.env["K"] = "3"  # type: ignore[index]
    spec.mcp_server_list()[0]["command"] = "z"
    assert spec.mcp_server_list()[0]["command"] == "x"


# ---------------------------------------------------------------------------------- resolver


def test_the_command_line_wins_over_the_agent_over_the_config(tmp_path: Path) -> None:
    home, extra, given = tmp_path / "home", tmp_path / "extra", tmp_path / "given"
    for path in (home, extra, given):
        path.mkdir()
    made = config(
        work={
            "command": "a",
            "cwd": str(home),
            "additional_directories": ["../extra", "../gone"],
            "protocol": 1,
            "client_files": False,
            "label": "Work",
        }
    )
    resolved = resolve_agent(AgentSource.configured("work"), made)
    spec = resolved.spec
    assert (spec.cwd, spec.additional_dirs) == (str(home), (str(extra),))
    assert (spec.protocol_version, spec.client_files, spec.label) == (1, False, "Work")
    assert spec.initialize_timeout == 7
    assert resolved.problems == (
        f"agents.work.additional_directories: {tmp_path / 'gone'}: no such directory; left out",
    )
    options = LaunchOptions(cwd=str(given), add_dirs=(str(given),), protocol=2)
    over = resolve_agent(AgentSource.configured("work"), made, options).spec
    assert over.cwd == str(given) and over.protocol_version == 2
    # The agent's directories (relative to the cwd, now --cwd's), then --add-dir's.
    assert over.additional_dirs == (str(extra), str(given))


def test_a_command_takes_the_configs_defaults(tmp_path: Path) -> None:
    spec = resolve_agent(
        AgentSource.command(["gemini", "--acp"]), config(), LaunchOptions(cwd=str(tmp_path))
    ).spec
    assert spec.name is None and spec.protocol_version == 2 and spec.initialize_timeout == 7
    assert spec.client_files is False  # Gemini CLI is not offered the client's files
    without = resolve_agent(AgentSource.command(["my-agent"]), None)
    assert without.spec.protocol_version == 1 and without.spec.client_files is True


def test_an_agents_cwd_that_is_not_a_directory_is_said(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    made = config(work={"command": "a", "cwd": str(tmp_path / "file")})
    resolved = resolve_agent(AgentSource.configured("work"), made, LaunchOptions())
    assert resolved.bad_cwd == f"agents.work.cwd {tmp_path / 'file'}: not a directory"
    assert resolved.spec.cwd != str(tmp_path / "file")


def test_an_unknown_name_is_an_error() -> None:
    with pytest.raises(UnknownAgent):
        resolve_agent(AgentSource.configured("nope"), config())
    with pytest.raises(UnknownAgent):
        resolve_agent(AgentSource.configured("nope"), None)


# ---------------------------------------------------------------------------------- index


def test_sessions_remembered_under_the_old_key_are_kept(tmp_path: Path) -> None:
    """An index written when an agent was its joined command line: each agent of that command
    line reads what was there once (two accounts of one program each get their copy), under
    its own key from then on; the old rows stay for an older acp-tui."""
    path = tmp_path / "sessions.sqlite3"
    with LocalIndex(path, "my-agent --acp") as old:
        old.remember("s1", cwd="/p", title="Old talk", first_prompt="hello")
        old.set_local_title("s1", "Renamed")
        old.remember_defaults({"commands": [{"name": "help"}]})
    one = AgentSpec(argv=("my-agent", "--acp"), cwd="/", name="one")
    two = AgentSpec(argv=("my-agent", "--acp"), cwd="/", name="two")
    with LocalIndex(path, one.key, legacy=one.legacy_key) as index:
        assert [s.title for s in index.sessions()] == ["Old talk"]
        assert index.local_titles() == {"s1": "Renamed"}
        assert index.defaults() == {"commands": [{"name": "help"}]}
        index.forget("s1")
        index.remember("s2", title="New talk")
    with LocalIndex(path, one.key, legacy=one.legacy_key) as index:
        # Read once: what this agent forgot since does not come back.
        assert [s.session_id for s in index.sessions()] == ["s2"]
    with LocalIndex(path, two.key, legacy=two.legacy_key) as index:
        assert [s.session_id for s in index.sessions()] == ["s1"]  # its own copy
    with LocalIndex(path, "my-agent --acp") as old:
        assert [s.session_id for s in old.sessions()] == ["s1"]


def test_review_writes_flag_over_agent_over_top_level(tmp_path: Path) -> None:
    made = Config.model_validate(
        {
            "review_writes": "ask",
            "agents": {
                "quiet": {"command": "a", "review_writes": "auto"},
                "plain": {"command": "b"},
            },
        }
    )
    at = LaunchOptions(cwd=str(tmp_path))
    flag = LaunchOptions(cwd=str(tmp_path), review_writes=True)

    def mode(source: AgentSource, config: Config | None, options: LaunchOptions) -> str:
        return resolve_agent(source, config, options).spec.review_writes

    assert mode(AgentSource.configured("quiet"), made, at) == "auto"
    assert mode(AgentSource.configured("plain"), made, at) == "ask"
    assert mode(AgentSource.configured("quiet"), made, flag) == "ask"
    assert mode(AgentSource.command(["x"]), made, at) == "ask"
    assert mode(AgentSource.command(["x"]), None, at) == "auto"
    assert mode(AgentSource.command(["x"]), None, flag) == "ask"
