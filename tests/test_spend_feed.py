"""The spend feed (issue 43): what the session layer hands the ledger of each usage_update,
as the agent sent it: a replay's cost is history, a reopened session's first total is its
baseline, a session made here counts from zero, a malformed cost is nothing, a usage
without a cost says "not reported" once; the session's folder is its project."""

from __future__ import annotations

from typing import Any

from acp_tui.session.spend.feed import SpendFeed
from acp_tui.store import SessionStore
from acp_tui.store.spend_ledger import CostReport
from acp_tui.store.spend_writer import SpendWriter


class Writer(SpendWriter):
    """Keeps what it is handed instead of writing it."""

    def __init__(self) -> None:
        super().__init__(None)
        self.reports: list[CostReport] = []

    def report(self, report: CostReport) -> None:
        self.reports.append(report)


def usage(session_id: str, cost: Any = None, *, with_cost: bool = True) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": 1, "size": 10}
    if with_cost:
        update["cost"] = cost
    return {"sessionId": session_id, "update": update}


def feed() -> tuple[SpendFeed, SessionStore, Writer]:
    store = SessionStore()
    writer = Writer()
    made = SpendFeed(
        writer, store, agent="config:x", name="x", label=lambda: "X", cwd=lambda: "/default"
    )
    return made, store, writer


def test_a_session_made_here_counts_from_zero_in_its_folder() -> None:
    spend, store, writer = feed()
    store.register_session("s", cwd="/p/shop", new=True)
    spend.on_update(usage("s", {"amount": 0.5, "currency": "USD"}))
    (report,) = writer.reports
    assert (report.amount, report.currency, report.project) == (0.5, "USD", "/p/shop")
    assert report.fresh and not report.history
    assert (report.agent, report.name, report.label) == ("config:x", "x", "X")


def test_a_replayed_cost_is_history() -> None:
    spend, store, writer = feed()
    spend.reopening("s")
    store.begin_replay("s", cwd="/p")
    spend.on_update(usage("s", {"amount": 3, "currency": "EUR"}))
    assert writer.reports[-1].history


def test_a_reopened_session_is_not_fresh_until_it_reported() -> None:
    spend, store, writer = feed()
    spend.reopening("s")
    store.register_session("s", cwd="/p")
    spend.on_update(usage("s", {"amount": 3, "currency": "EUR"}))
    spend.on_update(usage("s", {"amount": 4, "currency": "EUR"}))
    assert [r.fresh for r in writer.reports] == [False, True]


def test_an_update_before_its_session_goes_to_the_agent_folder() -> None:
    spend, _store, writer = feed()
    spend.on_update(usage("early", {"amount": 1, "currency": "USD"}))
    assert writer.reports[-1].project == "/default"


def test_what_is_not_a_cost_is_nothing_and_no_cost_is_said_once() -> None:
    spend, store, writer = feed()
    store.register_session("s", cwd="/p", new=True)
    for bad in ("12 dollars", 5, ["x"]):
        spend.on_update(usage("s", bad))
    spend.on_update({"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk"}})
    spend.on_update("not a dict")
    assert writer.reports == []
    spend.on_update(usage("s", with_cost=False))
    spend.on_update(usage("s", None))  # an explicit null: no cost either
    assert [(r.amount, r.currency) for r in writer.reports] == [(None, None)]
