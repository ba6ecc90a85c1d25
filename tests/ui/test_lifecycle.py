"""A session's life through the real chat screen, against real agent processes: nothing sent is
lost while the agent starts, works, or is down; a queued message being edited waits for the
edit; sessions are made on demand and never listed unused; ``--continue`` skips what the agent
no longer has; an agent that does not answer (or is no agent at all) is said to be so; tool
call records and terminal endings read as words (issue 15, items 2, 3, 6, 7, 8, 9 and 10)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.store.entries import AgentMessage, Notice
from acp_tui.store.local_index import LocalIndex
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import AgentBanner, ChatScreen
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import CONNECTING_TEXT, NO_LIST_HINT, SessionsSidebar
from tests.ui.chat_helpers import (
    agent_app,
    chat,
    demo_app,
    fixture_app,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

AGENTS = Path(__file__).resolve().parents[1] / "agents"
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]
HOSTILE_AGENT = [sys.executable, str(AGENTS / "hostile_agent.py")]
SIZE = (120, 40)


#: An agent slow to start, as claude-agent-acp is (its session/new takes some 5 s).
def held_start(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """An agent slow to start, as claude-agent-acp is (its session/new takes some 5 s): the SDK
    agent answers initialize and session/new only once the test opens each gate (a file), so
    the slow start lasts as long as the test needs, on any machine."""
    init_gate, new_gate = tmp_path / "init-gate", tmp_path / "new-gate"
    env = {"SDK_AGENT_INIT_GATE": str(init_gate), "SDK_AGENT_NEW_GATE": str(new_gate)}
    return env, init_gate, new_gate


def status(screen: ChatScreen) -> str:
    return str(screen.query_one("#status").render())


def queue_text(screen: ChatScreen) -> str:
    return " | ".join(str(item.query_one("Static").render()) for item in screen.query("QueuedItem"))


def editor(screen: ChatScreen) -> PromptEditor:
    return screen.query_one(PromptEditor)


def last_reply(screen: ChatScreen) -> str:
    state = screen.store.get(screen.session_id) if screen.session_id else None
    replies = [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []
    return replies[-1] if replies else ""


def sent(screen: ChatScreen, method: str) -> list[dict[str, Any]]:
    """The params of every request of ``method`` the client sent on this connection."""
    assert screen.controller is not None and screen.controller.client is not None
    out = []
    for record in list(screen.controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if message.get("method") == method and "id" in message:
                out.append(message.get("params") or {})
    return out


def prompts_sent(screen: ChatScreen) -> list[str]:
    return [
        "".join(b.get("text", "") for b in params["prompt"])
        for params in sent(screen, "session/prompt")
    ]


def banner_text(screen: ChatScreen) -> str:
    return str(screen.query_one(AgentBanner).render())


def notifications(app: AcpTuiApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


# -- item 2: nothing sent is lost while the agent starts --------------------------------------


async def test_a_message_sent_while_the_agent_starts_is_queued_shown_then_sent(
    tmp_path: Path,
) -> None:
    env, init_gate, new_gate = held_start(tmp_path)
    app = agent_app(SDK_AGENT, tmp_path, env=env)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        await wait_for(pilot, lambda: "initializing" in status(screen), "initializing")
        await send(pilot, "hello early")
        await wait_for(pilot, lambda: "hello early" in queue_text(screen), "the queued message")
        assert not screen.agent_alive  # still initializing: it waits, shown
        # Typed, not sent: it stays in the prompt when the session opens.
        await pilot.press(*"still typing")
        init_gate.touch()
        await wait_for(pilot, lambda: "starting a new session" in status(screen), "session/new")
        assert "hello early" in queue_text(screen)
        new_gate.touch()
        await wait_for(
            pilot,
            lambda: last_reply(screen) == "You said: hello early" and not screen.busy,
            "the queued message answered",
            limit=20,
        )
        assert editor(screen).draft == "still typing"
        assert len(screen.query("QueuedItem")) == 0
        assert prompts_sent(screen) == ["hello early"]
        assert not any("not running" in n for n in notifications(app))


async def test_what_is_typed_before_the_session_exists_is_kept_when_it_opens(
    tmp_path: Path,
) -> None:
    """Ctrl+N while the agent makes the session: the draft typed meanwhile stays."""
    env, init_gate, new_gate = held_start(tmp_path)
    init_gate.touch()
    app = agent_app(SDK_AGENT, tmp_path, env=env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "starting a new session" in status(screen), "session/new")
        await pilot.press(*"my draft")
        await wait_for(pilot, lambda: editor(screen).draft == "my draft", "the draft typed")
        new_gate.touch()
        await wait_for(pilot, lambda: screen.session_id is not None, "the session", limit=15)
        await pilot.pause(0.2)
        assert editor(screen).draft == "my draft"


# -- item 3: editing a queued message ----------------------------------------------------------


async def start_hanging_turn_with_a_queued_message(pilot: Any, text: str) -> ChatScreen:
    screen = await wait_for_session(pilot)
    await send(pilot, "hang")
    await wait_for(pilot, lambda: screen.busy, "the turn to run")
    await send(pilot, text)
    await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 1, "the queued message")
    return screen


def end_the_turn(screen: ChatScreen) -> None:
    """The turn ends on the agent's side (this agent answers a cancel with ``cancelled``)."""
    controller, session_id = screen.controller, screen.session_id
    assert controller is not None and session_id is not None
    controller.spawn(lambda: controller.cancel(session_id), "cancel")


