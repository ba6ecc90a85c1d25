"""Typing is never an answer, in every dialog that acts (issue 36): an answer key acts only
when it stands alone. "1 more thing" typed at an armed permission dialog chose option 1 and
sent the rest as a message; a leading ``r`` toggled the raw view and the message lost its
``r``. Here each dialog's answer keys, typed as the first key of a burst, go to the prompt
with the rest (nothing answered, nothing lost), and the same key alone still answers.

Keys of a burst are posted to the app at once, as one read of a terminal delivers them."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.session.asking.elicitation import parse_request
from acp_tui.session.asking.elicitation_queue import PendingElicitation
from acp_tui.session.auth.methods import parse_auth_methods
from acp_tui.ui.screens.armed import ArmedDialog, DialogOrigin, TypingForwarder
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.permission import PermissionScreen
from tests.ui.chat_helpers import wait_for
from tests.ui.test_permission_dialog import edit_params

pytestmark = pytest.mark.anyio

SIZE = (100, 36)
#: Armed soon after it is shown (the burst window is the real one).
ARM = 0.05
ORIGIN = DialogOrigin("test agent", "A session")


def permission(forward: TypingForwarder) -> ArmedDialog[Any]:
    return PermissionScreen(edit_params(), origin=ORIGIN, arm_delay=ARM, forward_typing=forward)


def page(forward: TypingForwarder) -> ArmedDialog[Any]:
    params = {
        "sessionId": "s",
        "mode": "url",
        "message": "Visit",
        "url": "https://example.com/x",
        "elicitationId": "e",
    }
    return ElicitationScreen(
        PendingElicitation(parse_request(params), lambda: None),
        origin=ORIGIN,
        arm_delay=ARM,
        forward_typing=forward,
        open_url=lambda url: None,
    )


def sign_in(forward: TypingForwarder) -> ArmedDialog[Any]:
    methods = parse_auth_methods(
        [
            {"id": "term", "type": "terminal", "name": "In the terminal", "args": ["--login"]},
            {"id": "agent", "name": "By the agent"},
        ]
    )
    return AuthScreen(
        "test agent", methods, "auth required", origin=ORIGIN, arm_delay=ARM, forward_typing=forward
    )


def confirm(forward: TypingForwarder) -> ArmedDialog[Any]:
    return ConfirmScreen(
        "Run this command?",
        "The agent wants to run a command.",
        "Allow this once",
        "Refuse",
        [("Command", "rm -rf build")],
        origin=ORIGIN,
        arm_delay=ARM,
        forward_typing=forward,
    )


@dataclass(frozen=True)
class Case:
    """A dialog and one of its keys that acts on its own."""

    make: Callable[[TypingForwarder], ArmedDialog[Any]]
    key: str
    #: What the dialog dismisses with when the key stands alone.
    answer: Any
    #: A message that starts with the key.
    message: str


CASES = {
    "permission 1": Case(permission, "1", "allow", "1 more thing"),
    "permission 4": Case(permission, "4", "never", "4 files are wrong"),
    "page o": Case(page, "o", None, "ok, go on"),
    "page i": Case(page, "i", None, "i think so"),
    "page d": Case(page, "d", {"action": "decline"}, "do it"),
    "sign-in 1": Case(sign_in, "1", "term", "1st try"),
    "sign-in 2": Case(sign_in, "2", "agent", "2 more"),
    "confirm y": Case(confirm, "y", True, "yes, and more"),
    "confirm n": Case(confirm, "n", False, "no way"),
}


class HostApp(App[None]):
    """Shows one dialog; keeps what it is dismissed with and what it passed on as typing."""

    def __init__(self, make: Callable[[TypingForwarder], ArmedDialog[Any]]) -> None:
        super().__init__()
        self.make = make
        self.results: list[Any] = []
        self.typed: list[tuple[str, str]] = []
        self.dialog: ArmedDialog[Any] | None = None

    def compose(self) -> ComposeResult:
        yield Static("the chat would be here")

    def on_mount(self) -> None:
        self.dialog = self.make(lambda key, text: self.typed.append((key, text)))
        self.push_screen(self.dialog, callback=self.results.append)

    def typed_text(self) -> str:
        return "".join(text for _key, text in self.typed)


def key_event(character: str) -> events.Key:
    names = {" ": "space", ",": "comma", ".": "full_stop", "\r": "enter"}
    return events.Key(names.get(character, character), character)


def burst(app: App[Any], text: str) -> None:
    """``text`` typed in one go: every key queued at the app at once."""
    for character in text:
        app.post_message(key_event(character))


async def armed(pilot: Any) -> ArmedDialog[Any]:
    app = pilot.app
    await wait_for(pilot, lambda: app.dialog is not None and app.dialog.armed, "the dialog armed")
    dialog = app.dialog
    assert dialog is not None and app.screen is dialog
    return dialog


def page_answer(dialog: ArmedDialog[Any]) -> Any:
    """A page dismisses only once the agent says it is done: its answer is what counts."""
    return dialog._answer if dialog.answered else "unanswered"


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_the_first_key_of_a_message_goes_to_the_prompt_with_the_rest(case: Case) -> None:
    app = HostApp(case.make)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed(pilot)
        burst(app, case.message)
        await wait_for(pilot, lambda: app.typed_text() == case.message, "the message typed")
        # Well past the burst window: still nothing answered.
        await pilot.pause(dialog.burst_window + 0.2)
        assert not dialog.answered and app.results == []
        assert app.typed_text() == case.message
        assert app.screen is dialog


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_the_same_key_alone_answers_once_it_stood_alone(case: Case) -> None:
    app = HostApp(case.make)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed(pilot)
        pressed = time.monotonic()
        await pilot.press(case.key)
        await wait_for(pilot, lambda: dialog.answered, "the answer")
        assert time.monotonic() - pressed >= dialog.burst_window * 0.9  # it waited
        if isinstance(dialog, ElicitationScreen):
            assert (page_answer(dialog) or {}).get("action") in ("accept", "decline")
            if case.answer is not None:
                assert page_answer(dialog) == case.answer
        else:
            await wait_for(pilot, lambda: bool(app.results), "the dialog gone")
            assert app.results == [case.answer]
        assert app.typed == []


async def test_a_leading_r_is_typing_and_leaves_the_raw_view_alone() -> None:
    app = HostApp(permission)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed(pilot)
        assert isinstance(dialog, PermissionScreen)
        burst(app, "read the file first")
        await wait_for(pilot, lambda: app.typed_text() == "read the file first", "the message")
        await pilot.pause(dialog.burst_window + 0.2)
        assert not dialog.show_raw and not dialog.answered
        # Alone, r toggles it (it shows what the dialog shows, not an answer).
        await wait_for(pilot, lambda: dialog.armed, "armed again")
        await pilot.press("r")
        await wait_for(pilot, lambda: dialog.show_raw, "the raw view")
        assert not dialog.answered


async def test_a_busy_loop_does_not_turn_a_burst_into_an_answer() -> None:
    """The held key's time runs out while the rest of the burst still waits in the app's
    queue (a busy loop: the keys were typed in time, and are read late). The decision waits
    behind those keys and goes by when they were typed: typing, not an answer."""
    app = HostApp(permission)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed(pilot)
        app.post_message(key_event("1"))
        await wait_for(pilot, lambda: dialog._hold.held is not None, "the key held")
        held = dialog._hold.held
        assert held is not None
        # As if "1" had been typed a second ago, the rest right after it, all read only now.
        typed_at = held.at - 1.0
        dialog._hold.held = dataclasses.replace(held, at=typed_at)
        for character in " more":
            event = key_event(character)
            event.time = typed_at + 0.01
            app.post_message(event)
        dialog._stop_hold_timer()
        dialog._held_may_be_due()  # its timer fires now, with the keys still queued
        await wait_for(pilot, lambda: app.typed_text() == "1 more", "the message typed")
        await pilot.pause(dialog.burst_window + 0.2)
        assert not dialog.answered and app.results == []


async def test_a_key_held_when_the_dialog_is_covered_goes_to_the_prompt() -> None:
    from textual.screen import ModalScreen

    app = HostApp(permission)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed(pilot)
        app.post_message(key_event("2"))
        await wait_for(pilot, lambda: dialog._hold.held is not None, "the key held")
        await app.push_screen(ModalScreen[None]())  # the palette, say, over it
        await pilot.pause(dialog.burst_window + 0.2)
        assert not dialog.answered
        assert app.typed == [("2", "2")]


async def test_enter_on_the_option_moved_to_answers_at_once() -> None:
    """The arrows were the deliberate step: Enter on the highlighted option does not wait."""
    app = HostApp(sign_in)
    async with app.run_test(size=SIZE) as pilot:
        await armed(pilot)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert app.results == ["agent"]


async def test_enter_with_nothing_chosen_is_typing_in_every_dialog() -> None:
    """Nothing is pre-selected: the Enter of a message goes to the prompt."""
    for make in (permission, page, sign_in, confirm):
        app = HostApp(make)
        async with app.run_test(size=SIZE) as pilot:
            dialog = await armed(pilot)
            await pilot.press("enter")
            await pilot.pause(dialog.burst_window + 0.1)
            assert not dialog.answered, make.__name__
            assert app.typed == [("enter", "")], make.__name__
