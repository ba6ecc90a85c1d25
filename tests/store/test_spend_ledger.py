"""The spend ledger (issue 43): increments of the agents' cumulative costs, per currency,
never negative, history not counted; the periods; the budgets summed against it; the
summary's lines."""

from __future__ import annotations

import datetime as dt
import math
import time
from pathlib import Path

import pytest

from acp_tui.config.budgets import Budget
from acp_tui.session.spend.budgets import Budgets
from acp_tui.session.spend.report import budget_lines, spend_lines
from acp_tui.store.spend_ledger import CostReport, SpendLedger, clean_currency
from acp_tui.store.spend_summary import period_start, summarize
from acp_tui.store.spend_writer import SpendWriter

#: Wednesday 2026-12-09, 15:00 local time.
NOW = dt.datetime(2026, 12, 9, 15, 0).timestamp()
HOUR = 3600.0


def report(
    amount: float | None,
    currency: str | None = "USD",
    *,
    session: str = "s1",
    agent: str = "config:claude",
    name: str = "claude",
    label: str = "Claude",
    project: str = "/home/me/shop",
    at: float = NOW,
    history: bool = False,
    fresh: bool = True,
) -> CostReport:
    return CostReport(
        at=at,
        agent=agent,
        label=label,
        name=name,
        session_id=session,
        project=project,
        amount=amount,
        currency=currency,
        history=history,
        fresh=fresh,
    )


def amounts(ledger: SpendLedger) -> list[float]:
    return [round(row[4], 9) for row in ledger.increments()]


def test_the_increments_of_a_cumulative_total_are_recorded() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(0.10), report(0.25), report(0.25), report(1.0)])
    assert amounts(ledger) == [0.10, 0.15, 0.75]
    assert ledger.total("USD", 0) == pytest.approx(1.0)


def test_a_total_that_goes_down_records_nothing_and_is_the_new_baseline() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(2.0), report(0.5), report(0.8)])
    # 2.0, then a drop (nothing, never negative), then 0.3 more than the new baseline.
    assert amounts(ledger) == [2.0, 0.3]
    assert all(amount > 0 for amount in amounts(ledger))


def test_each_session_and_each_currency_has_its_own_baseline() -> None:
    ledger = SpendLedger(None)
    ledger.record(
        [
            report(1.0, session="a"),
            report(1.0, session="b"),
            report(3.0, "EUR", session="a"),
            report(1.5, session="a"),
            report(4.0, "EUR", session="a"),
        ]
    )
    assert ledger.total("USD", 0) == pytest.approx(2.5)
    assert ledger.total("EUR", 0) == pytest.approx(4.0)


def test_currencies_are_never_added_together() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(1.0, "USD"), report(2.0, "EUR", session="e"), report(5, "credits")])
    totals = {(t.currency, t.amount) for t in ledger.totals(0)}
    assert totals == {("USD", 1.0), ("EUR", 2.0), ("credits", 5.0)}


def test_a_replay_only_sets_the_baseline() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(5.0, history=True), report(5.0), report(5.5)])
    assert amounts(ledger) == [0.5]


def test_a_reopened_session_counts_from_its_first_total_unless_the_ledger_knew_it() -> None:
    ledger = SpendLedger(None)
    # Reopened here, never seen: its past is not spend now.
    ledger.record([report(7.0, fresh=False), report(7.25, fresh=False)])
    assert amounts(ledger) == [0.25]
    # Known to the ledger (spent here before): a rise since counts.
    ledger.record([report(7.75, fresh=False)])
    assert amounts(ledger) == [0.25, 0.5]


@pytest.mark.parametrize(
    "amount, currency",
    [(math.nan, "USD"), (math.inf, "USD"), (1.0, None), (1.0, "   "), (None, "USD")],
)
def test_a_cost_that_is_not_one_records_nothing(amount: float | None, currency: str | None) -> None:
    ledger = SpendLedger(None)
    ledger.record([report(amount, currency)])
    assert ledger.increments() == []


