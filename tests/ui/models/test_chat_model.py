"""The chat view's model without an app (no Pilot): drafts follow the session they were typed
in, a message is sent or queued and never lost, Escape abandons an edit or cancels a turn,
the new session is made once and says why it was not, opening a session decides what the
person sees, and the clocks of turns and restarts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.protocol.jsonrpc import RESOURCE_NOT_FOUND
from acp_tui.session.errors import AgentRefused, SessionError
from acp_tui.session.prompts.queue import PromptQueue
from acp_tui.store import SessionStore
from acp_tui.store.local_index import LocalIndex
from acp_tui.ui.models.chat import RESTART_BACKOFF, ChatModel

pytestmark = pytest.mark.anyio


class Agent:
    display_name = "Fake agent"
    can_load = True
    can_resume = False
    can_close = False
    can_delete = False


class Done:
    def __init__(self) -> None:
        self.done = False

    def is_set(self) -> bool:
        return self.done


class Controller:
    """What the model asks of the session controller, recorded; the jobs it spawns run when
    the test says (:meth:`run_jobs`), as the controller's task group would run them."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.agent: Agent | None = Agent()
        self.finished = Done()
        self.jobs: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
        self.calls: list[tuple[Any, ...]] = []
        self.opened: set[str] = set()
        self.cancelling: set[str] = set()
        self.busy: set[str] = set()
        self.new_error: BaseException | None = None
        self.sign_in = SimpleNamespace(needs_sign_in=False)
        self.open_error: BaseException | None = None
        self.made = 0

    def spawn(self, job: Callable[[], Awaitable[Any]], what: str) -> None:
        self.jobs.append((what, job))

    async def run_jobs(self) -> list[BaseException]:
        errors = []
        while self.jobs:
            _what, job = self.jobs.pop(0)
            try:
                await job()
            except BaseException as error:  # the controller logs and reports a job's failure
                errors.append(error)
        return errors

    def is_open(self, session_id: str) -> bool:
        return session_id in self.opened

    def can_send(self, session_id: str) -> bool:
        state = self.store.get(session_id)
        return self.is_open(session_id) and state is not None and state.activity == "idle"

    def send_prompt(self, session_id: str, text: str, blocks: Any) -> None:
        self.calls.append(("prompt", session_id, text))

    def flush(self, session_id: str) -> None:
        self.calls.append(("flush", session_id))

    def edit_saved(self, session_id: str) -> None:
        self.calls.append(("edit_saved", session_id))

    def begin_cancel(self, session_id: str) -> None:
        self.cancelling.add(session_id)
        self.calls.append(("begin_cancel", session_id))

    def is_busy(self, session_id: str) -> bool:
        return session_id in self.busy

    def is_cancelling(self, session_id: str) -> bool:
        return session_id in self.cancelling

    async def cancel(self, session_id: str) -> None:
        self.calls.append(("cancel", session_id))

    async def new_session(self, *, choices: Callable[[], Any] | None = None, **how: Any) -> str:
        """As the real one: the choices are taken before the request, then after its answer
        until none are left."""
        self.calls.append(("new", how))
        chosen = choices() if choices is not None else None
        if self.new_error is not None:
            raise self.new_error
        self.made += 1
        session_id = f"new-{self.made}"
        self.store.register_session(session_id, cwd="/p", new=True)
        while choices is not None and chosen is not None:
            if any(chosen):
                self.calls.append(("choices", session_id, chosen))
            chosen = choices()
            if not any(chosen):
                break
        self.opened.add(session_id)
        return session_id

    def unused_sessions(self) -> list[str]:
        return [s for s in self.opened if (state := self.store.get(s)) is not None and state.draft]

    async def open_session(self, session_id: str) -> None:
        self.calls.append(("open", session_id))
        if self.open_error is not None:
            raise self.open_error
        self.store.register_session(session_id, cwd="/p")
        self.opened.add(session_id)


class Canceller:
    def __init__(self, calls: list[tuple[Any, ...]], name: str) -> None:
        self.calls, self.name = calls, name

    def cancel_session(self, session_id: str) -> int:
        self.calls.append((self.name, session_id))
        return 0


