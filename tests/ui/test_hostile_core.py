"""Hostile agents, round 2 (issue 17): the real app on the hostile agent, driven with Pilot.

Each test is a class of defect the second attack found, seen where the person sees it: lone
surrogates, impossible numbers, deeply nested lines, an agent that closes its stdin or sends
ids that are not ids, permission requests after a cancel or after the turn, terminals outside
the project or with a hostile environment, dialogs spoofed by newlines, processes that escape
clean-up, a session list that never ends, and a replay that would erase the transcript.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, Static

from acp_tui.protocol import reaper
from acp_tui.store.entries import Notice
from acp_tui.store.session import SessionState
from acp_tui.ui.screens.chat import AgentBanner, ChatScreen
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from tests.agents import hostile_core as core
from tests.ui.chat_helpers import (
    answer_permission,
    armed_dialog,
    record_notifications,
    send,
    settle,
    wait_for,
    wait_for_session,
)
from tests.ui.test_resilience import (
    SIZE,
    assert_inert,
    banner_text,
    header_title,
    hostile_app,
    last_reply,
    process_gone,
    replies,
    screen_text,
    turn,
)

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    return not process_gone(pid)


def read_pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()]


async def wait_for_pids(pilot: Any, path: Path, count: int) -> list[int]:
    await wait_for(
        pilot, lambda: path.exists() and len(path.read_text().split()) >= count, "the pid file"
    )
    return read_pids(path)


def confirm_text(app: Any) -> str:
    """What the dialog says: its message, then each (label, value) row on a line of its own,
    as drawn (the screen wraps them; this is the text before wrapping)."""
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    parts = [str(screen.query_one("#message", Static).content)]
    for row in screen.query(".detail"):
        label, value = row.query(Label).first(), row.query_one(".detail-value", Static)
        parts.append(f"{label.content}: {value.content}")
    return "\n".join(parts)


async def wait_for_question(pilot: Any) -> str:
    """The confirmation dialog, once drawn; its text."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, ConfirmScreen) and "Refuse" in screen_text(app),
        "the question",
    )
    return confirm_text(app)


# ---------------------------------------------------------------------- crashes and lost data


async def test_a_lone_surrogate_never_stops_the_transcript(tmp_path: Path) -> None:
    """Issue 17 #8: a title with "\\ud800" made every later refresh fail in the local index;
    three replies were never drawn."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "surrogate", core.SURROGATE_AFTER.strip())
        for n in range(3):
            await turn(pilot, f"reply {n}", f"You said: reply {n}")
        await wait_for(pilot, lambda: "You said: reply 2" in screen_text(app), "the last reply")
        assert "Lone \ufffd surrogate" in screen_text(app)
        await wait_for(pilot, lambda: "\ufffd" in header_title(screen), "the title")
        assert not screen.drawing.error_shown
        remembered = screen.model.index.get(core.SESSION_ID)
        assert remembered is not None and remembered.title == "Title \ufffd lone"
        assert_inert(app)


async def test_impossible_numbers_show_as_unknown_and_the_tui_goes_on(tmp_path: Path) -> None:
    """Issue 17 #6: a cost of 1e26 killed the TUI; NaN and Infinity made refreshes fail."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "bad-numbers", core.NUMBERS_DONE)
        gauge = screen.query_one(ContextGauge)
        await wait_for(pilot, lambda: "$?" in gauge.gauge_line(), "the gauge")
        assert gauge.gauge_line().startswith("context: -")
        details = gauge.details_text()
        assert "nan" not in details.lower() and "inf" not in details.lower()
        assert not screen.drawing.error_shown
        await turn(pilot, "still alive", "You said: still alive")
        assert app.is_running


