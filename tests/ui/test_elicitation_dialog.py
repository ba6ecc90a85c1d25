"""The elicitation dialog on its own: a form from the schema, checked before it is sent;
nothing answered by a key typed before it armed; a url opened only when asked; the agent's
text shown as written."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input, Select, SelectionList, Static

from acp_tui.demo_agent import elicit as demo
from acp_tui.session.asking.elicitation import ACCEPT, CANCEL, DECLINE, answer, parse_request
from acp_tui.session.asking.elicitation_queue import PendingElicitation
from acp_tui.ui.screens.armed import ArmedButton
from acp_tui.ui.screens.elicitation import ElicitationScreen

pytestmark = pytest.mark.anyio

SIZE = (100, 40)
URL = "https://example.com/connect?x=1"


def form_params(schema: dict[str, Any] | None = None, message: str = "Tell me") -> dict[str, Any]:
    return {
        "sessionId": "s",
        "mode": "form",
        "message": message,
        "requestedSchema": copy.deepcopy(schema if schema is not None else demo.FORM_SCHEMA),
    }


def url_params(url: str = URL) -> dict[str, Any]:
    return {"sessionId": "s", "mode": "url", "message": "Visit", "url": url, "elicitationId": "e"}


class DialogApp(App[None]):
    def __init__(self, params: dict[str, Any], *, arm_delay: float = 0.0) -> None:
        super().__init__()
        self.pending = PendingElicitation(parse_request(params), lambda: None)
        self.arm_delay = arm_delay
        self.results: list[dict[str, Any] | None] = []
        self.typed: list[tuple[str, str]] = []
        self.opened: list[str] = []
        self.dialog: ElicitationScreen | None = None

    def compose(self) -> ComposeResult:
        yield Static("the chat would be here")

    def on_mount(self) -> None:
        self.dialog = ElicitationScreen(
            self.pending,
            arm_delay=self.arm_delay,
            forward_typing=lambda key, text: self.typed.append((key, text)),
            open_url=self.opened.append,
        )
        self.push_screen(self.dialog, callback=self.results.append)


async def opened(app: DialogApp, pilot: Any, *, armed: bool = True) -> ElicitationScreen:
    await pilot.pause()
    dialog = app.dialog
    assert dialog is not None and app.screen is dialog
    deadline = time.monotonic() + 10
    while armed and not dialog.armed:
        assert time.monotonic() < deadline, "the dialog never armed"
        await pilot.pause(0.05)
    return dialog


async def test_every_kind_of_field_is_built_with_its_default() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        widgets = [
            dialog.query_one(f"#input-{i}") for i in range(len(demo.FORM_SCHEMA["properties"]))
        ]
        kinds = [type(w).__name__ for w in widgets]
        assert kinds == ["SafeInput"] * 6 + ["Checkbox", "Select", "Select"] + ["SelectionList"] * 2
        values = dialog.entered()
        assert values["homepage"] == "https://agentclientprotocol.com"
        assert values["temperature"] == "21.5" and values["cups"] == "2"
        assert values["color"] == "green" and values["editor"] is None
        assert values["languages"] == ["python"] and values["newsletter"] is False
        assert isinstance(dialog.focused, Input), "the first field takes the focus once armed"


async def test_submit_checks_every_field_and_says_at_each_what_does_not_fit() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        dialog.query_one("#input-1", Input).value = "not-an-email"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == [] and app.screen is dialog
        errors = {
            box.id: str(box.query_one(".error", Static).render())
            for box in dialog.query(".field.-invalid")
        }
        assert errors == {"field-0": "✗ required", "field-1": "✗ not an email address"}
        assert dialog.focused is dialog.query_one("#input-0"), "the first field to fix"
        await pilot.press(*"Ada")
        dialog.query_one("#input-1", Input).value = "ada@example.com"
        await pilot.press("ctrl+s")
        await pilot.pause()
    (result,) = app.results
    assert result is not None and result["action"] == ACCEPT
    assert result["content"]["name"] == "Ada" and result["content"]["email"] == "ada@example.com"
    assert demo.problems(result["content"]) == []
    assert app.pending.closed.is_set()


async def test_choices_checkboxes_and_lists_answer_their_values() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        dialog.query_one("#input-0", Input).value = "Ada"
        dialog.query_one("#input-6", Checkbox).value = True
        dialog.query_one("#input-8", Select).value = "zed"
        snacks = dialog.query_one("#input-10", SelectionList)
        snacks.select("fruit")
        await pilot.pause()
        assert dialog.submit()
    content = app.results[0]["content"]  # type: ignore[index]
    assert (content["newsletter"], content["editor"], content["snacks"]) == (True, "zed", ["fruit"])


async def test_escape_in_an_open_list_of_choices_closes_only_the_list() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        choice = dialog.query_one("#input-8", Select)
        choice.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert choice.expanded
        await pilot.press("escape")
        await pilot.pause()
        assert not choice.expanded and app.screen is dialog and app.results == []


@pytest.mark.parametrize(("key", "action"), [("escape", CANCEL)])
async def test_escape_cancels(key: str, action: str) -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await pilot.press(key)
        await pilot.pause()
    assert app.results == [answer(action)]


async def test_decline_is_a_button_and_answers_decline() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await pilot.click("#answer-decline")
        await pilot.pause()
    assert app.results == [answer(DECLINE)]


async def test_keys_typed_before_the_dialog_armed_go_to_the_prompt_and_answer_nothing() -> None:
    app = DialogApp(form_params(), arm_delay=30.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot, armed=False)
        await pilot.press(*"hi", "enter", "ctrl+s")
        await pilot.pause()
        assert dialog.focused is None, "no field takes keys before the dialog arms"
        await pilot.click("#answer-submit")
        await pilot.click("#answer-decline")
        await pilot.press("x")
        await pilot.pause()
        assert app.results == [] and app.screen is dialog and not dialog.armed
        assert app.typed == [("h", "h"), ("i", "i"), ("enter", ""), ("x", "x")]
        assert dialog.entered()["name"] == ""


async def test_the_url_is_shown_and_opened_only_when_the_person_asks() -> None:
    app = DialogApp(url_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await pilot.pause(0.2)
        assert app.opened == []
        assert str(dialog.query_one("#url", Static).render()) == URL
        assert "example.com" in str(dialog.query_one("#host", Static).render())
        await pilot.press("o")
        await pilot.pause()
        assert app.opened == [URL]
        assert dialog.waiting and app.screen is dialog, "it waits for elicitation/complete"
        assert await dialog.wait_for_answer() == answer(ACCEPT)
        app.pending.finish()  # what the queue does on elicitation/complete
        for _ in range(100):
            if app.results:
                break
            await pilot.pause(0.02)
    assert app.results == [answer(ACCEPT)]


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd"])
async def test_an_address_that_is_not_http_is_never_opened(url: str) -> None:
    app = DialogApp(url_params(url))
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        assert not dialog.query("#answer-open")
        await pilot.press("o")
        await pilot.pause()
        assert app.opened == [] and not dialog.answered


HOSTILE = "[bold]x[/] [@click=app.quit]quit[/] \x1b[31mred"


async def test_the_agents_text_is_shown_as_written() -> None:
    schema = {
        "title": HOSTILE,
        "description": HOSTILE,
        "properties": {
            "[b]": {"type": "string", "title": HOSTILE, "description": HOSTILE},
            "c": {"type": "string", "oneOf": [{"const": "[/]", "title": HOSTILE}]},
            "d": {"type": "boolean", "title": HOSTILE},
        },
    }
    app = DialogApp(form_params(schema, message=HOSTILE))
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        shown = [str(s.render()) for s in dialog.query(Static)]
        assert any(text.startswith("[bold]x[/] [@click=app.quit]quit[/]") for text in shown)
        assert not any("\x1b" in text for text in shown)
        assert "[bold]x[/]" in str(dialog.query_one("#input-2", Checkbox).label)
        dialog.query_one("#input-1", Select).value = "[/]"
        await pilot.pause()
        assert dialog.submit()
    assert app.results[0]["content"] == {"c": "[/]", "d": False}  # type: ignore[index]


async def test_answer_buttons_go_through_the_gate() -> None:
    app = DialogApp(form_params(), arm_delay=30.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot, armed=False)
        button = dialog.query_one("#answer-submit", ArmedButton)
        button.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == []


async def test_the_dialog_counts_the_questions_waiting_behind_it() -> None:
    app = DialogApp(form_params())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        frame = dialog.query_one("#dialog")
        assert frame.border_subtitle == ""
        dialog.set_position(1, 3)  # what the chat does when the queue changes
        assert frame.border_subtitle == "1 of 3"


async def wait_until_armed(pilot: Any, dialog: ElicitationScreen) -> None:
    deadline = time.monotonic() + 10
    while not dialog.armed:
        assert time.monotonic() < deadline, "the dialog never armed"
        await pilot.pause(0.05)


async def test_a_form_uncovered_again_arms_afresh() -> None:
    """The gate the permission dialog uses: covered and uncovered, the form is unarmed again
    (its hint says so) and answers nothing until it has been on screen a moment."""
    from textual.screen import ModalScreen

    app = DialogApp(form_params(), arm_delay=2.0)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await opened(app, pilot)
        await app.push_screen(ModalScreen[None]())
        await pilot.pause()
        assert not dialog.armed
        app.pop_screen()
        await pilot.pause()
        assert app.screen is dialog and not dialog.armed and dialog.has_class("-unarmed")
        assert "Keys arm in a moment" in str(dialog.query_one("#hint", Static).content)
        await pilot.click("#answer-decline")
        await pilot.pause()
        assert app.results == []
        await wait_until_armed(pilot, dialog)
        await pilot.click("#answer-decline")
        await pilot.pause()
        assert app.results == [answer(DECLINE)]