class View:
    """The screen's side: what the model told it."""

    def __init__(self, model: ChatModel) -> None:
        self.shown: list[str | None] = []
        self.focused = 0
        self.status_drawn = 0
        self.toasts: list[tuple[str, str]] = []
        model.show = self.show
        model.focus_prompt = self.focus
        model.status_changed = self.status

    def show(self, session_id: str | None) -> None:
        self.shown.append(session_id)

    def focus(self) -> None:
        self.focused += 1

    def status(self) -> None:
        self.status_drawn += 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(**options: Any) -> tuple[ChatModel, Controller, View]:
    store = SessionStore()
    controller = Controller(store)
    toasts: list[tuple[str, str]] = []
    calls = controller.calls
    model = ChatModel(
        store=store,
        prompts=PromptQueue(),
        broker=Canceller(calls, "permissions"),  # type: ignore[arg-type]
        elicitations=Canceller(calls, "questions"),  # type: ignore[arg-type]
        controller=lambda: controller,  # type: ignore[arg-type,return-value]
        notify=lambda message, **kw: toasts.append((message, kw.get("severity", "information"))),
        keys=lambda binding_id, fallback="(no key)": {
            "cancel-turn": "Esc",
            "restart-agent": "Ctrl+R",
        }.get(binding_id, fallback),
        clock=Clock(),
        **options,
    )
    view = View(model)
    view.toasts = toasts
    model.agent_alive = True
    return model, controller, view


def live(
    model: ChatModel, controller: Controller, session_id: str, *, prompted: bool = True
) -> None:
    model.store.register_session(session_id, cwd="/p", new=not prompted)
    if prompted:
        model.store.prompt_sent(session_id, "hello")
        model.store.prompt_finished(session_id, {"stopReason": "end_turn"})
    controller.opened.add(session_id)


# ---------------------------------------------------------------------------- drafts


def test_each_session_keeps_what_was_typed_in_it() -> None:
    model, controller, _ = make()
    for session_id in ("a", "b"):
        live(model, controller, session_id)
    model.session_id = "a"
    assert model.enter("b", "for a") == ""
    assert model.enter("a", "for b") == "for a"
    assert model.enter("b", "for a, more") == "for b"
    assert model.session_id == "b"
    # Entering the session on screen keeps the prompt as it is.
    assert model.enter("b", "as typed") == "as typed"


def test_what_was_typed_for_the_new_session_goes_into_the_session_made_for_it() -> None:
    model, controller, _ = make()
    live(model, controller, "made", prompted=False)
    assert model.session_id is None
    assert model.enter("made", "typed before it existed") == "typed before it existed"
    assert model.drafts == {}


def test_a_session_chosen_in_the_sidebar_does_not_take_the_new_sessions_draft() -> None:
    model, controller, _ = make()
    live(model, controller, "past")
    model.explicit_open = "past"
    assert model.enter("past", "for the new one") == ""
    assert model.enter(None, "") == "for the new one"


def test_leaving_a_session_that_could_not_be_reopened_takes_the_draft_along() -> None:
    model, controller, _ = make()
    live(model, controller, "lost")
    model.session_id = "lost"
    model.unopenable.add("lost")
    assert model.queue_key() is None
    live(model, controller, "made", prompted=False)
    assert model.enter("made", "rescued") == "rescued"


def test_leaving_while_editing_a_queued_message_saves_or_abandons_the_edit() -> None:
    model, controller, _ = make()
    live(model, controller, "a")
    live(model, controller, "b")
    model.session_id = "a"
    first = model.prompts.add("a", "first")
    second = model.prompts.add("a", "second")
    assert model.edit_queued(first.queue_id, "") == "first"
    assert model.enter("b", "first, edited") == ""
    assert [q.text for q in model.prompts.items("a")] == ["first, edited", "second"]
    assert not any(q.editing for q in model.prompts.items("a"))
    assert ("flush", "a") in controller.calls
    # A blank edit is abandoned: the message stays as it was.
    model.enter("a", "")
    assert model.edit_queued(second.queue_id, "") == "second"
    model.enter("b", "   ")
    assert [q.text for q in model.prompts.items("a")] == ["first, edited", "second"]


def test_a_queued_message_is_edited_only_from_an_empty_prompt_and_until_it_went() -> None:
    model, controller, view = make()
    live(model, controller, "a")
    model.session_id = "a"
    item = model.prompts.add("a", "queued")
    assert model.edit_queued(item.queue_id, "half a thought") is None
    assert view.toasts[-1] == ("Send or clear what you are typing first.", "warning")
    model.remove_queued(item.queue_id)
    assert not model.prompts.has("a") and controller.calls[-1] == ("flush", "a")
    assert model.edit_queued(item.queue_id, "") is None
    assert view.toasts[-1][0] == "That message has been sent already."


