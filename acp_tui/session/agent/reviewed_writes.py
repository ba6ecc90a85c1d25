"""``fs/write_text_file`` through the review (:mod:`acp_tui.session.asking.write_reviews`).

:class:`ReviewedWrites` stands in front of the write that records checkpoints
(:meth:`acp_tui.session.agent.checkpointing.TurnCheckpoints.write_text_file`): for a session
that reviews, it reads the file on disk, shows the change hunk by hunk, writes exactly the
hunks kept through that same write (so a reviewed write is checkpointed and undone like any
other, and passes the same path gate) and answers the agent with the file's real state.

A write that is not reviewed goes straight through: review off, a path outside the session's
roots (the path gate asks about it first), a file that is not text (bytes not UTF-8: shown
whole by nothing here), or a write that changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio.to_thread

from acp_tui.services.checkpoints.files import Refused, read_current
from acp_tui.services.hunks import FileChange, decode_text
from acp_tui.session.asking.write_reviews import PendingWrite, WriteReviews, verdict

__all__ = ["ReviewedWrites"]

log = logging.getLogger(__name__)

Write = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ReviewedWrites:
    """The write of every session, reviewed where the session says so."""

    def __init__(
        self,
        reviews: WriteReviews,
        write: Write,
        roots: Callable[[str], tuple[Path, ...]],
    ) -> None:
        self.reviews = reviews
        self.write = write
        self.roots = roots

    async def write_text_file(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        raw = params.get("path")
        content = params.get("content")
        if (
            not isinstance(session_id, str)
            or not self.reviews.reviews(session_id)
            or not isinstance(raw, str)
            or not raw.startswith("/")
            or not isinstance(content, str)
        ):
            return await self.write(params)
        roots = self.roots(session_id)
        try:
            before = await anyio.to_thread.run_sync(read_current, Path(raw), roots)
        except (Refused, ValueError):
            return await self.write(params)  # outside the roots: the gate asks first
        old = decode_text(before) if before is not None else None
        if before is not None and old is None:
            return await self.write(params)  # not text
        change = FileChange.compute(old, content)
        if not change.hunks:
            return await self.write(params)
        pending = PendingWrite(session_id, raw, _display(raw, roots), change)
        kept = await self.reviews.review(pending)
        error = verdict(pending, content)
        if kept:
            written = pending.change.apply(kept)  # the person's edit, if they made one
            await self.write({**params, "content": written if written is not None else ""})
        if error is not None:
            raise error
        return {}


def _display(path: str, roots: tuple[Path, ...]) -> str:
    """``path`` relative to the root it is under (the project's files as the person names them)."""
    target = Path(path)
    for root in roots:
        try:
            return str(target.relative_to(root))
        except ValueError:
            continue
    return path