async def test_deeply_nested_lines_are_skipped_and_the_agent_is_not_blamed(
    tmp_path: Path,
) -> None:
    """Issue 17 #7: '[' x 100,000 raised RecursionError in the reader: the connection died and
    the TUI said the agent had closed its output."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "deep", core.DEEP_DONE, limit=90)
        assert screen.agent_alive
        stats = screen.controller.client.connection.stats  # type: ignore[union-attr]
        assert stats.skipped_lines >= 2
        await turn(pilot, "after deep", "You said: after deep")
        assert not screen.query_one(AgentBanner).has_class("-visible")
        await wait_for(pilot, lambda: "Deeply nested input" in screen_text(app), "the tool")
        assert not screen.drawing.error_shown


async def test_ctrl_r_after_a_crash_keeps_the_transcript_the_replay_would_shorten(
    tmp_path: Path,
) -> None:
    """Issue 17 #9: the agent's replay (only the first exchange here) replaced the kept
    transcript on Ctrl+R."""
    history = tmp_path / "history.jsonl"
    app = hostile_app(tmp_path, "--load=short", f"--history={history}")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "first message", "You said: first message")
        await turn(pilot, "second message", "You said: second message")
        await send(pilot, "crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the crash")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.agent_alive
                and screen.session_id == core.SESSION_ID
                and not screen.store.get(core.SESSION_ID).replaying  # type: ignore[union-attr]
                and screen.controller is not None
                and screen.controller.is_open(core.SESSION_ID)
            ),
            "the session reopened by load",
        )
        await settle(pilot, answered=True)
        state = screen.store.get(core.SESSION_ID)
        assert state is not None
        assert "You said: second message" in replies(screen)
        notices = [e.title for e in state.transcript if isinstance(e, Notice)]
        assert any(title.startswith("Kept the transcript you saw") for title in notices)
        await wait_for(
            pilot, lambda: "You said: second message" in screen_text(app), "the kept reply"
        )
        await turn(pilot, "third message", "You said: third message")


# ---------------------------------------------------------------------- protocol


async def test_an_agent_that_closes_its_stdin_is_said_to_have_closed_its_input(
    tmp_path: Path,
) -> None:
    """Issue 17 #13: it was killed with a message blaming its output."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "close-stdin", core.CLOSED_STDIN)
        await send(pilot, "are you there?")
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner", limit=15)
        text = banner_text(screen)
        assert "closed its input" in text, text
        assert "closed its output" not in text
        notices = " ".join(
            e.title
            for e in screen.store.get(core.SESSION_ID).transcript  # type: ignore[union-attr]
            if isinstance(e, Notice)
        )
        assert "closed its output" not in notices


async def test_requests_with_ids_that_are_not_ids_are_answered(tmp_path: Path) -> None:
    """Issue 17 #13: ids null, an object or a boolean got no answer at all."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await turn(pilot, "bad-ids", f"{len(core.BAD_IDS)} invalid-request answers")
        assert not isinstance(app.screen, PermissionScreen)


async def test_a_permission_asked_after_escape_is_answered_cancelled_unseen(
    tmp_path: Path,
) -> None:
    """Issue 17 #12: after session/cancel, a new request was shown and never answered."""
    app = hostile_app(tmp_path)
    shown: list[bool] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-after-cancel")
        await wait_for(pilot, lambda: screen.busy and "Working" in last_reply(screen), "the turn")
        await pilot.press("escape")

        def answered() -> bool:
            shown.append(isinstance(app.screen, PermissionScreen))
            return core.LATE_PERMISSION in last_reply(screen) and not screen.busy

        await wait_for(pilot, answered, "the late request's answer")
        assert '{"outcome": "cancelled"}' in last_reply(screen)
        assert not any(shown), "the late request was shown to the person"
        assert screen.broker.queue_length == 0
        await turn(pilot, "next", "You said: next")


