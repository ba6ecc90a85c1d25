"""How the Spend view looks (issue 43): three periods, per agent and per project, dollars and
euros apart, an agent whose cost is "not reported", and the budgets (one at 80%, one spent and
hard), at 120x40 and at 80x24. A fixed ledger and a fixed day: the same picture every run."""

from __future__ import annotations

import datetime as dt

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.config.budgets import Budget
from acp_tui.session.spend.budgets import Budgets, BudgetState
from acp_tui.store.spend_ledger import CostReport, SpendLedger
from acp_tui.store.spend_summary import SpendSummary, summarize
from acp_tui.ui.screens.spend import SpendScreen
from acp_tui.ui.spend import _shown
from tests.ui.chat_helpers import wait_for

NOW = dt.datetime(2026, 12, 9, 15, 0).timestamp()


def _load() -> tuple[SpendSummary, tuple[BudgetState, ...]]:
    ledger = SpendLedger(None)
    rows = [
        ("config:claude", "claude", "claude", "/srv/shop", 4.2, "USD", NOW),
        ("config:claude", "claude", "claude", "/srv/blog", 1.1, "USD", NOW - 2 * 86400),
        ("k:mistral", "", "Mistral Vibe", "/srv/shop", 0.75, "EUR", NOW),
        ("k:goose", "", "goose", "/srv/blog", None, None, NOW),
    ]
    ledger.record(
        CostReport(at, key, label, name, f"s-{n}", project, amount, currency)
        for n, (key, name, label, project, amount, currency, at) in enumerate(rows)
    )
    budgets = Budgets(
        [Budget("daily", 5, "USD"), Budget("monthly", 0.5, "EUR", agent="Mistral Vibe", hard=True)],
        None,
        clock=lambda: NOW,
    )
    budgets.compute(ledger)
    return summarize(ledger, NOW), budgets.states()


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(SpendScreen(_load, _shown))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_spend_view(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, SpendScreen)
        await wait_for(pilot, lambda: "Budgets" in screen.text, "the numbers")
        assert "goose: cost not reported" in screen.text
        await pilot.pause()

    assert snap_compare(_Host(), terminal_size=size, run_before=run_before)
