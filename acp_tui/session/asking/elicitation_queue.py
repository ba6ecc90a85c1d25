"""The elicitation queue: requests shown one at a time, answered, cancelled, completed.

A :class:`~acp_tui.session.asking.dialog_queue.DialogQueue`, like the permission broker
(:mod:`acp_tui.session.asking.permissions`): each ``elicitation/create`` waits its
turn (first in, first out) and is shown by the *presenter* the UI registers::

    async def present(pending: PendingElicitation, position: int, total: int) -> dict | None

which returns the answer (``{"action": ...}``; ``None`` counts as ``cancel``). A url request
answered ``accept`` stays on screen, waiting for ``elicitation/complete``
(:meth:`ElicitationQueue.complete`), or until the person closes it; the next request is shown
only once the dialog has closed (:meth:`PendingElicitation.mark_closed`).

:meth:`ElicitationQueue.cancel_session` answers ``cancel`` to every open request of a session
(the turn was cancelled) and closes its dialogs. Without a presenter no mode is offered
(:attr:`ElicitationQueue.modes` is empty, so nothing is advertised). Every answer is echoed
through ``on_answered(session_id, text)`` for the transcript. Pure Python + anyio.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from acp_tui.session.asking.dialog_queue import AnsweredCallback, DialogQueue, QueueCallback
from acp_tui.session.asking.elicitation import (
    ACCEPT,
    CANCEL,
    DECLINE,
    FORM,
    URL,
    ElicitationRequest,
    answer,
    parse_request,
)
from acp_tui.text.safety import one_line

log = logging.getLogger(__name__)

Presenter = Callable[["PendingElicitation", int, int], Awaitable[dict[str, Any] | None]]

ECHO_LIMIT = 200


class PendingElicitation:
    """One request: its answer once given, and whether its dialog should close / has closed."""

    def __init__(self, request: ElicitationRequest, wake: Callable[[], None]) -> None:
        self.request = request
        self.result: dict[str, Any] | None = None
        self.completed = False
        #: Set when the dialog should go (answered form, completed url, cancelled).
        self.finished = anyio.Event()
        #: Set by the dialog once it is gone (or was never shown).
        self.closed = anyio.Event()
        self._answered = anyio.Event()
        self._wake = wake
        self._scope: anyio.CancelScope | None = None

    @property
    def session_id(self) -> str:
        return self.request.session_id or ""

    @property
    def answered(self) -> bool:
        return self.result is not None

    @property
    def waiting_for_completion(self) -> bool:
        """A url request the person accepted: the page is theirs to finish."""
        return self.request.mode == URL and self.result is not None and not self.finished.is_set()

    def set_result(self, result: dict[str, Any]) -> bool:
        if self.result is not None:
            return False
        self.result = result
        self._answered.set()
        if not (self.request.mode == URL and result.get("action") == ACCEPT):
            self.finish()
        return True

    def finish(self) -> None:
        """The dialog should close (its presenter, if still running, is cancelled)."""
        self.finished.set()
        if self._scope is not None:
            self._scope.cancel()
        self._wake()

    def mark_closed(self) -> None:
        """The dialog is gone (answered, or the person closed a url request's waiting view):
        the next request may be shown. The presenter is left to return its answer."""
        self.closed.set()
        self.finished.set()
        self._wake()


class ElicitationQueue(DialogQueue[PendingElicitation, dict[str, Any] | None]):
    """Queues elicitation requests and shows them one at a time."""

    kind = "elicitation"

    def __init__(
        self,
        *,
        on_answered: AnsweredCallback | None = None,
        on_queue_changed: QueueCallback | None = None,
    ) -> None:
        super().__init__(on_answered=on_answered, on_queue_changed=on_queue_changed)
        self.modes: frozenset[str] = frozenset()

    def set_presenter(
        self, presenter: Presenter | None, modes: frozenset[str] = frozenset({FORM, URL})
    ) -> None:
        """Register the coroutine that shows a request and the modes it can show."""
        self._presenter = presenter
        self.modes = modes if presenter is not None else frozenset()
        self._wake_all()

    # -- the entry point --

    async def request(self, params: Any) -> dict[str, Any]:
        """Answer one ``elicitation/create``; raises ElicitationError when it cannot be shown."""
        request = parse_request(params, self.modes)
        pending = PendingElicitation(request, self._wake_all)
        try:
            await self._wait_for_answer(pending)
        finally:
            # Our task was cancelled ($/cancel_request, the turn cancelled, the agent gone).
            self._finish(pending, answer(CANCEL))
            self._remove(pending)
        assert pending.result is not None
        return pending.result

    def _answer_shown(self, pending: PendingElicitation, result: dict[str, Any] | None) -> None:
        self._finish(pending, result if isinstance(result, dict) else answer(CANCEL))

    def _still_on_screen(self, pending: PendingElicitation) -> bool:
        # A url request the person agreed to stays up, waiting for elicitation/complete.
        return not pending.finished.is_set()

    # -- the agent and the person --

    def complete(self, elicitation_id: Any) -> bool:
        """``elicitation/complete``: close the url request with that id (an open one is
        answered ``cancel``: the person never chose). False when no request has that id."""
        for pending in [*self._queue, *([self._shown] if self._shown else [])]:
            if pending.request.elicitation_id == elicitation_id and not pending.finished.is_set():
                pending.completed = True
                was_answered = pending.answered
                self._finish(pending, answer(CANCEL))
                pending.finish()
                if was_answered and pending.session_id:
                    self._echo(pending.session_id, f"Done (the agent says): {_label(pending)}")
                return True
        return False

    def cancel_session(self, session_id: str) -> int:
        """Answer ``cancel`` to the open requests of ``session_id`` and close their dialogs
        (the turn was cancelled or ended). Returns how many there were."""
        return self._cancel([p for p in self._all() if p.session_id == session_id])

    def cancel_all(self) -> int:
        """Everything open is cancelled (the agent is gone)."""
        return self._cancel(self._all())

    def _all(self) -> list[PendingElicitation]:
        found = list(self._queue)
        if self._shown is not None and self._shown not in found:
            found.append(self._shown)
        return found

    def _cancel(self, victims: list[PendingElicitation]) -> int:
        count = 0
        for pending in victims:
            if pending.finished.is_set():
                continue
            self._finish(pending, answer(CANCEL))
            pending.finish()
            count += 1
        return count

    # -- internals --

    def _finish(self, pending: PendingElicitation, result: dict[str, Any]) -> None:
        if not pending.set_result(result):
            return
        if pending in self._queue:
            self._remove(pending)
        session_id = pending.session_id
        if session_id:
            self._echo(session_id, _echo_text(pending, result))


def _label(pending: PendingElicitation) -> str:
    return one_line(pending.request.label, ECHO_LIMIT)


def _echo_text(pending: PendingElicitation, result: dict[str, Any]) -> str:
    action = result.get("action")
    label = _label(pending)
    if pending.request.mode == URL:
        if action == ACCEPT:
            return f"Agreed to visit: {label}"
        if pending.completed:
            return f"Closed (the agent reported it done): {label}"
    verbs = {ACCEPT: "Answered", DECLINE: "Declined", CANCEL: "Cancelled"}
    return f"{verbs.get(str(action), 'Answered')}: {label}"
