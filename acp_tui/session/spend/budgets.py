"""The budgets of the config against the spend ledger: how much of each is spent, what a
message sent now is under, and which thresholds were just crossed.

The sums are made on the ledger writer's thread after each write (:meth:`Budgets.compute`,
an ``after_write`` listener), never on the thread that draws the screen; the faces read the
last sums. A sum made before the current day or month began counts as nothing spent (a new
period), until the next write sums again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from acp_tui.config.budgets import Budget
from acp_tui.store.spend_ledger import SpendLedger
from acp_tui.store.spend_summary import period_start
from acp_tui.store.spend_writer import SpendWriter
from acp_tui.text.usage import format_cost

__all__ = ["WARN_AT", "BudgetState", "Budgets", "Verdict"]

#: The share of a budget at which the status line warns.
WARN_AT = 0.8


@dataclass(frozen=True, slots=True)
class BudgetState:
    """One budget and what was spent under it since ``since`` (its period's start)."""

    budget: Budget
    spent: float
    since: float

    @property
    def fraction(self) -> float:
        return self.spent / self.budget.amount

    @property
    def level(self) -> str:
        """``over`` (100% or more), ``warn`` (80% or more) or ``ok``."""
        if self.fraction >= 1.0:
            return "over"
        return "warn" if self.fraction >= WARN_AT else "ok"

    @property
    def figures(self) -> str:
        """``4.20 of 5.00 USD spent (84%)``, in the currency's own notation."""
        currency = self.budget.currency
        spent = format_cost(self.spent, currency)
        limit = format_cost(self.budget.amount, currency)
        return f"{spent} of {limit} spent ({int(self.fraction * 100)}%)"

    @property
    def short(self) -> str:
        """The status line's words: ``daily budget: 84% · $4.20 of $5.00``."""
        currency = self.budget.currency
        spent = format_cost(self.spent, currency)
        limit = format_cost(self.budget.amount, currency)
        if self.level == "over":
            return f"over the {self.budget.name}: {spent} of {limit}"
        return f"{self.budget.name}: {int(self.fraction * 100)}% · {spent} of {limit}"

    @property
    def warning(self) -> str:
        """One line for the status bar and the notification."""
        if self.level == "over":
            return f"over the {self.budget.name}: {self.figures}"
        return f"{self.budget.name}: {self.figures}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a message sent now is under: ``refuse`` (a hard budget is spent) or ``ask``."""

    action: str
    state: BudgetState

    @property
    def question(self) -> str:
        """``over the daily budget: send anyway?``"""
        return f"over the {self.state.budget.name}: send anyway?"

    @property
    def refusal(self) -> str:
        return (
            f"Not sent: over the {self.state.budget.name} ({self.state.figures}; "
            "hard = true in the config)"
        )


class Budgets:
    """The budgets, summed against the ledger that ``writer`` writes (None: nothing is
    recorded, so nothing is spent)."""

    def __init__(
        self,
        budgets: Sequence[Budget],
        writer: SpendWriter | None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.budgets = tuple(budgets)
        self.writer = writer
        self.clock = clock
        self._states: tuple[BudgetState, ...] = ()
        #: The currencies each agent has reported in (by name and label, case-folded).
        self._currencies: dict[str, frozenset[str]] = {}
        #: (budget index, period start, level) already announced.
        self._announced: set[tuple[int, float, str]] = set()
        self._listeners: list[tuple[asyncio.AbstractEventLoop | None, Callable[[], None]]] = []
        if writer is not None and self.budgets:
            writer.after_write.append(self.compute)
            writer.refresh()

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after each new sum: on the event loop running now (if any),
        else on the writer's thread. Returns the way to unsubscribe."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        entry = (loop, listener)
        self._listeners.append(entry)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(entry)

        return unsubscribe

    def compute(self, ledger: SpendLedger) -> None:
        """Sum every budget from the ledger (on the writer's thread; or at once, headless)."""
        now = self.clock()
        states = []
        for budget in self.budgets:
            since = period_start(budget.period, now)
            spent = ledger.total(
                budget.currency,
                since,
                agents=(budget.agent,) if budget.agent else (),
                project=budget.project,
            )
            states.append(BudgetState(budget, spent, since))
        self._states = tuple(states)
        self._currencies = ledger.currencies()
        for loop, listener in list(self._listeners):
            if loop is None:
                listener()
            elif not loop.is_closed():
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(listener)

    def states(self) -> tuple[BudgetState, ...]:
        """Every budget as last summed; one summed in an earlier period has nothing spent."""
        now = self.clock()
        states = []
        stale = False
        for state in self._states:
            since = period_start(state.budget.period, now)
            if state.since != since:
                state = BudgetState(state.budget, 0.0, since)
                stale = True
            states.append(state)
        if stale and self.writer is not None:
            self.writer.refresh()
        return tuple(states)

    def under(self, agent_names: Sequence[str], project: str | None) -> list[BudgetState]:
        """The budgets a message to that agent in that project is sent under: those that
        apply to it, less those in a currency it has never reported a cost in while it has
        in another (a EUR agent is not held by a USD budget; an agent not heard from yet is
        held by all)."""
        reported: set[str] = set()
        for name in agent_names:
            reported |= self._currencies.get(name.casefold(), frozenset())
        return [
            s
            for s in self.states()
            if s.budget.applies(agent_names, project)
            and (not reported or s.budget.currency in reported)
        ]

    def verdict(self, agent_names: Sequence[str], project: str | None) -> Verdict | None:
        """What to do before sending a message (None: send it)."""
        over = [s for s in self.under(agent_names, project) if s.level == "over"]
        if not over:
            return None
        hard = [s for s in over if s.budget.hard]
        return Verdict("refuse", hard[0]) if hard else Verdict("ask", over[0])

    def warnings(self, agent_names: Sequence[str], project: str | None) -> list[BudgetState]:
        """The budgets at 80% or more a message there is sent under, the fullest first."""
        found = [s for s in self.under(agent_names, project) if s.level != "ok"]
        return sorted(found, key=lambda s: s.fraction, reverse=True)

    def crossings(self) -> list[BudgetState]:
        """The budgets that reached 80% or 100% since the last call (each level once per
        period), to notify."""
        found = []
        for index, state in enumerate(self.states()):
            if state.level == "ok":
                continue
            mark = (index, state.since, state.level)
            if mark not in self._announced:
                self._announced.add(mark)
                found.append(state)
        return found
