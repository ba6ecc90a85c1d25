"""The config file: valid files, each kind of invalid one (reported precisely, never fatal),
and the remembered theme written back without disturbing anything else."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from acp_tui.config.load import (
    Config,
    McpHttpServer,
    McpSseServer,
    McpStdioServer,
    config_path,
    load_config,
    save_theme,
)
from acp_tui.config.recent import RecentAgents

FULL = """\
# my settings
theme = "acp-dusk"
sidebar = false
permission_policy = "deny"
notifications = "off"

[agents.claude]
command = "claude-agent-acp"
env = { ANTHROPIC_API_KEY = "sk-secret" }

[agents.gemini]
command = "gemini"
args = ["--experimental-acp"]
cwd = "~/src"
label = "Gemini"

[[agents.gemini.mcp_servers]]
name = "fs"
command = "mcp-fs"
args = ["/tmp"]
env = { TOKEN = "t" }

[[agents.gemini.mcp_servers]]
type = "http"
name = "docs"
url = "https://example.com/mcp"
headers = { Authorization = "Bearer x" }

[[agents.gemini.mcp_servers]]
type = "sse"
name = "events"
url = "https://example.com/sse"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_is_defaults(tmp_path: Path) -> None:
    config, problems = load_config(tmp_path / "nope.toml")
    assert problems == []
    assert config == Config()
    assert config.permission_policy == "ask" and config.sidebar is None and config.agents == {}


def test_env_variable_chooses_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "elsewhere.toml"))
    assert config_path() == tmp_path / "elsewhere.toml"


def test_valid_file(tmp_path: Path) -> None:
    config, problems = load_config(write(tmp_path, FULL))
    assert problems == []
    assert config.theme == "acp-dusk"
    assert config.sidebar is False
    assert config.permission_policy == "deny"
    assert config.notifications == "off"
    assert config.agents["claude"].argv == ["claude-agent-acp"]
    assert config.agents["claude"].env == {"ANTHROPIC_API_KEY": "sk-secret"}
    gemini = config.agents["gemini"]
    assert gemini.argv == ["gemini", "--experimental-acp"]
    assert gemini.cwd == "~/src" and gemini.label == "Gemini"
    stdio, http, sse = gemini.mcp_servers
    assert isinstance(stdio, McpStdioServer) and stdio.type == "stdio"  # type defaults to stdio
    assert stdio.env == {"TOKEN": "t"}
    assert isinstance(http, McpHttpServer) and http.headers == {"Authorization": "Bearer x"}
    assert isinstance(sse, McpSseServer) and sse.url == "https://example.com/sse"


def test_every_field_has_a_docstring() -> None:
    from acp_tui.config import load as module

    for model in (
        module.Config,
        module.AgentConfig,
        module.McpStdioServer,
        module.McpHttpServer,
        module.McpSseServer,
    ):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no docstring"


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, 'theme = "a"\nsidebar = = true\n')
    config, problems = load_config(path)
    assert config == Config()
    assert len(problems) == 1
    assert str(path) in problems[0]
    assert "TOML syntax error" in problems[0]
    assert "line 2" in problems[0] and "column" in problems[0]


def test_unknown_key_is_reported_and_the_rest_applies(tmp_path: Path) -> None:
    path = write(tmp_path, 'them = "typo"\nsidebar = false\n')
    config, problems = load_config(path)
    assert problems == [f"{path}: them: unknown key"]
    assert config.sidebar is False


def test_wrong_type_is_reported_with_the_value(tmp_path: Path) -> None:
    path = write(tmp_path, 'sidebar = "yes"\n')
    config, problems = load_config(path)
    assert config.sidebar is None
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}: sidebar: ")
    assert "boolean" in problems[0] and "'yes'" in problems[0]


def test_bad_choice_lists_the_choices(tmp_path: Path) -> None:
    path = write(tmp_path, 'permission_policy = "maybe"\n')
    config, problems = load_config(path)
    assert config.permission_policy == "ask"
    assert problems == [f"{path}: permission_policy: must be 'ask', 'yolo' or 'deny' (got 'maybe')"]


