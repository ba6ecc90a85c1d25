"""Writes reported costs to the spend ledger from a thread of its own.

Whoever reads the agent's pipe hands over a :class:`~acp_tui.store.spend_ledger.CostReport`
and returns at once (:meth:`SpendWriter.report`); a
:class:`~acp_tui.store.batch_thread.BatchThread` records everything queued since its last
write in one transaction, then calls the ``after_write`` listeners on its thread (the budgets
are summed there, never on the thread that draws the screen). A write that fails is logged and
dropped: the ledger never stops a session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from acp_tui.store.batch_thread import BatchThread
from acp_tui.store.spend_ledger import CostReport, SpendLedger

__all__ = ["SpendWriter"]


class SpendWriter:
    """The one writer of the ledger in ``path`` (None: in memory, for tests)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.ledger = SpendLedger(path)
        #: A report to record, or None: run the listeners with nothing new.
        self._thread: BatchThread[CostReport | None] = BatchThread(
            "acp-tui spend ledger", self._write
        )
        #: Called on the writer's thread after each batch (and each refresh).
        self.after_write: list[Callable[[SpendLedger], None]] = []

    def report(self, report: CostReport) -> None:
        """Queue ``report`` (any thread; returns at once)."""
        self._thread.add(report)

    def refresh(self) -> None:
        """Run the ``after_write`` listeners on the thread, with nothing new to write (a new
        day began, the budgets changed)."""
        self._thread.add(None)

    def _write(self, batch: list[CostReport | None]) -> None:
        reports = [report for report in batch if report is not None]
        if reports:
            self.ledger.record(reports)
        for listener in list(self.after_write):
            listener(self.ledger)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is written (True) or ``timeout`` seconds pass."""
        return self._thread.flush(timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued, then stop the thread and close the file."""
        self._thread.close(timeout)
        self.ledger.close()