def test_an_agent_reporting_usage_without_cost_is_not_reported() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(None, None, agent="k:sdk", name="", label="sdk agent")])
    ledger.record([report(0.5)])
    summary = summarize(ledger, NOW)
    assert summary.not_reported == ("sdk agent",)
    lines = spend_lines(summary)
    assert "sdk agent: cost not reported" in lines
    assert not any("sdk agent" in line and "0.00" in line for line in lines)


def test_a_running_agent_with_no_cost_is_not_reported_and_one_with_cost_is_not() -> None:
    ledger = SpendLedger(None)
    ledger.record([report(0.5)])
    summary = summarize(ledger, NOW, running=["Claude", "goose"])
    assert summary.not_reported == ("goose",)


def test_currency_is_kept_as_reported_on_one_line() -> None:
    assert clean_currency(" USD ") == "USD"
    assert clean_currency("my\ncredits") == "my credits"
    assert clean_currency("") is None
    assert clean_currency(3) is None


def test_periods_start_at_local_midnight_monday_and_the_first() -> None:
    assert dt.datetime.fromtimestamp(period_start("today", NOW)) == dt.datetime(2026, 12, 9)
    assert dt.datetime.fromtimestamp(period_start("week", NOW)) == dt.datetime(2026, 12, 7)
    assert dt.datetime.fromtimestamp(period_start("month", NOW)) == dt.datetime(2026, 12, 1)
    assert period_start("daily", NOW) == period_start("today", NOW)
    assert period_start("monthly", NOW) == period_start("month", NOW)


def test_the_summary_splits_by_period_agent_project_and_currency() -> None:
    ledger = SpendLedger(None)
    yesterday = NOW - 24 * HOUR  # Tuesday: this week
    last_month = dt.datetime(2026, 11, 30, 12).timestamp()
    ledger.record(
        [
            report(1.0, at=last_month, session="old"),
            report(2.0, at=yesterday, session="y"),
            report(0.5, at=NOW, session="t"),
            report(
                3.0,
                "EUR",
                at=NOW,
                session="sdk",
                agent="k:sdk",
                name="",
                label="sdk agent",
                project="/work/other",
            ),
        ]
    )
    summary = summarize(ledger, NOW)
    today, week, month = summary.periods
    assert {(t.currency, t.amount) for t in today.total} == {("USD", 0.5), ("EUR", 3.0)}
    assert {(t.currency, t.amount) for t in week.total} == {("USD", 2.5), ("EUR", 3.0)}
    assert {(t.currency, t.amount) for t in month.total} == {("USD", 2.5), ("EUR", 3.0)}
    assert {(t.key, t.currency, t.amount) for t in today.agents} == {
        ("Claude", "USD", 0.5),
        ("sdk agent", "EUR", 3.0),
    }
    assert {(t.key, t.amount) for t in week.projects} == {
        ("/home/me/shop", 2.5),
        ("/work/other", 3.0),
    }
    lines = spend_lines(summary)
    assert lines[0].startswith("Today (since Wed 09 Dec): ")
    assert "$0.50" in lines[0] and "€3.00" in lines[0]
    document = summary.to_json()
    assert document["periods"]["week"]["total"] == [  # type: ignore[index]
        {"currency": "EUR", "amount": 3.0},
        {"currency": "USD", "amount": 2.5},
    ]


def test_totals_filter_by_agent_name_or_label_and_by_project_below() -> None:
    ledger = SpendLedger(None)
    ledger.record(
        [
            report(1.0, session="a", project="/p/shop"),
            report(2.0, session="b", project="/p/shop/sub"),
            report(4.0, session="c", project="/p/shopping"),
            report(8.0, session="d", agent="k:x", name="", label="goose"),
        ]
    )
    assert ledger.total("USD", 0, agents=("claude",)) == 7.0
    assert ledger.total("USD", 0, agents=("CLAUDE",)) == 7.0  # names are not case-sensitive
    assert ledger.total("USD", 0, agents=("Goose",)) == 8.0
    assert ledger.total("USD", 0, project="/p/shop") == 3.0
    assert ledger.total("USD", 0, project="/p/shop/") == 3.0