async def test_a_queued_message_being_edited_waits_when_the_turn_ends_then_goes_as_edited(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_hanging_turn_with_a_queued_message(pilot, "original")
        await pilot.click("QueuedItem .edit")
        await wait_for(pilot, lambda: editor(screen).draft == "original", "the text to edit")
        assert "editing" in queue_text(screen)
        end_the_turn(screen)
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await pilot.pause(0.3)
        # Held back: the old text was not sent, the edit goes on.
        assert prompts_sent(screen) == ["hang"]
        assert "editing" in queue_text(screen) and "original" in queue_text(screen)
        editor(screen).set_draft("edited")
        editor(screen).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: last_reply(screen) == "You said: edited", "the edit sent")
        assert prompts_sent(screen) == ["hang", "edited"]
        assert len(screen.query("QueuedItem")) == 0 and editor(screen).draft == ""


async def test_enter_on_an_edit_while_the_turn_runs_saves_it_back_to_the_queue(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_hanging_turn_with_a_queued_message(pilot, "original")
        await pilot.click("QueuedItem .edit")
        await wait_for(pilot, lambda: editor(screen).draft == "original", "the text to edit")
        editor(screen).set_draft("better")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "⏳ better" in queue_text(screen), "the edit saved")
        assert editor(screen).draft == ""
        end_the_turn(screen)
        await wait_for(pilot, lambda: last_reply(screen) == "You said: better", "the edit sent")
        assert prompts_sent(screen) == ["hang", "better"]


