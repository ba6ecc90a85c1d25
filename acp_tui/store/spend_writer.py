"""Writes reported costs to the spend ledger from a thread of its own.

Whoever reads the agent's pipe hands over a :class:`~acp_tui.store.spend_ledger.CostReport`
and returns at once (:meth:`SpendWriter.report`); the thread records everything queued since
its last write in one transaction, then calls the ``after_write`` listeners on its thread
(the budgets are summed there, never on the thread that draws the screen). A write that fails
is logged and dropped: the ledger never stops a session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from acp_tui.store.spend_ledger import CostReport, SpendLedger

__all__ = ["SpendWriter"]

log = logging.getLogger(__name__)

#: Seconds the thread waits for more work before it ends (the next report starts it again).
IDLE = 5.0


class SpendWriter:
    """The one writer of the ledger in ``path`` (None: in memory, for tests)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.ledger = SpendLedger(path)
        self._cond = threading.Condition()
        self._reports: list[CostReport] = []
        self._refresh = False
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
        #: Called on the writer's thread after each batch (and each refresh).
        self.after_write: list[Callable[[SpendLedger], None]] = []

    def report(self, report: CostReport) -> None:
        """Queue ``report`` (any thread; returns at once)."""
        self._queue(lambda: self._reports.append(report))

    def refresh(self) -> None:
        """Run the ``after_write`` listeners on the thread, with nothing new to write (a new
        day began, the budgets changed)."""

        def mark() -> None:
            self._refresh = True

        self._queue(mark)

    def _queue(self, add: Callable[[], None]) -> None:
        with self._cond:
            if self._closed:
                return
            add()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="acp-tui spend ledger", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._reports or self._refresh or self._closed):
                    if not self._cond.wait(IDLE) and not (self._reports or self._refresh):
                        self._thread = None
                        return
                if self._closed and not (self._reports or self._refresh):
                    self._cond.notify_all()
                    return
                reports, self._reports = self._reports, []
                self._refresh = False
                self._busy = True
            try:
                if reports:
                    self.ledger.record(reports)
                for listener in list(self.after_write):
                    listener(self.ledger)
            except Exception:
                log.exception("writing the spend ledger")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is written (True) or ``timeout`` seconds pass."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not (self._reports or self._refresh or self._busy), timeout
            )

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued, then stop the thread and close the file."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self.ledger.close()
