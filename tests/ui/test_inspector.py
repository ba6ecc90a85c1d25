"""The protocol inspector lists one row per message and opens any of them whole (indented
JSON, escaped, in a read-only text area the person can select and copy from); a filter keeps
the messages of one direction or with given words, a response found by its request's
method."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, TextArea

from acp_tui.ui.screens.inspector import InspectorScreen
from tests.ui.chat_helpers import chat, demo_app, send, wait_for, wait_for_session

pytestmark = pytest.mark.anyio

LIMIT = 30.0


async def open_inspector_after_a_turn(pilot, app, screen) -> InspectorScreen:  # type: ignore[no-untyped-def]
    await send(pilot, "hello inspector")
    await wait_for(
        pilot,
        lambda: (
            (s := screen.store.get(screen.session_id or "")) is not None
            and s.stop_reason == "end_turn"
        ),
        "the reply",
        LIMIT,
    )
    chat(app).tools.show_inspector()
    await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
    inspector = app.screen
    assert isinstance(inspector, InspectorScreen)
    await wait_for(pilot, lambda: bool(inspector.shown), "the rows")
    return inspector


def rows(inspector: InspectorScreen) -> list[str]:
    return [line.label for line in inspector.shown]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_a_message_opens_whole_and_closes(tmp_path: Path, size: tuple[int, int]) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        inspector = await open_inspector_after_a_turn(pilot, app, screen)
        wire = inspector.query_one("#wire", OptionList)
        # One row a message, as many rows as messages.
        assert (
            wire.option_count
            == len(inspector.shown)
            == len(screen.controller.client.connection.traffic)
        )  # type: ignore[union-attr]
        prompt_row = rows(inspector).index("session/prompt")
        wire.highlighted = prompt_row
        await pilot.press("enter")
        message = inspector.query_one("#message", TextArea)
        await wait_for(pilot, lambda: message.display and message.size.height > 0, "the message")
        whole = message.text
        assert json.loads(whole)["method"] == "session/prompt"
        assert "hello inspector" in whole and whole.splitlines()[1].startswith("  ")
        # It follows the highlighted row while open.
        await pilot.press("down")
        await wait_for(pilot, lambda: message.text != whole, "the next message")
        # Enter again closes it.
        await pilot.press("enter")
        await wait_for(pilot, lambda: not message.display, "the message closed")
        assert inspector.expanded is None


async def test_the_filter_keeps_a_method_a_direction_and_words(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        inspector = await open_inspector_after_a_turn(pilot, app, screen)
        everything = len(inspector.shown)
        await pilot.press("slash")
        field = inspector.query_one("#wire-filter", Input)
        assert field.has_focus
        await pilot.press(*"session/prompt")
        await wait_for(
            pilot,
            lambda: rows(inspector) == ["session/prompt", "session/prompt (result)"],
            "the prompt and its answer",
        )
        # Keys that are the inspector's elsewhere are typing here.
        field.value = ""
        await pilot.press(*"out q s")
        assert field.value == "out q s" and isinstance(app.screen, InspectorScreen)
        field.value = "out"
        await wait_for(
            pilot,
            lambda: (
                bool(inspector.shown)
                and all(line.direction == "out" for line in inspector.shown)
                and len(inspector.shown) < everything
            ),
            "the client's messages",
        )
        field.value = "in end_turn"
        await wait_for(
            pilot,
            lambda: (
                bool(inspector.shown)
                and all(
                    line.direction == "in" and "end_turn" in line.text for line in inspector.shown
                )
            ),
            "the agent's lines with the words",
        )
        field.value = ""
        await wait_for(pilot, lambda: len(inspector.shown) >= everything, "all again")
        await pilot.press("enter")  # back to the rows
        assert inspector.query_one("#wire", OptionList).has_focus
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, InspectorScreen), "closed")


async def test_new_traffic_comes_in_live_and_through_the_filter(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        inspector = await open_inspector_after_a_turn(pilot, app, screen)
        inspector.query_one("#wire-filter", Input).value = "session/prompt"
        await wait_for(pilot, lambda: len(inspector.shown) == 2, "the first prompt")
        # A second turn while it is open.
        screen.model.send("second turn")
        await wait_for(pilot, lambda: len(inspector.shown) == 4, "the second prompt", LIMIT)
        assert all("session/prompt" in line.label for line in inspector.shown)