async def test_escape_while_editing_keeps_the_message_as_it_was(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_hanging_turn_with_a_queued_message(pilot, "as it was")
        await pilot.click("QueuedItem .edit")
        await wait_for(pilot, lambda: editor(screen).draft == "as it was", "the text to edit")
        editor(screen).set_draft("half-edited")
        await pilot.press("escape")  # leaves the edit; the turn still runs
        assert screen.busy and editor(screen).draft == ""
        await wait_for(pilot, lambda: "⏳ as it was" in queue_text(screen), "the item as it was")
        await pilot.press("escape")  # now Escape cancels the turn; the message goes out
        await wait_for(pilot, lambda: last_reply(screen) == "You said: as it was", "sent")


async def test_removing_the_message_being_edited_clears_the_prompt(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_hanging_turn_with_a_queued_message(pilot, "drop me")
        await pilot.click("QueuedItem .edit")
        await wait_for(pilot, lambda: editor(screen).draft == "drop me", "the text to edit")
        await pilot.click("QueuedItem .remove")
        await wait_for(pilot, lambda: len(screen.query("QueuedItem")) == 0, "the item gone")
        assert editor(screen).draft == ""
        end_the_turn(screen)
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await pilot.pause(0.3)
        assert prompts_sent(screen) == ["hang"]


# -- item 6: sessions on demand, never listed unused -------------------------------------------


def methods_sent(controller: Any) -> list[tuple[str, str | None]]:
    """(method, sessionId) of every request the client sent on ``controller``'s connection."""
    out = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if "method" in message and "id" in message:
                out.append((message["method"], (message.get("params") or {}).get("sessionId")))
    return out


async def test_a_launch_that_sends_nothing_leaves_and_remembers_no_session(tmp_path: Path) -> None:
    """The demo agent can close and delete a session: the new session opens as the app starts
    (shown as the new session, not as a row) and is closed and deleted as the app ends."""
    state_dir = tmp_path / "demo-state"
    for _ in range(2):
        app = demo_app(tmp_path, state_dir)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_for_ready(pilot)
            listed = screen.query_one(SessionsSidebar)
            await wait_for(pilot, lambda: not listed.loading, "the sessions listed")  # noqa: B023
            await wait_for(pilot, lambda: screen.session_id is not None, "the early session")  # noqa: B023
            controller = screen.controller
            early = screen.session_id
            await settle(pilot)
            assert listed.rows == []
            assert "New session" in str(screen.query_one("#title").render())
        assert controller is not None
        calls = methods_sent(controller)
        made = ("session/new", "session/prompt", "session/close", "session/delete")
        assert [c for c in calls if c[0] in made] == [
            ("session/new", None),
            ("session/close", early),
            ("session/delete", early),
        ]
    assert app.settings.agent is not None
    key = app.settings.agent.key
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        assert index.sessions() == []
    # The first message goes to the session opened early; from then on it is listed and
    # remembered, and kept as the app ends.
    app = demo_app(tmp_path, state_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(pilot, lambda: screen.session_id is not None, "the early session")
        controller = screen.controller
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "hello" in last_reply(screen) and not screen.busy, "reply")
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: [s.id for s in sidebar.rows] == [screen.session_id], "row")
    assert controller is not None
    calls = [method for method, _ in methods_sent(controller)]
    assert calls.count("session/new") == 1 and "session/close" not in calls
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        assert [s.first_prompt for s in index.sessions()] == ["hello"]


async def test_an_agent_that_can_neither_close_nor_delete_gets_no_session_until_a_message(
    tmp_path: Path,
) -> None:
    """The official SDK's agent lists every session it makes and cannot close or delete one:
    a launch that sends nothing asks it for none."""
    env = {"SDK_AGENT_STATE_DIR": str(tmp_path)}
    app = agent_app(SDK_AGENT, tmp_path, env=env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        listed = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: not listed.loading, "the sessions listed")
        await settle(pilot, answered=True)
        assert sent(screen, "session/new") == [] and screen.session_id is None
        assert "New session" in str(screen.query_one("#title").render())
    path = tmp_path / "sdk_agent_sessions.json"  # written as a session is made
    stored = json.loads(path.read_text()) if path.exists() else {}
    assert all(session["history"] for session in stored.values())


async def test_ctrl_n_on_an_unused_new_session_makes_no_other(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        first = screen.session_id
        await pilot.press("ctrl+n")
        await pilot.pause(0.3)
        assert screen.session_id == first and len(sent(screen, "session/new")) == 1
        assert any("new session already" in n for n in notifications(app))


async def test_ctrl_n_from_a_past_session_goes_back_to_the_session_opened_early(
    tmp_path: Path,
) -> None:
    state_dir = tmp_path / "demo-state"
    app = demo_app(tmp_path, state_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "the past one")
        await wait_for(pilot, lambda: "the past one" in last_reply(screen), "the reply")
        past = screen.session_id
    assert past is not None
    app = demo_app(tmp_path, state_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(pilot, lambda: screen.session_id is not None, "the early session")
        early = screen.session_id
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: [s.id for s in sidebar.rows] == [past], "the past row")
        screen.open_session(past)
        await wait_for(pilot, lambda: screen.session_id == past, "the past session")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen.session_id == early, "the early session again")
        await settle(pilot, answered=True)
        assert "New session" in str(screen.query_one("#title").render())
        assert len(sent(screen, "session/new")) == 1  # no other empty session
        assert [s.id for s in sidebar.rows] == [past]  # the unused one is no row


async def test_a_mode_chosen_before_the_session_exists_is_set_before_the_first_prompt(
    tmp_path: Path,
) -> None:
    # A first run learns what a new session of this agent offers.
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: len(editor(screen).commands) == 2, "the commands")
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        mode = screen.query_one("#mode-select")
        model = screen.query_one("#model-select")
        assert mode.display and mode.value == "code"  # type: ignore[attr-defined]
        assert model.display and model.value == "fast"  # type: ignore[attr-defined]
        assert {c["name"] for c in editor(screen).commands} == {"help", "title"}
        mode.value = "ask"  # type: ignore[attr-defined]
        model.value = "deep"  # type: ignore[attr-defined]
        await pilot.pause()
        assert screen.session_id is None and sent(screen, "session/new") == []
        await send(pilot, "hello")
        await wait_for(pilot, lambda: last_reply(screen) == "You said: hello", "the reply")
        methods = [
            json.loads(r.text).get("method")
            for r in screen.controller.client.connection.traffic  # type: ignore[union-attr]
            if r.direction == "out" and r.text and '"method"' in r.text
        ]
        assert methods[1:] == [
            "session/new",
            "session/set_mode",
            "session/set_config_option",
            "session/prompt",
        ]
        assert sent(screen, "session/set_mode")[0]["modeId"] == "ask"
        assert sent(screen, "session/set_config_option")[0]["value"] == "deep"