# ---------------------------------------------------------------------------- send


def test_a_message_goes_out_when_its_session_can_take_it() -> None:
    model, controller, view = make()
    live(model, controller, "a")
    model.session_id = "a"
    model.send("hello")
    assert controller.calls == [("prompt", "a", "hello")] and not model.prompts.has("a")
    assert view.toasts == []


async def test_a_message_with_no_session_yet_waits_and_starts_the_new_session_once() -> None:
    model, controller, _ = make()
    model.send("one")
    model.send("two")
    assert [q.text for q in model.prompts.items(None)] == ["one", "two"]
    assert model.starting_new and model.new_session_status() == "starting a new session…"
    assert [what for what, _ in controller.jobs] == ["new session"]
    assert await controller.run_jobs() == []
    assert not model.starting_new and controller.made == 1


async def test_a_message_waits_for_a_session_reopened_at_start() -> None:
    model, controller, _ = make(reopening_at_start=True)
    model.send("for the reopened one")
    assert model.prompts.has(None) and controller.jobs == []


def test_a_message_while_the_agent_is_down_waits_and_says_how_it_goes_out() -> None:
    model, controller, view = make()
    live(model, controller, "a")
    model.session_id = "a"
    model.agent_alive = False
    controller.finished.done = True
    model.send("while down")
    assert [q.text for q in model.prompts.items("a")] == ["while down"]
    assert controller.calls == []
    message, severity = view.toasts[-1]
    assert severity == "warning" and "Ctrl+R has restarted it" in message


def test_a_message_sent_while_editing_a_queued_one_saves_the_edit() -> None:
    model, controller, _ = make()
    live(model, controller, "a")
    model.session_id = "a"
    item = model.prompts.add("a", "draft one")
    model.edit_queued(item.queue_id, "")
    model.send("final one")
    assert [q.text for q in model.prompts.items("a")] == ["final one"]
    assert controller.calls == [("edit_saved", "a")]


def test_a_message_goes_to_the_session_it_was_typed_in() -> None:
    model, controller, _ = make()
    live(model, controller, "a")
    live(model, controller, "b")
    model.session_id = "b"
    assert model.send_target("a") == "a"
    assert model.send_target("b") is None and model.send_target(None) is None
    assert model.send_target("unknown") is None
    model.unopenable.add("a")
    assert model.send_target("a") is None


# ---------------------------------------------------------------------------- cancel


async def test_escape_cancels_the_turn_and_then_the_agents_questions() -> None:
    model, controller, _ = make()
    live(model, controller, "a")
    model.session_id = "a"
    assert not model.can_cancel(busy=False) and model.cancel(busy=False) is None
    controller.busy.add("a")
    assert model.cancel(busy=True) == "turn"
    assert controller.calls == [("permissions", "a"), ("begin_cancel", "a")]
    await controller.run_jobs()
    assert controller.calls[2:] == [("cancel", "a"), ("questions", "a")]
    assert model.activity_status(model.store.get("a")) == ""  # the turn had ended


async def test_cancelling_a_session_with_no_turn_answers_its_questions_only() -> None:
    """A form of a session whose turn has ended (or never ran): Escape answers its questions
    ``cancel`` at once and sends no session/cancel."""
    model, controller, _ = make()
    live(model, controller, "a")
    model.cancel_turn_of("a")
    assert controller.calls == [("permissions", "a"), ("questions", "a")]
    assert not controller.jobs and not controller.is_cancelling("a")


def test_escape_while_editing_a_queued_message_abandons_the_edit() -> None:
    model, controller, _ = make()
    live(model, controller, "a")
    model.session_id = "a"
    item = model.prompts.add("a", "as it was")
    model.edit_queued(item.queue_id, "")
    assert model.can_cancel(busy=False)
    assert model.cancel(busy=True) == "edit"
    assert [(q.text, q.editing) for q in model.prompts.items("a")] == [("as it was", False)]
    assert controller.calls == [("flush", "a")]


# ---------------------------------------------------------------------------- new session


