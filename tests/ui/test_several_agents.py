"""Several agents in one app (issue 19): each its own process, controller and view (a Textual
mode), started together or one more from the palette, switched with a key or the palette,
never cancelling anything; one crashing leaves the others alone and Ctrl+R restarts it alone;
quitting stops them all. Real agent processes: the demo agent and the fixture agent."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSource
from acp_tui.store.entries import AgentMessage
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import AgentBanner, ChatScreen
from acp_tui.ui.screens.launcher import LaunchChoice, LauncherScreen
from acp_tui.ui.widgets.chat_header import ChatHeader
from tests.ui.chat_helpers import (
    FIXTURE_AGENT,
    app_settings,
    chat,
    record_notifications,
    run_palette_command,
    send,
    wait_for,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def demo_settings(tmp_path: Path) -> AppSettings:
    argv = demo_agent_argv(state_dir=str(tmp_path / "demo-state"), chunk_delay=0)
    return app_settings(argv, tmp_path, label="demo agent")[0]


def fixture_settings(tmp_path: Path) -> AppSettings:
    return app_settings(list(FIXTURE_AGENT), tmp_path)[0]


def two_agents(tmp_path: Path) -> AcpTuiApp:
    return make_app(
        demo_settings(tmp_path),
        ui=UiSettings(theme="textual-dark"),
        more_agents=[fixture_settings(tmp_path)],
    )


def views(app: AcpTuiApp) -> list[ChatScreen]:
    return list(app.agent_views.values())


def header_text(screen: ChatScreen, part: str) -> str:
    return str(screen.query_one(ChatHeader).query_one(f"#{part}").render())


def replies(screen: ChatScreen, session_id: str | None = None) -> list[str]:
    state = screen.store.get(session_id or screen.session_id or "")
    return [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []


def pid(screen: ChatScreen) -> int:
    controller = screen.controller
    assert (
        controller is not None
        and controller.process is not None
        and controller.process.pid is not None
    )
    return controller.process.pid


async def both_ready(pilot: Pilot) -> tuple[ChatScreen, ChatScreen]:
    app = pilot.app
    assert isinstance(app, AcpTuiApp)
    await wait_for(
        pilot,
        lambda: len(app.agent_views) == 2 and all(view.agent_alive for view in views(app)),
        "both agents to be ready",
    )
    first, second = views(app)
    return first, second


def slow_turn_seen(screen: ChatScreen) -> bool:
    """The slow turn started: running in the store, or over already (a loaded machine may draw
    nothing of it before it ends)."""
    state = screen.store.get(screen.session_id or "")
    return state is not None and (
        state.activity == "running" or any("Finished the slow turn" in r for r in replies(screen))
    )


async def chat_in(pilot: Pilot, screen: ChatScreen, text: str, reply: str) -> None:
    """Send ``text`` from ``screen`` (on screen) and wait for ``reply`` in its session."""
    assert pilot.app.screen is screen
    await send(pilot, text)
    await wait_for(pilot, lambda: any(reply in r for r in replies(screen)), repr(reply))


async def test_two_agents_each_run_in_their_own_view_named_in_the_header(
    tmp_path: Path,
) -> None:
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        # Two processes, two controllers, in the app's workspace by agent key.
        assert pid(demo) != pid(fixture)
        assert app.workspace.get(demo.spec.key) is demo.controller
        assert app.workspace.get(fixture.spec.key) is fixture.controller
        # The first one given is on screen; the other runs behind it.
        assert app.screen is demo
        await wait_for(pilot, lambda: "1/2" in header_text(demo, "agents"), "the position")
        assert header_text(demo, "agent").startswith("demo agent")
        assert "Ctrl+G" in header_text(demo, "agents")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the second agent's view")
        assert "2/2" in header_text(fixture, "agents")
        # Named by what the agent said at initialize, not by the first view's label.
        assert "demo" not in header_text(fixture, "agent")
        assert header_text(fixture, "agent").strip()
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is demo, "round to the first again")


async def test_one_agent_shows_no_position_and_the_switch_key_does_nothing(
    tmp_path: Path,
) -> None:
    app = make_app(fixture_settings(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: chat(app).agent_alive, "the agent")
        screen = chat(app)
        assert not screen.query_one(ChatHeader).query_one("#agents").display
        assert app.check_action("next_agent", ()) is False
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.screen is screen


async def test_switching_agents_never_cancels_a_running_turn(tmp_path: Path) -> None:
    """A slow turn in the demo agent goes on while the person chats with the other agent, and
    ends normally, its whole reply in its view."""
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        await send(pilot, "/slow 2")
        await wait_for(pilot, lambda: slow_turn_seen(demo), "the slow turn to run")
        slow_session = demo.session_id
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the other agent's view")
        await chat_in(pilot, fixture, "hello there", "You said: hello there")
        await wait_for(
            pilot,
            lambda: any("Finished the slow turn" in r for r in replies(demo, slow_session)),
            "the slow turn to finish behind",
        )
        state = demo.store.get(slow_session or "")
        assert state is not None and state.stop_reason == "end_turn"
        # Back: drawn with everything that came while away.
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is demo and not demo.busy, "back, idle")
        assert demo.session_id == slow_session


async def test_a_crash_touches_only_its_agent_and_ctrl_r_restarts_it_alone(
    tmp_path: Path,
) -> None:
    app = two_agents(tmp_path)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        demo_pid = pid(demo)
        os.kill(pid(fixture), signal.SIGKILL)
        await wait_for(pilot, lambda: not fixture.agent_alive, "the fixture agent to be gone")
        # Said on the view on screen, naming the agent that is gone.
        await wait_for(pilot, lambda: any("restart" in text for text in seen), "a toast")
        assert demo.agent_alive and pid(demo) == demo_pid
        await chat_in(pilot, demo, "still here", "You said")
        # Its own view shows the banner and restarts it with Ctrl+R; the demo is untouched.
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the crashed agent's view")
        assert fixture.query_one(AgentBanner).display
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: fixture.agent_alive, "the fixture agent restarted")
        await chat_in(pilot, fixture, "again", "You said: again")
        assert demo.agent_alive and pid(demo) == demo_pid and not demo.busy


async def test_show_session_switches_agent_and_opens_that_session(tmp_path: Path) -> None:
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        await chat_in(pilot, demo, "first words", "")
        first_session = demo.session_id
        demo.action_new_session()
        await wait_for(
            pilot,
            lambda: demo.session_id not in (None, first_session),
            "a second session",
        )
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the other agent")
        # None: that agent's view, with the session it shows.
        second_session = demo.session_id
        app.show_session(demo.spec.key, None)
        await wait_for(pilot, lambda: app.screen is demo, "the demo agent's view")
        assert demo.session_id == second_session
        app.show_session(fixture.spec.key, None)
        await wait_for(pilot, lambda: app.screen is fixture, "the fixture agent's view")
        # An id: that session, opened in its agent's view.
        app.show_session(demo.spec.key, first_session)
        await wait_for(
            pilot,
            lambda: app.screen is demo and demo.session_id == first_session,
            "the first session of the demo agent",
        )
        # An agent that is not running: said, nothing switched.
        seen = record_notifications(app)
        app.show_session("no such agent", None)
        await pilot.pause()
        assert app.screen is demo and any("not running" in text for text in seen)


async def test_start_agent_from_the_palette_never_stops_the_running_one(
    tmp_path: Path,
) -> None:
    fixture_choice = LaunchChoice(
        key="config:fixture",
        label="Fixture",
        argv=tuple(FIXTURE_AGENT),
        kind="config",
        detail="the fixture agent",
        source=AgentSource.command(FIXTURE_AGENT, "Fixture"),
    )
    settings = demo_settings(tmp_path)
    assert settings.agent is not None
    demo_choice = LaunchChoice(
        key="demo",
        label="Demo agent",
        argv=settings.agent.argv,
        kind="demo",
        detail="demo",
        source=AgentSource.demo(settings.agent.argv),
    )
    app = make_app(settings, choices=[fixture_choice, demo_choice])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: chat(app).agent_alive, "the demo agent")
        demo = chat(app)
        demo_pid = pid(demo)
        await send(pilot, "/slow 2")
        await wait_for(pilot, lambda: slow_turn_seen(demo), "a turn running")
        await run_palette_command(pilot, "Start agent…")
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        # The running one is marked: picking it shows it.
        assert [c.running for c in app.screen.choices] == [False, True]  # type: ignore[attr-defined]
        # Escape goes back to the view it was opened from.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is demo, "back to the demo agent")
        await run_palette_command(pilot, "Start agent…")
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        await pilot.press("enter")  # the fixture agent, first in the list
        await wait_for(
            pilot,
            lambda: len(app.agent_views) == 2 and chat(app) is not demo and chat(app).agent_alive,
            "the fixture agent in a view of its own",
        )
        fixture = chat(app)
        assert list(fixture.spec.argv) == FIXTURE_AGENT
        assert fixture.settings.resume is None and fixture.settings.process_factory is None
        assert demo.agent_alive and pid(demo) == demo_pid
        await chat_in(pilot, fixture, "hi", "You said: hi")
        await wait_for(
            pilot,
            lambda: any("Finished the slow turn" in r for r in replies(demo)),
            "the demo's turn to finish, not cancelled",
        )
        # The palette switches too, by the agent's name.
        await run_palette_command(pilot, "Switch to demo agent")
        await wait_for(pilot, lambda: app.screen is demo, "the demo agent again")
        # Picking an agent that runs already shows it: one process per command line.
        seen = record_notifications(app)
        await run_palette_command(pilot, "Start agent…")
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        launcher = app.screen
        assert isinstance(launcher, LauncherScreen)
        assert [choice.running for choice in launcher.choices] == [True, True]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is fixture, "the running fixture agent")
        assert len(app.agent_views) == 2 and len(app.workspace.running()) == 2
        assert any("running already" in text for text in seen)


async def test_quitting_stops_every_agent(tmp_path: Path) -> None:
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        processes = [demo.controller.process, fixture.controller.process]  # type: ignore[union-attr]
        await pilot.press("ctrl+q")
    assert all(process is not None and process.returncode is not None for process in processes)
    assert app.workspace.running() == []


async def test_one_of_two_agents_that_cannot_start_is_reported_the_other_works(
    tmp_path: Path,
) -> None:
    broken = app_settings([str(tmp_path / "no-such-agent")], tmp_path)[0]
    app = make_app(demo_settings(tmp_path), more_agents=[broken])
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        demo = chat(app)
        await wait_for(pilot, lambda: bool(app.workspace.start_failures), "the failure")
        await wait_for(pilot, lambda: demo.agent_alive, "the demo agent")
        await chat_in(pilot, demo, "still here", "You said")
        assert any("command not found" in text for text in seen), seen
    failures = app.workspace.start_failures
    assert len(failures) == 1 and "no-such-agent" in failures[0]


async def test_the_view_on_screen_is_known(tmp_path: Path) -> None:
    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        assert app.shown_view is demo and app.is_shown(demo) and not app.is_shown(fixture)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.shown_view is fixture, "the other view")
        assert app.is_shown(fixture) and not app.is_shown(demo)


async def test_from_the_launcher_then_one_more_agent(tmp_path: Path) -> None:
    """``acp-tui`` with no agent: the launcher starts the first; "Start agent…" a second."""
    demo = demo_settings(tmp_path)
    assert demo.agent is not None
    argv = demo.agent.argv
    choices = [
        LaunchChoice("demo", "Demo agent", argv, "demo", "demo", AgentSource.demo(argv)),
        LaunchChoice(
            "config:fixture",
            "Fixture",
            tuple(FIXTURE_AGENT),
            "config",
            "fixture",
            AgentSource.command(FIXTURE_AGENT, "Fixture"),
        ),
    ]
    app = make_app(dataclasses.replace(demo, agent=None), choices=choices)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        assert not app.screen.check_action("back", ())  # nothing to go back to
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ChatScreen) and chat(app).agent_alive,
            "the demo agent",
        )
        first = chat(app)
        await run_palette_command(pilot, "Start agent…")
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        await pilot.press("down", "enter")
        await wait_for(
            pilot,
            lambda: len(app.agent_views) == 2 and chat(app) is not first and chat(app).agent_alive,
            "the fixture agent beside it",
        )
        assert first.agent_alive and list(chat(app).spec.argv) == FIXTURE_AGENT
        assert app.settings is first.settings  # the first agent's settings stay the app's


async def test_a_row_of_an_agent_started_to_list_opens_in_a_view_of_its_own(
    tmp_path: Path,
) -> None:
    """An agent running without a view (started by "Show sessions of: NAME" to list its
    sessions) gets one when one of its sessions is opened: that session, reopened there."""
    from acp_tui.session.workspace.listing import run_for_listing, start_for_listing

    app = make_app(fixture_settings(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: chat(app).agent_alive, "the fixture agent")
        fixture = chat(app)
        demo = demo_settings(tmp_path)
        assert demo.agent is not None
        key = demo.agent.key
        listing = start_for_listing(app.workspace, demo.agent)
        app.run_worker(run_for_listing(listing), exit_on_error=False)
        await wait_for(pilot, lambda: listing.ready.is_set(), "the listing agent")
        session_id = ""

        async def made() -> None:
            nonlocal session_id
            made_id = await listing.new_session(str(tmp_path))
            listing.send_prompt(made_id, "remember this")
            session_id = made_id

        def answered() -> bool:
            state = listing.store.get(session_id) if session_id else None
            return (
                state is not None
                and any(isinstance(e, AgentMessage) for e in state.transcript)
                and state.activity != "running"
            )

        app.run_worker(made(), exit_on_error=False)
        await wait_for(pilot, answered, "a session of the listing agent, with a reply")
        app.show_session(key, session_id)
        await wait_for(
            pilot,
            lambda: key in app.agent_views and app.screen is app.agent_views[key],
            "a view of its own",
        )
        view = app.agent_views[key]
        await wait_for(
            pilot,
            lambda: view.agent_alive and view.session_id == session_id and bool(replies(view)),
            "the session reopened in it, its transcript shown",
        )
        assert listing.finished.is_set() and view.controller is not listing
        assert fixture.agent_alive and len(app.workspace.running()) == 2


async def test_a_permission_of_an_agent_not_on_screen_waits_and_ctrl_l_goes_there(
    tmp_path: Path,
) -> None:
    """Issue 19's "Done when": the demo agent asks for a permission while the person chats with
    the other agent. The dialog does not open over the other agent's view (nor behind it);
    the row says so, a toast names the session, its agent and the key; Ctrl+L shows the demo
    agent's view and the dialog there, answered, and the file is written."""
    from acp_tui.store import LIVE_WAITING, live_state
    from acp_tui.ui.screens.permission import PermissionScreen
    from tests.ui.chat_helpers import answer_permission

    app = two_agents(tmp_path)
    seen = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: bool(replies(demo)) and not demo.busy, "the demo's reply")
        asking = demo.session_id
        assert asking is not None
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the other agent's view")
        # The edit (and its permission) starts once the person is in the other agent's view,
        # as a message queued there would (no race with a timed turn on a loaded machine).
        demo.model.send("/edit notes.txt", target=asking)
        await wait_for(
            pilot,
            lambda: (
                (state := demo.store.get(asking)) is not None and live_state(state) == LIVE_WAITING
            ),
            "the demo agent's session to wait for the person",
        )
        await chat_in(pilot, fixture, "meanwhile", "You said: meanwhile")
        # Nowhere on screen, in no agent's stack: it waits for its session to be shown.
        assert app.screen is fixture
        assert not any(isinstance(s, PermissionScreen) for s in app.screen_stack)
        assert not any(isinstance(s, PermissionScreen) for s in demo.app.screen_stack)
        # The view behind tells as it takes its store's changes (a frame of its own, later).
        await wait_for(
            pilot,
            lambda: any("needs you" in text and "ctrl+l" in text.lower() for text in seen),
            "a toast naming the session and the key",
        )
        assert not (tmp_path / "notes.txt").exists()
        await pilot.press("ctrl+l")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").exists(), "the file written")
        assert app.screen is demo or isinstance(app.screen, ChatScreen)
        await wait_for(
            pilot,
            lambda: (
                (state := demo.store.get(asking)) is not None and live_state(state) != LIVE_WAITING
            ),
            "the session to wait no more",
        )
        assert fixture.agent_alive and not fixture.busy