async def test_continue_skips_what_never_had_a_conversation_and_what_the_agent_lost(
    tmp_path: Path,
) -> None:
    state_dir = tmp_path / "demo-state"
    app = demo_app(tmp_path, state_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "the real one")
        await wait_for(pilot, lambda: "the real one" in last_reply(screen), "the reply")
        real = screen.session_id
    assert app.settings.agent is not None
    key = app.settings.agent.key
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        # What older versions left behind: a session never prompted, and one the agent lost.
        index.remember("demo-neverused", cwd=str(tmp_path))
        index.remember("demo-lost", cwd=str(tmp_path), first_prompt="a lost conversation")
    app = demo_app(tmp_path, state_dir, resume="", continue_latest=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(pilot, lambda: screen.session_id == real, "the real session", limit=15)
        await wait_for(pilot, lambda: "the real one" in last_reply(screen), "its history")
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: [s.id for s in sidebar.rows] == [real], "only real rows")
        assert sent(screen, "session/new") == []
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        assert [s.session_id for s in index.sessions()] == [real]


# -- item 7: a terminal's end in words ----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "ending"),
    [("true", "[exit 0]"), ("exit 3", "[exit 3]"), ("kill -TERM $$", "[killed by SIGTERM]")],
    ids=["exit-0", "exit-3", "sigterm"],
)
async def test_an_embedded_terminal_ends_in_words(
    tmp_path: Path, command: str, ending: str
) -> None:
    from acp_tui.ui.widgets.tool_call_view import ToolCallView

    app = demo_app(tmp_path, tmp_path / "state", permission_policy="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_ready(pilot)
        screen = chat(app)
        await send(pilot, f"/run {command}")
        await wait_for(pilot, lambda: not screen.busy and screen.session_id, "the turn")

        def terminal_texts() -> str:
            return "\n".join(
                str(view._terminal_text(item.get("terminalId")))
                for view in screen.query(ToolCallView)
                for item in view.entry.content or []  # type: ignore[attr-defined]
                if isinstance(item, dict) and item.get("type") == "terminal"
            )

        await wait_for(pilot, lambda: ending in terminal_texts(), f"{ending!r} shown")
        assert "ExitStatus" not in terminal_texts()


# -- item 8: an agent that does not answer, or is no agent -------------------------------------


def hostile_app(tmp_path: Path, argv: list[str], **overrides: Any) -> AcpTuiApp:
    return agent_app(argv, tmp_path, log_dir=tmp_path / ".logs", **overrides)


async def test_an_agent_that_never_answers_initialize_is_reported_and_can_be_restarted(
    tmp_path: Path,
) -> None:
    argv = [*HOSTILE_AGENT, "--at-start=hang-initialize"]
    app = hostile_app(tmp_path, argv, initialize_timeout=1.0)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await send(pilot, "are you there")
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner", limit=10)
        text = banner_text(screen)
        assert "not responding" in text and "1 s" in text
        assert "Ctrl+R" in text and "Ctrl+Q" in text
        assert "hostile_agent.py" in text
        first_pid = screen.controller.process.pid  # type: ignore[union-attr]
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.controller is not None
                and screen.controller.process is not None
                and screen.controller.process.pid != first_pid
            ),
            "a new agent process",
            limit=15,
        )
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner again", limit=10)
        # What was sent still waits.
        assert [q.text for q in screen.prompts.items(None)] == ["are you there"]


