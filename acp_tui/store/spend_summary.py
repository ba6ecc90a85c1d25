"""What was spent today, this week and this month: the spend view's and ``acp-tui spend``'s
numbers, read from the :class:`~acp_tui.store.spend_ledger.SpendLedger`.

Periods start at local midnight: today; this week from Monday; this month from its first
day. Every sum is of one currency.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from acp_tui.store.spend_ledger import SpendLedger, SpendTotal

__all__ = ["PERIODS", "PeriodSpend", "SpendSummary", "period_start", "summarize"]

#: The periods shown, in order, with their names.
PERIODS: tuple[tuple[str, str], ...] = (
    ("today", "Today"),
    ("week", "This week"),
    ("month", "This month"),
)


def period_start(period: str, now: float) -> float:
    """When ``period`` (``today``/``daily``, ``week``, ``month``/``monthly``) began, as
    epoch seconds, in local time."""
    day = dt.datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if period in ("today", "daily"):
        start = day
    elif period == "week":
        start = day - dt.timedelta(days=day.weekday())
    elif period in ("month", "monthly"):
        start = day.replace(day=1)
    else:
        raise ValueError(period)
    return start.timestamp()


@dataclass(frozen=True, slots=True)
class PeriodSpend:
    """One period: totals per currency, per agent and per project (each per currency)."""

    period: str
    title: str
    since: float
    total: tuple[SpendTotal, ...]
    agents: tuple[SpendTotal, ...]
    projects: tuple[SpendTotal, ...]


@dataclass(frozen=True, slots=True)
class SpendSummary:
    """The periods, and the agents that report no cost (shown as "not reported")."""

    periods: tuple[PeriodSpend, ...]
    not_reported: tuple[str, ...] = field(default=())
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        def rows(totals: Iterable[SpendTotal], key: str) -> list[dict[str, object]]:
            return [{key: t.key, "currency": t.currency, "amount": t.amount} for t in totals]

        return {
            "periods": {
                p.period: {
                    "since": dt.datetime.fromtimestamp(p.since).astimezone().isoformat(),
                    "total": [{"currency": t.currency, "amount": t.amount} for t in p.total],
                    "agents": rows(p.agents, "agent"),
                    "projects": rows(p.projects, "project"),
                }
                for p in self.periods
            },
            "notReported": list(self.not_reported),
        }


def summarize(ledger: SpendLedger, now: float, running: Iterable[str] = ()) -> SpendSummary:
    """The summary at ``now``. ``running``: labels of agents running now; one the ledger
    has no cost from is "not reported" too."""
    periods = []
    for period, title in PERIODS:
        since = period_start(period, now)
        periods.append(
            PeriodSpend(
                period,
                title,
                since,
                tuple(ledger.totals(since)),
                tuple(ledger.totals(since, "label")),
                tuple(ledger.totals(since, "project")),
            )
        )
    seen = ledger.agents()
    paying = {a.label for a in seen if a.reports_cost} | {a.agent for a in seen if a.reports_cost}
    silent = {a.label for a in seen if not a.reports_cost}
    silent |= {label for label in running if label not in paying}
    return SpendSummary(tuple(periods), tuple(sorted(silent - paying)), ledger.note)