async def test_a_new_session_that_fails_says_why_and_keeps_the_choices() -> None:
    model, controller, view = make()
    model.new_choices.mode = "plan"
    model.new_choices.config = {"effort": "high"}
    controller.new_error = SessionError("no quota left")
    model.send("waits")
    errors = await controller.run_jobs()
    assert len(errors) == 1 and not model.starting_new
    assert model.new_choices.mode == "plan" and model.new_choices.config == {"effort": "high"}
    assert model.status() == (
        "The agent did not start a session: no quota left. "
        "Your messages wait: send another or edit one to try again."
    )
    assert view.status_drawn == 1
    # Tried again: the choices go with it, and the reason is gone meanwhile.
    controller.new_error = None
    model.start_new_session()
    assert model.new_session_status() == "starting a new session…"
    await controller.run_jobs()
    assert controller.calls[-2:] == [
        ("new", {"adopt": True, "sign_in": True}),
        ("choices", "new-1", ("plan", {"effort": "high"}, None)),
    ]


@pytest.mark.parametrize(
    ("close", "delete", "early"),
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
async def test_the_new_session_opens_early_only_where_the_agent_can_close_or_delete_it(
    close: bool, delete: bool, early: bool
) -> None:
    model, controller, _view = make()
    assert controller.agent is not None
    controller.agent.can_close, controller.agent.can_delete = close, delete
    model.new_choices.mode = "plan"
    model.open_early(controller)  # type: ignore[arg-type]
    await controller.run_jobs()
    if not early:
        # Made by the first message, with what was chosen before it.
        assert controller.calls == [] and model.new_choices.mode == "plan"
        return
    assert controller.calls == [
        ("new", {"adopt": True, "sign_in": False}),
        ("choices", "new-1", ("plan", {}, None)),
    ]
    # Once is enough: it is unused, and the view goes to it as the new session.
    model.session_id = None
    model.open_early(controller)  # type: ignore[arg-type]
    assert controller.jobs == []


async def test_no_early_session_while_the_agent_says_a_sign_in_is_needed() -> None:
    model, controller, _view = make()
    assert controller.agent is not None
    controller.agent.can_close = True
    controller.sign_in.needs_sign_in = True
    model.open_early(controller)  # type: ignore[arg-type]
    assert controller.jobs == []  # the first message signs in, then makes the session


async def test_an_early_session_that_fails_is_quiet_and_the_first_message_says_why() -> None:
    model, controller, _view = make()
    assert controller.agent is not None
    controller.agent.can_close = True
    controller.new_error = SessionError("no quota left")
    model.open_early(controller)  # type: ignore[arg-type]
    assert model.status() == "starting a new session…"
    assert await controller.run_jobs() == []  # nothing said: the person asked for nothing
    assert model.status() == "" and not model.starting_new
    model.send("hello")
    errors = await controller.run_jobs()
    assert [str(e) for e in errors] == ["no quota left"]
    assert model.status() == (
        "The agent did not start a session: no quota left. "
        "Your messages wait: send another or edit one to try again."
    )
    assert controller.calls[-1] == ("new", {"adopt": True, "sign_in": True})


async def test_a_message_sent_while_the_early_session_fails_asks_again_at_once() -> None:
    model, controller, _view = make()
    assert controller.agent is not None
    controller.agent.can_delete = True
    controller.new_error = SessionError("sign in first")
    model.open_early(controller)  # type: ignore[arg-type]
    model.send("hello")  # while the early one is on its way: it waits for it
    assert [what for what, _ in controller.jobs] == ["new session"]
    errors = await controller.run_jobs()
    # The early attempt failed quietly, the one for the message (with a sign-in) said why.
    assert [c for c in controller.calls if c[0] == "new"] == [
        ("new", {"adopt": True, "sign_in": False}),
        ("new", {"adopt": True, "sign_in": True}),
    ]
    assert [str(e) for e in errors] == ["sign in first"]
    assert model.prompts.has(None)


async def test_new_session_asked_for_is_made_once_and_shown() -> None:
    model, controller, view = make()
    live(model, controller, "a")
    model.session_id = "a"
    model.new()
    assert view.shown == [None] and model.focus_prompt_on_open
    assert [what for what, _ in controller.jobs] == ["new session"]
    await controller.run_jobs()
    model.session_id = "new-1"
    # On the new session already: said, and the prompt takes the focus.
    model.new()
    assert view.toasts[-1][0] == "This is a new session already." and view.focused == 1
    # From elsewhere, the unused new session is gone back to, not another one made.
    model.session_id = "a"
    model.new()
    assert [what for what, _ in controller.jobs] == ["open session"]
    assert model.explicit_open == "new-1"
    await controller.run_jobs()
    assert controller.made == 1 and controller.calls[-1] == ("open", "new-1")
    # Opened because the person asked: the view goes to it (a draft made meanwhile would not
    # pull the person away, see below).
    assert model.session_opened("new-1") is True


def test_new_session_while_the_agent_is_down() -> None:
    model, controller, view = make()
    model.agent_alive = False
    model.session_id = "a"
    model.new()  # still starting (a restart): the first message makes it
    assert view.shown == [None] and view.toasts == []
    controller.finished.done = True
    model.new()
    assert view.toasts == [("The agent is not running.", "warning")]


def test_a_session_made_for_new_session_does_not_pull_the_person_back() -> None:
    model, controller, _ = make()
    live(model, controller, "elsewhere")
    model.session_id = "elsewhere"
    live(model, controller, "made", prompted=False)
    model.new_session_error = "old news"
    assert model.session_opened("made") is False
    assert model.new_session_error is None
    model.session_id = None
    assert model.session_opened("made") is True


# ---------------------------------------------------------------------------- open


async def test_opening_a_session_the_agent_does_not_have_forgets_it(tmp_path: Path) -> None:
    model, controller, _ = make()
    model.index = LocalIndex(tmp_path / "index.json", "agent")
    live(model, controller, "here")
    model.index.remember("gone", cwd="/p", title="Gone", first_prompt=None)
    model.store.apply_index_records(model.index.sessions())
    controller.open_error = AgentRefused(RESOURCE_NOT_FOUND, "Session not found")
    model.open("gone")
    assert model.explicit_open == "gone" and model.focus_prompt_on_open
    assert len(await controller.run_jobs()) == 1
    assert model.store.get("gone") is None and model.index.get("gone") is None


def test_opening_says_why_it_cannot() -> None:
    model, controller, view = make()
    live(model, controller, "here")
    model.session_id = "here"
    model.open("here")
    assert view.focused == 1 and controller.jobs == []
    assert controller.agent is not None
    controller.agent.can_load = False
    model.open("past")
    assert "Fake agent cannot reopen past sessions" in view.toasts[-1][0]
    model.agent_alive = False
    model.open("past")
    assert view.toasts[-1] == ("The agent is not running: press Ctrl+R to restart it.", "warning")
    assert controller.jobs == []


# ---------------------------------------------------------------------------- clocks


def test_the_status_line_reads_the_turns_clock_and_how_it_ended() -> None:
    model, controller, _ = make()
    clock = model.clock
    assert isinstance(clock, Clock)
    live(model, controller, "a")
    model.session_id = "a"
    model.store.prompt_sent("a", "go")
    state = model.store.get("a")
    assert state is not None
    model.note_turns("a", state)
    clock.now += 75
    model.note_turns("a", state)  # the same turn: its start stays
    assert model.status() == "● working… 1 min 15 s (Esc to cancel)"
    controller.cancelling.add("a")
    assert model.status() == "cancelling…"
    model.store.prompt_finished("a", {"stopReason": "max_tokens"})
    model.note_turns("a", state)
    assert model.turn_started == {} and model.status() == "stopped: max_tokens"


def test_an_agent_that_keeps_exiting_is_restarted_ever_more_slowly() -> None:
    model, _, _ = make()
    clock = model.clock
    assert isinstance(clock, Clock)
    delays = [model.restart_delay() for _ in range(6)]
    assert delays == [*RESTART_BACKOFF, RESTART_BACKOFF[-1]]
    clock.now += 121
    assert model.restart_delay() == 0.0


def test_a_restart_reopens_the_session_on_screen_unless_it_never_had_a_prompt() -> None:
    model, controller, view = make()
    live(model, controller, "talked")
    model.session_id = "talked"
    assert model.reopen_target() == "talked"
    live(model, controller, "unused", prompted=False)
    model.session_id = "unused"
    model.prompts.add("unused", "waits")
    assert model.reopen_target() is None
    assert view.shown == [None] and model.prompts.items(None)[0].text == "waits"
    model.session_id = "talked"
    model.unopenable.add("talked")
    assert model.reopen_target() is None