async def test_what_a_command_prints_instead_of_acp_is_quoted(tmp_path: Path) -> None:
    argv = [
        sys.executable,
        "-c",
        "import time; print('Welcome to my tool', flush=True); print('type help', flush=True);"
        " time.sleep(60)",
    ]
    app = hostile_app(tmp_path, argv, initialize_timeout=1.0)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner", limit=10)
        text = banner_text(screen)
        assert "not responding" in text and "which is not ACP" in text
        assert "Welcome to my tool" in text and "type help" in text


async def test_cat_is_said_to_be_no_acp_agent(tmp_path: Path) -> None:
    app = hostile_app(tmp_path, ["cat"])
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        banner = screen.query_one(AgentBanner)
        await wait_for(pilot, lambda: banner.has_class("-visible"), "the banner", limit=10)
        text = banner_text(screen)
        assert "this is not an ACP agent" in text
        assert "method not found" not in text
        assert "cat" in str(screen.query_one("#agent").render())  # not "starting…" forever
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: CONNECTING_TEXT not in list_text(sidebar), "no connecting")
        assert app.start_failure and "not an ACP agent" in app.start_failure


def list_text(sidebar: SessionsSidebar) -> str:
    lst = sidebar.session_list
    return "\n".join(lst.render_line(y).text for y in range(max(lst.size.height, 1)))


# -- item 9: the permission record names the tool call -----------------------------------------


async def test_a_permission_asked_by_tool_call_id_is_recorded_by_its_title(tmp_path: Path) -> None:
    app = fixture_app(tmp_path, permission_policy="yolo")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "permission-by-id")
        await wait_for(
            pilot, lambda: last_reply(screen) == "Permission answered: allow", "the answer"
        )
        state = screen.store.get(screen.session_id)  # type: ignore[arg-type]
        records = [e.title for e in state.transcript if isinstance(e, Notice)]
        assert len(records) == 1 and records[0].endswith(": Delete build/"), records
        assert "call-9" not in records[0]


# -- item 10: the sidebar while the agent starts ------------------------------------------------


