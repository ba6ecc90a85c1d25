"""Spend and budgets in the app: the Spend view of the palette, and a notification when a
budget reaches 80% and 100% (each view's warning and its question before a message are its
own: :mod:`acp_tui.ui.screens.chat.budget`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from textual.app import App, SystemCommand

from acp_tui.session.spend.budgets import Budgets, BudgetState
from acp_tui.session.spend.report import budget_lines, spend_lines
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.spend_ledger import SpendLedger
from acp_tui.store.spend_summary import SpendSummary, summarize
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.spend import SpendScreen, SpendText

__all__ = ["SpendFace"]


def _shown(summary: SpendSummary, states: tuple[BudgetState, ...]) -> SpendText:
    lines = spend_lines(summary)
    return lines, list(zip(budget_lines(states), (s.level for s in states), strict=True))


class SpendFace:
    """The app's part of spend and budgets (one for every agent view): ``views()`` are the
    agents' views."""

    def __init__(
        self, app: App[Any], workspace: Workspace, views: Callable[[], Iterable[ChatScreen]]
    ) -> None:
        self.app = app
        self.workspace = workspace
        self.views = views
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def budgets(self) -> Budgets:
        return self.workspace.budgets

    def start(self) -> None:
        """Follow the budgets (on the app's event loop): notify each threshold crossed,
        update every view's warning."""
        if self._unsubscribe is None:
            self._unsubscribe = self.budgets.subscribe(self._changed)
            self._changed()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self) -> None:
        for state in self.budgets.crossings():
            over = state.level == "over"
            after = ""
            if over:
                after = " — messages are refused" if state.budget.hard else " — messages ask first"
            self.app.notify(
                f"{state.warning}{after}",
                title="Budget spent" if over else "Budget at 80%",
                severity="error" if over else "warning",
                markup=False,
            )
        for view in list(self.views()):
            view.budget.show_warning()

    # -- the Spend view ------------------------------------------------------------------------
    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Spend",
            "What the agents reported they cost: today, this week, this month; the budgets",
            self.open,
        )

    def _running_labels(self) -> list[str]:
        return [view.parts.search_label() for view in self.views()]

    def open(self) -> None:
        """Show the Spend view."""
        writer = self.workspace.spend
        running = self._running_labels()
        budgets = self.budgets

        def load() -> tuple[SpendSummary, tuple[BudgetState, ...]]:
            now = time.time()
            if writer is None:
                ledger = SpendLedger(None)
                return summarize(ledger, now, running), budgets.states()
            writer.flush(2.0)
            return summarize(writer.ledger, now, running), budgets.states()

        loop = asyncio.get_running_loop()

        def subscribe(listener: Callable[[], None]) -> Callable[[], None]:
            if writer is None:
                return lambda: None

            def written(_ledger: SpendLedger) -> None:
                # Never waits for the loop: the app may be closing the writer.
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(listener)

            def unsubscribe() -> None:
                with contextlib.suppress(ValueError):
                    writer.after_write.remove(written)

            writer.after_write.append(written)
            return unsubscribe

        self.app.push_screen(SpendScreen(load, _shown, subscribe))
