"""``acp-tui spend``: what the agents reported they cost, headless.

``acp-tui spend [--json]`` prints today's, this week's and this month's spend, per agent and
per project, each currency on its own (never added together), the agents that report no
cost, and the budgets of the config with how much of each is spent. Read from the spend
ledger (``spend.sqlite3`` in the data folder); every line goes through
:func:`acp_tui.cli.say.say`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from acp_tui.cli.say import InertArgumentParser, say
from acp_tui.config import locations
from acp_tui.config.budgets import budgets_of
from acp_tui.session.spend.budgets import Budgets
from acp_tui.session.spend.report import budget_lines, spend_lines
from acp_tui.store.spend_ledger import SpendLedger
from acp_tui.store.spend_summary import summarize

__all__ = ["build_spend_parser", "main_spend"]


def build_spend_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui spend",
        description="What the agents reported they cost: today, this week and this month, "
        "per agent and per project, per currency; and the budgets of the config.",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    return parser


def main_spend(argv: Sequence[str]) -> int:
    options = build_spend_parser().parse_args(list(argv))
    from acp_tui.config.load import load_config

    config, problems = load_config()
    for problem in problems:
        say(f"acp-tui: config: {problem}", file=sys.stderr)
    ledger = SpendLedger(locations.spend_ledger_file())
    try:
        now = time.time()
        summary = summarize(ledger, now)
        budgets = Budgets(budgets_of(config), None, clock=lambda: now)
        budgets.compute(ledger)
        states = budgets.states()
    finally:
        ledger.close()
    if options.json:
        document = summary.to_json()
        document["budgets"] = [
            {
                "period": s.budget.period,
                "amount": s.budget.amount,
                "currency": s.budget.currency,
                "agent": s.budget.agent,
                "project": s.budget.project,
                "hard": s.budget.hard,
                "spent": s.spent,
                "level": s.level,
            }
            for s in states
        ]
        say(json.dumps(document, ensure_ascii=False, indent=2))
        return 0
    for line in spend_lines(summary):
        say(line)
    if states:
        say("")
        say("Budgets")
        for line in budget_lines(states):
            say(f"  {line}")
    return 0
