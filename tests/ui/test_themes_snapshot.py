"""Two shipped themes applied to the launcher (a screen this suite owns, so the pictures
change only when the theme or the launcher does)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from acp_tui.config.known_agents import KNOWN_AGENTS
from acp_tui.config.load import Config
from acp_tui.session.launch.settings import AppSettings
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.launcher import build_choices

SIZE = (90, 22)


def themed_launcher(tmp_path: Path, theme: str) -> AcpTuiApp:
    config = Config.model_validate({"agents": {"claude": {"command": "claude-agent-acp"}}})
    detected = [agent for agent in KNOWN_AGENTS if agent.id in ("gemini", "goose")]
    choices = build_choices(config, detected, ["demo-agent"], ["config:claude"])
    return make_app(
        AppSettings(),
        ui=UiSettings(theme=theme),
        choices=choices,
        config_location="~/.config/acp-tui/config.toml",
    )


async def _settle(pilot: Pilot) -> None:
    await pilot.pause()


def test_snapshot_theme_acp_dusk(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """acp-dusk: a deep slate background (#15161e) with light grey-blue text; "acp-tui" in
    light cyan on a slightly lighter header bar; "Start a session with" in soft blue; the
    list's rounded border in blue and the highlighted first row ("claude · recent") light blue
    (#7aa2f7) with dark text; below it Gemini CLI, Goose and the Demo agent; the footer keys in the
    theme's colours."""
    app = themed_launcher(tmp_path, "acp-dusk")
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)


def test_snapshot_theme_acp_paper(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """acp-paper, the light theme: warm off-white paper background (#f7f3ea) with near-black
    text; "acp-tui" in burnt orange on a beige header bar; "Start a session with" and the
    list's rounded border in ink blue (#2f5d8a), the highlighted "claude · recent" row ink
    blue with light text; the other rows and the hint in readable dark greys (no pale text
    on pale background)."""
    app = themed_launcher(tmp_path, "acp-paper")
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)
