#!/usr/bin/env python3
"""Regenerate ``screenshots/*.svg`` (and ``*.png`` when headless Chromium is installed) from
scripted sessions with the built-in demo agent.

    python scripts/screenshots.py [--out screenshots] [--only NAME ...]

Each shot runs the real app headless (``App.run_test`` + a pilot) against the demo agent,
in a scratch project under the temp dir with its own state dirs, so nothing of yours is
read or written and the pictures are the same on every machine.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path(tempfile.gettempdir()) / "acp-tui-screenshots"
PROJECT = SCRATCH / "my-project"

# Isolated config/state before the package is imported: no user config, theme or recents.
for _name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
    os.environ[_name] = str(SCRATCH / _name.lower())
os.environ["ACP_TUI_CONFIG"] = str(SCRATCH / "config.toml")
sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402

from acp_tui.config.known_agents import KNOWN_AGENTS  # noqa: E402
from acp_tui.config.load import Config  # noqa: E402
from acp_tui.demo_agent import demo_agent_argv  # noqa: E402
from acp_tui.session.checkpoints.settings import CheckpointSettings  # noqa: E402
from acp_tui.session.launch.settings import AppSettings  # noqa: E402
from acp_tui.session.launch.spec import AgentSpec, LaunchOptions  # noqa: E402
from acp_tui.ui.app import AcpTuiApp, make_app  # noqa: E402
from acp_tui.ui.preferences import UiSettings  # noqa: E402
from acp_tui.ui.screens.chat import ChatScreen  # noqa: E402
from acp_tui.ui.screens.launcher import build_choices  # noqa: E402
from acp_tui.ui.screens.permission import PermissionScreen  # noqa: E402
from acp_tui.ui.screens.rewind import ReviewDialog, RewindPicker  # noqa: E402
from tests.chromium import HEADLESS_FLAGS, find_chromium  # noqa: E402
from tests.ui.chat_helpers import send, wait_for, wait_for_session  # noqa: E402

SIZE = (120, 38)

GREETING = """\
def greet(name):
    return "Hello " + name


if __name__ == "__main__":
    print(greet("world"))
