"""Writes to the search index from a thread of its own, in batches.

The store's feed (:mod:`acp_tui.store.search_feed`) hands over plain rows and returns at
once; a :class:`~acp_tui.store.batch_thread.BatchThread` writes everything queued since its
last write in one transaction, so a burst of a thousand entries is one commit. A write that
fails (a full disk, a broken file) is logged and dropped: the index is a convenience and
never stops a session.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from acp_tui.store.batch_thread import BatchThread
from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow, WriteOp

__all__ = ["SearchWriter"]

#: Empty the index first (queued instead of everything not yet written).
Clear = tuple[Literal["clear"]]


class SearchWriter:
    """The one writer of an index file (``path``; None: in memory, for tests). Readers open
    their own :class:`SearchIndex` on the same file (:meth:`reader`)."""

    def __init__(self, path: Path | None, *, fts: bool | None = None) -> None:
        self.path = path
        self.index = SearchIndex(path, fts=fts)
        self._fts = self.index.fts
        self._thread: BatchThread[WriteOp | Clear] = BatchThread(
            "acp-tui search index", self._write
        )
        #: Batches written (for tests and the benchmark).
        self.batches = 0

    @property
    def note(self) -> str | None:
        return self.index.note

    def reader(self) -> SearchIndex:
        """A connection for searching (an in-memory index has only the writer's)."""
        if self.path is None:
            return self.index
        return SearchIndex(self.path, fts=self._fts)

    # -- what the feed calls (any thread; returns at once) ----------------------------------------
    def put(self, session: SessionRow, entries: Sequence[EntryRow], keep: int | None) -> None:
        self._thread.add(("put", session, entries, keep))

    def forget(self, agent: str, session_id: str) -> None:
        """Remove a session from the index (its rows queued before go first)."""
        self._thread.add(("forget", agent, session_id))

    def clear(self) -> None:
        """Empty the index (before anything queued after this)."""
        self._thread.add(("clear",), instead=True)

    # -- the thread --------------------------------------------------------------------------------
    def _write(self, batch: list[WriteOp | Clear]) -> None:
        ops: list[WriteOp] = []
        for op in batch:
            if op[0] == "clear":
                self.index.clear()  # only ever first: it was queued instead of the rest
            else:
                ops.append(op)
        self.index.write(ops)
        self.batches += 1

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is written (True) or ``timeout`` seconds pass."""
        return self._thread.flush(timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued, then stop the thread and close the file."""
        self._thread.close(timeout)
        self.index.close()
