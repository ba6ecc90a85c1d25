"""No key typed at a dialog that is not armed acts, in every dialog that acts (issues 36, 40).

The class of problem: the permission dialog's rule rows ("Always allow…", "Always deny…")
came with their own letters, and a new row or a new dialog must not be a way around the
arming gate. So every :class:`ArmedDialog` of the UI is here (a new one fails
:func:`test_every_armed_dialog_is_tested` until it is added), and every key it binds, every
digit and every letter is typed at it before it arms: nothing is answered, no other screen
opens, and what types reaches the prompt. Then, armed, every row of the permission dialog
(the agent's options and the rule rows) acts by its own key alone, by Enter once moved to,
and is typing as the first key of a burst. The rule editor opened from a dialog does not
take the person's typing until it arms."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from acp_tui.services.hunks import FileChange
from acp_tui.session.asking.elicitation import parse_request
from acp_tui.session.asking.elicitation_queue import PendingElicitation
from acp_tui.session.asking.rules import Decision, Rule
from acp_tui.session.asking.write_reviews import PendingWrite
from acp_tui.session.auth.methods import parse_auth_methods
from acp_tui.text.redaction import Redactor
from acp_tui.ui.keymap import _binding_owners
from acp_tui.ui.screens.armed import ArmedDialog, DialogOrigin, TypingForwarder
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.chat.write_review import WriteReviewDialog
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.permission import PermissionScreen, RuleOffer
from acp_tui.ui.screens.redaction_review import RedactionReview
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.screens.rewind import ReviewDialog
from acp_tui.ui.screens.rule_editor import RuleEditorScreen
from acp_tui.ui.textual_patches import access
from acp_tui.ui.widgets.change_review import ReviewFile
from tests.ui.chat_helpers import wait_for
from tests.ui.test_dialog_bursts import burst
from tests.ui.test_elicitation_dialog import form_params, url_params
from tests.ui.test_permission_dialog import edit_params

pytestmark = pytest.mark.anyio

SIZE = (100, 36)
ORIGIN = DialogOrigin("test agent", "A session")
#: Never armed within a test.
NEVER = 60.0
#: Keys that act at any time by design: a way out (a "no" is never an accident).
WAYS_OUT = frozenset({"escape"})


@dataclass
class Made:
    """What a dialog's maker hands back to the test."""

    rules: list[Decision]


