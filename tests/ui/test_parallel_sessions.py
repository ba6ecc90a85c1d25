"""Parallel sessions of one agent (issue 19), against the demo agent over real pipes: switching
never cancels anything; a permission of a session that is not on screen waits for the person
(its row says so, a toast and a desktop notification name it, the window title counts it, one
key goes there and the dialog shows, armed afresh); each session's own gauge, mode and queue
are shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store import LIVE_ERROR, LIVE_UNREAD, LIVE_WAITING, AgentMessage, Notice, live_state
from acp_tui.store.options import session_options
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.terminal_signals import signals_of
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from tests.ui.chat_helpers import (
    answer_permission,
    chat,
    demo_app,
    record_notifications,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio


def replies(screen: ChatScreen, session_id: str) -> str:
    state = screen.store.get(session_id)
    assert state is not None
    return "\n".join(e.text for e in state.transcript if isinstance(e, AgentMessage))


def notices(screen: ChatScreen, session_id: str) -> list[str]:
    state = screen.store.get(session_id)
    assert state is not None
    return [e.title for e in state.transcript if isinstance(e, Notice)]


def sidebar_text(screen: ChatScreen) -> str:
    sidebar = screen.query_one(SessionsSidebar)
    lines = sidebar.session_list.render_lines(sidebar.session_list.region.reset_offset)
    return "\n".join(strip.text for strip in lines)


async def new_session_beside(pilot, screen: ChatScreen, first: str) -> str:  # type: ignore[no-untyped-def]
    """Ctrl+N's action while session 1's turn runs: a second session, shown; returns its id.
    (The action, not the key: a key press waits for the app to be idle, and on a busy machine
    a short turn may be over by then.)"""
    screen.action_new_session()
    # The view leaves session 1 at once (the new session is made meanwhile).
    await wait_for(pilot, lambda: screen.session_id != first, "session 1 to leave the screen")
    one = screen.store.get(first)
    assert one is not None and one.activity != "idle", "the switch came after the turn ended"
    await wait_for(pilot, lambda: screen.session_id is not None, "the second session to open")
    assert screen.session_id is not None
    return screen.session_id


async def asked_from_behind(pilot, screen: ChatScreen, prompt: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A turn in session 1 (so Ctrl+N leaves it), then session 2 shown, then ``prompt`` sent
    to session 1, as a message queued there is: what it asks comes while session 2 is on
    screen, whatever the machine's speed. Returns both ids."""
    first = screen.session_id
    assert first is not None
    await send(pilot, "hello")
    await wait_for(pilot, lambda: bool(replies(screen, first)) and not screen.busy, "a reply")
    screen.action_new_session()
    await wait_for(
        pilot, lambda: screen.session_id not in (None, first), "the second session to open"
    )
    second = screen.session_id
    assert second is not None
    screen.model.send(prompt, target=first)
    return first, second


