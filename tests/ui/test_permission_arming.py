"""No key approves by accident (issue 17, item 1): every answer to a permission dialog goes
through one armed gate, typing meant for the prompt lands in the prompt, and a dialog that
replaces or reappears starts over. Also a request with a thousand options (item 10)."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.session.asking.permissions import PendingPermission, PermissionBroker
from acp_tui.ui.screens.permission import (
    PermissionOptions,
    PermissionScreen,
    present_permission,
)
from tests.ui.chat_helpers import wait_for
from tests.ui.test_permission_dialog import (
    DialogApp,
    arm_now,
    click_option,
    edit_params,
    wait_armed,
)

pytestmark = pytest.mark.anyio

SIZE = (100, 32)


async def shown(pilot: Any, dialog: PermissionScreen, limit: float = 10.0) -> None:
    """Wait until the dialog has been drawn (its arming clock runs from then)."""
    deadline = time.monotonic() + limit
    while dialog._shown_at is None:
        assert time.monotonic() < deadline, "the dialog was never shown"
        await pilot.pause(0.02)


async def opened(app: DialogApp, pilot: Any) -> PermissionScreen:
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, PermissionScreen)
    await shown(pilot, dialog)
    return dialog


# --- every way of answering is armed -----------------------------------------------------


@pytest.mark.parametrize("how", ["digit", "enter", "space", "click"])
async def test_no_way_of_answering_works_before_the_dialog_is_armed(how: str) -> None:
    app = DialogApp(edit_params(), arm_delay=30.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        if how == "digit":
            await pilot.press("1", "2", "3", "4")
        elif how == "click":
            await click_option(pilot, dialog, 1)
        else:
            await pilot.press("down", how)  # even with an option highlighted
        await pilot.pause()
        assert app.results == []
        assert app.screen is dialog and not dialog.armed


async def test_after_arming_each_way_answers() -> None:
    for how, expected in (("digit", "always"), ("enter", "allow"), ("click", "reject")):
        app = DialogApp(edit_params(), arm_delay=0.2)
        async with app.run_test(size=SIZE) as pilot:
            dialog = await opened(app, pilot)
            await wait_armed(pilot, dialog)
            if how == "digit":
                await pilot.press("2")  # alone: it acts once the burst window passed
            elif how == "click":
                await click_option(pilot, dialog, 2)
            else:
                await pilot.press("down", "enter")
            await wait_for(pilot, lambda a=app: bool(a.results), "the answer")  # type: ignore[misc]
            assert app.results == [expected], how


async def test_keys_are_taken_in_the_order_they_were_typed() -> None:
    """ "down" then "enter" typed together answer the option below, never the one above (the
    move and the answer go through the same queue)."""
    app = DialogApp(edit_params(), arm_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await pilot.press("down")
        assert dialog.highlighted == 0
        for key, character in (("down", None), ("down", None), ("enter", "\r")):
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert app.results == ["reject"]


async def test_escape_says_no_at_once() -> None:
    app = DialogApp(edit_params(), arm_delay=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == ["reject"]


# --- typing goes to the prompt, whole ------------------------------------------------------


async def test_a_message_typed_while_the_dialog_opens_lands_in_the_prompt() -> None:
    app = DialogApp(edit_params(), arm_delay=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await pilot.press(*"fix bug 1", "backspace", "2", "enter")
        await pilot.pause()
        assert app.results == []
        assert "".join(text for _, text in app.typed) == "fix bug 12"
        assert [key for key, _ in app.typed][-3:] == ["backspace", "2", "enter"]


async def test_keys_typed_before_the_dialog_was_shown_never_answer_it() -> None:
    """A key read late (a busy loop) still counts by when it was typed."""
    app = DialogApp(edit_params(), arm_delay=0.05)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await wait_armed(pilot, dialog)
        assert dialog._shown_at is not None
        for key in ("1", "enter"):
            early = events.Key(key, "1" if key == "1" else "\r")
            early.time = dialog._shown_at - 0.01
            app.post_message(early)
        await pilot.pause()
        assert app.results == []
        assert [key for key, _ in app.typed] == ["1", "enter"]


async def test_someone_still_typing_is_not_answering() -> None:
    """Each key meant for the prompt holds the dialog unarmed for another arm delay."""
    app = DialogApp(edit_params(), arm_delay=2.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await wait_armed(pilot, dialog)
        await pilot.press("h")
        assert not dialog.armed
        await pilot.press("1")  # right after: still typing
        await pilot.pause()
        assert app.results == []
        assert app.typed == [("h", "h"), ("1", "1")]
        await wait_armed(pilot, dialog)  # a pause, then it answers
        await pilot.press("1")
        await wait_for(pilot, lambda: bool(app.results), "the answer")
        assert app.results == ["allow"]


async def test_a_paste_is_typing_never_an_answer() -> None:
    app = DialogApp(edit_params(), arm_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        app.post_message(events.Paste("1\n2"))
        await pilot.pause()
        assert app.results == []
        assert app.typed == [("paste", "1\n2")]


async def test_keys_after_the_answer_go_to_the_prompt() -> None:
    app = DialogApp(edit_params(), arm_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        dialog.on_key(events.Key("1", "1"))  # answered: it dismisses
        dialog.on_key(events.Key("x", "x"))  # a key that reached it before it went
        dialog.on_key(events.Key("2", "2"))
        await pilot.pause()
        assert app.results == ["allow"]
        assert app.typed == [("x", "x"), ("2", "2")]


# --- a dialog that replaces or reappears starts over --------------------------------------


async def test_a_dialog_uncovered_again_arms_afresh() -> None:
    app = DialogApp(edit_params(), arm_delay=2.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await wait_armed(pilot, dialog)
        await app.push_screen(ModalScreen[None]())
        await pilot.pause()
        assert not dialog.armed
        app.pop_screen()
        await pilot.pause()
        assert app.screen is dialog and not dialog.armed
        assert dialog.has_class("-unarmed")
        assert "Keys arm in a moment" in str(dialog.query_one("#hint", Static).content)
        await pilot.press("1")
        await pilot.pause()
        assert app.results == []
        await wait_armed(pilot, dialog)
        assert "1-4 choose" in str(dialog.query_one("#hint", Static).content)


class QueueApp(App[None]):
    """The broker and the dialog wired as the chat screen does, typing kept in a list."""

    def __init__(self) -> None:
        super().__init__()
        self.broker = PermissionBroker()
        self.typed: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Static("chat")

    def on_mount(self) -> None:
        self.broker.set_presenter(self._present)

    async def _present(self, pending: PendingPermission, position: int, total: int) -> str | None:
        return await present_permission(
            self,
            pending,
            position,
            total,
            forward_typing=lambda key, text: self.typed.append((key, text)),
        )


async def test_two_presses_of_1_120_ms_apart_answer_one_request_not_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Dialogs arm only when the test says (the first one, below), so "120 ms apart" holds
    # however busy the machine; a key stands alone after 50 ms here (presses 120 ms apart
    # within the real window are one burst of typing: see the burst tests).
    monkeypatch.setattr(PermissionScreen, "ARM_DELAY", 3600.0)
    monkeypatch.setattr(PermissionScreen, "BURST_WINDOW", 0.05)
    app = QueueApp()
    results: dict[str, dict[str, Any]] = {}
    async with app.run_test(size=SIZE) as pilot:

        async def ask(name: str) -> None:
            params = edit_params()
            params["toolCall"] = {"toolCallId": name, "title": name, "kind": "delete"}
            results[name] = await app.broker.request(params)

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, "first")
            tg.start_soon(ask, "second")
            await pilot.pause()
            first = app.screen
            assert isinstance(first, PermissionScreen)
            await shown(pilot, first)
            await arm_now(pilot, first)
            await pilot.press("1")
            await pilot.pause(0.12)
            await pilot.press("1")
            await pilot.pause()
            second = app.screen
            assert isinstance(second, PermissionScreen) and second is not first
            assert second.title_text == "second"
            assert not second.answered and not second.armed
            assert app.typed == [("1", "1")]  # the second press is the prompt's
            await pilot.press("escape")
    assert results["first"] == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    assert results["second"] == {"outcome": {"outcome": "selected", "optionId": "reject"}}


# --- a thousand options ------------------------------------------------------------------


def many_options(count: int) -> list[dict[str, Any]]:
    kinds = ("allow_once", "allow_always", "reject_once", "reject_always")
    return [
        {"optionId": f"opt-{i}", "name": f"Option number {i}", "kind": kinds[i % 4]}
        for i in range(count)
    ]


def widget_count(screen: Widget) -> int:
    return len(list(screen.query("*")))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_a_thousand_options_are_virtualised_and_the_title_and_hints_stay(
    size: tuple[int, int],
) -> None:
    few = DialogApp(edit_params(many_options(4)), arm_delay=0.0)
    async with few.run_test(size=size) as pilot:
        widgets_for_four = widget_count(await opened(few, pilot))
    app = DialogApp(edit_params(many_options(1000)), arm_delay=0.0)
    async with app.run_test(size=size) as pilot:
        dialog = await opened(app, pilot)
        await pilot.pause()
        # No widget per option: the same tree as with four.
        assert widget_count(dialog) == widgets_for_four
        height = size[1]
        for part in ("#title", "#hint", "#options"):
            region = dialog.query_one(part).region
            assert 0 <= region.y and region.bottom <= height, part
            assert region.height >= 1, part
        assert "Write src/app.py" in str(dialog.query_one("#title").render())
        # Answerable: the last option with End + Enter, the ninth with its key.
        await pilot.press("end")
        assert dialog.highlighted == 999
        options = dialog.query_one(PermissionOptions)
        assert options.highlighted == 999 and options.scroll_y > 0
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == ["opt-999"]