"""


def fresh_project() -> None:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    PROJECT.mkdir(parents=True)
    (PROJECT / "greeting.py").write_text(GREETING, encoding="utf-8")


def demo_chat_app(theme: str = "textual-dark", *, checkpoints: bool = False) -> AcpTuiApp:
    argv = demo_agent_argv(state_dir=str(SCRATCH / "demo-state"), chunk_delay=0)
    taken = CheckpointSettings(store=SCRATCH / "checkpoints", enabled=checkpoints)
    settings = AppSettings(
        agent=AgentSpec(tuple(argv), cwd=str(PROJECT), label="demo agent", checkpoints=taken),
        data_dir=SCRATCH / "data",
    )
    return make_app(settings, ui=UiSettings(theme=theme))


def two_agents_app() -> AcpTuiApp:
    """The demo agent and the official-SDK test agent, side by side (issue 19)."""
    demo = demo_chat_app()
    sdk_argv = (sys.executable, str(ROOT / "tests" / "agents" / "sdk_agent.py"))
    sdk = AppSettings(
        agent=AgentSpec(sdk_argv, cwd=str(PROJECT), label="sdk agent"),
        data_dir=SCRATCH / "data",
    )
    return make_app(demo.settings, ui=demo.ui_settings, more_agents=[sdk])


def launcher_app() -> AcpTuiApp:
    config = Config.model_validate(
        {
            "agents": {
                "claude": {"command": "claude-agent-acp", "label": "Claude (work account)"},
                "gemini-docs": {"command": "gemini", "args": ["--experimental-acp"]},
            }
        }
    )
    detected = [a for a in KNOWN_AGENTS if a.id in ("codex", "goose", "opencode")]
    choices = build_choices(config, detected, ["demo"], ["demo", "config:claude"])
    settings = AppSettings(options=LaunchOptions(cwd=str(PROJECT)), data_dir=SCRATCH / "data")
    return make_app(
        settings,
        ui=UiSettings(theme="textual-dark"),
        choices=choices,
        config=config,
        config_location="~/.config/acp-tui/config.toml",
    )


async def turn_done(pilot: Pilot, screen: ChatScreen) -> None:
    await pilot.pause(0.3)
    await wait_for(pilot, lambda: not screen.busy, "the turn to end")


async def settle(pilot: Pilot) -> None:
    for widget in pilot.app.screen.query("TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause(0.3)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def shot_new_session(pilot: Pilot) -> None:
    await wait_for_session(pilot)
    await settle(pilot)


async def shot_permission(pilot: Pilot) -> None:
    await wait_for_session(pilot)
    await send(pilot, "/edit greeting.py")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen), "the dialog")
    await pilot.pause(0.7)  # armed: the options are live
    await settle(pilot)


async def _conversation(pilot: Pilot) -> None:
    screen = await wait_for_session(pilot)
    await send(pilot, "/edit greeting.py")
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, PermissionScreen) and pilot.app.screen.armed,
        "the dialog, armed",
    )
    await pilot.press("1")  # Allow once
    await turn_done(pilot, screen)
    await send(pilot, "/plan")
    await turn_done(pilot, screen)
    await settle(pilot)


async def shot_several_agents(pilot: Pilot) -> None:
    """Two agents in one list: in the demo agent a slow turn works in one session and another
    session waits for a permission, while the person chats with the other agent, whose view
    is on screen: the rows say what each session is doing, a toast says which one needs the
    person and the key that goes there."""
    app = pilot.app
    assert isinstance(app, AcpTuiApp)
    await wait_for(
        pilot,
        lambda: len(app.agent_views) == 2 and all(v.agent_alive for v in app.agent_views.values()),
        "both agents",
    )
    demo, sdk = app.agent_views.values()
    await send(pilot, "/slow 60")
    await wait_for(pilot, lambda: demo.busy, "the slow turn")
    working = demo.session_id
    demo.action_new_session()
    await wait_for(pilot, lambda: demo.session_id not in (None, working), "a second session")
    await send(pilot, "/slow 2")
    await wait_for(pilot, lambda: demo.busy, "the short turn")
    await send(pilot, "/edit greeting.py")
    await pilot.press("ctrl+g")
    await wait_for(pilot, lambda: app.screen is sdk, "the other agent")
    await send(pilot, "Meanwhile: what does greeting.py do?")
    await turn_done(pilot, sdk)
    asking = demo.session_id or ""
    await wait_for(
        pilot,
        lambda: any("needs you" in str(n.message) for n in app._notifications),
        "the demo agent's session to wait for the person",
    )
    assert demo.store.get(asking) is not None
    await pilot.pause(0.5)  # the toast slides in
    await settle(pilot)


async def shot_rewind(pilot: Pilot) -> None:
    """A turn of the demo agent's ``/change`` (a write through the client, a file created and
    one deleted on disk), then Esc Esc, the turn, "Code only": the review of what the rewind
    will do, before anything is written."""
    (PROJECT / "old-notes.txt").write_text("notes to keep\n", encoding="utf-8")
    screen = await wait_for_session(pilot)
    await send(pilot, "/change greeting.py scratch.txt old-notes.txt")
    await turn_done(pilot, screen)
    screen.focus_prompt()
    await pilot.press("escape", "escape")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RewindPicker), "the picker")
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("down", "enter")
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, ReviewDialog) and pilot.app.screen.armed,
        "the review, armed",
    )
    await settle(pilot)  # greeting.py first: the write through the client


async def shot_subagents(pilot: Pilot) -> None:
    """``/subagents`` done (its child's permission allowed), then ``/background``: the cards
    in the parent's transcript, the children under it in the sidebar, the chips of the
    suggested prompts, and Ctrl+P → Background work over it all."""
    screen = await wait_for_session(pilot)
    await send(pilot, "/subagents")
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, PermissionScreen) and pilot.app.screen.armed,
        "the child's dialog, armed",
    )
    await pilot.press("1")
    await turn_done(pilot, screen)
    await send(pilot, "/background 120")
    await turn_done(pilot, screen)
    screen.subagents.show_panel()
    await wait_for(pilot, lambda: pilot.app.screen is not screen, "the panel")
    await pilot.pause(1.2)  # its rows, and their clocks
    await settle(pilot)


SHOTS: dict[str, tuple[Callable[[], AcpTuiApp], Callable[[Pilot], Awaitable[None]]]] = {
    "launcher": (launcher_app, lambda pilot: settle(pilot)),
    "new-session": (demo_chat_app, shot_new_session),
    "permission": (demo_chat_app, shot_permission),
    "conversation": (demo_chat_app, _conversation),
    "conversation-paper": (lambda: demo_chat_app("acp-paper"), _conversation),
    "several-agents": (two_agents_app, shot_several_agents),
    "rewind": (lambda: demo_chat_app(checkpoints=True), shot_rewind),
    "subagents": (demo_chat_app, shot_subagents),
}


async def take(name: str, out: Path) -> Path:
    fresh_project()
    build, script = SHOTS[name]
    app = build()
    async with app.run_test(size=SIZE) as pilot:
        await script(pilot)
        path = app.save_screenshot(filename=f"{name}.svg", path=str(out))
    return Path(path)


def to_png(svg: Path) -> Path | None:
    """``svg`` drawn by headless Chromium, at the size of its viewBox (Chromium draws Rich's
    SVG as a browser shows it; rsvg-convert drops the leading spaces of each row)."""
    browser = find_chromium()
    if browser is None:
        return None
    match = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg.read_text(encoding="utf-8"))
    width, height = (math.ceil(float(size)) for size in match.groups()) if match else (1400, 1000)
    png = svg.with_suffix(".png")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                browser,
                *HEADLESS_FLAGS,
                "--hide-scrollbars",
                "--default-background-color=00000000",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                f"--screenshot={png}",
                svg.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
        )
    return png


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--only", nargs="*", choices=sorted(SHOTS), help="these shots only")
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    if find_chromium() is None:
        print("Chromium not found: writing SVG only (apt-get install chromium)")
    for name in options.only or list(SHOTS):
        svg = asyncio.run(take(name, options.out))
        png = to_png(svg)
        print(
            f"{svg.relative_to(ROOT) if svg.is_relative_to(ROOT) else svg}"
            + (" + png" if png else "")
        )
    shutil.rmtree(SCRATCH, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