def test_broken_agent_is_left_out_others_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[agents.good]\ncommand = "ok"\n\n'
        '[agents.bad]\nargs = ["x"]\ncommnd = "typo"\n\n'
        '[[agents.good2.mcp_servers]]\nname = "m"\n',
    )
    config, problems = load_config(path)
    assert list(config.agents) == ["good"]
    assert f"{path}: agents.bad.command: required key is missing" in problems
    assert f"{path}: agents.bad.commnd: unknown key" in problems
    assert f"{path}: agents.good2.command: required key is missing" in problems


def test_bad_mcp_server_entries(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[agents.a]\ncommand = "a"\n'
        '[[agents.a.mcp_servers]]\ntype = "ftp"\nname = "x"\n'
        '[[agents.a.mcp_servers]]\ntype = "http"\nname = "y"\n'
        '[[agents.a.mcp_servers]]\nname = "z"\ncommand = "z"\nenv = { PORT = 8080 }\n',
    )
    config, problems = load_config(path)
    assert config.agents == {}
    assert (
        f'{path}: agents.a.mcp_servers[0]: type must be "stdio", "http" or "sse" (got \'ftp\')'
        in problems
    )
    assert f"{path}: agents.a.mcp_servers[1].url: required key is missing" in problems
    assert any(p.startswith(f"{path}: agents.a.mcp_servers[2].env.PORT: ") for p in problems)


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "\xff"\n')
    config, problems = load_config(path)
    assert config == Config() and "not UTF-8" in problems[0]
    directory = tmp_path / "dir.toml"
    directory.mkdir()
    config, problems = load_config(directory)
    assert config == Config() and str(directory) in problems[0]


def test_save_theme_creates_a_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "config.toml"
    assert save_theme("nord", path) is None
    assert tomllib.loads(path.read_text())["theme"] == "nord"
    config, problems = load_config(path)
    assert problems == [] and config.theme == "nord"


def test_save_theme_keeps_comments_and_tables(tmp_path: Path) -> None:
    path = write(tmp_path, FULL)
    assert save_theme("gruvbox", path) is None
    text = path.read_text()
    assert text == FULL.replace('theme = "acp-dusk"', 'theme = "gruvbox"')


def test_save_theme_adds_the_line_before_the_tables(tmp_path: Path) -> None:
    original = '# header comment\n\n[agents.x]\ncommand = "x"\n'
    path = write(tmp_path, original)
    os.chmod(path, 0o600)
    assert save_theme("nord", path) is None
    text = path.read_text()
    assert text.startswith('# header comment\ntheme = "nord"\n')
    assert tomllib.loads(text) == {"theme": "nord", "agents": {"x": {"command": "x"}}}
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temp file left


def test_save_theme_never_touches_a_file_it_cannot_parse(tmp_path: Path) -> None:
    broken = 'theme = "a"\n[agents\n'
    path = write(tmp_path, broken)
    reason = save_theme("nord", path)
    assert reason is not None and "does not parse" in reason
    assert path.read_text() == broken


def test_save_theme_refuses_an_unsafe_edit(tmp_path: Path) -> None:
    tricky = 'note = """\ntheme = "inside a string"\n"""\n'
    path = write(tmp_path, tricky)
    reason = save_theme("nord", path)
    assert reason is not None
    assert path.read_text() == tricky


def test_recent_agents_never_store_env(tmp_path: Path) -> None:
    config, _ = load_config(write(tmp_path, FULL))
    recent = RecentAgents(tmp_path / "state" / "recent.json")
    agent = config.agents["claude"]
    recent.record("config:claude", "claude", agent.argv)
    recent.record("demo", "demo agent", ["python", "-m", "acp_tui.demo_agent"])
    recent.record("config:claude", "claude", agent.argv)
    text = (tmp_path / "state" / "recent.json").read_text()
    assert "sk-secret" not in text and "ANTHROPIC_API_KEY" not in text
    again = RecentAgents(tmp_path / "state" / "recent.json")
    assert again.keys() == ["config:claude", "demo"]


def test_recent_agents_survive_a_damaged_file(tmp_path: Path) -> None:
    path = tmp_path / "recent.json"
    path.write_text("{not json")
    recent = RecentAgents(path)
    assert recent.entries == []
    recent.record("demo", "demo agent", ["x"])
    assert RecentAgents(path).keys() == ["demo"]
