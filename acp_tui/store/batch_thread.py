"""A thread of its own that takes what was queued since its last turn and hands it over as one
batch: the store's writers (search index, spend ledger) use it so that no SQLite work runs on
the thread that draws the screen or reads the agent's pipe, and a burst is one transaction.

The thread starts with the first item and ends after :data:`IDLE` seconds with nothing to do
(the next item starts it again): an app or a test done with a writer leaves no thread behind.
A batch whose handler raises is logged and dropped: a writer never stops a session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["IDLE", "BatchThread"]

log = logging.getLogger(__name__)

#: Seconds the thread waits for more work before it ends.
IDLE = 5.0

T = TypeVar("T")


class BatchThread(Generic[T]):
    """Queues items from any thread; calls ``handle`` with each batch on its own thread."""

    def __init__(self, name: str, handle: Callable[[list[T]], None]) -> None:
        self.name = name
        self._handle = handle
        self._cond = threading.Condition()
        self._items: list[T] = []
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def add(self, item: T, *, instead: bool = False) -> None:
        """Queue ``item`` (returns at once; nothing after :meth:`close`). ``instead``: the
        items queued and not yet handed over are dropped first."""
        with self._cond:
            if self._closed:
                return
            if instead:
                self._items.clear()
            self._items.append(item)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._items or self._closed):
                    if not self._cond.wait(IDLE) and not self._items:
                        self._thread = None
                        return
                if not self._items:  # closed, and everything written
                    self._cond.notify_all()
                    return
                batch, self._items = self._items, []
                self._busy = True
            try:
                self._handle(batch)
            except Exception:
                log.exception("%s: a batch of %d dropped", self.name, len(batch))
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is handled (True) or ``timeout`` seconds pass."""
        with self._cond:
            return self._cond.wait_for(lambda: not (self._items or self._busy), timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Handle what is queued, then stop the thread (waiting at most ``timeout`` s)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