async def test_a_dialog_left_open_when_the_turn_ends_is_closed_and_answered(
    tmp_path: Path,
) -> None:
    """Issue 17 #12: its dialog stayed open after the turn ended, never answered."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-then-end")
        await wait_for(
            pilot,
            lambda: "without waiting" in last_reply(screen) and not screen.busy,
            "the end of the turn",
        )
        await wait_for(pilot, lambda: app.screen is screen, "the dialog to close")
        assert screen.broker.queue_length == 0
        await turn(pilot, "last-answer", "last answer:")
        assert last_reply(screen) == 'last answer: {"outcome": "cancelled"}'


@pytest.mark.parametrize("mode", ["repeat", "cycle", "fresh"])
async def test_a_session_list_that_never_ends_is_not_paged_forever(
    tmp_path: Path, mode: str
) -> None:
    """Issue 17 #11: a repeated nextCursor made the sidebar page forever (~110 requests/s);
    so would a cycle of cursors, or fresh cursors over the same rows."""
    app = hostile_app(tmp_path, f"--list={mode}", show_sidebar=True)
    cwd = str(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        store = screen.store
        await wait_for(pilot, lambda: store.list_state(cwd).complete, "the end of the list")
        await settle(pilot, answered=True)
        connection = screen.controller.client.connection  # type: ignore[union-attr]
        sent = [r for r in connection.traffic if r.direction == "out" and "session/list" in r.text]
        assert len(sent) <= 6, f"{len(sent)} session/list requests"
        state = store.list_state(cwd)
        assert state.stopped and state.stopped.startswith("stopped:")
        await wait_for(pilot, lambda: state.stopped in screen_text(app), "the reason shown")
        ids = [s.id for s in store.catalog(cwd)]
        assert len(ids) == len(set(ids))
        assert screen.query_one(SessionsSidebar).display


# ---------------------------------------------------------------------- terminals and dialogs


async def test_a_terminal_outside_the_project_is_asked_first(tmp_path: Path) -> None:
    """Issue 17 #3: terminal/create ran anything in any cwd with no look."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    app = hostile_app(tmp_path / "project")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, f"terminal-outside {elsewhere}")
        text = await wait_for_question(pilot)
        assert "run a command" in text and "outside" in text
        assert "pwd" in text and str(elsewhere.resolve()) in text
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: "terminal refused" in last_reply(screen), "the refusal reported"
        )
        await send(pilot, f"terminal-outside {elsewhere}")
        await wait_for_question(pilot)
        await armed_dialog(pilot)
        await pilot.click("#yes")
        await wait_for(
            pilot,
            lambda: f"terminal ran: {elsewhere.resolve()}" in last_reply(screen),
            "the allowed command",
        )


@pytest.mark.parametrize(
    "variable", ["LD_PRELOAD=/nonexistent/evil.so", "PATH=/tmp/evil:/usr/bin", "BASH_ENV=/x"]
)
async def test_a_terminal_that_changes_what_runs_is_asked_first(
    tmp_path: Path, variable: str
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, f"terminal-env {variable}")
        text = await wait_for_question(pilot)
        assert variable in text and "decides what code runs" in text
        assert "sh" in text and "-c" in text  # the command and its arguments
        await pilot.press("escape")
        await wait_for(pilot, lambda: "terminal refused" in last_reply(screen), "the refusal")
        # A harmless variable is not asked.
        await send(pilot, "terminal-env GREETING=hello")
        await wait_for(
            pilot, lambda: "terminal ran: GREETING=hello" in last_reply(screen), "the command"
        )


async def test_a_path_with_newlines_cannot_draw_lines_in_the_question(tmp_path: Path) -> None:
    """Issue 17 #5: a path with newlines drew fake "SAFE: ..." lines in the dialog."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        for prompt in ("spoof-read", "spoof-terminal"):
            await send(pilot, prompt)
            text = await wait_for_question(pilot)
            assert "\\n" in text, "the newlines are not shown as escapes"
            for line in text.splitlines():
                if "SAFE" in line:
                    # Only inside the escaped value: on the line of a "\n" escape, never alone.
                    before = line.split("SAFE")[0]
                    assert "\\n" in before, f"a spoofed line: {line!r}"
            # And on screen: no row starts with the spoofed words, each value in its column.
            for row in screen_text(app).splitlines():
                assert not row.strip(" ▎▏▕│┃").startswith("SAFE"), row
            assert_inert(app)
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: "refused" in last_reply(screen) and not screen.busy, "the refusal"
            )


# ---------------------------------------------------------------------- processes


pytest_linux = pytest.mark.skipif(not reaper.supported(), reason="marks are Linux's")


@pytest_linux
async def test_a_daemon_started_in_a_terminal_dies_on_release(tmp_path: Path) -> None:
    """Issue 17 #4: terminal children that call setsid survived release and exit."""
    pids = tmp_path / "daemon.pid"
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await turn(pilot, f"terminal-run setsid sleep 300 & echo $! > {pids}", "terminal ran")
        daemon = read_pids(pids)[0]
        await wait_for(pilot, lambda: not alive(daemon), "the daemon to die on release")


@pytest_linux
async def test_the_children_of_a_crashed_agent_die_and_the_crash_is_seen(
    tmp_path: Path,
) -> None:
    """Issue 17 #4: an agent's children survived its crash (and, holding its pipes, hid it)."""
    pids_file = tmp_path / "children.pid"
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, f"orphans-then-crash {pids_file}")
        pids = await wait_for_pids(pilot, pids_file, 3)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the crash banner")
        assert "exit code 3" in banner_text(screen)
        await wait_for(pilot, lambda: not any(alive(pid) for pid in pids), "the orphans to die")


