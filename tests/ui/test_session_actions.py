"""Branch, rename and archive in the real app: the palette and the sidebar's keys, against the
demo agent (which does all three) and an agent that does none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.store.entries import AgentMessage, UserMessage
from acp_tui.ui.screens.chat import ChatHeader, ChatScreen
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from tests.ui.chat_helpers import (
    chat,
    demo_app,
    fixture_app,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)
from tests.ui.test_sidebar_chat import list_text

pytestmark = pytest.mark.anyio


def sidebar_of(screen: ChatScreen) -> SessionsSidebar:
    return screen.query_one(SessionsSidebar)


async def highlight(pilot: Pilot[None], sidebar: SessionsSidebar, session_id: str) -> None:
    lst = sidebar.session_list
    await wait_for(pilot, lambda: any(s.id == session_id for s in sidebar.rows), "the row")
    lst.focus()
    lst.move_cursor(next(i for i, s in enumerate(sidebar.rows) if s.id == session_id))
    await pilot.pause()
    assert sidebar.highlighted_session_id() == session_id


async def first_turn(pilot: Pilot[None], text: str) -> str:
    screen = await wait_for_session(pilot)
    session_id = screen.session_id
    assert session_id is not None
    await send(pilot, text)
    await wait_for(
        pilot,
        lambda: (
            not screen.controller.is_busy(session_id) and screen.store.get(session_id).turn == 1
        ),
        "the turn",
    )  # type: ignore[union-attr]
    await settle(pilot, answered=True)
    return session_id


async def rename_to(pilot: Pilot[None], title: str) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RenameScreen), "the rename box")
    # The current title is selected: what is typed replaces it.
    await pilot.press(*("space" if c == " " else c for c in title), "enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChatScreen), "the chat screen")


async def test_branch_from_the_palette_opens_the_branch_with_the_conversation(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        source = await first_turn(pilot, "plan the trip")
        screen = chat(app)
        await run_palette_command(pilot, "Branch this conversation")
        await wait_for(pilot, lambda: screen.session_id not in (None, source), "the branch")
        branch = screen.session_id
        await settle(pilot, answered=True)
        assert str(screen.query_one(ChatHeader).query_one("#title").render()) == (
            "plan the trip (branch)"
        )
        state = screen.store.get(branch or "")
        assert state is not None
        assert [e.text for e in state.transcript if isinstance(e, UserMessage)] == ["plan the trip"]
        assert "plan the trip (branch)" in list_text(sidebar_of(screen))
        # The agent has the conversation: the next message is the branch's second turn.
        await send(pilot, "and back")
        await wait_for(
            pilot,
            lambda: any(
                "This is turn 2 of this session" in e.text
                for e in state.transcript
                if isinstance(e, AgentMessage)
            ),
            "the agent's second turn",
        )


async def test_branch_is_offered_only_where_the_agent_forks(tmp_path: Path) -> None:
    from textual.command import CommandPalette

    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await first_turn(pilot, "hello")
        screen = chat(app)
        titles = [c.title for c in screen.palette_commands()]
        assert "Rename session" in titles and "Branch this conversation" not in titles
        sidebar = sidebar_of(screen)
        assert sidebar.check_action("branch", ()) is False
        assert sidebar.check_action("archive", ()) is False
        assert not isinstance(app.screen, CommandPalette)
        # Keys the list does not use here are typing: they go to the filter.
        sidebar.session_list.focus()
        await pilot.press("b", "x")
        await wait_for(pilot, lambda: sidebar.filter_text == "bx", "the filter")


async def test_a_local_rename_from_the_sidebar_survives_a_restart(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        session_id = await first_turn(pilot, "hello there")
        screen = chat(app)
        sidebar = sidebar_of(screen)
        await highlight(pilot, sidebar, session_id)
        await pilot.press("e")
        await rename_to(pilot, "Greetings")
        await wait_for(pilot, lambda: "Greetings" in list_text(sidebar), "the new title")
        assert str(screen.query_one(ChatHeader).query_one("#title").render()) == "Greetings"
        # The agent's titles do not replace it.
        screen.store.apply(
            {
                "sessionId": session_id,
                "update": {"sessionUpdate": "session_info_update", "title": "Agent's"},
            }
        )
        await settle(pilot)
        assert "Greetings" in list_text(sidebar) and "Agent's" not in list_text(sidebar)
    again = fixture_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = sidebar_of(screen)
        await wait_for(pilot, lambda: "Greetings" in list_text(sidebar), "the title kept")


async def test_renaming_an_untitled_session_starts_from_what_its_row_shows(
    tmp_path: Path,
) -> None:
    """An untitled session's row shows its first prompt; the rename box opened empty."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        session_id = await first_turn(pilot, "hello there\nand more")
        screen = chat(app)
        assert screen.store.get(session_id).title is None
        screen.session_actions.rename()
        await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen), "the rename box")
        assert app.screen.query_one(Input).value == "hello there"


async def test_archive_from_the_sidebar_and_show_the_archived(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        first = await first_turn(pilot, "first one")
        screen = chat(app)
        screen.action_new_session()
        await wait_for(pilot, lambda: screen.session_id not in (None, first), "a second session")
        second = screen.session_id
        await send(pilot, "second one")
        await wait_for(pilot, lambda: "second one" in list_text(sidebar_of(screen)), "its row")
        sidebar = sidebar_of(screen)
        await highlight(pilot, sidebar, first)
        await pilot.press("x")
        await wait_for(pilot, lambda: "first one" not in list_text(sidebar), "the row to go")
        assert screen.session_id == second  # archiving another session leaves this one
        await pilot.press("X")
        await wait_for(
            pilot,
            lambda: (
                "Archived" in str(sidebar.query_one("#sidebar-header").render())
                and "first one" in list_text(sidebar)
                and "second one" not in list_text(sidebar)
            ),
            "the archived sessions",
        )
        assert sidebar.model.archived  # here the same key brings a session back
        await highlight(pilot, sidebar, first)
        await pilot.press("x")  # back from the archive
        await wait_for(pilot, lambda: "no archived sessions" in list_text(sidebar), "none left")
        await pilot.press("X")
        await wait_for(
            pilot,
            lambda: "first one" in list_text(sidebar) and "second one" in list_text(sidebar),
            "both back",
        )
        # Archiving the session on screen goes on to the next one in the list (issue 38): an
        # empty "New session" left the person nowhere. The focus stays in the list.
        await highlight(pilot, sidebar, second)
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.session_id == first, "the next session")
        assert sidebar.session_list.has_focus
    # A new run: the archived session stays archived (the local index, which remembers the
    # sessions opened here, does not bring it back); the other one is there.
    again = demo_app(tmp_path, tmp_path / "state")
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = sidebar_of(screen)
        await wait_for(pilot, lambda: "first one" in list_text(sidebar), "the first session")
        await settle(pilot, answered=True)
        assert "second one" not in list_text(sidebar)
        sidebar.session_list.focus()
        await pilot.press("X")
        await wait_for(
            pilot,
            lambda: "second one" in list_text(sidebar) and "first one" not in list_text(sidebar),
            "the archived one",
        )
