"""Resilience and safety (issue 9): the real app on the hostile agent, driven with Pilot.

Whatever the agent does (dies, hangs, floods, sends junk or escape sequences), the app stays
up, the transcript and the draft stay, the screen shows agent text literally, and quitting is
bounded in time.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.strip import Strip

from acp_tui.protocol.process import AgentProcess
from acp_tui.store.entries import AgentMessage, Notice, ToolCall, UnknownUpdate
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import AgentBanner, ChatHeader, ChatScreen
from acp_tui.ui.screens.chat.screen import QUITTING_STATUS
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript_views import UnknownView
from tests.agents import hostile_agent as hostile
from tests.ui.chat_helpers import (
    WAIT_LIMIT,
    agent_app,
    armed_dialog,
    chat,
    send,
    settle,
    wait_for,
    wait_for_session,
)
from tests.ui.test_permission_dialog import arm_now

pytestmark = pytest.mark.anyio

HOSTILE_AGENT = [sys.executable, str(Path(hostile.__file__).resolve())]
SIZE = (120, 40)


def hostile_app(cwd: Path, *flags: str, **overrides: Any) -> AcpTuiApp:
    cwd.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"log_dir": cwd / ".logs", "notify_when_unfocused": False}
    argv = overrides.pop("agent_argv", [*HOSTILE_AGENT, *flags])
    return agent_app(argv, cwd, **(options | overrides))


def replies(screen: ChatScreen) -> list[str]:
    state = screen.store.get(screen.session_id) if screen.session_id else None
    return [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []


def last_reply(screen: ChatScreen) -> str:
    texts = replies(screen)
    return texts[-1] if texts else ""


async def turn(pilot: Any, text: str, expect: str, limit: float = WAIT_LIMIT) -> ChatScreen:
    """Send ``text`` and wait until the last reply contains ``expect`` and the turn is over."""
    screen = chat(pilot.app)
    await send(pilot, text)
    await wait_for(
        pilot, lambda: expect in last_reply(screen) and not screen.busy, f"reply {expect!r}", limit
    )
    return screen


def screen_strips(app: AcpTuiApp) -> list[Strip]:
    return app.screen._compositor.render_strips()


def screen_text(app: AcpTuiApp) -> str:
    """The characters on screen, row by row."""
    return "\n".join(strip.text for strip in screen_strips(app))


def terminal_output(app: AcpTuiApp) -> str:
    """What the app would write to the terminal for a full repaint of the current screen."""
    from rich.console import Console

    console = Console(
        width=app.size.width,
        height=app.size.height,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    update = app.screen._compositor.render_update(full=True)
    return update.render_segments(console)


def assert_inert(app: AcpTuiApp) -> None:
    """Nothing on screen is an escape sequence, a control character, a terminal hyperlink or
    an action from agent markup. (A URL in an agent's Markdown message may become a Markdown
    link, which only offers to open it: that is Markdown, not markup.)"""
    text = screen_text(app)
    for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\u202c"):
        assert bad not in text, f"{bad!r} reached the screen"
    for strip in screen_strips(app):
        for segment in strip:
            style = segment.style
            assert not (style and style.link), f"a hyperlink reached the screen: {style.link}"
            action = (style.meta or {}).get("@click", "") if style else ""
            assert not action or str(action).startswith("link("), f"an action: {action!r}"
    output = terminal_output(app)
    for bad in ("\x1b]52", "\x1b]8;", "\x1b]0;", "\x07", "\u202e", "\x9b", "\x1b[2J"):
        assert bad not in output, f"{bad!r} reached the terminal output"


def banner_text(screen: ChatScreen) -> str:
    return str(screen.query_one(AgentBanner).render())


def header_title(screen: ChatScreen) -> str:
    return str(screen.query_one(ChatHeader).query_one("#title").render())


def assert_killed_on_quit(agent: Any, pid: int) -> None:
    """Quitting did not wait for an agent that ignores stdin EOF and SIGTERM: the shutdown went
    on to SIGKILL (each step has its own short grace period, so quitting is bounded), and the
    process is gone."""
    assert agent.returncode == -signal.SIGKILL, f"the agent ended with {agent.returncode}"
    assert process_gone(pid), "the agent is still running after quit"


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie still answers kill(0): look at its state.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


# ---------------------------------------------------------------------- malformed traffic


async def test_banner_and_junk_are_skipped_counted_and_the_client_goes_on(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path, "--at-start=banner")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        assert screen.controller is not None and screen.controller.client is not None
        stats = screen.controller.client.connection.stats
        assert stats.skipped_lines >= len(hostile.STDOUT_BANNER)
        await turn(pilot, "junk", "Survived the junk.")
        # Skipped: not JSON (plain text, invalid UTF-8, a cut line) or not an object (2).
        assert stats.skipped_lines == len(hostile.STDOUT_BANNER) + 5
        # Invalid JSON-RPC: {}, no method/id, ids that are not ids (2), a numeric method.
        assert stats.invalid_messages == 5
        # Answers to requests never sent (a result and an error).
        assert stats.unknown_responses == 2
        assert stats.handler_errors == 0
        assert screen.agent_alive
        await turn(pilot, "still there?", "You said: still there?")
        assert_inert(app)


@pytest.mark.parametrize("kind", ["usage", "tool"])
async def test_a_burst_of_100000_updates_is_applied_and_the_client_goes_on(
    tmp_path: Path, kind: str
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, f"flood-updates 100000 {kind}", f"Flooded 100000 {kind}")
        state = screen.store.get(screen.session_id)
        if kind == "usage":
            assert state.context is not None and int(state.context.used) == 100_000
            gauge = screen.query_one("#gauge")
            await wait_for(pilot, lambda: "100K / 1.0M" in gauge.gauge_line(), "the gauge")  # type: ignore[attr-defined]
        else:
            tool = state.tool_index.get("flood-1")
            assert isinstance(tool, ToolCall) and tool.title == "step 100000"
            await wait_for(
                pilot,
                lambda: (
                    "step 100000"
                    in str(screen.query_one(ToolCallView).query_one(".header").render())
                ),
                "the tool call view",
            )
        assert screen.controller.client.connection.stats.handler_errors == 0  # type: ignore[union-attr]
        await turn(pilot, "after the flood", "You said: after the flood")


async def test_a_burst_of_message_chunks_is_applied_and_the_client_goes_on(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        count = 20_000
        await send(pilot, f"flood-updates {count}")
        await wait_for(
            pilot,
            lambda: last_reply(screen) == hostile.FLOOD_TEXT * count and not screen.busy,
            "the whole burst",
        )
        await turn(pilot, "after the flood", "You said: after the flood")


async def test_a_50_megabyte_line_is_read_and_the_client_goes_on(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "big-line 50", "After the big line.")
        state = screen.store.get(screen.session_id)
        tool = state.tool_index.get("big-1")
        assert isinstance(tool, ToolCall)
        assert len(tool.raw_output["stdout"]) == 50 * 1024 * 1024
        connection = screen.controller.client.connection  # type: ignore[union-attr]
        # The inspector keeps a cut copy, not 50 MB.
        assert all(len(record.text) <= 64 * 1024 for record in connection.traffic)
        await turn(pilot, "small again", "You said: small again")


async def test_unknown_sessions_and_variants_are_kept(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "unknown-session", "Unknown things sent.")
        # Updates for a session never opened are held, not dropped and not shown here.
        assert screen.store.held_count(hostile.UNKNOWN_SESSION_ID) == 2
        assert "nobody opened" not in "".join(replies(screen))
        state = screen.store.get(screen.session_id)
        unknown = [e for e in state.transcript if isinstance(e, UnknownUpdate)]
        assert [u.update_kind for u in unknown] == ["hostile_vendor_update"]
        assert unknown[0].raw["payload"] == {"kept": [1, 2, 3]} and unknown[0].error is None
        await wait_for(pilot, lambda: len(screen.query(UnknownView)) == 1, "the unknown view")


async def test_wrong_types_in_known_fields_are_kept_as_malformed_updates(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "wrong-types", "Wrong types sent.")
        state = screen.store.get(screen.session_id)
        malformed = [e for e in state.transcript if isinstance(e, UnknownUpdate) and e.error]
        assert len(malformed) >= 5
        await settle(pilot)
        assert not screen.drawing.error_shown, "a display error was reported"
        assert screen.agent_alive
        await turn(pilot, "fine?", "You said: fine?")
        assert_inert(app)


# ---------------------------------------------------------------------- display safety


async def test_escape_sequences_are_never_interpreted(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "escape-title", "done")
        await wait_for(
            pilot, lambda: "Red title" in header_title(screen), "the title in the header"
        )
        assert header_title(screen) == hostile.ESCAPE_TITLE_VISIBLE
        await wait_for(pilot, lambda: len(screen.query(ToolCallView)) == 1, "the tool call")
        await settle(pilot)
        text = screen_text(app)
        assert "Red title" in text and "cleared?" in text and "gnirts" in text
        assert "Run tests" in text
        assert "evil.example" not in text and "ZXZpbA" not in text and "pwned" not in text
        assert_inert(app)


async def test_rich_markup_is_shown_literally(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "markup", "Markup:")
        await wait_for(pilot, lambda: "[bold red]" in header_title(screen), "the title")
        assert header_title(screen) == hostile.MARKUP_TITLE
        await wait_for(pilot, lambda: len(screen.query(ToolCallView)) == 1, "the tool call")
        await settle(pilot)
        text = screen_text(app)
        assert "[bold red]x[/]" in text  # the header
        assert "[bold red]boom[/]" in text  # the agent's message (Markdown)
        assert "[link=https://evil.example]click me[/link]" in text
        assert "[reverse]tool[/reverse] [@click=app.quit]quit[/]" in text  # the tool title
        assert_inert(app)
        assert app.is_running


async def test_a_10000_character_title_is_cut_and_the_layout_holds(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "long-title", "Long title set.")
        await wait_for(pilot, lambda: header_title(screen).startswith("TTT"), "the long title")
        title = header_title(screen)
        assert len(title) == 500 and title.endswith("…")
        header = screen.query_one(ChatHeader)
        assert header.region.height == 1 and header.region.y == 0
        await wait_for(pilot, lambda: len(screen.query(ToolCallView)) == 1, "the tool call")
        tool_header = str(screen.query_one(ToolCallView).query_one(".header").render())
        assert "…" in tool_header and len(tool_header) < 600
        await assert_layout_holds(pilot, screen)


async def test_a_10000_character_line_without_spaces_keeps_the_layout(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "no-spaces")
        await wait_for(
            pilot, lambda: len(last_reply(screen)) == 10_000 and not screen.busy, "the long line"
        )
        await wait_for(pilot, lambda: len(screen.query(ToolCallView)) == 1, "the tool call")
        await assert_layout_holds(pilot, screen)


async def assert_layout_holds(pilot: Any, screen: ChatScreen) -> None:
    await settle(pilot)
    width, height = pilot.app.size
    header = screen.query_one(ChatHeader)
    assert header.region.height == 1
    prompt = screen.query_one("#prompt")
    assert prompt.region.height >= 1 and prompt.region.bottom <= height
    assert prompt.region.right <= width
    transcript = screen.query_one("#transcript")
    assert transcript.region.right <= width
    # Nothing scrolls sideways: long text wraps or is cut.
    assert transcript.max_scroll_x == 0
    for strip in screen_strips(pilot.app):
        assert strip.cell_length <= width
    # The prompt still takes input.
    editor = screen.query_one("#prompt")
    editor.set_draft("still typing")  # type: ignore[attr-defined]
    await pilot.pause()
    assert editor.draft == "still typing"  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- the agent dies


async def test_a_crash_mid_turn_keeps_transcript_and_draft_and_ctrl_r_restarts(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "first message", "You said: first message")
        session_id = screen.session_id
        await send(pilot, "crash")
        editor = screen.query_one("#prompt")
        editor.set_draft("my unsent draft")  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to exit")
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        text = banner_text(screen)
        assert f"exit code {hostile.CRASH_EXIT_CODE}" in text
        assert "hostile: working on the turn" in text
        assert "Traceback (most recent call last): hostile crash" in text
        # Escapes removed, the lone BEL shown, the bidi override dropped.
        assert "red error with a bell␇ and a override" in text
        assert "Ctrl+R" in text
        assert_inert(app)
        # The transcript and the draft are intact.
        state = screen.store.get(session_id)
        assert any(
            isinstance(e, AgentMessage) and e.text == "You said: first message"
            for e in state.transcript
        )
        assert "You said: first message" in screen_text(app)
        assert editor.draft == "my unsent draft"  # type: ignore[attr-defined]
        assert not screen.busy
        # Sending while the agent is down queues the message (shown), the draft stays.
        screen.model.send("while down")
        assert editor.draft == "my unsent draft"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queued message")
        assert [q.text for q in screen.prompts.items(session_id)] == ["while down"]
        # One key restarts the agent. This agent cannot reopen a session: the old transcript
        # stays on screen until the queued message has started a new session, which takes the
        # draft along.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.agent_alive, "the restart")
        await wait_for(pilot, lambda: not banner.has_class("-visible"), "the banner to go")
        await wait_for(
            pilot,
            lambda: last_reply(screen) == "You said: while down",
            "the queued message sent in a new session",
        )
        new_requests = [
            r
            for r in screen.controller.client.connection.traffic  # type: ignore[union-attr]
            if r.direction == "out" and '"session/new"' in r.text
        ]
        assert len(new_requests) == 1
        assert len(screen.prompts) == 0
        assert editor.draft == "my unsent draft"  # type: ignore[attr-defined]
        await turn(pilot, "after restart", "You said: after restart")


async def test_sigkill_mid_turn_names_the_signal(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "sigkill")
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        text = banner_text(screen)
        assert "killed by SIGKILL" in text
        assert "hostile: sending SIGKILL to myself" in text
        assert "About to be killed" in last_reply(screen)
        assert not screen.busy and app.is_running


async def test_a_pending_permission_dialog_closes_when_the_agent_dies(tmp_path: Path) -> None:
    from acp_tui.ui.screens.permission import PermissionScreen

    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        die_now = tmp_path / "die-now"
        await send(pilot, f"permission-then-crash {die_now}")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PermissionScreen), "the permission dialog"
        )
        die_now.touch()
        await wait_for(
            pilot,
            lambda: not screen.agent_alive and app.screen is screen,
            "the dialog to close when the agent dies",
        )
        assert screen.broker.queue_length == 0
        state = screen.store.get(screen.session_id)
        assert any(
            isinstance(e, Notice) and e.title.startswith("Cancelled") for e in state.transcript
        )
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        assert f"exit code {hostile.PERMISSION_CRASH_EXIT_CODE}" in banner_text(screen)
        assert "dying while the permission dialog is open" in banner_text(screen)
        assert not screen.busy
        # Its tool call will never finish: said so, not left "pending".
        tool = next(e for e in state.transcript if isinstance(e, ToolCall))
        assert tool.status == "interrupted"
        view = screen.query(ToolCallView).first()
        await wait_for(
            pilot,
            lambda: "[interrupted]" in str(view.query_one(".header").render()),
            "the tool block's status",
        )
        # The screen takes keys again.
        editor = screen.query_one("#prompt")
        editor.focus()
        await pilot.press("o", "k")
        assert editor.draft.endswith("ok")  # type: ignore[attr-defined]


async def test_repeated_crashes_back_off(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the first crash")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.agent_alive, "the first restart")
        await send(pilot, "crash")
        await wait_for(pilot, lambda: not screen.agent_alive, "the second crash")
        await pilot.press("ctrl+r")
        # The second restart within two minutes waits instead of looping: when the delay is
        # announced, the agent is not running (the restart is a timer 2 s away).
        alive_when_announced: list[bool] = []

        def announced() -> bool:
            if any("restarting in 2 s" in str(n.message) for n in app._notifications):
                alive_when_announced.append(screen.agent_alive)
                return True
            return False

        await wait_for(pilot, announced, "the restart delay to be announced")
        assert alive_when_announced == [False]
        await wait_for(pilot, lambda: screen.agent_alive, "the delayed restart")


# ---------------------------------------------------------------------- failing to start


async def test_a_command_that_does_not_exist_gives_a_clear_banner(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-agent")
    app = hostile_app(tmp_path, agent_argv=[missing, "--flag"])
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        text = banner_text(screen)
        assert "could not be started" in text
        assert f"{missing} --flag" in text  # the command line
        assert "command not found" in text  # the reason
        assert "Traceback" not in screen_text(app)
        assert app.start_failure and missing in app.start_failure
        assert app.is_running


async def test_the_banner_quotes_the_command_as_a_shell_would(tmp_path: Path) -> None:
    missing = str(tmp_path / "my agents" / "agent")
    app = hostile_app(tmp_path, agent_argv=[missing, "--prompt", "two words", "it's"])
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        quoted = f"'{missing}' --prompt 'two words' 'it'\"'\"'s'"
        assert quoted in banner_text(screen)
        assert app.start_failure and quoted in app.start_failure


async def test_a_command_that_is_not_executable_gives_a_clear_banner(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    app = hostile_app(tmp_path, agent_argv=[str(script)])
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        assert "not executable" in banner_text(screen)
        assert app.start_failure


# ---------------------------------------------------------------------- hanging agents


async def test_quitting_while_a_prompt_hangs_is_bounded_and_kills_the_agent(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path, "--ignore-term")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        agent = screen.controller.process  # type: ignore[union-attr]
        assert agent is not None
        pid = agent.pid
        await send(pilot, "hang")
        await wait_for(
            pilot, lambda: screen.busy and "forever" in last_reply(screen), "the hanging turn"
        )
        # Escape sends session/cancel; this agent ignores it, the UI does not freeze.
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: "cancelling" in str(screen.query_one("#status").render()), "cancelling"
        )
        editor = screen.query_one("#prompt")
        editor.focus()
        await pilot.press("o", "k")
        assert editor.draft.endswith("ok")  # type: ignore[attr-defined]
    assert_killed_on_quit(agent, pid)


async def test_cancelling_stays_shown_until_the_turn_ends(tmp_path: Path) -> None:
    """The elapsed-time tick (and any update of the turn) must not put "working… N s" back over
    "cancelling…" while an agent that ignores session/cancel goes on."""
    app = hostile_app(tmp_path, "--ignore-term")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "hang")
        await wait_for(
            pilot, lambda: screen.busy and "forever" in last_reply(screen), "the hanging turn"
        )
        await pilot.press("escape")

        def status() -> str:
            return str(screen.query_one("#status").render())

        await wait_for(pilot, lambda: "cancelling" in status(), "cancelling")
        screen.drawing.tick()
        await pilot.pause()
        assert "cancelling" in status() and "working" not in status()


# ---------------------------------------------------------------------- files and auth


async def test_reading_outside_the_cwd_asks_and_a_refusal_reaches_the_agent(
    tmp_path: Path,
) -> None:
    from acp_tui.ui.screens.confirm import ConfirmScreen

    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    app = hostile_app(tmp_path / "project")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, f"outside-read {secret}")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: "read refused" in last_reply(screen) and not screen.busy, "the refusal"
        )
        assert "top secret" not in "".join(replies(screen))
        await send(pilot, f"outside-read {secret}")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await armed_dialog(pilot)
        await pilot.click("#yes")
        await wait_for(
            pilot, lambda: "read allowed: top secret" in last_reply(screen), "the allowed read"
        )


async def test_auth_required_leads_to_the_auth_picker_then_a_session(tmp_path: Path) -> None:
    from acp_tui.ui.screens.auth import AuthScreen

    app = hostile_app(tmp_path, "--auth-required")
    async with app.run_test(size=SIZE) as pilot:
        # The first message makes the session, which needs a sign-in first: the message
        # waits (shown in the queue) and goes out once signed in.
        await send(pilot, "signed in")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the auth picker")
        text = screen_text(app)
        assert "Hostile login" in text and "API key" in text
        await armed_dialog(pilot)
        await pilot.press("1")  # the first method (alone, once armed: nothing is pre-selected)
        await wait_for(pilot, lambda: not isinstance(app.screen, AuthScreen), "the picker gone")
        screen = chat(app)
        await wait_for(
            pilot,
            lambda: (
                screen.session_id == hostile.SESSION_ID
                and last_reply(screen) == "You said: signed in"
            ),
            "the queued message answered",
        )
        await turn(pilot, "again", "You said: again")


async def test_declining_auth_says_why_and_the_app_stays(tmp_path: Path) -> None:
    from acp_tui.ui.screens.auth import AuthScreen

    app = hostile_app(tmp_path, "--auth-required")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the auth picker")
        await pilot.press("escape")
        screen = chat(app)
        await wait_for(
            pilot,
            lambda: any("authentication" in str(n.message) for n in app._notifications),
            "an explanation",
        )
        assert screen.session_id is None and screen.agent_alive and app.is_running
        # Nothing is lost: the message still waits, shown, for a session.
        assert [q.text for q in screen.prompts.items(None)] == ["hello"]
        assert len(screen.query("QueuedItem")) == 1


@pytest.mark.parametrize(
    ("flag", "reason"),
    [
        ("--at-start=crash", f"exit code {hostile.START_EXIT_CODE}"),
        ("--at-start=not-acp", "not"),
        ("--at-start=bad-version", "99"),
    ],
)
async def test_an_agent_that_fails_before_or_at_initialize_is_a_start_failure(
    tmp_path: Path, flag: str, reason: str
) -> None:
    app = hostile_app(tmp_path, flag)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        # The banner fills in as the exit status and the agent's last stderr lines come in.
        last_line = hostile.STDERR_AT_START[-1] if flag == "--at-start=crash" else ""
        await wait_for(
            pilot,
            lambda: reason in banner_text(screen) and last_line in banner_text(screen),
            f"the reason {reason!r} in the banner",
        )
        text = banner_text(screen)
        assert "hostile_agent.py" in text and flag in text, f"no command line in: {text!r}"
        assert reason in text, f"no reason in: {text!r}"
        if flag == "--at-start=crash":
            assert hostile.STDERR_AT_START[-1] in text
        assert not screen.agent_alive and app.is_running
        assert app.start_failure, "acp-tui would exit 0 after an agent that never started"
        assert "hostile_agent.py" in app.start_failure


async def test_quitting_while_initialize_hangs_is_bounded_and_kills_the_agent(
    tmp_path: Path,
) -> None:
    app = hostile_app(tmp_path, "--at-start=hang-initialize", "--ignore-term")
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        await wait_for(
            pilot,
            lambda: screen.controller is not None and screen.controller.process is not None,
            "the agent process",
        )
        agent = screen.controller.process  # type: ignore[union-attr]
        assert agent is not None
        pid = agent.pid
        await wait_for(
            pilot, lambda: "initializing" in str(screen.query_one("#status").render()), "status"
        )
        editor = screen.query_one("#prompt")
        editor.focus()
        await pilot.press("h", "i")
        assert editor.draft == "hi"  # type: ignore[attr-defined]
    assert_killed_on_quit(agent, pid)


# ---------------------------------------------------------------------- issue 17: no key approves by accident


@pytest.fixture
def slow_arming(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dialogs do not arm by themselves (the test arms each with :func:`arm_now`): what these
    tests type "at once" must stay at once on a machine busy enough to take more than the
    arming delay between two keys."""
    from acp_tui.ui.screens.permission import PermissionScreen

    monkeypatch.setattr(PermissionScreen, "ARM_DELAY", 3600.0)