def test_budgets_warn_at_80_and_are_over_at_100_percent() -> None:
    ledger = SpendLedger(None)
    budgets = Budgets(
        [
            Budget("daily", 1.0, "USD"),
            Budget("monthly", 10.0, "EUR", hard=True),
            Budget("daily", 0.5, "USD", agent="goose"),
        ],
        None,
        clock=lambda: NOW,
    )
    ledger.record([report(0.79)])
    budgets.compute(ledger)
    assert [s.level for s in budgets.states()] == ["ok", "ok", "ok"]
    assert budgets.crossings() == []
    ledger.record([report(0.8)])
    budgets.compute(ledger)
    assert [s.level for s in budgets.states()] == ["warn", "ok", "ok"]
    assert [s.budget.amount for s in budgets.crossings()] == [1.0]
    assert budgets.crossings() == []  # once
    assert budgets.verdict(["claude"], "/home/me/shop") is None
    ledger.record([report(1.0)])
    budgets.compute(ledger)
    verdict = budgets.verdict(["claude"], "/home/me/shop")
    assert verdict is not None and verdict.action == "ask"
    assert verdict.question == "over the daily budget: send anyway?"
    assert [s.level for s in budgets.crossings()] == ["over"]
    ledger.record([report(10.0, "EUR", session="e")])
    budgets.compute(ledger)
    verdict = budgets.verdict(["claude"], "/home/me/shop")
    assert verdict is not None and verdict.action == "refuse"
    assert "monthly budget" in verdict.refusal and "hard = true" in verdict.refusal
    assert budget_lines(budgets.states())[1].endswith("messages refused")


def test_a_budget_applies_to_its_agent_and_project_only() -> None:
    budget = Budget("daily", 1.0, "USD", agent="claude", project="/p/shop")
    assert budget.applies(["claude"], "/p/shop/sub")
    assert not budget.applies(["claude"], "/p/shopping")
    assert not budget.applies(["goose"], "/p/shop")
    assert not budget.applies(["claude"], None)
    assert Budget("daily", 1.0, "USD").applies([], None)


def test_a_sum_of_yesterday_counts_as_nothing_today() -> None:
    ledger = SpendLedger(None)
    clock = [NOW]
    budgets = Budgets([Budget("daily", 1.0, "USD")], None, clock=lambda: clock[0])
    ledger.record([report(2.0)])
    budgets.compute(ledger)
    assert budgets.states()[0].level == "over"
    clock[0] = NOW + 24 * HOUR
    assert budgets.states()[0].spent == 0.0
    assert budgets.verdict(["claude"], None) is None


def test_the_writer_records_on_its_thread_and_sums_the_budgets_there(tmp_path: Path) -> None:
    path = tmp_path / "spend.sqlite3"
    writer = SpendWriter(path)
    budgets = Budgets([Budget("daily", 1.0, "USD")], writer)
    called: list[int] = []
    budgets.subscribe(lambda: called.append(1))
    for total in (0.2, 0.5, 0.9):
        writer.report(report(total, at=time.time()))
    assert writer.flush()
    writer.close()
    assert budgets.states()[0].spent == pytest.approx(0.9)
    assert called
    # On disk, for the next run and for `acp-tui spend`.
    again = SpendLedger(path)
    assert [round(a, 9) for *_, a in again.increments()] == [0.2, 0.3, 0.4]
    again.close()


def test_a_file_sqlite_cannot_read_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "spend.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    ledger = SpendLedger(path)
    ledger.record([report(1.0)])
    assert ledger.total("USD", 0) == 1.0
    assert list(tmp_path.glob("spend.sqlite3.corrupt-*"))
    ledger.close()
