"""Building the real app on a real agent process, and waiting for it, with a Pilot (the tests
and scripts/screenshots.py)."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen

AGENTS = Path(__file__).resolve().parent.parent / "agents"
FIXTURE_AGENT = [sys.executable, str(AGENTS / "fixture_agent.py")]
#: How long a wait may take before the test fails: only a broken test waits this long, so it is
#: generous (a machine busy with other work may be several times slower than an idle one).
WAIT_LIMIT = 60.0
POLL_SECONDS = 0.02


#: The fields of each settings object, to sort a test's overrides into them.
SPEC_FIELDS = frozenset(field.name for field in dataclasses.fields(AgentSpec))
UI_FIELDS = frozenset(field.name for field in dataclasses.fields(UiSettings))


def app_settings(
    agent_argv: list[str] | None, cwd: Path, **overrides: object
) -> tuple[AppSettings, UiSettings]:
    """The settings of an app on ``agent_argv`` (None: the launcher) in ``cwd``, its data kept
    in ``cwd/.data``; each override goes to the object that has its field (the agent's spec,
    the UI's settings, the app's)."""
    spec = {name: value for name, value in overrides.items() if name in SPEC_FIELDS}
    ui = {"theme": "textual-dark"} | {k: v for k, v in overrides.items() if k in UI_FIELDS}
    rest = {"data_dir": cwd / ".data"} | {
        k: v for k, v in overrides.items() if k not in SPEC_FIELDS | UI_FIELDS
    }
    agent = (
        AgentSpec(argv=tuple(agent_argv), cwd=str(cwd), **spec)  # type: ignore[arg-type]
        if agent_argv is not None
        else None
    )
    settings = AppSettings(agent=agent, **rest)  # type: ignore[arg-type]
    return settings, UiSettings(**ui)  # type: ignore[arg-type]


def agent_app(agent_argv: list[str], cwd: Path, **overrides: object) -> AcpTuiApp:
    """The real app on ``agent_argv`` in ``cwd`` (its data kept in ``cwd/.data``)."""
    settings, ui = app_settings(agent_argv, cwd, **overrides)
    return make_app(settings, ui=ui)


def fixture_app(cwd: Path, **overrides: object) -> AcpTuiApp:
    return agent_app(FIXTURE_AGENT, cwd, **overrides)


def demo_app(cwd: Path, state_dir: Path, **overrides: object) -> AcpTuiApp:
    return agent_app(demo_agent_argv(state_dir=str(state_dir), chunk_delay=0), cwd, **overrides)


def chat(app: AcpTuiApp) -> ChatScreen:
    screen = app.screen
    assert isinstance(screen, ChatScreen), f"expected the chat screen, got {screen!r}"
    return screen


async def wait_for(
    pilot: Pilot, condition: Callable[[], bool], what: str, limit: float = WAIT_LIMIT
) -> None:
    """Let the app run until ``condition()`` holds; fail with ``what`` after ``limit`` seconds.

    Only a false condition means "not yet": an exception from it (a typo, a widget of the wrong
    type) fails the test at once instead of reading as a timeout. The limit is generous because
    a loaded machine is slow; a test that passes never waits for it. A smaller ``limit`` is
    raised to ``WAIT_LIMIT``: a hang guard is not a speed target (those live in bench/)."""
    limit = max(limit, WAIT_LIMIT)
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit:g} s waiting for: {what}")
        await pilot.pause(POLL_SECONDS)
    await pilot.pause()


async def wait_for_ready(pilot: Pilot) -> ChatScreen:
    """The chat screen once the agent has answered initialize (no session yet: the first
    message, or Ctrl+N, creates it)."""
    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, ChatScreen) and chat(pilot.app).agent_alive,
        "the agent to be ready",
    )
    return chat(pilot.app)


def screen_idle(screen: ChatScreen) -> bool:
    """Every store change is on the screen: no refresh scheduled or running, the store clean."""
    return screen.drawing.idle()


def drawing_state(screen: ChatScreen) -> str:
    """Why the screen is not idle, for a failure: the drawing's flags, the store's, and
    where each refresh under way waits."""
    drawing = screen.drawing
    stacks = [
        " <- ".join(f"{frame.f_code.co_name}:{frame.f_lineno}" for frame in task.get_stack())
        for task in drawing._tasks
    ]
    return (
        f"pending={drawing.pending} refreshing={drawing.refreshing} "
        f"again={drawing._again} dirty={drawing.store.dirty} attached={screen.is_attached} "
        f"screen={type(screen.app.screen).__name__} refreshes={stacks} "
        f"unanswered={requests_unanswered(screen)}"
    )


def requests_unanswered(screen: ChatScreen) -> int:
    """How many requests the client sent that the agent has not answered yet."""
    controller = screen.controller
    if controller is None or controller.client is None:
        return 0
    return len(controller.client.connection._pending)


async def settle(pilot: Pilot, *, answered: bool = False) -> None:
    """Wait until the screen shows everything that has happened so far (and, with ``answered``,
    until every request sent has its answer), then until Textual has nothing left to do.

    This is the wait before asserting on what the screen shows, and before asserting that
    something did *not* happen: once settled, it would have."""
    await pilot.pause()
    screen = chat(pilot.app)
    try:
        await wait_for(
            pilot,
            lambda: screen_idle(screen) and not (answered and requests_unanswered(screen)),
            "the screen to show every change" + (" and every request answered" if answered else ""),
        )
    except AssertionError as error:
        raise AssertionError(f"{error}: {drawing_state(screen)}") from None
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def wait_for_session(pilot: Pilot) -> ChatScreen:
    """A session open and shown: the agent ready, then a new session asked for (Ctrl+N),
    unless one opened by itself (``--continue``, ``--resume ID``)."""
    screen = await wait_for_ready(pilot)
    if screen.session_id is None and screen.settings.resume is None:
        screen.action_new_session()
    await wait_for(pilot, lambda: chat(pilot.app).session_id is not None, "a session")
    return chat(pilot.app)


async def send(pilot: Pilot, text: str) -> None:
    screen = chat(pilot.app)
    editor = screen.query_one("#prompt")
    editor.set_draft(text)  # type: ignore[attr-defined]
    editor.focus()
    await pilot.pause()
    await pilot.press("enter")


async def run_palette_command(pilot: Pilot, name: str) -> None:
    """Ctrl+P, type ``name``, Enter: as a person runs a palette command."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the palette")
    await pilot.press(*("space" if char == " " else char for char in name))
    palette = pilot.app.screen

    def offered() -> bool:
        commands = palette.query_one(CommandList)
        prompts = [commands.get_option_at_index(i).prompt for i in range(commands.option_count)]
        return any(name in str(prompt) for prompt in prompts)

    await wait_for(pilot, offered, f"{name!r} offered")
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen is not palette, "the palette to close")


