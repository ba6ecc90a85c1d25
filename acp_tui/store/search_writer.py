"""Writes to the search index from a thread of its own, in batches.

The store's feed (:mod:`acp_tui.store.search_feed`) hands over plain rows and returns at
once: no SQLite work ever runs on the thread that draws the screen or reads the agent's
pipe. The thread takes everything queued since its last write and writes it in one
transaction, so a burst of a thousand entries is one commit.

A write that fails (a full disk, a broken file) is logged and dropped: the index is a
convenience and never stops a session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow, WriteOp

__all__ = ["SearchWriter"]

log = logging.getLogger(__name__)

#: Seconds the thread waits for more work before it ends (the next write starts it again):
#: an app or a test that is done with the index leaves no thread behind.
IDLE = 5.0


class SearchWriter:
    """The one writer of an index file (``path``; None: in memory, for tests). Readers open
    their own :class:`SearchIndex` on the same file (:meth:`reader`)."""

    def __init__(self, path: Path | None, *, fts: bool | None = None) -> None:
        self.path = path
        self.index = SearchIndex(path, fts=fts)
        self._fts = self.index.fts
        self._cond = threading.Condition()
        self._ops: list[WriteOp] = []
        self._clear = False
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
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
        self._queue(lambda: self._ops.append(("put", session, entries, keep)))

    def forget(self, agent: str, session_id: str) -> None:
        """Remove a session from the index (its rows queued before go first)."""
        self._queue(lambda: self._ops.append(("forget", agent, session_id)))

    def clear(self) -> None:
        """Empty the index (before anything queued after this)."""

        def clear() -> None:
            self._ops.clear()
            self._clear = True

        self._queue(clear)

    def _queue(self, add: Callable[[], None]) -> None:
        with self._cond:
            if self._closed:
                return
            add()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="acp-tui search index", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    # -- the thread --------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._ops or self._clear or self._closed):
                    if not self._cond.wait(IDLE) and not (self._ops or self._clear):
                        self._thread = None
                        return
                if self._closed and not (self._ops or self._clear):
                    self._cond.notify_all()
                    return
                ops, self._ops = self._ops, []
                clear, self._clear = self._clear, False
                self._busy = True
            try:
                if clear:
                    self.index.clear()
                self.index.write(ops)
                self.batches += 1
            except Exception:
                log.exception("writing the search index")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is written (True) or ``timeout`` seconds pass."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not (self._ops or self._clear or self._busy),
                timeout,
            )

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued, then stop the thread and close the file."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self.index.close()