def permission_dialog(app: AcpTuiApp) -> Any:
    from acp_tui.ui.screens.permission import PermissionScreen

    screen = app.screen
    return screen if isinstance(screen, PermissionScreen) else None


def draft(screen: ChatScreen) -> str:
    return screen.query_one("#prompt").draft  # type: ignore[attr-defined, no-any-return]


async def test_a_message_typed_while_a_dialog_opens_approves_nothing_and_lands_in_the_prompt(
    tmp_path: Path, slow_arming: None
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-storm 2")
        await wait_for(pilot, lambda: permission_dialog(app) is not None, "the first dialog")
        first = permission_dialog(app)
        await wait_for(
            pilot,
            lambda: first.query_one("#dialog").border_subtitle == "1 of 2",
            "the dialog to say another request waits",
        )
        # The person keeps typing a message with a "1" and a space in it.
        await pilot.press(*"rm 1 filex", "backspace", "s")
        assert not first.answered and screen.broker.queue_length == 2
        assert permission_dialog(app) is first
        assert draft(screen) == "rm 1 files"
        # Once armed, the answer is deliberate; the second dialog starts over.
        await arm_now(pilot, first)
        await pilot.press("1")
        await wait_for(
            pilot,
            lambda: permission_dialog(app) not in (None, first),
            "the second dialog",
        )
        second = permission_dialog(app)
        assert not second.armed
        await pilot.press("2")  # straight away: typing, not "Always allow"
        await pilot.pause()
        assert not second.answered and draft(screen) == "rm 1 files2"
        await arm_now(pilot, second)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "answers:" in last_reply(screen), "the agent's summary")
        assert last_reply(screen) == "answers: yes,no"
        assert draft(screen) == "rm 1 files2"