async def answer_permission(pilot: Pilot, key: str, limit: float = 10.0) -> None:
    """Wait for a permission dialog to be on screen and armed, then press ``key``."""
    from acp_tui.ui.screens.permission import PermissionScreen

    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, PermissionScreen) and pilot.app.screen.armed,
        "an armed permission dialog",
        limit,
    )
    await pilot.press(key)


async def armed_dialog(pilot: Pilot, limit: float = 10.0) -> None:
    """Wait for the dialog on screen (any :class:`~acp_tui.ui.screens.armed.ArmedDialog`) to
    be armed: before that, its answers are typing."""
    from acp_tui.ui.screens.armed import ArmedDialog

    await wait_for(
        pilot,
        lambda: isinstance(pilot.app.screen, ArmedDialog) and pilot.app.screen.armed,
        "an armed dialog",
        limit,
    )


def record_notifications(app: AcpTuiApp) -> list[str]:
    """Every toast's message from now on, kept: ``app._notifications`` forgets a toast once it
    expires, which on a loaded machine can happen before a test looks."""
    seen: list[str] = []
    notify = app.notify

    def recording(message: str, *args: object, **kwargs: object) -> None:
        seen.append(str(message))
        notify(message, *args, **kwargs)  # type: ignore[arg-type]

    app.notify = recording  # type: ignore[method-assign]
    return seen


def closed_line(select: Widget) -> str:
    """What the closed ``select`` shows on its line, as the screen draws it (Textual's select
    and the one-line one of the lazy-select patch alike)."""
    region = select.region
    strips = select.screen._compositor.render_strips()
    return strips[region.y].text[region.x : region.right]
