"""Subagents and background work in the real app, on the demo agent over real pipes: a card
per child in the parent's transcript (title, state, elapsed time, last line), live; a click or
Enter opens the child's own transcript, Escape comes back; a child is cancelled from its card
and from its view (``session/cancel`` on it, seen on the wire); its permission dialog names it
and its parent; the sidebar lists children under their parent, folded; the background-work
panel lists what runs, cancels each row with its own cancel, goes to it; the status line
counts it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from acp_tui.ui.screens.background import BackgroundScreen
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.session_list import SessionList
from acp_tui.ui.widgets.status_line import StatusLine
from acp_tui.ui.widgets.subagent_views import SessionMessageView, SubagentCardView
from tests.ui.chat_helpers import (
    answer_permission,
    demo_app,
    record_notifications,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def sent(screen: ChatScreen, method: str) -> list[Any]:
    controller = screen.controller
    assert controller is not None and controller.client is not None
    out = [
        json.loads(r.text)
        for r in list(controller.client.connection.traffic)
        if r.direction == "out" and r.text
    ]
    return [m.get("params") for m in out if m.get("method") == method]


def cards(screen: ChatScreen) -> list[SubagentCardView]:
    return list(screen.widgets.transcript.query(SubagentCardView))


def header_of(view: SubagentCardView) -> str:
    return str(view.query_one(".header", Static).render())


def children(screen: ChatScreen, parent: str) -> list[str]:
    state = screen.store.get(parent)
    assert state is not None
    return list(state.children)


async def subagents_done(pilot: Any, screen: ChatScreen) -> str:
    """``/subagents`` run to its end (the permission allowed): the parent's id."""
    await send(pilot, "/subagents")
    await answer_permission(pilot, "1")
    parent = screen.session_id
    assert parent is not None
    await wait_for(
        pilot,
        lambda: (
            len(cards(screen)) == 2
            and all(c.card.status == "idle" for c in cards(screen))
            and not screen.busy
        ),
        "both subagents done",
    )
    await settle(pilot)
    return parent


async def click_card(pilot: Any, view: SubagentCardView, opened: Callable[[], bool]) -> None:
    """Click the card's first cell (a toast, bottom right, may cover its middle) and wait for
    ``opened``. A click that missed because the card moved between the press and the click
    (a row drawn under the transcript after a turn, on a loaded machine) is tried again; one
    that landed on the card must open it."""
    for _ in range(3):
        view.scroll_visible(animate=False, immediate=True)
        await settle(pilot)
        x, y = view.region.x + 1, view.region.y
        await pilot.click(offset=(x, y))
        await settle(pilot)
        if opened():
            return
        hit, _ = pilot.app.get_widget_at(x, y)
        if hit is view or view in hit.ancestors:
            break  # it is there, and was clicked: it must open
    await wait_for(pilot, opened, "the child's view")


async def test_a_card_per_child_opens_its_own_view_and_comes_back(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        parent = await subagents_done(pilot, screen)
        research, tests = cards(screen)
        assert "Research the code" in header_of(research) and "✓ done" in header_of(tests)
        assert "src/parser.py" in str(research.query_one(".last", Static).render())
        # A click opens the child's own transcript: its task from the parent, its work.
        child = research.card.child_id
        await click_card(pilot, research, lambda: screen.session_id == child)
        await settle(pilot)
        views = list(screen.widgets.transcript.query(SessionMessageView))
        assert views and "from /subagents" in str(views[0].query_one(".who", Static).render())
        title = str(screen.widgets.header.query_one("#title", Static).render())
        assert "subagent of /subagents" in title
        # A message typed there is refused and kept.
        said = record_notifications(app)
        await send(pilot, "hello child")
        await wait_for(
            pilot, lambda: any("takes its work from its parent" in s for s in said), "told"
        )
        assert screen.widgets.prompt.draft == "hello child"
        assert all(p["sessionId"] != child for p in sent(screen, "session/prompt"))
        screen.widgets.prompt.set_draft("")
        # Escape goes back to the parent.
        screen.set_focus(screen.widgets.transcript)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.session_id == parent, "back to the parent")
        # Enter on a focused card opens it too.
        await settle(pilot)
        card = cards(screen)[1]
        card.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.session_id == tests.card.child_id, "the second child")


async def test_a_childs_permission_names_it_and_its_parent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/subagents")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), "the question")
        origin = str(app.screen.query_one("#origin", Static).render())
        assert "Subagent: Check the tests" in origin and "of: /subagents" in origin
        await answer_permission(pilot, "1")
        await wait_for(pilot, lambda: not screen.busy, "the turn")