async def test_two_presses_of_1_120_ms_apart_approve_one_request(
    tmp_path: Path, slow_arming: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key stands alone after 50 ms here (presses 120 ms apart within the real burst window
    # are typing: tests/ui/test_dialog_bursts.py).
    from acp_tui.ui.screens.permission import PermissionScreen

    monkeypatch.setattr(PermissionScreen, "BURST_WINDOW", 0.05)
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-storm 2")
        await wait_for(pilot, lambda: permission_dialog(app) is not None, "the first dialog")
        await arm_now(pilot, permission_dialog(app))
        await pilot.press("1")
        await pilot.pause(0.12)
        await pilot.press("1")
        await pilot.pause()
        second = permission_dialog(app)
        assert second is not None and not second.answered
        assert second.title_text == "Storm 1"
        assert draft(screen) == "1"  # the second press is kept, in the prompt
        await arm_now(pilot, second)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "answers:" in last_reply(screen), "the agent's summary")
        assert last_reply(screen) == "answers: yes,no"


async def test_a_flood_of_permission_requests_loses_no_key_typed_between_dialogs(
    tmp_path: Path,
) -> None:
    count = 6
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, f"permission-storm {count}")
        for n in range(count):
            await wait_for(
                pilot,
                lambda: (
                    permission_dialog(app) is not None
                    and not permission_dialog(app).answered
                    and permission_dialog(app).armed
                ),
                f"dialog {n + 1}, armed",
            )
            # Answer (alone), then type the moment it is taken: the key lands while one
            # dialog goes and the next comes, and must end up in the prompt. ("1" and a
            # letter typed together would be typing: tests/ui/test_dialog_bursts.py.)
            dialog = permission_dialog(app)
            await pilot.press("1")
            await wait_for(pilot, lambda d=dialog: d.answered, f"dialog {n + 1} answered")  # type: ignore[misc]
            await pilot.press("abcdef"[n])
        await wait_for(pilot, lambda: "answers:" in last_reply(screen), "the agent's summary")
        assert last_reply(screen) == "answers: " + ",".join(["yes"] * count)
        assert draft(screen) == "abcdef"[:count]