async def test_the_sidebar_says_connecting_until_the_agent_answers(tmp_path: Path) -> None:
    env, init_gate, _ = held_start(tmp_path)
    app = agent_app(SDK_AGENT, tmp_path, env={**env, "SDK_AGENT_NO_LIST": "1"})
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: CONNECTING_TEXT in list_text(sidebar), "connecting…")
        assert not sidebar.has_class("-no-list")
        assert not screen.agent_alive
        init_gate.touch()
        await wait_for(pilot, lambda: screen.agent_alive, "the agent", limit=15)
        await wait_for(pilot, lambda: sidebar.has_class("-no-list"), "the no-list hint")
        assert CONNECTING_TEXT not in list_text(sidebar)
        assert NO_LIST_HINT in str(sidebar.query_one("#sidebar-hint").render())


# -- a session the agent lost, opened from the sidebar -----------------------------------------


async def test_a_remembered_session_the_agent_does_not_have_is_dropped_when_opened(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    assert app.settings.agent is not None
    key = app.settings.agent.key
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        index.remember("demo-lost", cwd=str(tmp_path), first_prompt="long ago")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = screen.query_one(SessionsSidebar)
        await wait_for(pilot, lambda: [s.id for s in sidebar.rows] == ["demo-lost"], "the row")
        screen.open_session("demo-lost")
        await wait_for(pilot, lambda: sidebar.rows == [], "the row to go", limit=15)
        assert any("not found" in n for n in notifications(app))
        # The view is the new session's (opened early: the demo agent can close it).
        shown = screen.store.get(screen.session_id) if screen.session_id else None
        assert (shown is None or shown.draft) and screen.agent_alive
    with LocalIndex(tmp_path / ".data" / "sessions.sqlite3", key) as index:
        assert index.sessions() == []


async def test_going_to_another_session_while_the_new_one_starts_loses_nothing(
    tmp_path: Path,
) -> None:
    """A message starts the new session; meanwhile the person opens a past one. The message
    goes to the new session, which is listed, and the screen stays where the person went."""
    env, init_gate, new_gate = held_start(tmp_path)
    init_gate.touch()
    app = agent_app(SDK_AGENT, tmp_path, env=env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "for the new one")
        await wait_for(pilot, lambda: "for the new one" in queue_text(screen), "queued")
        screen.open_session("pre-1")
        await wait_for(pilot, lambda: screen.session_id == "pre-1", "the past session")
        new_gate.touch()
        sidebar = screen.query_one(SessionsSidebar)

        def new_row() -> bool:
            return any(
                s.title == "for the new one" or s.first_prompt == "for the new one"
                for s in sidebar.rows
            )

        await wait_for(pilot, new_row, "the new session listed", limit=15)
        new_id = next(s.id for s in sidebar.rows if s.first_prompt == "for the new one")
        state = screen.store.get(new_id)
        await wait_for(
            pilot,
            lambda: any(
                isinstance(e, AgentMessage) and e.text == "You said: for the new one"
                for e in state.transcript
            ),
            "the answer in the new session",
        )
        assert screen.session_id == "pre-1"
        assert screen.prompts.items(None) == []


async def test_a_message_sent_the_moment_the_new_session_opens_goes_to_it(
    tmp_path: Path,
) -> None:
    """No window between the session opening and being drawn where a message would start yet
    another session."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        opened = screen.controller.events.on_session_opened  # type: ignore[union-attr]

        def opened_then_send(session_id: str) -> None:
            opened(session_id)
            screen.model.send("right away")  # before anything else runs

        screen.controller.events.on_session_opened = opened_then_send  # type: ignore[union-attr]
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: last_reply(screen) == "You said: right away", "the reply")
        assert len(sent(screen, "session/new")) == 1


async def test_a_session_the_agent_will_not_start_is_said_to_fail_and_the_messages_wait(
    tmp_path: Path,
) -> None:
    """session/new answered with an error (claude-agent-acp when its Claude Code process
    will not start): the status line says so and that the messages wait, for as long as
    nothing else is tried (a toast alone went, and the message sat "⏳" with no word why).
    Another message tries again; once the agent starts a session, both go out, in order."""
    works = tmp_path / "session-new-works"
    app = agent_app(SDK_AGENT, tmp_path, env={"SDK_AGENT_NEW_FAILS_UNLESS": str(works)})
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        await wait_for(pilot, lambda: screen.agent_alive, "the agent")
        await send(pilot, "hello")
        await wait_for(
            pilot, lambda: "did not start a session" in status(screen), "the failure said"
        )
        said = status(screen)
        assert "Claude Code process exited with code 1" in said
        assert "Your messages wait" in said
        assert "hello" in queue_text(screen)
        assert screen.session_id is None
        works.touch()
        await send(pilot, "second try")
        await wait_for(
            pilot,
            lambda: last_reply(screen) == "You said: second try" and not screen.busy,
            "both answered",
            limit=20,
        )
        assert prompts_sent(screen) == ["hello", "second try"]
        assert "did not start" not in status(screen)


async def test_a_session_reopened_at_start_is_not_shown_as_a_new_one_meanwhile(
    tmp_path: Path,
) -> None:
    """--continue: until the session is reopened the header says so, and the bar shows no
    new session's mode and model (kimi-cli's tester saw "New session" and controls that went
    once the session opened). Then the session's own title."""
    env, init_gate, _new_gate = held_start(tmp_path)
    app = agent_app(SDK_AGENT, tmp_path, env=env, resume="", continue_latest=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        title = screen.query_one("#title")
        await wait_for(pilot, lambda: "initializing" in status(screen), "initializing")
        assert str(title.render()) == "Reopening a session…"
        assert screen.query_one(ChatBar).controls == {}
        init_gate.touch()
        # The most recent, on the agent's second page (it lists two a page, oldest first).
        await wait_for(pilot, lambda: screen.session_id == "pre-3", "the session reopened")
        await wait_for(pilot, lambda: "Write docs" in str(title.render()), "its title")


async def test_nothing_to_reopen_at_start_shows_the_new_session(tmp_path: Path) -> None:
    env, init_gate, _new_gate = held_start(tmp_path)
    init_gate.touch()
    app = agent_app(
        SDK_AGENT, tmp_path, env={**env, "SDK_AGENT_NO_LIST": "1"}, resume="", continue_latest=True
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        await wait_for(pilot, lambda: screen.agent_alive, "the agent")
        title = screen.query_one("#title")
        await wait_for(pilot, lambda: str(title.render()) == "New session", "the new session")


@pytest.mark.parametrize(
    "overrides",
    [{"resume": "pre-2"}, {"resume": "", "continue_latest": True}],
    ids=["resume-id", "continue"],
)
async def test_a_message_sent_while_a_session_reopens_at_start_goes_to_that_session(
    tmp_path: Path, overrides: dict[str, Any]
) -> None:
    """OpenCode takes some 4 s to load a session: a message sent meanwhile started a new
    session of its own, hidden behind the reopened one and working there. It now waits for the
    session being reopened, shown in its queue, and goes there."""
    load_gate = tmp_path / "load-gate"
    env = {"SDK_AGENT_LOAD_GATE": str(load_gate)}
    app = agent_app(SDK_AGENT, tmp_path, env=env, **overrides)
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(app)
        await wait_for(
            pilot,
            lambda: screen.agent_alive and sent(screen, "session/load"),
            "the reopening under way",
        )
        await send(pilot, "sent while reopening")
        await wait_for(pilot, lambda: "sent while reopening" in queue_text(screen), "queued")
        await settle(pilot)  # the load is held: not every request can be answered
        assert sent(screen, "session/new") == []
        load_gate.touch()
        expected = sent(screen, "session/load")[0]["sessionId"]
        await wait_for(
            pilot,
            lambda: last_reply(screen) == "You said: sent while reopening" and not screen.busy,
            "the reply in the reopened session",
            limit=20,
        )
        assert screen.session_id == expected
        assert [p["sessionId"] for p in sent(screen, "session/prompt")] == [expected]
        assert sent(screen, "session/new") == []
