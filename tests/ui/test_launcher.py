"""The launcher (``acp-tui`` with no agent): what it lists, in which order, and that picking
an agent opens the chat screen on it; ``--agent NAME`` for a configured agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from acp_tui.cli.parse import parse
from acp_tui.cli.tui import settings_from_invocation, ui_settings
from acp_tui.config.known_agents import KNOWN_AGENTS, KnownAgent
from acp_tui.config.load import Config
from acp_tui.config.recent import RecentAgents
from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSource, LaunchOptions
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.launcher import LauncherScreen, build_choices, settings_for_choice
from tests.ui.chat_helpers import wait_for, wait_for_session

SIZE = (100, 28)
CONFIG = Config.model_validate(
    {
        "agents": {
            "claude": {
                "command": "claude-agent-acp",
                "env": {"ANTHROPIC_API_KEY": "sk-secret"},
                "mcp_servers": [{"name": "fs", "command": "/opt/mcp-fs"}],
            },
            "work": {"command": "goose", "args": ["acp"], "label": "Goose (work)", "cwd": "/tmp"},
        }
    }
)
DETECTED = [a for a in KNOWN_AGENTS if a.id in ("claude", "gemini", "goose", "codex")]


def by_id(*ids: str) -> list[KnownAgent]:
    return [a for a in KNOWN_AGENTS if a.id in ids]


def launcher_app(
    tmp_path: Path, recent_keys: list[str] | None = None, **kwargs: object
) -> AcpTuiApp:
    recent = RecentAgents(tmp_path / "recent.json")
    for key in reversed(recent_keys or []):
        recent.record(key, key, ["x"])
    choices = build_choices(
        CONFIG,
        DETECTED,
        demo_agent_argv(state_dir=str(tmp_path / "demo-state"), chunk_delay=0),
        recent.keys(),
    )
    settings = AppSettings(options=LaunchOptions(cwd=str(tmp_path)), data_dir=tmp_path / ".data")
    return make_app(
        settings,
        ui=UiSettings(theme="textual-dark"),
        config=CONFIG,
        choices=choices,
        recent=recent,
        config_location="~/.config/acp-tui/config.toml",
        **kwargs,  # type: ignore[arg-type]
    )


def test_choices_order_and_deduplication() -> None:
    choices = build_choices(CONFIG, DETECTED, ["demo"], [])
    assert [c.key for c in choices] == [
        "config:claude",
        "config:work",
        "known:gemini",
        "known:codex",
        "demo",
    ]  # claude-agent-acp and goose acp are configured: not listed twice
    assert choices[0].source == AgentSource.configured("claude")
    assert choices[1].label == "Goose (work)"
    claude, _ = settings_for_choice(AppSettings(), choices[0], CONFIG)
    assert claude.agent is not None
    assert claude.agent.env == {"ANTHROPIC_API_KEY": "sk-secret"}
    assert claude.agent.mcp_server_list() == [
        {"type": "stdio", "name": "fs", "command": "/opt/mcp-fs", "args": [], "env": {}}
    ]


def test_recent_first_and_agent_cwd_yields_to_cli() -> None:
    choices = build_choices(CONFIG, DETECTED, ["demo"], ["demo", "gone", "known:codex"])
    assert [c.key for c in choices][:3] == ["demo", "known:codex", "config:claude"]
    assert [c.recent for c in choices][:3] == [True, True, False]
    work = next(c for c in choices if c.key == "config:work")
    given = AppSettings(options=LaunchOptions(cwd="/here"))
    picked, _ = settings_for_choice(given, work, CONFIG)
    assert picked.agent is not None and picked.agent.cwd == "/here"


def test_settings_for_choice_copies_the_rest() -> None:
    base = AppSettings(permission_policy="yolo")
    choice = build_choices(CONFIG, [], ["demo"], [])[1]
    settings, problems = settings_for_choice(base, choice, CONFIG)
    assert settings.agent is not None and problems == ()
    assert settings.agent.argv == ("goose", "acp")
    assert settings.agent.cwd == "/tmp" and settings.permission_policy == "yolo"
    assert settings.agent.label == "Goose (work)"
    assert base.agent is None  # the base is not changed


@pytest.mark.anyio
async def test_pick_the_demo_agent_opens_the_chat(tmp_path: Path) -> None:
    app = launcher_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)
        agents = app.screen.query_one("#agents", OptionList)
        keys = [agents.get_option_at_index(i).id for i in range(agents.option_count)]
        assert keys[-1] == "demo"
        for _ in range(len(keys) - 1):
            await pilot.press("down")
        await pilot.press("enter")
        screen = await wait_for_session(pilot)
        assert isinstance(screen, ChatScreen)
        assert app.settings.agent is not None
        assert app.settings.agent.label == "demo agent"
        assert app.settings.agent.cwd == str(tmp_path)
        await wait_for(
            pilot, lambda: "demo agent" in str(screen.query_one("#agent").render()), "the header"
        )
    again = RecentAgents(tmp_path / "recent.json")
    assert again.keys() == ["demo"]
    assert "sk-secret" not in (tmp_path / "recent.json").read_text()


@pytest.mark.anyio
async def test_recent_demo_agent_is_first_and_a_click_starts_it(tmp_path: Path) -> None:
    app = launcher_app(tmp_path, recent_keys=["demo"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        agents = app.screen.query_one("#agents", OptionList)
        assert agents.get_option_at_index(0).id == "demo"
        assert agents.highlighted == 0
        await pilot.click("#agents", offset=(4, 1))
        await wait_for_session(pilot)


@pytest.mark.anyio
async def test_config_problems_are_notified(tmp_path: Path) -> None:
    app = launcher_app(tmp_path, problems=["config.toml: them: unknown key [bold]x[/]"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert messages == ["config.toml: them: unknown key [bold]x[/]"]


def test_agent_option_uses_the_configured_agent(tmp_path: Path) -> None:
    invocation = parse(["--agent", "claude", "--yolo"])
    settings = settings_from_invocation(invocation, CONFIG)
    spec = settings.agent
    assert spec is not None and spec.argv == ("claude-agent-acp",)
    assert spec.label == "claude" and spec.name == "claude" and spec.key == "config:claude"
    assert spec.env == {"ANTHROPIC_API_KEY": "sk-secret"}
    assert spec.mcp_servers[0]["command"] == "/opt/mcp-fs"
    assert settings.permission_policy == "yolo"
    work = settings_from_invocation(parse(["--agent", "work", "--cwd", str(tmp_path)]), CONFIG)
    assert work.agent is not None and work.agent.cwd == str(tmp_path)  # --cwd wins
    plain = settings_from_invocation(parse(["--agent", "work"]), CONFIG)
    assert plain.agent is not None and plain.agent.cwd == "/tmp"


def test_config_defaults_apply_and_flags_win() -> None:
    config = Config(permission_policy="deny", theme="nord", sidebar=False, notifications="off")
    invocation = parse(["--demo"])
    settings = settings_from_invocation(invocation, config)
    ui = ui_settings(invocation.options, config)
    assert settings.permission_policy == "deny" and ui.theme == "nord"
    assert ui.show_sidebar is False and ui.notify_when_unfocused is False
    given = parse(["--yolo", "--theme", "dracula"])
    flags = settings_from_invocation(given, config)
    assert flags.permission_policy == "yolo" and ui_settings(given.options, config).theme == (
        "dracula"
    )


def _cli(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "ACP_TUI_CONFIG": str(config)}
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def test_unknown_agent_name_lists_the_configured_ones(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[agents.claude]\ncommand = "claude-agent-acp"\n[agents.goose]\ncommand = "goose"\n'
    )
    result = _cli("--agent", "nope", config=config)
    assert result.returncode == 2
    assert "no agent named 'nope'" in result.stderr
    assert "configured agents: claude, goose" in result.stderr
    headless = _cli("ask", "hi", "--agent", "nope", config=config)
    assert headless.returncode == 2 and "configured agents: claude, goose" in headless.stderr


def test_headless_agent_option_runs_the_configured_agent(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    argv = demo_agent_argv(state_dir=str(tmp_path / "state"), chunk_delay=0)
    config.write_text(
        f"unknown_key = 1\n[agents.demo]\ncommand = {argv[0]!r}\nargs = {argv[1:]!r}\n".replace(
            "'", '"'
        )
    )
    result = _cli("ask", "hello there", "--agent", "demo", config=config)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert "unknown_key: unknown key" in result.stderr  # config problems are printed


def test_config_path_option(tmp_path: Path) -> None:
    result = _cli("--config-path", config=tmp_path / "c.toml")
    assert result.returncode == 0 and result.stdout.strip() == str(tmp_path / "c.toml")


def test_agent_and_demo_conflict_in_a_command_of_one_agent(tmp_path: Path) -> None:
    result = _cli("ask", "hi", "--agent", "x", "--demo", config=tmp_path / "c.toml")
    assert result.returncode == 2 and "give only one of" in result.stderr


def test_several_agents_in_the_app_name_each_unknown_one(tmp_path: Path) -> None:
    """The app runs --agent and --demo together; a name not in the config stops it (exit 2)."""
    result = _cli("--demo", "--agent", "x", config=tmp_path / "c.toml")
    assert result.returncode == 2 and "no agent named 'x'" in result.stderr


def test_snapshot_launcher(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The launcher at 100x28: a header "acp-tui  choose an agent"; "Start a session with"
    over a bordered list whose first (highlighted) row is "Demo agent · recent" (built-in,
    described, no command shown), then the configured "claude" (claude-agent-acp, config
    file) and "Goose (work)" (goose acp, config file), then "Gemini CLI" and "Codex" found on
    PATH (Claude Code and Goose are not repeated); under it the hint naming
    ~/.config/acp-tui/config.toml; then "Not installed", a list of the other well-known agents
    each with its install command (Claude Code's older adapter first, highlighted but not
    focused); the footer offers Start and Quit."""

    async def run_before(pilot: Pilot) -> None:
        await pilot.pause()

    assert snap_compare(
        launcher_app(tmp_path, recent_keys=["demo"]), terminal_size=SIZE, run_before=run_before
    )


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_agents_not_installed_are_offered_with_a_command_to_copy(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """With no agent on PATH the launcher offered only the demo agent: every well-known
    agent that is not found is listed with its install command, which Enter copies."""
    choices = build_choices(Config(), [], demo_agent_argv(state_dir=str(tmp_path), chunk_delay=0))
    settings = AppSettings(options=LaunchOptions(cwd=str(tmp_path)), data_dir=tmp_path / ".data")
    app = make_app(settings, ui=UiSettings(theme="textual-dark"), config=Config(), choices=choices)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        launcher = app.screen
        assert isinstance(launcher, LauncherScreen)
        install = launcher.query_one("#install", OptionList)
        offered = [install.get_option_at_index(i).id for i in range(install.option_count)]
        assert offered == [known.id for known in KNOWN_AGENTS if known.install]
        assert "No agent found on your PATH" in str(launcher.query_one("#install-title").render())
        await pilot.press("tab")
        assert install.has_focus
        codex = offered.index("codex")
        for _ in range(codex):
            await pilot.press("down")
        await pilot.press("enter")
        command = "npm install -g @zed-industries/codex-acp"
        await wait_for(pilot, lambda: app.clipboard == command, "the command copied")
        assert isinstance(app.screen, LauncherScreen)  # nothing started
        # Found on PATH: offered to start, not to install.
    found = build_choices(Config(), by_id("codex"), ["demo"])
    from acp_tui.ui.screens.launcher import not_installed

    assert "codex" not in [known.id for known in not_installed(found)]
    assert "claude" in [known.id for known in not_installed(found)]
