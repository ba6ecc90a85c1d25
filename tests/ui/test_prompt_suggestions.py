"""Prompt suggestions (unstable ``prompt_suggestions_update``) in the app, on the real demo
agent: advertised at ``initialize``, offered as chips under the prompt after each reply,
taken by Tab (the next one by Tab again) or a click, never sent unless the person sends it,
and then sent as the agent wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from acp_tui.store import SessionStore
from acp_tui.store.suggestions import suggestions_of
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.suggestion_chips import SuggestionChip, SuggestionChips
from tests.ui.chat_helpers import chat, demo_app, send, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def sent(app: Any, method: str) -> list[dict[str, Any]]:
    controller = chat(app).controller
    assert controller is not None and controller.client is not None
    found = []
    for record in list(controller.client.connection.traffic):
        if record.direction == "out" and record.text:
            message = json.loads(record.text)
            if message.get("method") == method:
                found.append(message.get("params") or {})
    return found


def chips(app: Any) -> SuggestionChips:
    return chat(app).query_one(SuggestionChips)


def offered(app: Any) -> tuple[str, ...]:
    row = chips(app)
    return row.labels if row.has_class("-visible") else ()


async def test_v2_advertises_them_in_the_preview_layout_and_gets_them(tmp_path: Path) -> None:
    """On v2 the capability sits in the preview's place (``capabilities.session``, a group
    of object markers): the demo, reading it there, suggests after each reply."""
    app = demo_app(tmp_path, tmp_path / "state", protocol_version=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        (init,) = sent(app, "initialize")
        assert init["protocolVersion"] == 2
        assert init["capabilities"]["session"] == {"promptSuggestions": {}}
        await send(pilot, "hello")
        await wait_for(pilot, lambda: len(offered(app)) == 3, "three suggestions")


async def test_chips_after_a_reply_tab_takes_one_and_only_sending_sends_it(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        (init,) = sent(app, "initialize")
        assert init["clientCapabilities"]["session"]["promptSuggestions"] == {}
        assert offered(app) == ()
        await send(pilot, "hello")
        await wait_for(pilot, lambda: len(offered(app)) == 3, "three suggestions")
        await settle(pilot, answered=True)
        first, second, _third = offered(app)
        prompt = screen.query_one(PromptEditor)
        # Offered, not sent: the agent got one prompt.
        assert len(sent(app, "session/prompt")) == 1
        prompt.focus()
        await pilot.press("tab")
        assert prompt.text == first and offered(app) == (first, second, _third)
        await pilot.press("tab")
        assert prompt.text == second
        await settle(pilot)
        assert len(sent(app, "session/prompt")) == 1  # still nothing sent
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(sent(app, "session/prompt")) == 2, "the prompt sent")
        assert sent(app, "session/prompt")[1]["prompt"] == [{"type": "text", "text": second}]
        # Sent: the list predicted that message and is gone until the next reply's.
        await wait_for(pilot, lambda: offered(app) != (first, second, _third), "new chips")


async def test_a_click_takes_a_chip_typing_hides_them_and_bad_text_is_shown_literally(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, "/suggest Fix [b]this[/b] | \x1b[31mred\x1b[0m | run\nthe tests")
        await wait_for(pilot, lambda: len(offered(app)) == 3, "the suggested prompts")
        await settle(pilot, answered=True)
        labels = offered(app)
        assert labels[0] == "Fix [b]this[/b]"  # markup is text
        assert "\x1b" not in labels[1] and "red" in labels[1]
        assert labels[2] == "run the tests"  # one line
        drawn = [str(chip.render()) for chip in chips(app).query(SuggestionChip)]
        assert drawn[0] == "Fix [b]this[/b]" and "\x1b" not in "".join(drawn)
        # A click takes one into the prompt; nothing is sent.
        await pilot.click(SuggestionChip, offset=(1, 0))
        prompt = screen.query_one(PromptEditor)
        assert prompt.text == "Fix [b]this[/b]"
        # Typing something else hides them; an empty prompt shows them again.
        prompt.set_draft("something else")
        await pilot.pause()
        assert offered(app) == ()
        prompt.set_draft("")
        await pilot.pause()
        assert offered(app) == labels
        assert len(sent(app, "session/prompt")) == 1
        # /suggest alone: the agent withdraws them (an empty list).
        await send(pilot, "/suggest")
        await wait_for(pilot, lambda: "No suggestions this time" in screen_text(app), "reply")
        await settle(pilot, answered=True)
        assert offered(app) == ()


def screen_text(app: Any) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class PromptApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[PromptEditor.Submitted] = []

    def compose(self) -> ComposeResult:
        yield PromptEditor(id="prompt")

    def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        self.submitted.append(message)


async def test_a_taken_suggestion_goes_out_as_written_and_an_edited_one_as_typed() -> None:
    """Its blocks unchanged (a link stays a link); once edited, it is the person's text."""
    controller = {"type": "resource_link", "uri": "file:///tmp/a.md", "name": "a.md"}
    (suggestion,) = suggestions_of([{"prompt": [{"type": "text", "text": "Read"}, controller]}])
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptEditor)
        prompt.suggestions = (suggestion,)
        prompt.focus()
        await pilot.press("tab")
        assert prompt.text == "Read @a.md"
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted[-1].blocks == [{"type": "text", "text": "Read"}, controller]
        await pilot.press("tab")
        await pilot.press("end", "!", "enter")
        await pilot.pause()
        assert app.submitted[-1].blocks == [{"type": "text", "text": "Read @a.md!"}]
        # Text in the prompt that no suggestion put there: Tab is Tab (focus moves on).
        prompt.set_draft("mine")
        await pilot.press("tab")
        assert prompt.text == "mine"


def test_the_store_keeps_the_latest_list_not_replayed_and_gone_when_a_message_is_sent() -> None:
    store = SessionStore()
    store.register_session("s", new=True)

    def update(*texts: Any) -> None:
        items = [
            {"prompt": [{"type": "text", "text": t}]} if isinstance(t, str) else t for t in texts
        ]
        store.apply(
            {
                "sessionId": "s",
                "update": {"sessionUpdate": "prompt_suggestions_update", "suggestions": items},
            }
        )

    def texts() -> list[str]:
        state = store.get("s")
        assert state is not None
        return [s.text for s in state.suggestions]

    update("a", "b")
    assert texts() == ["a", "b"]
    update("c")
    assert texts() == ["c"]  # replaced
    update()
    assert texts() == []  # withdrawn
    # Bad items are left out, the rest kept; blank text offers nothing to read.
    update("ok", {"prompt": []}, {"nope": 1}, "   ", 7)
    assert texts() == ["ok"]
    store.prompt_sent("s", "hi")
    assert texts() == []
    # A replay's suggestions are history's: not taken.
    store.begin_replay("s", keep=False)
    update("old")
    store.end_replay("s", {})
    assert texts() == []
