"""What the permission broker (:mod:`acp_tui.session.asking.permissions`) and the elicitation queue
(:mod:`acp_tui.session.asking.elicitation_queue`) share: requests that wait their turn, first in, first
out, and are shown one at a time by the *presenter* the UI registers.

A request is shown when no other is on screen, it is the oldest that :attr:`DialogQueue.ready`
lets through (its session is on screen; :meth:`DialogQueue.reconsider` after that changed), and
a presenter is registered. ``position`` counts the current burst ("2 of 3") and
``on_queue_changed(position, total)`` says when it changed. Every answer is echoed through
``on_answered(session_id, text)`` for the transcript. Pure Python + anyio.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

import anyio

log = logging.getLogger(__name__)

AnsweredCallback = Callable[[str, str], None]
QueueCallback = Callable[[int, int], None]


class Pending(Protocol):
    """What the queue needs of a request."""

    _scope: anyio.CancelScope | None

    @property
    def session_id(self) -> str: ...

    @property
    def answered(self) -> bool: ...


PendingT = TypeVar("PendingT", bound=Pending)
AnswerT = TypeVar("AnswerT")


class DialogQueue(Generic[PendingT, AnswerT]):
    """Requests in order, one on screen at a time; subclasses answer them."""

    #: What a failing presenter is logged as.
    kind = "dialog"

    def __init__(
        self,
        *,
        on_answered: AnsweredCallback | None = None,
        on_queue_changed: QueueCallback | None = None,
    ) -> None:
        self.on_answered = on_answered
        self.on_queue_changed = on_queue_changed
        self._presenter: Callable[[PendingT, int, int], Awaitable[AnswerT]] | None = None
        self._queue: list[PendingT] = []
        #: Answered since the queue was last empty: the "k" of "k of n".
        self._burst_done = 0
        #: The request whose dialog is on screen, until it is gone (the next is never shown
        #: before).
        self._shown: PendingT | None = None
        self._wakes: set[anyio.Event] = set()
        #: Whether a request may be shown now (its session is on screen); None: any. Those
        #: that may not wait, in order, until :meth:`reconsider` after the screen changed.
        self.ready: Callable[[PendingT], bool] | None = None

    # -- state --

    @property
    def pending(self) -> list[PendingT]:
        """Requests waiting for a person, the one on screen first."""
        return list(self._queue)

    @property
    def shown(self) -> PendingT | None:
        return self._shown

    @property
    def position(self) -> tuple[int, int]:
        """``(k, n)`` for the request at the head of the queue: "k of n"; ``(0, 0)`` if none."""
        if not self._queue:
            return (0, 0)
        return (self._burst_done + 1, self._burst_done + len(self._queue))

    def reconsider(self) -> None:
        """What :attr:`ready` says may have changed (another session is on screen): the first
        request that may be shown now is."""
        self._wake_all()

    def next_to_show(self) -> PendingT | None:
        """The oldest request that may be shown now."""
        ready = self.ready
        for pending in self._queue:
            if ready is None or ready(pending):
                return pending
        return None

    # -- waiting and showing --

    async def _wait_for_answer(self, pending: PendingT) -> None:
        """Queue ``pending`` and show it in its turn until it is answered; the caller answers
        it (from :meth:`_answer_shown` and, when cancelled, on its way out) and removes it."""
        self._queue.append(pending)
        self._queue_changed()
        while not pending.answered:
            presenter = self._presenter
            if presenter is not None and self._shown is None and self.next_to_show() is pending:
                self._shown = pending
                answer: AnswerT | None = None
                try:
                    with anyio.CancelScope() as scope:
                        pending._scope = scope
                        try:
                            answer = await presenter(pending, *self.position)
                        except Exception:
                            log.exception("%s presenter failed; answering cancel", self.kind)
                finally:
                    pending._scope = None
                    self._wake_all()
                self._answer_shown(pending, answer)
            else:
                wake = anyio.Event()
                self._wakes.add(wake)
                try:
                    await wake.wait()
                finally:
                    self._wakes.discard(wake)

    def _answer_shown(self, pending: PendingT, answer: AnswerT | None) -> None:
        """What the presenter returned (``None`` also when it failed or was cancelled)."""
        raise NotImplementedError

    def _still_on_screen(self, pending: PendingT) -> bool:
        """Whether the dialog of ``pending`` is still up: by default while it is presented."""
        return pending._scope is not None

    # -- internals --

    def _echo(self, session_id: str, text: str) -> None:
        if self.on_answered is None:
            return
        try:
            self.on_answered(session_id, text)
        except Exception:
            log.exception("on_answered callback failed")

    def _remove(self, pending: PendingT) -> None:
        if pending not in self._queue:
            return
        was_head = self._queue[0] is pending
        self._queue.remove(pending)
        if was_head:
            self._burst_done += 1
        if not self._queue:
            self._burst_done = 0
        self._queue_changed()
        self._wake_all()

    def _wake_all(self) -> None:
        shown = self._shown
        if shown is not None and not self._still_on_screen(shown):
            self._shown = None
        for wake in tuple(self._wakes):
            wake.set()

    def _queue_changed(self) -> None:
        if self.on_queue_changed is None:
            return
        position, total = self.position
        try:
            self.on_queue_changed(position, total)
        except Exception:
            log.exception("on_queue_changed callback failed")
