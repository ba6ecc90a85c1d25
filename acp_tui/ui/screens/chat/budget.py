"""The budgets in one agent's view: the warning on its status line when a budget its
messages go under is at 80% or more, and before each message sent over a budget, the
question (``Over the daily budget: send anyway?``, a
:class:`~acp_tui.ui.screens.confirm.ConfirmScreen`, armed like every dialog that acts and
naming the agent and session), or the refusal when the budget is ``hard``. What is not sent
stays in the prompt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.spend.budgets import Budgets
from acp_tui.ui.widgets.status_line import StatusLine

__all__ = ["BudgetGate"]

#: The view's yes/no question (title, message, details, yes, no, Escape, answered).
AskYesNo = Callable[
    [str, str, list[tuple[str, str]], str, str, str, Callable[[bool | None], None]], None
]


@dataclass
class BudgetGate:
    """The view's budgets (the workspace's, summed for every agent): ``parts`` is its agent,
    ``session()`` the session on screen, ``status()`` its status line (None: not mounted)."""

    budgets: Budgets
    parts: AgentParts
    session: Callable[[], str | None]
    status: Callable[[], StatusLine | None]
    ask_yes_no: AskYesNo
    notify: Callable[[str], None]

    def place(self, session_id: str | None) -> tuple[tuple[str, ...], str]:
        """The agent's names a budget may use, and the project a message there goes to."""
        state = self.parts.store.get(session_id) if session_id else None
        project = state.cwd if state is not None and state.cwd else self.parts.spec.cwd
        return self.parts.budget_names(), project

    def show_warning(self) -> None:
        """The fullest budget at 80% or more the view's messages go under, on its status
        line (none: nothing shown)."""
        status = self.status()
        if status is None:
            return
        names, project = self.place(self.session())
        warnings = self.budgets.warnings(names, project)
        first = warnings[0] if warnings else None
        status.set_budget(
            first.short if first else "", over=first is not None and first.level == "over"
        )

    def before_send(
        self, target: str | None, send: Callable[[], None], keep: Callable[[], None]
    ) -> bool:
        """Whether a message to ``target`` may go now (True). Over a budget: refused
        (``keep`` puts it back in the prompt) or asked about (``send`` or ``keep`` once
        answered): False."""
        names, project = self.place(target)
        self.show_warning()
        verdict = self.budgets.verdict(names, project)
        if verdict is None:
            return True
        if verdict.action == "refuse":
            keep()
            self.notify(verdict.refusal)
            return False

        def answered(yes: bool | None) -> None:
            if yes:
                send()
            else:
                keep()

        question = verdict.question
        self.ask_yes_no(
            question[0].upper() + question[1:],
            f"{verdict.state.figures}. What you send now may cost more.",
            [("Budget", verdict.state.budget.name)],
            "Send anyway",
            "Keep it in the prompt",
            "keep it in the prompt",
            answered,
        )
        return False
