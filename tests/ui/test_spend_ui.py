"""Spend and budgets in the TUI (issue 43), against the demo agent: the status line warns at
80% with a notification; over a budget each message asks first (an armed dialog: "n" keeps
the message in the prompt, unsent; "y" sends it), or is refused when the budget is hard;
the Spend view (Ctrl+P → Spend) shows what was reported, per currency."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.config.schema import BudgetConfig, Config
from acp_tui.store.entries import UserMessage
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.confirm import ConfirmScreen
from acp_tui.ui.screens.spend import SpendScreen
from tests.ui.chat_helpers import (
    app_settings,
    armed_dialog,
    chat,
    record_notifications,
    run_palette_command,
    send,
    settle,
    wait_for,
    wait_for_session,
)

pytestmark = pytest.mark.anyio


def budget_app(tmp_path: Path, *budgets: BudgetConfig) -> AcpTuiApp:
    from acp_tui.demo_agent import demo_agent_argv

    argv = demo_agent_argv(state_dir=str(tmp_path / "demo"), chunk_delay=0)
    settings, ui = app_settings(argv, tmp_path)
    return AcpTuiApp(settings, ui=ui, config=Config(budgets=list(budgets)))


def sent_texts(app: AcpTuiApp) -> list[str]:
    screen = next(iter(app.agent_views.values()))  # also while a dialog is over it
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [e.text for e in state.transcript if isinstance(e, UserMessage)]


def warning(app: AcpTuiApp) -> str:
    return next(iter(app.agent_views.values())).widgets.status.budget_warning


async def spend(pilot: object, text: str) -> None:
    """Send ``text`` and wait for its turn to end and its cost to reach the budgets."""
    app = pilot.app  # type: ignore[attr-defined]
    await send(pilot, text)  # type: ignore[arg-type]
    await wait_for(pilot, lambda: text in sent_texts(app), f"{text!r} sent")  # type: ignore[arg-type]
    await wait_for(pilot, lambda: not chat(app).busy, "the turn to end")  # type: ignore[arg-type]
    writer = app.workspace.spend
    assert writer is not None and writer.flush()
    await settle(pilot)  # type: ignore[arg-type]


async def test_a_budget_warns_at_80_and_asks_at_100_percent(tmp_path: Path) -> None:
    app = budget_app(tmp_path, BudgetConfig(period="daily", amount=1, currency="USD"))
    heard = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await spend(pilot, "/cost 0.5")
        assert warning(app) == ""
        await spend(pilot, "/cost 0.35")
        await wait_for(pilot, lambda: "85%" in warning(app), "the warning")
        assert warning(app) == "▲ daily budget: 85% · $0.85 of $1.00"
        await wait_for(
            pilot,
            lambda: any("daily budget: $0.85 of $1.00 spent (85%)" in m for m in heard),
            "the notification at 80%",
        )
        # Not over yet: a message goes without a question.
        await spend(pilot, "/cost 0.2")
        await wait_for(pilot, lambda: "over the daily budget" in warning(app), "over")
        await wait_for(
            pilot,
            lambda: any("over the daily budget: $1.05" in m for m in heard),
            "the notification at 100%",
        )
        # Over: the next message asks first; "n" keeps it in the prompt, unsent.
        await send(pilot, "one more thing")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog._title == "Over the daily budget: send anyway?"
        await armed_dialog(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "closed")
        await settle(pilot, answered=True)
        assert "one more thing" not in sent_texts(app)
        assert chat(app).widgets.prompt.text == "one more thing"
        # Asked again; "y" sends it.
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked again")
        await armed_dialog(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: "one more thing" in sent_texts(app), "sent anyway")


async def test_a_hard_budget_refuses_and_keeps_the_message(tmp_path: Path) -> None:
    app = budget_app(
        tmp_path, BudgetConfig(period="monthly", amount=0.5, currency="USD", hard=True)
    )
    heard = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_session(pilot)
        await spend(pilot, "/cost 0.6")
        await wait_for(pilot, lambda: "over the monthly" in warning(app), "over")
        await send(pilot, "please do more")
        await wait_for(pilot, lambda: any("Not sent" in m for m in heard), "refused")
        await settle(pilot, answered=True)
        assert not isinstance(app.screen, ConfirmScreen)
        assert "please do more" not in sent_texts(app)
        assert chat(app).widgets.prompt.text == "please do more"
        assert any("hard = true" in m for m in heard)


async def test_the_spend_view_shows_what_was_reported(tmp_path: Path) -> None:
    app = budget_app(tmp_path, BudgetConfig(period="daily", amount=10, currency="USD"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await spend(pilot, "/cost 1.25")
        await spend(pilot, "/cost 0.5")
        await run_palette_command(pilot, "Spend")
        await wait_for(pilot, lambda: isinstance(app.screen, SpendScreen), "the spend view")
        view = app.screen
        assert isinstance(view, SpendScreen)
        await wait_for(pilot, lambda: "$1.75" in view.text, "the totals")
        assert view.text.startswith("Budgets\n")
        assert "\nToday (since " in view.text
        assert "demo agent: $1.75" in view.text
        assert "✔" not in view.text
        assert "daily budget: $1.75 of $10.00 spent (17%)" in view.text
        # It follows the ledger while open: a turn sent behind it (as a queued message
        # goes) adds to it.
        screen = next(iter(app.agent_views.values()))
        assert screen.controller is not None and screen.session_id is not None
        screen.controller.send_prompt(screen.session_id, "/cost 0.25", None)
        await wait_for(pilot, lambda: "$2.00" in view.text, "the new total")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "closed")
