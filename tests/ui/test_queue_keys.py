"""The queue from the keyboard, and "send now", in the app: Up on an empty prompt edits the
last queued message and Up/Down walk the queue while editing (Up walks the history when
nothing waits); the rows take the focus with Tab and have keys to move between them, edit,
remove, move first and send now; Alt+S sends now from the prompt: injected into the running
turn by the demo agent, the turn cancelled and the message first with an agent that takes no
inject (the fixture agent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.ui.screens.chat import ChatScreen, QueuedItem
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.queue_view import QueueView
from tests.ui.chat_helpers import demo_app, fixture_app, send, wait_for, wait_for_session
from tests.ui.test_chat_package import sent_methods

pytestmark = pytest.mark.anyio

SIZE = (100, 30)


def queued(screen: ChatScreen) -> list[str]:
    return [item.text for item in screen.model.prompts.items(screen.model.queue_key())]


def editing(screen: ChatScreen) -> str | None:
    item = screen.model.prompts.editing(screen.model.queue_key())
    return None if item is None else item.text


def footer(screen: ChatScreen) -> str:
    """The descriptions of the keys the footer lists now."""
    return " ".join(
        binding.description
        for (_node, binding, enabled, _tooltip) in screen.active_bindings.values()
        if enabled and binding.show
    )


def prompts_sent(screen: ChatScreen) -> list[str]:
    """The text of each session/prompt sent, in order."""
    assert screen.controller is not None and screen.controller.client is not None
    found = []
    for record in list(screen.controller.client.connection.traffic):
        if record.direction == "out" and record.text and '"session/prompt"' in record.text:
            message = json.loads(record.text)
            found.append(" ".join(b.get("text", "") for b in message["params"]["prompt"]))
    return found


def prompt(screen: ChatScreen) -> PromptEditor:
    return screen.query_one("#prompt", PromptEditor)


async def busy_with_queue(pilot: Pilot, *texts: str) -> ChatScreen:
    screen = await wait_for_session(pilot)
    await send(pilot, "hang")
    await wait_for(pilot, lambda: screen.busy, "the turn to run")
    for text in texts:
        await send(pilot, text)
    await wait_for(pilot, lambda: len(screen.query(QueuedItem)) == len(texts), "the queue")
    return screen


async def test_up_on_an_empty_prompt_edits_the_last_queued_and_walks_the_queue(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await busy_with_queue(pilot, "first", "second")
        editor = prompt(screen)
        assert editor.text == ""
        # The queue says how the keys reach it.
        title = str(screen.query_one("#queue").border_title)
        assert "↑ on an empty prompt edits the last" in title
        await pilot.press("up")
        await wait_for(pilot, lambda: editing(screen) == "second", "the last one edited")
        assert editor.text == "second"
        await pilot.press("up")
        await wait_for(pilot, lambda: editing(screen) == "first", "the one before")
        assert editor.text == "first"
        await pilot.press("up")  # the first: it stays (the history is not walked from here)
        await pilot.pause()
        assert editing(screen) == "first" and editor.text == "first"
        # An edit is kept when the walk goes on.
        await pilot.press("end", "space", "x")
        await pilot.press("down")
        await wait_for(pilot, lambda: editing(screen) == "second", "the next one")
        assert queued(screen) == ["first x", "second"]
        await pilot.press("down")  # past the last: an empty prompt, nothing edited
        await wait_for(pilot, lambda: editing(screen) is None, "the edit left")
        assert editor.text == "" and queued(screen) == ["first x", "second"]
        # Up edits again; Enter saves it.
        await pilot.press("up")
        await wait_for(pilot, lambda: editing(screen) == "second", "the last one again")
        await pilot.press("end", "!", "enter")
        await wait_for(pilot, lambda: queued(screen) == ["first x", "second!"], "the edit saved")
        assert editing(screen) is None


async def test_up_walks_the_history_when_nothing_waits(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "said before")
        await wait_for(pilot, lambda: not screen.busy and prompt(screen).text == "", "the turn")
        await pilot.press("up")
        await wait_for(pilot, lambda: prompt(screen).text == "said before", "the history")
        assert editing(screen) is None


async def test_a_focused_row_moves_edits_removes_and_goes_first_by_keys(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await busy_with_queue(pilot, "a", "b", "c")
        await pilot.press("tab")
        await wait_for(pilot, lambda: isinstance(screen.focused, QueuedItem), "a row focused")
        assert isinstance(screen.focused, QueuedItem) and screen.focused.item.text == "a"
        await pilot.press("down", "down")
        assert isinstance(screen.focused, QueuedItem) and screen.focused.item.text == "c"
        await pilot.press("home")
        await wait_for(pilot, lambda: queued(screen) == ["c", "a", "b"], "c moved first")
        # The moved row keeps the focus.
        await wait_for(
            pilot,
            lambda: isinstance(screen.focused, QueuedItem) and screen.focused.item.text == "c",
            "c still focused",
        )
        await pilot.press("down", "delete")
        await wait_for(pilot, lambda: queued(screen) == ["c", "b"], "a removed")
        await wait_for(
            pilot,
            lambda: isinstance(screen.focused, QueuedItem) and screen.focused.item.text == "b",
            "the row now in its place focused",
        )
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: editing(screen) == "c", "c edited")
        assert prompt(screen).text == "c" and prompt(screen).text_area.has_focus
        await pilot.press("escape")  # keeps it as it was
        await wait_for(pilot, lambda: editing(screen) is None, "the edit abandoned")
        assert queued(screen) == ["c", "b"] and screen.busy


async def test_send_now_without_inject_cancels_the_turn_and_sends_at_once(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await busy_with_queue(pilot, "waits")
        # Said on the queue's border (the footer at 80 columns has no room for it).
        await wait_for(
            pilot,
            lambda: "Alt+S sends now" in str(screen.query_one(QueueView).border_title),
            "the queue's border says Send now",
        )
        editor = prompt(screen)
        editor.set_draft("right now")
        editor.focus()
        await pilot.pause()
        await pilot.press("alt+s")
        await wait_for(
            pilot, lambda: sent_methods(screen).count("session/prompt") >= 2, "sent at once"
        )
        methods = sent_methods(screen)
        assert "session/cancel" in methods and "session/inject" not in methods
        last_prompt = max(i for i, method in enumerate(methods) if method == "session/prompt")
        assert methods.index("session/cancel") < last_prompt
        state = screen.model.state()
        assert state is not None
        assert any(
            getattr(e, "title", "") == "Cancelled the turn to send your message now"
            for e in state.transcript
        )


async def test_send_now_on_a_queued_row_injects_into_the_demo_agents_turn(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/slow 30")
        await wait_for(pilot, lambda: screen.busy, "the turn to run")
        await send(pilot, "take this now")
        await send(pilot, "and this later")
        await wait_for(pilot, lambda: len(screen.query(QueuedItem)) == 2, "the queue")
        await pilot.press("tab")
        await wait_for(pilot, lambda: isinstance(screen.focused, QueuedItem), "a row focused")
        await pilot.press("alt+s")
        await wait_for(pilot, lambda: "session/inject" in sent_methods(screen), "the inject")
        await wait_for(pilot, lambda: queued(screen) == ["and this later"], "taken off")
        state = screen.model.state()
        assert state is not None
        await wait_for(
            pilot,
            lambda: any(
                "you said “take this now”" in e.text
                for e in state.transcript
                if hasattr(e, "text") and isinstance(e.text, str)
            ),
            "the turn to say it took it",
        )
        methods = sent_methods(screen)
        assert "session/cancel" not in methods and methods.count("session/prompt") == 1
        assert screen.busy and prompt(screen).text_area.has_focus


async def test_send_now_while_editing_a_queued_message_sends_the_edit_in_its_place(
    tmp_path: Path,
) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await busy_with_queue(pilot, "first", "second")
        await pilot.press("up")
        await wait_for(pilot, lambda: editing(screen) == "second", "the last one edited")
        await pilot.press("end", "!", "alt+s")
        # The turn cancelled; the edit goes first, in the message's place; the other after.
        await wait_for(pilot, lambda: len(prompts_sent(screen)) == 3, "every message sent")
        assert prompts_sent(screen) == ["hang", "second!", "first"]
        assert "session/cancel" in sent_methods(screen)
        assert editing(screen) is None and prompt(screen).text == ""