# ---------------------------------------------------------------------- issue 17: smaller ones


async def test_invisible_and_bidi_characters_never_reach_a_title(tmp_path: Path) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await turn(pilot, "invisible", "Invisible title set.")
        await wait_for(pilot, lambda: "paypal" in header_title(screen), "the title")
        assert header_title(screen) == hostile.INVISIBLE_TITLE_SHOWN
        await wait_for(pilot, lambda: len(screen.query(ToolCallView)) == 1, "the tool call")
        tool_header = str(screen.query_one(ToolCallView).query_one(".header").render())
        assert hostile.INVISIBLE_TITLE_SHOWN in tool_header
        await settle(pilot)
        text = screen_text(app)
        assert "paypal login txt.exe" in text  # the header, the sidebar row, the tool call
        for invisible in ("\u200b", "\u202e", "\u2066", "\u200e", "\ufeff", "\u00ad", "\u2028"):
            assert invisible not in text, repr(invisible)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_huge_stderr_lines_never_hide_how_to_recover(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = hostile_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "crash-long-stderr")
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        # The banner fills in as the exit status and the stderr lines come in.
        await wait_for(pilot, lambda: "9:EEEE" in screen_text(app), "the last stderr line")
        await settle(pilot)
        text = screen_text(app)
        assert f"exit code {hostile.LONG_STDERR_EXIT_CODE}" in text
        assert "Ctrl+R" in text, "the way to restart is off screen"
        # Each stderr line is cut to a row, and the block stays bounded.
        assert banner.region.height <= 14
        assert "9:EEEE" in text  # the last line is there too
        rows_with_stderr = [row for row in text.split("\n") if ":EEEE" in row]
        assert 1 <= len(rows_with_stderr) <= 8
        assert all(row.rstrip().endswith("…") for row in rows_with_stderr)