async def background_child(pilot: Any, screen: ChatScreen) -> SubagentCardView:
    """``/background``'s subagent, at work (on v1: with the watcher, no terminal)."""
    await send(pilot, "/background 120")
    await wait_for(
        pilot,
        lambda: any(c.card.status == "running" for c in cards(screen)) and not screen.busy,
        "the background subagent",
    )
    await settle(pilot)
    return next(c for c in cards(screen) if c.card.status == "running")


async def test_a_child_is_cancelled_from_its_card(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        card = await background_child(pilot, screen)
        child = card.card.child_id
        assert "● working" in header_of(card)
        card.focus()
        await pilot.press("delete")
        await wait_for(pilot, lambda: sent(screen, "session/cancel") != [], "session/cancel")
        await wait_for(pilot, lambda: "✗ cancelled" in header_of(card), "the card says so")
        assert sent(screen, "session/cancel") == [{"sessionId": child}]


async def test_a_child_is_cancelled_from_its_view(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        card = await background_child(pilot, screen)
        child = card.card.child_id
        await run_palette_command(pilot, "Open subagent: Keep an eye on CI")
        await wait_for(pilot, lambda: screen.session_id == child, "the child's view")
        await settle(pilot)
        assert "Delete to cancel it" in str(screen.query_one("#status", Static).render())
        await pilot.press("delete")
        await wait_for(pilot, lambda: sent(screen, "session/cancel") != [], "session/cancel")
        assert sent(screen, "session/cancel") == [{"sessionId": child}]
        state = screen.store.get(child)
        assert state is not None and state.card is not None
        await wait_for(pilot, lambda: state.card.stop_reason == "cancelled", "cancelled")  # type: ignore[union-attr]
        # Done: Delete is no longer offered (the footer, the palette), and does nothing.
        footer = screen.query_one(KeyFooter)
        await wait_for(
            pilot,
            lambda: "Cancel subagent" not in [e.description for e in footer.entries],
            "the footer without Delete",
        )
        assert "Back" in [e.description for e in footer.entries]
        await pilot.press("delete")
        await settle(pilot)
        assert sent(screen, "session/cancel") == [{"sessionId": child}]


async def test_the_sidebar_lists_children_under_their_parent_folded(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        parent = await subagents_done(pilot, screen)
        rows = screen.widgets.sidebar.session_list
        await wait_for(pilot, lambda: [s.id for s in rows.rows] == [parent], "one row, folded")
        assert "▸ 2 subagents" in rows._line(1).text
        await pilot.press("ctrl+b")
        await pilot.press("right")
        kids = children(screen, parent)
        await wait_for(pilot, lambda: [s.id for s in rows.rows] == [parent, *kids], "unfolded")
        assert "⧉ Research the code" in rows._line(2).text
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen.session_id == kids[0], "the child's view")
        await pilot.press("left")  # on a child's row: up to its parent, folded
        await wait_for(pilot, lambda: [s.id for s in rows.rows] == [parent], "folded again")
        assert isinstance(screen.focused, SessionList)


async def test_the_panel_cancels_a_terminal_a_tool_call_and_a_child_v2(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        sid = screen.session_id
        await send(pilot, "/background 120")
        status = screen.query_one(StatusLine)
        await wait_for(
            pilot, lambda: "3 running in the background" in status.background_count, "the count"
        )
        await run_palette_command(pilot, "Background work")
        panel = app.screen
        assert isinstance(panel, BackgroundScreen)
        table = panel.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 3, "three rows")
        kinds = {row.work.kind: row for row in panel.shown}
        assert {r.agent_label for r in panel.shown} == {agent_label(screen.spec, screen.controller)}
        for left in (2, 1, 0):
            await pilot.press("delete")
            note = panel.query_one("#background-note", Static)
            await wait_for(
                pilot,
                lambda left=left: len(panel.shown) == left,  # type: ignore[misc]
                f"a row to go ({left} left): {note.render()!s} {[r.work for r in panel.shown]}",
            )
        assert "Nothing is running" in str(panel.query_one("#background-empty", Static).render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: status.background_count == "", "no count")
        terminal, tool = kinds["terminal"].work, kinds["tool_call"].work
        assert sent(screen, "terminal/cancel") == [
            {"sessionId": sid, "terminalId": terminal.ref_id}
        ]
        assert sent(screen, "tool_call/cancel") == [{"sessionId": sid, "toolCallId": tool.ref_id}]
        assert sent(screen, "session/cancel") == [{"sessionId": kinds["subagent"].work.ref_id}]


async def test_the_panel_goes_to_a_subagent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/background 120")
        await wait_for(pilot, lambda: len(screen.subagents.running()) == 2, "the work")
        await run_palette_command(pilot, "Background work")
        panel = app.screen
        assert isinstance(panel, BackgroundScreen)
        child = next(r for r in panel.shown if r.work.kind == "subagent")
        panel.query_one(DataTable).move_cursor(row=panel.shown.index(child))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.session_id == child.work.ref_id, "the child's view")
