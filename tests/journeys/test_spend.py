"""Spend and budgets (issue 43), in a real terminal, with two agents reporting costs in two
currencies: the demo agent (USD) and the official SDK's test agent (EUR, configured). A
budget warns on the status line at 80%, asks before a message at 100% (the armed dialog:
"y" sends), and a hard one refuses (the message stays in the prompt). The Spend view shows,
per currency, the sums of the increments the ledger recorded."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from acp_tui.store.spend_ledger import SpendLedger
from acp_tui.text.usage import format_cost
from tests.journeys.frame import assert_frame, prompt_text
from tests.journeys.terminal import Terminal, agent_command


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_budgets_warn_ask_and_refuse_and_the_spend_view_adds_up(
    terminal: Callable[..., Terminal], size: tuple[int, int]
) -> None:
    term = terminal(*size)
    sdk = agent_command("sdk_agent.py")
    config = term.home / "config" / "acp-tui" / "config.toml"
    config.write_text(
        f"[agents.sdk]\ncommand = {json.dumps(sdk[0])}\nargs = {json.dumps(sdk[1:])}\n"
        'env = { SDK_AGENT_COST = "0.25", SDK_AGENT_CURRENCY = "EUR" }\n\n'
        '[[budgets]]\nperiod = "daily"\namount = 1\ncurrency = "USD"\nagent = "demo agent"\n\n'
        '[[budgets]]\nperiod = "monthly"\namount = 0.6\ncurrency = "EUR"\nagent = "sdk"\n'
        "hard = true\n"
    )
    term.start(["--demo", "--agent", "sdk"], cwd=term.home)
    term.wait_header("New session")

    # The demo agent: 85% of its daily budget warns on the status line.
    term.send("/cost 0.5")
    term.wait_for("This turn costs 0.5 USD")
    term.send("/cost 0.35")
    term.wait_for("▲ daily budget of demo agent: 85% · $0.85 of $1.00")
    # Past 100%: the next message asks first; "y" (once armed) sends it.
    term.send("/cost 0.2")
    term.wait_for("▲ over the daily budget")
    term.send("/cost 0.05")
    term.wait_for("Over the daily budget of demo agent: send anyway?")
    term.wait_for("y Send anyway")  # armed
    term.press("y")
    term.wait_for("This turn costs 0.05 USD")
    assert_frame(term, "sent anyway")

    # The SDK agent (EUR): its own budget is hard. Not over yet: sent; then refused.
    term.press("C-g")
    term.wait_until(lambda s: s.splitlines()[0].lstrip().startswith("sdk"), "the SDK agent")
    term.send("hello")
    term.wait_for("You said: hello")
    term.send("again")
    term.wait_for("You said: again")
    term.wait_for("▲ monthly budget of sdk: 83% · €0.50 of €0.60")
    term.send("third")
    term.wait_for("You said: third")
    term.wait_for("▲ over the monthly budget of sdk")
    term.send("fourth")
    term.wait_for("Not sent: over the")  # the toast (its lines wrap)
    assert "You said: fourth" not in term.screen()
    assert prompt_text(term) == "fourth"  # kept, not lost
    term.press("C-u")  # the prompt emptied (the palette's query must not take it)

    # The Spend view: what the ledger recorded, per currency, never summed across them.
    ledgers = list(term.home.rglob("spend.sqlite3"))
    assert len(ledgers) == 1
    ledger = SpendLedger(ledgers[0])
    sums: dict[str, float] = {}
    for _at, _label, _session, currency, amount in ledger.increments():
        sums[currency] = sums.get(currency, 0.0) + amount
    ledger.close()
    assert sums == pytest.approx({"USD": 1.1, "EUR": 0.75}, abs=0.01)
    term.press("C-p")
    term.wait_for("Search for commands")
    term.type("Spend")
    term.wait_for("What the agents reported")
    term.press("Enter")
    view = term.wait_until(lambda s: "Today (since" in s, "the spend view")
    dollars, euros = format_cost(sums["USD"], "USD"), format_cost(sums["EUR"], "EUR")
    view = term.wait_until(lambda s: dollars in s and euros in s, "the totals")
    assert f"demo agent: {dollars}" in view
    assert f"sdk: {euros}" in view
    assert format_cost(sums["USD"] + sums["EUR"], "USD") not in view
    term.press("Escape")
    term.wait_gone("Today (since")
    assert_frame(term, "the spend view closed")
    term.press("C-q")
    assert term.wait_exit() == 0
