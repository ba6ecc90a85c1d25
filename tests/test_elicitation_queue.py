"""The elicitation queue: one request on screen at a time, in order; cancelled with its turn;
a url request stays until the agent says it is complete."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from acp_tui.session.asking.elicitation import ACCEPT, CANCEL, DECLINE, ElicitationError, answer
from acp_tui.session.asking.elicitation_queue import ElicitationQueue, PendingElicitation
from tests.waits import until

pytestmark = pytest.mark.anyio


def form_params(session: str = "s1", title: str = "Form") -> dict[str, Any]:
    return {
        "sessionId": session,
        "mode": "form",
        "message": "m",
        "requestedSchema": {"title": title, "properties": {"n": {"type": "string"}}},
    }


def url_params(elicitation_id: str = "e1", session: str = "s1") -> dict[str, Any]:
    return {
        "sessionId": session,
        "mode": "url",
        "message": "visit",
        "url": "https://example.com/x",
        "elicitationId": elicitation_id,
    }


class Screen:
    """A presenter standing in for the dialog: records what it was shown, answers when told."""

    def __init__(self) -> None:
        self.shown: list[tuple[PendingElicitation, int, int]] = []
        self.answers: dict[int, anyio.Event] = {}
        self.results: dict[int, dict[str, Any] | None] = {}
        self.cancelled: list[PendingElicitation] = []

    async def present(self, pending: PendingElicitation, position: int, total: int) -> Any:
        index = len(self.shown)
        self.shown.append((pending, position, total))
        event = self.answers[index] = anyio.Event()
        try:
            await event.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(pending)
            raise
        return self.results[index]

    def answer(self, index: int, result: dict[str, Any] | None) -> None:
        self.results[index] = result
        self.answers[index].set()


async def test_requests_are_shown_one_at_a_time_in_order_and_echoed() -> None:
    echoes: list[tuple[str, str]] = []
    queue = ElicitationQueue(on_answered=lambda sid, text: echoes.append((sid, text)))
    screen = Screen()
    queue.set_presenter(screen.present)
    results: list[dict[str, Any]] = []

    async def ask(params: dict[str, Any]) -> None:
        results.append(await queue.request(params))

    async with anyio.create_task_group() as group:
        group.start_soon(ask, form_params(title="First"))
        await until(lambda: len(screen.shown) == 1, "the first shown")
        group.start_soon(ask, form_params(title="Second"))
        await until(lambda: queue.position == (1, 2), "the second queued")
        await anyio.sleep(0.05)
        assert len(screen.shown) == 1, "the second must wait for the first"
        screen.answer(0, answer(ACCEPT, {"n": "x"}))
        await until(lambda: len(screen.shown) == 2, "the second shown")
        assert screen.shown[1][1:] == (2, 2)
        screen.answer(1, answer(DECLINE))
    assert results == [answer(ACCEPT, {"n": "x"}), answer(DECLINE)]
    assert echoes == [("s1", "Answered: First"), ("s1", "Declined: Second")]


async def test_cancelling_a_session_answers_cancel_and_closes_its_dialog_only() -> None:
    queue = ElicitationQueue()
    screen = Screen()
    queue.set_presenter(screen.present)
    results: dict[str, dict[str, Any]] = {}

    async def ask(name: str, params: dict[str, Any]) -> None:
        results[name] = await queue.request(params)

    async with anyio.create_task_group() as group:
        group.start_soon(ask, "a", form_params("s1"))
        await until(lambda: len(screen.shown) == 1, "shown")
        group.start_soon(ask, "b", form_params("s1"))
        group.start_soon(ask, "c", form_params("s2"))
        await until(lambda: queue.position[1] == 3, "all queued")
        assert queue.cancel_session("s1") == 2
        await until(lambda: len(screen.shown) == 2, "the other session's request shown")
        assert screen.cancelled == [screen.shown[0][0]]
        screen.answer(1, answer(ACCEPT, {"n": "y"}))
    assert results == {"a": answer(CANCEL), "b": answer(CANCEL), "c": answer(ACCEPT, {"n": "y"})}


async def test_a_withdrawn_request_is_answered_cancel_and_its_dialog_closes() -> None:
    """``$/cancel_request`` cancels the handler's task."""
    queue = ElicitationQueue()
    screen = Screen()
    queue.set_presenter(screen.present)
    with anyio.move_on_after(0.3):
        await queue.request(form_params())
    assert len(screen.cancelled) == 1
    assert screen.cancelled[0].result == answer(CANCEL)
    assert queue.pending == [] and queue.shown is None


async def test_an_accepted_url_request_waits_for_complete_before_the_next_is_shown() -> None:
    echoes: list[str] = []
    queue = ElicitationQueue(on_answered=lambda sid, text: echoes.append(text))
    screen = Screen()
    queue.set_presenter(screen.present)
    results: list[dict[str, Any]] = []

    async def ask(params: dict[str, Any]) -> None:
        results.append(await queue.request(params))

    async with anyio.create_task_group() as group:
        group.start_soon(ask, url_params("e1"))
        await until(lambda: len(screen.shown) == 1, "shown")
        group.start_soon(ask, form_params())
        screen.answer(0, answer(ACCEPT))
        await until(lambda: len(results) == 1, "the url request answered")
        pending = screen.shown[0][0]
        assert pending.waiting_for_completion and not pending.finished.is_set()
        await anyio.sleep(0.05)
        assert len(screen.shown) == 1, "the form waits while the page is being visited"
        assert queue.complete("unknown") is False
        assert queue.complete("e1") is True
        assert pending.finished.is_set() and pending.completed
        await until(lambda: len(screen.shown) == 2, "the form shown")
        screen.answer(1, answer(CANCEL))
    assert results[0] == answer(ACCEPT)
    assert echoes[:2] == [
        "Agreed to visit: https://example.com/x",
        "Done (the agent says): https://example.com/x",
    ]


async def test_complete_before_the_person_chose_closes_the_request_as_cancel() -> None:
    queue = ElicitationQueue()
    screen = Screen()
    queue.set_presenter(screen.present)
    results: list[dict[str, Any]] = []

    async def ask() -> None:
        results.append(await queue.request(url_params("e9")))

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        await until(lambda: len(screen.shown) == 1, "shown")
        assert queue.complete("e9") is True
    assert results == [answer(CANCEL)]
    assert screen.cancelled, "the dialog was closed"


async def test_without_a_presenter_no_mode_is_offered_and_requests_are_refused() -> None:
    queue = ElicitationQueue()
    assert queue.modes == frozenset()
    with pytest.raises(ElicitationError):
        await queue.request(form_params())
    queue.set_presenter(Screen().present, frozenset({"form"}))
    with pytest.raises(ElicitationError, match="mode 'url'"):
        await queue.request(url_params())