async def test_a_row_of_another_agent_opens_with_the_list_still_beside_it(
    tmp_path: Path,
) -> None:
    """The person picks another agent's session from the list of every agent's sessions:
    that agent's view comes up with the list shown, as it was where they picked it (each
    view has its own sidebar, and that one was hidden)."""
    from acp_tui.ui.widgets.sidebar import SessionsSidebar

    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the fixture agent's view")
        await send(pilot, "hello fixture")
        await wait_for(pilot, lambda: fixture.session_id is not None, "its session")
        theirs = fixture.session_id
        fixture.query_one(SessionsSidebar).display = False
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is demo, "the demo agent's view")
        sidebar = demo.query_one(SessionsSidebar)
        sidebar.display = True
        sidebar.reload()
        await wait_for(pilot, lambda: theirs in [s.id for s in sidebar.rows], "its row here")
        row = [s.id for s in sidebar.rows].index(theirs)
        lst = sidebar.session_list
        lst.focus()
        lst.move_cursor(row)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is fixture, "the fixture agent's view")
        assert fixture.session_id == theirs
        assert fixture.query_one(SessionsSidebar).display


def screen_text(app: AcpTuiApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_view_behind_draws_nothing_until_shown_then_all_of_it(tmp_path: Path) -> None:
    """A reply that comes into an agent's view while another agent's view is on screen is
    kept (the store has it) but not drawn: no entry view is mounted and nothing is laid out
    behind, where drawing three agents' replies at once kept the keys typed into the one
    seen waiting. Shown again, the view draws all that came at once."""
    from acp_tui.ui.widgets.transcript_views import AgentMessageView

    app = two_agents(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        demo, fixture = await both_ready(pilot)
        await chat_in(pilot, demo, "first words", "You said (2 words")
        session = demo.session_id
        await wait_for(pilot, lambda: not demo.busy, "the first turn's end")
        drawn = len(demo.query(AgentMessageView))
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is fixture, "the other agent's view")
        demo.model.send("words said from behind", target=session)
        await wait_for(
            pilot,
            lambda: any("You said (4 words" in reply for reply in replies(demo, session)),
            "the reply, behind",
        )
        await wait_for(pilot, lambda: not demo.busy, "its turn's end")
        await pilot.pause()
        assert len(demo.query(AgentMessageView)) == drawn, "drawn behind"
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.screen is demo, "back")
        await wait_for(
            pilot, lambda: len(demo.query(AgentMessageView)) == drawn + 1, "drawn in front"
        )
        await wait_for(
            pilot, lambda: "You said (4 words, 22 characters)" in screen_text(app), "on screen"
        )