async def test_switching_sessions_never_cancels_a_running_turn(tmp_path: Path) -> None:
    """A turn runs in session 1 while the person opens session 2, sends there and comes back:
    session 1's reply is complete and both turns ended normally."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        first = screen.session_id
        assert first is not None
        await send(pilot, "/slow 5")
        await wait_for(pilot, lambda: screen.busy, "the slow turn to run")
        second = await new_session_beside(pilot, screen, first)
        await send(pilot, "hello there")
        await wait_for(
            pilot,
            lambda: (s := screen.store.get(second)) is not None and s.stop_reason == "end_turn",
            "session 2's turn to end",
        )
        one = screen.store.get(first)
        assert one is not None
        screen.open_session(first)
        await wait_for(pilot, lambda: screen.session_id == first, "back in session 1")
        await wait_for(pilot, lambda: one.stop_reason == "end_turn", "session 1's turn to end")
        await settle(pilot)
        assert "Finished the slow turn." in replies(screen, first)
        assert "(1/" in replies(screen, first)  # every tick, from the first
        assert replies(screen, second)
        for sid in (first, second):
            assert not any("Cancel" in title for title in notices(screen, sid)), notices(
                screen, sid
            )
        controller = screen.controller
        assert (
            controller is not None
            and not controller.is_busy(first)
            and not controller.is_busy(second)
        )
        # Shown now: nothing unread in it.
        assert live_state(one) is None


async def test_a_permission_of_a_session_not_on_screen_waits_and_one_key_goes_there(
    tmp_path: Path,
) -> None:
    app = demo_app(
        tmp_path,
        tmp_path / "state",
        desktop_notifications="osc9",
        terminal_title=True,
        show_sidebar=True,
    )
    written: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        signals_of(app).writer = written.append
        toasts = record_notifications(app)
        screen = await wait_for_session(pilot)
        # The edit (and its permission) comes while the person is in another session.
        first, second = await asked_from_behind(pilot, screen, "/edit notes.txt")
        one = screen.store.get(first)
        assert one is not None
        await send(pilot, "hello")
        await wait_for(pilot, lambda: live_state(one) == LIVE_WAITING, "session 1 to wait")
        await settle(pilot)
        # It did not take the screen.
        assert not any(isinstance(s, PermissionScreen) for s in app.screen_stack)
        assert chat(app).session_id == second
        # Its row says so; a toast names it and the key; the bell, a desktop notification
        # and the title tell the person outside the app.
        await wait_for(
            pilot, lambda: "waiting for you" in sidebar_text(screen), "the row to say it"
        )
        assert any("needs you" in t and "ctrl+l" in t.lower() for t in toasts), toasts
        assert "\x07" in written
        assert any(w.startswith("\x1b]9;acp-tui: ") and "needs you" in w for w in written)
        assert "\x1b]2;acp-tui · 1 waiting\x07" in written
        assert not (tmp_path / "notes.txt").exists()
        # Typing in session 2 goes on undisturbed meanwhile.
        await pilot.press(*"still here")
        assert "still here" in screen.query_one("#prompt").draft  # type: ignore[attr-defined]
        # One key: session 1, and its dialog, armed afresh.
        assert any("needs you" in n.message for n in app._notifications)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.session_id == first, "session 1 on screen")
        # Gone to: the toast that sent the person there goes.
        await wait_for(
            pilot,
            lambda: not any("needs you" in n.message for n in app._notifications),
            "the toast to go",
        )
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").exists(), "the file written")
        await wait_for(pilot, lambda: one.stop_reason == "end_turn", "the edit's turn to end")
        await settle(pilot)
        assert written[-1] == "\x1b]2;acp-tui\x07"  # nothing needs the person any more
        assert any(t.startswith("Allowed once") for t in notices(screen, first))
        # What was typed in session 2 is still session 2's.
        screen.open_session(second)
        await wait_for(pilot, lambda: screen.session_id == second, "back in session 2")
        assert "still here" in screen.query_one("#prompt").draft  # type: ignore[attr-defined]


async def test_a_permission_of_the_session_on_screen_shows_at_once(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", desktop_notifications="osc9")
    written: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        signals_of(app).writer = written.append
        toasts = record_notifications(app)
        await wait_for_session(pilot)
        await send(pilot, "/edit notes.txt")
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").exists(), "the file written")
        # The person saw it happen (the app has the focus): no toast, bell or notification.
        assert not any("needs you" in t for t in toasts)
        assert not written


async def test_unread_output_of_a_background_turn_is_read_when_shown(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", show_sidebar=True, desktop_notifications="osc9")
    written: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        signals_of(app).writer = written.append
        toasts = record_notifications(app)
        screen = await wait_for_session(pilot)
        first = screen.session_id
        assert first is not None
        await send(pilot, "/slow 5")
        await wait_for(pilot, lambda: screen.busy, "the slow turn to run")
        await new_session_beside(pilot, screen, first)
        one = screen.store.get(first)
        assert one is not None
        await wait_for(pilot, lambda: live_state(one) == LIVE_UNREAD, "session 1 done, unread")
        await wait_for(pilot, lambda: "done · unread" in sidebar_text(screen), "the row")
        # Told outside the app (bell, desktop); inside, the row says it: no toast to bury
        # the ones that ask something.
        assert "\x07" in written
        assert any(w.startswith("\x1b]9;") and "finished" in w for w in written), written
        assert not any("finished" in t for t in toasts), toasts
        screen.open_session(first)
        await wait_for(pilot, lambda: screen.session_id == first, "session 1 shown")
        assert live_state(one) is None
        await wait_for(pilot, lambda: "unread" not in sidebar_text(screen), "the row read")


def mode_shown(screen: ChatScreen) -> object:
    bar = screen.query_one(ChatBar)
    control = next(c for c in bar.controls.values() if c.option.category == "mode")
    return control.value


def mode_of(screen: ChatScreen, session_id: str) -> str | None:
    state = screen.store.get(session_id)
    assert state is not None
    option = next(o for o in session_options(state) if o.category == "mode")
    return option.current  # type: ignore[return-value]


async def test_the_gauge_mode_and_queue_shown_are_those_of_the_session_on_screen(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        first = screen.session_id
        assert first is not None
        await send(pilot, "/fill 80")
        one = screen.store.get(first)
        assert one is not None
        await wait_for(
            pilot,
            lambda: one.context is not None and (one.context.used or 0) > 150_000,
            "session 1 to fill",
        )
        await wait_for(pilot, lambda: not screen.busy, "session 1's turn to end")
        # Session 2: another mode, a small context, and a message queued behind a slow turn.
        await send(pilot, "/slow 5")
        await wait_for(pilot, lambda: screen.busy, "the slow turn to run")
        await send(pilot, "queued in session 1")
        await wait_for(pilot, lambda: len(screen.prompts.items(first)) == 1, "the queued one")
        second = await new_session_beside(pilot, screen, first)
        two = screen.store.get(second)
        assert two is not None
        await settle(pilot)
        if screen.prompts.items(first):  # still queued: not shown in session 2
            assert not screen.query_one(QueueView).query(QueuedItem)
        before = mode_of(screen, second)
        screen.options.choose("config:mode", "ask")  # (the demo's default is "code")
        await wait_for(pilot, lambda: mode_of(screen, second) != before, "session 2's mode")
        await send(pilot, "hello")
        await wait_for(pilot, lambda: two.context is not None, "session 2's usage")
        await wait_for(pilot, lambda: not screen.busy, "session 2's turn to end")
        assert mode_of(screen, first) != mode_of(screen, second)
        screen.open_session(first)
        await wait_for(pilot, lambda: screen.session_id == first, "session 1 shown")
        for sid, state in ((first, one), (second, two), (first, one)):
            if screen.session_id != sid:
                screen.open_session(sid)
                await wait_for(pilot, lambda sid=sid: screen.session_id == sid, "the switch")
            await settle(pilot)
            gauge = screen.query_one(ContextGauge)
            assert state.context is not None
            assert gauge.used == state.context.used, sid
            assert mode_shown(screen) == mode_of(screen, sid), sid
            queue = screen.query_one(QueueView)
            assert len(queue.query(QueuedItem)) == len(screen.prompts.items(sid)), sid


async def test_a_form_of_a_session_not_on_screen_waits_too(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        toasts = record_notifications(app)
        screen = await wait_for_session(pilot)
        first, _second = await asked_from_behind(pilot, screen, "/ask")
        one = screen.store.get(first)
        assert one is not None
        await wait_for(pilot, lambda: live_state(one) == LIVE_WAITING, "session 1 to wait")
        await settle(pilot)
        assert not any(isinstance(s, ElicitationScreen) for s in app.screen_stack)
        assert any("needs you" in t for t in toasts), toasts
        await pilot.press("ctrl+l")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ElicitationScreen) and app.screen.armed,
            "the form, armed",
        )
        assert screen.session_id == first
        await pilot.press("escape")
        # Escape in a form is the chat's Escape for the form's session: its turn is cancelled.
        await wait_for(pilot, lambda: one.stop_reason == "cancelled", "session 1's turn, cancelled")
        await wait_for(pilot, lambda: live_state(one) is None, "nothing waits any more")
        assert screen.session_id == first


async def test_the_jump_key_says_so_when_nothing_waits(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        toasts = record_notifications(app)
        screen = await wait_for_session(pilot)
        before = screen.session_id
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: "No session is waiting for you." in toasts, "the answer")
        assert screen.session_id == before


async def test_a_request_of_a_session_nobody_can_go_to_is_shown_as_ever(tmp_path: Path) -> None:
    """An agent asking for a session this view does not have open (a bug, or no session
    named): waiting for a jump that can never come would hang the agent; it is shown."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        assert screen.session_id is not None
        assert screen.attention.shows_session(screen.session_id)
        assert screen.attention.shows_session("never-heard-of") and screen.attention.shows_session(
            ""
        )
        screen.store.set_activity("listed-only", "requires_action")  # known, not open here
        assert screen.attention.shows_session("listed-only")


async def test_a_turn_running_off_screen_when_the_agent_crashes_shows_an_error(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state", show_sidebar=True)
    async with app.run_test(size=(120, 40)) as pilot:
        toasts = record_notifications(app)
        screen = await wait_for_session(pilot)
        first = screen.session_id
        assert first is not None
        await send(pilot, "/slow 30")
        await wait_for(pilot, lambda: screen.busy, "the slow turn to run")
        await new_session_beside(pilot, screen, first)
        await send(pilot, "/crash")
        one = screen.store.get(first)
        assert one is not None
        await wait_for(pilot, lambda: live_state(one) == LIVE_ERROR, "session 1's error")
        await wait_for(pilot, lambda: "✗" in sidebar_text(screen), "the row's error")
        assert "error" in sidebar_text(screen)
        assert any("ended in an error" in t for t in toasts), toasts
