"""Review before the write lands: ``fs/write_text_file`` shown as hunks, each kept or rejected.

With review on for a session (``review_writes = "ask"``), a write the agent asks the client
to make is not made at once: its change against the file on disk
(:class:`~acp_tui.services.hunks.FileChange`) waits in :class:`WriteReviews`, a
:class:`~acp_tui.session.asking.dialog_queue.DialogQueue` like the permission requests (one
review on screen at a time, "k of n"), for the person to keep or reject each hunk. Exactly
what was kept is written, and the agent is told the file's real state (:func:`verdict`):

- every hunk kept: the write succeeds (``{}``), as without review;
- none kept: the file is untouched and the agent gets :data:`REJECTED_CODE` with
  ``"The user rejected this write: PATH was not changed."``;
- some kept: the kept hunks are written and the agent gets :data:`REJECTED_CODE` with
  ``"The user kept hunks 1, 3 and rejected hunks 2 of 3 of this write to PATH; the file now
  differs from what you sent. The file on disk compared with your text (--- what you sent,
  +++ the file now):"`` and that unified diff, so that it does not go on believing its
  version landed.

Without a presenter (headless ``ask``), nobody can review: :attr:`WriteReviews.fallback`
decides at once (``"allow"``: all kept, ``"deny"``: none) and ``on_answered`` says so.
Cancelling the turn rejects the reviews still waiting (:meth:`WriteReviews.cancel_session`).
Pure Python + anyio.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from acp_tui.services.errors import ServiceError
from acp_tui.services.hunks import FileChange
from acp_tui.session.asking.dialog_queue import AnsweredCallback, DialogQueue, QueueCallback

__all__ = [
    "REJECTED_CODE",
    "PendingWrite",
    "ReviewMode",
    "WriteReviews",
    "verdict",
]

ReviewMode = Literal["ask", "auto"]
#: The code of the error a write the person rejected (wholly or in part) answers with: the
#: client refused the operation, as for a path outside the roots (see services/errors.py).
REJECTED_CODE = -32003


@dataclass(eq=False, slots=True)
class PendingWrite:
    """One write waiting for its review: the absolute path, how the person reads it, and the
    change from the file on disk to what the agent sent."""

    session_id: str
    path: str
    display: str
    change: FileChange
    #: The hunks kept, once reviewed (None: not yet).
    kept: frozenset[int] | None = None
    #: Whether the person edited the new text (then :attr:`change` is the edited one).
    edited: bool = False
    _scope: anyio.CancelScope | None = None
    _done: anyio.Event = field(default_factory=anyio.Event)

    @property
    def answered(self) -> bool:
        return self.kept is not None


def _numbers(indices: list[int]) -> str:
    return ", ".join(str(index + 1) for index in indices)


def verdict(pending: PendingWrite, sent: str) -> ServiceError | None:
    """What the agent is told of a reviewed write (None: it landed as sent)."""
    change = pending.change
    kept = sorted(pending.kept or ())
    total = len(change.hunks)
    now = change.apply(kept)
    if now == sent:
        return None
    data: dict[str, Any] = {"path": pending.path, "keptHunks": [i + 1 for i in kept]}
    if not kept:
        return ServiceError(
            REJECTED_CODE, f"The user rejected this write: {pending.path} was not changed.", data
        )
    rejected = [index for index in range(total) if index not in kept]
    difference = FileChange.compute(sent, now).unified(pending.path.lstrip("/"))
    if pending.edited:
        done = f"The user edited this write to {pending.path} before it landed"
        if rejected:
            done += f" and rejected hunks {_numbers(rejected)} of {total} of the edited text"
        data["edited"] = True
    else:
        done = (
            f"The user kept hunks {_numbers(kept)} and rejected hunks {_numbers(rejected)} "
            f"of {total} of this write to {pending.path}"
        )
    message = (
        f"{done}; the file now differs from what you sent. The file on disk compared with "
        f"your text (--- what you sent, +++ the file now):\n{difference}"
    )
    data["rejectedHunks"] = [i + 1 for i in rejected]
    return ServiceError(REJECTED_CODE, message, data)


class WriteReviews(DialogQueue[PendingWrite, frozenset[int] | None]):
    """The writes waiting for review, one on screen at a time; which sessions review."""

    kind = "write review"

    def __init__(
        self,
        mode: ReviewMode = "auto",
        *,
        fallback: Literal["allow", "deny"] = "deny",
        on_answered: AnsweredCallback | None = None,
        on_queue_changed: QueueCallback | None = None,
    ) -> None:
        super().__init__(on_answered=on_answered, on_queue_changed=on_queue_changed)
        #: Whether writes are reviewed, unless a session says otherwise.
        self.mode: ReviewMode = mode
        self._modes: dict[str, ReviewMode] = {}
        #: What a write is when nobody can review it (no presenter: headless).
        self.fallback = fallback

    # -- which sessions review --

    def mode_of(self, session_id: str | None) -> ReviewMode:
        if session_id is None:
            return self.mode
        return self._modes.get(session_id, self.mode)

    def set_mode(self, session_id: str, mode: ReviewMode) -> None:
        self._modes[session_id] = mode

    def reviews(self, session_id: str | None) -> bool:
        return self.mode_of(session_id) == "ask"

    def set_presenter(self, presenter: Any) -> None:
        self._presenter = presenter
        self._wake_all()

    # -- reviewing --

    async def review(self, pending: PendingWrite) -> frozenset[int]:
        """The hunks of ``pending`` to write, once the person chose (or the fallback did)."""
        if self._presenter is None:
            everything = self.fallback == "allow"
            text = (
                f"Wrote {pending.display} unreviewed (--allow)"
                if everything
                else f"Rejected the write of {pending.display}: writes are reviewed "
                '(review_writes = "ask") and nobody can review here (--allow writes them)'
            )
            self._finish(pending, pending.change.all_hunks() if everything else frozenset(), text)
            return pending.kept or frozenset()
        try:
            await self._wait_for_answer(pending)
        finally:
            if not pending.answered:  # our own task was cancelled (the connection closed)
                self._finish(pending, frozenset(), f"Write not reviewed: {pending.display}")
            self._remove(pending)
        return pending.kept or frozenset()

    def _answer_shown(self, pending: PendingWrite, answer: frozenset[int] | None) -> None:
        if pending.answered:
            return
        kept = answer if answer is not None else frozenset()
        total = len(pending.change.hunks)
        if answer is None:
            text = f"Write rejected (review closed): {pending.display}"
        elif not kept:
            text = f"Write rejected: {pending.display}"
        elif len(kept) == total:
            text = f"Write kept: {pending.display}"
        else:
            text = f"Write kept in part ({len(kept)} of {total} hunks): {pending.display}"
        self._finish(pending, kept, text)

    # -- cancellation --

    def cancel_session(self, session_id: str) -> int:
        """Reject every write of ``session_id`` still waiting (the turn was cancelled)."""
        return self._cancel([p for p in self._queue if p.session_id == session_id])

    def cancel_all(self) -> int:
        return self._cancel(list(self._queue))

    def _cancel(self, victims: list[PendingWrite]) -> int:
        count = 0
        for pending in victims:
            if not pending.answered:
                self._finish(pending, frozenset(), f"Write rejected (cancelled): {pending.display}")
                count += 1
        return count

    def _finish(self, pending: PendingWrite, kept: frozenset[int], echo: str) -> None:
        if pending.answered:
            return
        pending.kept = kept
        pending._done.set()
        if pending._scope is not None:
            pending._scope.cancel()  # closes the review on screen
        if pending in self._queue:
            self._remove(pending)
        self._wake_all()
        self._echo(pending.session_id, echo)
