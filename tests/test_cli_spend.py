"""``acp-tui spend`` and the budgets of ``acp-tui ask`` (issue 43), against real agents: the
demo agent reporting USD and the official SDK's agent reporting EUR. What ``ask`` records
is what ``spend`` prints, per currency; over a hard budget ``ask`` refuses, over a soft one
it refuses too unless ``--over-budget`` (nobody is there to ask)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tui.cli.headless_output import EXIT_BUDGET
from acp_tui.cli.main import main
from acp_tui.config import locations
from acp_tui.store.spend_ledger import SpendLedger

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "config.toml"))
    (tmp_path / "work").mkdir()
    return tmp_path


def config(data: Path, budgets: str = "") -> None:
    sdk = f"{sys.executable!r}".replace("'", '"')
    (data / "config.toml").write_text(
        f"""
[agents.sdk]
command = {sdk}
args = ["{AGENTS / "sdk_agent.py"}"]
env = {{ SDK_AGENT_COST = "0.25", SDK_AGENT_CURRENCY = "EUR" }}
{budgets}
""",
        encoding="utf-8",
    )


def spend_json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["spend", "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def ask(data: Path, *args: str) -> int:
    return main(["ask", *args, "--cwd", str(data / "work")])


def test_spend_sums_what_two_agents_reported_in_two_currencies(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config(data)
    assert ask(data, "/cost 1.5", "--demo") == 0
    assert ask(data, "/cost 0.25", "--demo") == 0
    assert ask(data, "hello", "--agent", "sdk") == 0
    assert ask(data, "again cost=0.5", "--agent", "sdk") == 0
    ledger = SpendLedger(locations.spend_ledger_file())
    increments = ledger.increments()
    ledger.close()
    by_currency: dict[str, float] = {}
    for _at, _label, _session, currency, amount in increments:
        by_currency[currency] = by_currency.get(currency, 0.0) + amount
    assert by_currency == pytest.approx({"USD": 1.75, "EUR": 0.75})
    document = spend_json(capsys)
    today = document["periods"]["today"]  # type: ignore[index]
    assert {t["currency"]: t["amount"] for t in today["total"]} == pytest.approx(by_currency)
    agents = {(t["agent"], t["currency"]): t["amount"] for t in today["agents"]}
    assert agents == pytest.approx({("demo agent", "USD"): 1.75, ("sdk", "EUR"): 0.75})
    projects = {(t["project"], t["currency"]) for t in today["projects"]}
    assert projects == {(str(data / "work"), "USD"), (str(data / "work"), "EUR")}
    assert main(["spend"]) == 0
    text = capsys.readouterr().out
    assert "Today (since" in text and "$1.75" in text and "€0.75" in text
    assert "$2.50" not in text  # never a sum of both


def test_an_agent_that_reports_no_cost_is_not_reported(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SDK_AGENT_USAGE", "1")
    sdk = [sys.executable, str(AGENTS / "sdk_agent.py")]
    assert ask(data, "hello", "--", *sdk) == 0
    document = spend_json(capsys)
    assert document["notReported"] == ["SDK Test Agent"]
    assert main(["spend"]) == 0
    out = capsys.readouterr().out
    assert "SDK Test Agent: cost not reported" in out
    assert "0.00" not in out


def test_ask_refuses_over_a_hard_budget_and_over_a_soft_one_unless_told(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config(
        data,
        """
[[budgets]]
period = "daily"
amount = 2
currency = "USD"

[[budgets]]
period = "monthly"
amount = 1
currency = "EUR"
agent = "sdk"
hard = true
""",
    )
    assert ask(data, "/cost 1.7", "--demo") == 0
    assert "daily budget: $1.70 of $2.00 spent (85%)" in capsys.readouterr().err
    assert ask(data, "/cost 0.5", "--demo") == 0
    capsys.readouterr()
    # Over the soft budget: nobody to ask, so not sent unless --over-budget.
    assert ask(data, "/cost 0.1", "--demo") == EXIT_BUDGET
    err = capsys.readouterr().err
    assert "Not sent: over the daily budget" in err and "--over-budget" in err
    assert ask(data, "/cost 0.1", "--demo", "--over-budget") == 0
    # An agent not heard from yet is held by every budget, the USD one too...
    assert ask(data, "cost=0.5", "--agent", "sdk") == EXIT_BUDGET
    assert ask(data, "cost=0.5", "--agent", "sdk", "--over-budget") == 0
    # ...one that reports in EUR is not: only its EUR budget holds it.
    assert ask(data, "cost=0.5", "--agent", "sdk") == 0
    capsys.readouterr()
    assert ask(data, "more", "--agent", "sdk", "--over-budget") == EXIT_BUDGET
    err = capsys.readouterr().err
    assert "Not sent: over the monthly budget of sdk" in err and "hard = true" in err
    document = spend_json(capsys)
    budgets = document["budgets"]
    assert [(b["currency"], b["level"]) for b in budgets] == [("USD", "over"), ("EUR", "over")]  # type: ignore[union-attr,index]


def test_a_reopened_session_spends_only_what_it_adds(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask(data, "/cost 1", "--demo") == 0
    session = capsys.readouterr().err.split("session: ")[-1].strip()
    assert ask(data, "/cost 0.25", "--demo", "--session", session) == 0
    ledger = SpendLedger(locations.spend_ledger_file())
    assert [round(row[4], 6) for row in ledger.increments()] == [1.0, 0.25]
    ledger.close()
    # A ledger that never saw the session (another client's, or an older acp-tui's): its
    # total so far is its past, not spend now; what this turn adds is.
    for path in locations.spend_ledger_file().parent.glob("spend.sqlite3*"):
        path.unlink()
    assert ask(data, "/cost 0.5", "--demo", "--session", session) == 0
    ledger = SpendLedger(locations.spend_ledger_file())
    assert [round(row[4], 6) for row in ledger.increments()] == [0.5]
    ledger.close()