async def test_a_crash_banner_has_the_last_stderr_lines_however_late_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stderr is read apart from stdout, and a busy machine reads it late (a CI run showed
    the banner without the agent's last lines, and the banner is not redrawn as more are
    read). The exit is reported once what the agent wrote to stderr has been read: here each
    read of stderr comes 0.2 s late, so the last lines are still in the pipe when the agent
    exits, and the banner, when it shows, has the last one."""
    read_lines = AgentProcess._read_stderr_lines

    async def slow(self: AgentProcess) -> None:
        stream = self._process.stderr if self._process else None
        if stream is not None:
            receive = stream.receive

            async def late_receive(max_bytes: int = 65536) -> bytes:
                await anyio.sleep(0.2)
                return await receive(max_bytes)

            monkeypatch.setattr(stream, "receive", late_receive)
        await read_lines(self)

    monkeypatch.setattr(AgentProcess, "_read_stderr_lines", slow)
    app = hostile_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "crash-long-stderr")
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner")
        assert "9:EEEE" in str(banner.render())


async def test_quitting_mid_turn_says_so_and_cancels_the_turn_before_closing_the_agents_input(
    tmp_path: Path,
) -> None:
    """Codex streamed on after Ctrl+Q, and the screen said "working… 1 s" for the 2-3 s the
    quit took: acp-tui only gave up its prompt request ($/cancel_request), and Textual paints
    nothing once the app exits. The status line now says it is quitting before the exit, and
    the spec's session/cancel goes out for a running turn first."""
    app = hostile_app(tmp_path, "--ignore-term")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        session_id = screen.session_id
        client = screen.controller.client  # type: ignore[union-attr]
        assert client is not None
        await send(pilot, "hang")
        await wait_for(
            pilot, lambda: screen.busy and "forever" in last_reply(screen), "the hanging turn"
        )
        on_screen_at_exit: list[str] = []
        exit_app = app.exit

        def exit_seen(*args: Any, **kwargs: Any) -> None:
            on_screen_at_exit.append(screen_text(app))
            exit_app(*args, **kwargs)

        app.exit = exit_seen  # type: ignore[method-assign]
        await pilot.press("ctrl+q")
    assert on_screen_at_exit and QUITTING_STATUS in on_screen_at_exit[0]
    sent = [json.loads(r.text) for r in client.connection.traffic if r.direction == "out"]
    methods = [message.get("method") for message in sent]
    assert "session/cancel" in methods
    cancel = sent[methods.index("session/cancel")]
    assert cancel["params"] == {"sessionId": session_id}
    # Before the prompt request was given up on (which closing the connection does).
    if "$/cancel_request" in methods:
        assert methods.index("session/cancel") < methods.index("$/cancel_request")