@pytest_linux
async def test_quitting_kills_what_a_live_agent_left_running(tmp_path: Path) -> None:
    pids_file = tmp_path / "daemon.pid"
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)
        await turn(pilot, f"spawn-daemon {pids_file}", "Started a daemon.")
        daemon = read_pids(pids_file)[0]
        assert alive(daemon)
    deadline = time.monotonic() + 60  # a hang guard: generous for a busy machine
    while alive(daemon) and time.monotonic() < deadline:
        await _sleep(0.05)
    assert not alive(daemon), "the agent's daemon outlived the app"


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def test_the_hostile_agent_runs_as_a_script() -> None:
    """The mixin is importable both ways (tests and `python hostile_agent.py`)."""
    import subprocess

    agent = Path(core.__file__).with_name("hostile_agent.py")
    result = subprocess.run(
        [sys.executable, str(agent), "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": ""},
        cwd="/",
    )
    assert "--list" in result.stdout and "--load" in result.stdout
    assert ChatScreen  # imported for the type of screens above


async def test_a_step_that_fails_never_stops_the_others(tmp_path: Path) -> None:
    """Issue 17 #8, the mechanism: the store's changes are taken once per frame; a step that
    raises (here the session index, every time) must not cost the transcript its updates."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)

        def broken(state: Any) -> bool:
            raise RuntimeError("the index is broken")

        screen.model.index.remember_session = broken  # type: ignore[method-assign]
        toasts = record_notifications(app)
        for n in range(3):
            await turn(pilot, f"turn {n}", f"You said: turn {n}")
            await wait_for(
                pilot, lambda n=n: f"You said: turn {n}" in screen_text(app), f"reply {n} drawn"
            )
        assert screen.drawing.error_shown  # said once, in a toast
        assert sum("display error" in message for message in toasts) == 1


async def unannounced_tool_answered(pilot: Any, prompt: str, key: str) -> SessionState:
    """The hostile agent's ``unannounced-tool`` scenario: its permission answered with
    ``key``, its turn over; the session."""
    screen = await wait_for_session(pilot)
    await send(pilot, prompt)
    await answer_permission(pilot, key)
    await wait_for(
        pilot,
        lambda: "quiet tool call is over" in last_reply(screen) and not screen.busy,
        "the turn's end",
    )
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return state


@pytest.mark.parametrize("key", ["1", "2"], ids=["allowed", "rejected"])
async def test_a_tool_call_first_heard_of_in_a_permission_is_named_by_it(
    tmp_path: Path, key: str
) -> None:
    """Qwen Code asks permission for a tool call it never announced, then sends bare
    updates: the transcript's card was named by its id ("call_0a4a762fa320"). The request's
    title and kind now make the tool call."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        state = await unannounced_tool_answered(pilot, "unannounced-tool", key)
        tool_call = state.tool_index["quiet-1"]
        assert (tool_call.title, tool_call.tool_kind) == (core.UNANNOUNCED_TITLE, "execute")
        assert tool_call.status == ("completed" if key == "1" else "failed")
        assert len([e for e in state.transcript if e is tool_call]) == 1
        await wait_for(
            pilot,
            lambda: f"{core.UNANNOUNCED_TITLE}  [" in screen_text(app),
            "the card named by the request's title",
        )
        assert "quiet-1" not in screen_text(app)


@pytest.mark.parametrize(
    ("key", "status", "label"),
    [("2", "rejected", "[rejected]"), ("1", "allowed", "[allowed]")],
    ids=["rejected", "allowed-then-never-reported"],
)
async def test_a_tool_call_the_agent_never_ends_is_not_left_pending(
    tmp_path: Path, key: str, status: str, label: str
) -> None:
    """Qwen Code sends nothing more of a tool call whose permission was rejected: its card
    said "[pending]" for good, and so did the export. A rejected one says so; an allowed one
    the agent never reported says it was allowed (OpenHands: it read "not run", though it
    ran)."""
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        state = await unannounced_tool_answered(pilot, "unannounced-tool silent", key)
        assert state.tool_index["quiet-1"].status == status
        await wait_for(
            pilot, lambda: f"{core.UNANNOUNCED_TITLE}  {label}" in screen_text(app), "the card"
        )