def permission(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    return PermissionScreen(
        edit_params(),
        origin=ORIGIN,
        arm_delay=arm,
        forward_typing=forward,
        offer=RuleOffer(make=made.rules.append),
    )


def form(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    return ElicitationScreen(
        PendingElicitation(parse_request(form_params()), lambda: None),
        origin=ORIGIN,
        arm_delay=arm,
        forward_typing=forward,
    )


def page(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    return ElicitationScreen(
        PendingElicitation(parse_request(url_params()), lambda: None),
        origin=ORIGIN,
        arm_delay=arm,
        forward_typing=forward,
        open_url=lambda url: None,
    )


def sign_in(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    methods = parse_auth_methods(
        [
            {"id": "term", "type": "terminal", "name": "In the terminal", "args": ["--login"]},
            {"id": "agent", "name": "By the agent"},
        ]
    )
    return AuthScreen(
        "test agent", methods, "auth required", origin=ORIGIN, arm_delay=arm, forward_typing=forward
    )


def confirm(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    return ConfirmScreen(
        "Run this command?",
        "The agent wants to run a command.",
        "Allow this once",
        "Refuse",
        [("Command", "rm -rf build")],
        origin=ORIGIN,
        arm_delay=arm,
        forward_typing=forward,
    )


def rename(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    return RenameScreen("Old title", "A note", origin=ORIGIN, arm_delay=arm)


def rule_editor(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    rule = Rule("deny", kinds=("edit",), project="/home/me/app")
    return RuleEditorScreen(
        rule, lambda values, to_project: None, origin=ORIGIN, arm_delay=arm, forward_typing=forward
    )


def write_review(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    change = FileChange.compute("a\nb\n", "a\nB\n")
    dialog = WriteReviewDialog(
        PendingWrite("s", "/p/notes.txt", "notes.txt", change),
        "Keep or reject",
        ORIGIN,
        arm_delay=arm,
    )
    dialog.forward_typing = forward
    dialog.edit_text = lambda text: made.rules.append("allow") or text  # "e" acted
    return dialog


def review(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    files = [ReviewFile("src/app.py", "restore", None)]
    return ReviewDialog("Rewind", files, origin=ORIGIN, arm_delay=arm)


def redaction_review(forward: TypingForwarder, made: Made, arm: float) -> ArmedDialog[Any]:
    redactor = Redactor(home="/home/me")
    redactor.scrub("mail ann@example.org from /home/me/app", "entry 1 (your message)")
    return RedactionReview(redactor.findings, origin=ORIGIN, arm_delay=arm, forward_typing=forward)


DIALOGS: dict[str, Callable[[TypingForwarder, Made, float], ArmedDialog[Any]]] = {
    "PermissionScreen": permission,
    "ElicitationScreen form": form,
    "ElicitationScreen page": page,
    "AuthScreen": sign_in,
    "ConfirmScreen": confirm,
    "RenameScreen": rename,
    "RuleEditorScreen": rule_editor,
    "ReviewDialog": review,
    "WriteReviewDialog": write_review,
    "RedactionReview": redaction_review,
}


class Host(App[None]):
    """Shows one dialog; keeps its answer, the typing it passed on and the rules it made."""

    def __init__(
        self, make: Callable[[TypingForwarder, Made, float], ArmedDialog[Any]], arm: float
    ) -> None:
        super().__init__()
        self.made = Made([])
        self.results: list[Any] = []
        self.typed: list[tuple[str, str]] = []
        self.dialog = make(lambda key, text: self.typed.append((key, text)), self.made, arm)

    def compose(self) -> ComposeResult:
        yield Static("the chat would be here")

    def on_mount(self) -> None:
        self.push_screen(self.dialog, callback=self.results.append)

    def typed_text(self) -> str:
        return "".join(text for _key, text in self.typed)


def test_every_armed_dialog_is_tested() -> None:
    list(_binding_owners())  # imports every module of the UI
    found: set[str] = set()
    pending: list[type] = [ArmedDialog]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub.__module__.startswith("acp_tui.") and sub.__name__ not in found:
                found.add(sub.__name__)
                pending.append(sub)
    tested = {name.split()[0] for name in DIALOGS}
    assert found <= tested, f"add to DIALOGS: {sorted(found - tested)}"


def keys_of(dialog: ArmedDialog[Any]) -> list[str]:
    """Every key the dialog binds (as configured), every digit and letter, Enter and Space."""
    bound = set(access.configured_bindings(dialog).key_to_bindings)
    keys = bound | set(string.digits[1:]) | set(string.ascii_lowercase) | {"enter", "space"}
    return sorted(keys - WAYS_OUT)


@pytest.mark.parametrize("name", DIALOGS)
async def test_no_key_acts_before_the_dialog_arms(name: str) -> None:
    app = Host(DIALOGS[name], NEVER)
    async with app.run_test(size=SIZE) as pilot:
        dialog = app.dialog
        await wait_for(pilot, lambda: dialog._shown_at is not None, "the dialog shown")
        fields = {field.id: field.value for field in dialog.query(Input)}
        keys = keys_of(dialog)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is dialog, f"{key!r} opened {app.screen!r}"
            assert not dialog.answered and app.results == [], f"{key!r} answered"
            assert app.made.rules == [], f"{key!r} made a rule"
            assert not dialog.armed
        await pilot.pause(dialog.burst_window + 0.1)
        assert not dialog.answered and app.made.rules == []
        if isinstance(dialog, PermissionScreen):
            assert not dialog.show_raw
        if dialog.forward_typing is not None:
            # What types went on to the prompt, in order; the dialog's fields kept nothing.
            letters = [key for key in keys if len(key) == 1]
            assert [key for key, _text in app.typed if len(key) == 1] == letters
            assert {field.id: field.value for field in dialog.query(Input)} == fields


async def armed_permission(pilot: Any) -> PermissionScreen:
    app = pilot.app
    dialog = app.dialog
    await wait_for(pilot, lambda: dialog.armed, "the dialog armed")
    assert isinstance(dialog, PermissionScreen)
    return dialog


def row_outcome(app: Host) -> Any:
    """What a row did: the option answered, or the rule made."""
    if app.results:
        return ("answer", app.results[0])
    if app.made.rules:
        return ("rule", app.made.rules[0])
    return None


#: Every row of the permission dialog with an offer of rules: its key and what it does.
ROWS = [
    ("1", ("answer", "allow")),
    ("2", ("answer", "always")),
    ("3", ("answer", "reject")),
    ("4", ("answer", "never")),
    ("a", ("rule", "allow")),
    ("d", ("rule", "deny")),
]


@pytest.mark.parametrize(("key", "outcome"), ROWS, ids=[key for key, _ in ROWS])
async def test_every_row_acts_by_its_key_alone_once_armed(key: str, outcome: Any) -> None:
    app = Host(permission, 0.05)
    async with app.run_test(size=SIZE) as pilot:
        await armed_permission(pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: row_outcome(app) is not None, "the row acted")
        assert row_outcome(app) == outcome
        assert app.typed == []


@pytest.mark.parametrize(("index", "outcome"), list(enumerate(o for _, o in ROWS)))
async def test_every_row_acts_by_enter_once_moved_to(index: int, outcome: Any) -> None:
    app = Host(permission, 0.05)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed_permission(pilot)
        await pilot.press(*["down"] * (index + 1))
        assert dialog.highlighted == index
        await pilot.press("enter")
        await wait_for(pilot, lambda: row_outcome(app) is not None, "the row acted")
        assert row_outcome(app) == outcome


@pytest.mark.parametrize("key", [key for key, _ in ROWS])
async def test_every_row_key_starting_a_burst_is_typing(key: str) -> None:
    app = Host(permission, 0.05)
    message = f"{key} more words"
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed_permission(pilot)
        burst(app, message)
        await wait_for(pilot, lambda: app.typed_text() == message, "the message typed")
        await pilot.pause(dialog.burst_window + 0.2)
        assert row_outcome(app) is None and app.screen is dialog


async def test_end_highlights_the_last_option_not_a_rule_row() -> None:
    app = Host(permission, 0.05)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await armed_permission(pilot)
        await pilot.press("end")
        assert dialog.highlighted == len(dialog.options) - 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: row_outcome(app) is not None, "the row acted")
        assert row_outcome(app) == ("answer", "never")


async def test_the_rule_editor_over_a_question_takes_no_typing_until_it_arms() -> None:
    """Opened from a dialog (a letter that stood alone), the editor does not swallow the rest
    of what the person was typing: it goes to the prompt, and the editor arms only once
    they stop; then its first field has the focus."""
    app = Host(rule_editor, NEVER)
    async with app.run_test(size=SIZE) as pilot:
        dialog = app.dialog
        assert isinstance(dialog, RuleEditorScreen)
        await wait_for(pilot, lambda: dialog._shown_at is not None, "the editor shown")
        before = dialog.values()
        assert dialog.focused is None
        await pilot.press(*"on't")
        await wait_for(pilot, lambda: app.typed_text() == "on't", "the typing passed on")
        assert dialog.values() == before and dialog.focused is None
        dialog.arm_delay = 0.05  # (as if the person had stopped typing a while ago)
        dialog._arm_later()
        await wait_for(pilot, lambda: dialog.armed, "the editor armed")
        assert isinstance(dialog.focused, Input)
        await pilot.press("x")
        assert dialog.focused.value.endswith("x") and app.typed_text() == "on't"
