"""The spend summary as lines of text: one layout for the TUI's Spend view and for
``acp-tui spend``. Every amount is of one currency (``$1.20 · €0.40``, never a sum of
both); an agent that reports no cost is "not reported", never zero."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence

from acp_tui.session.spend.budgets import BudgetState
from acp_tui.store.spend_ledger import SpendTotal
from acp_tui.store.spend_summary import SpendSummary
from acp_tui.text.usage import format_cost

__all__ = ["NOT_REPORTED", "amounts_text", "budget_lines", "spend_lines", "tilde"]

NOT_REPORTED = "not reported"
NOTHING = "nothing spent"


def tilde(path: str) -> str:
    """``path`` with the home directory shown as ``~``."""
    home = os.path.expanduser("~").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def amounts_text(totals: Sequence[SpendTotal]) -> str:
    """``$1.20 · €0.40``: one amount per currency, in the ledger's order."""
    return " · ".join(format_cost(t.amount, t.currency) for t in totals) or NOTHING


def _grouped(totals: Sequence[SpendTotal]) -> list[tuple[str, list[SpendTotal]]]:
    groups: dict[str, list[SpendTotal]] = {}
    for total in totals:
        groups.setdefault(total.key, []).append(total)
    return sorted(groups.items(), key=lambda item: item[0].casefold())


def spend_lines(summary: SpendSummary) -> list[str]:
    """The periods, each with its total, per agent and per project; then the agents that
    report no cost."""
    lines: list[str] = []
    for period in summary.periods:
        since = dt.datetime.fromtimestamp(period.since).strftime("%a %d %b")
        lines.append(f"{period.title} (since {since}): {amounts_text(period.total)}")
        if period.agents:
            lines.append("  by agent")
            for key, totals in _grouped(period.agents):
                lines.append(f"    {key}: {amounts_text(totals)}")
        if period.projects:
            lines.append("  by project")
            for key, totals in _grouped(period.projects):
                lines.append(f"    {tilde(key) or '(no folder)'}: {amounts_text(totals)}")
        lines.append("")
    for label in summary.not_reported:
        lines.append(f"{label}: cost {NOT_REPORTED}")
    if summary.note:
        lines.append(summary.note)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def budget_lines(states: Sequence[BudgetState]) -> list[str]:
    """One line per budget: what is spent of it, and whether it asks or refuses."""
    lines = []
    for state in states:
        mark = {"over": "✗", "warn": "▲"}.get(state.level, "·")
        after = ""
        if state.level == "over":
            after = " · messages refused" if state.budget.hard else " · messages ask first"
        lines.append(f"{mark} {state.budget.name}: {state.figures}{after}")
    return lines
