"""The spending limits of the config (``[[budgets]]``), resolved once for every face (the
TUI, ``acp-tui ask``, ``acp-tui spend``): a project's ``~`` expanded and made absolute, a
currency on one line, as the ledger keeps it (the agent's spelling counts: ``USD``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.config.schema import Config

__all__ = ["Budget", "budgets_of"]


@dataclass(frozen=True, slots=True)
class Budget:
    """One limit: ``amount`` of ``currency`` per ``period`` (``daily`` or ``monthly``), of
    every agent or one (``agent``: a name or label), every project or one (``project``: an
    absolute directory)."""

    period: str
    amount: float
    currency: str
    agent: str | None = None
    project: str | None = None
    hard: bool = False

    @property
    def name(self) -> str:
        """``daily budget``, ``monthly budget of claude in ~/shop``: how it is named."""
        words = f"{self.period} budget"
        if self.agent:
            words += f" of {self.agent}"
        if self.project:
            home = os.path.expanduser("~")
            shown = self.project
            if shown == home or shown.startswith(home.rstrip("/") + "/"):
                shown = "~" + shown[len(home.rstrip("/")) :]
            words += f" in {shown}"
        return words

    def applies(self, agent_names: Sequence[str], project: str | None) -> bool:
        """Whether a message to the agent known by ``agent_names`` in ``project`` is sent
        under this budget."""
        if self.agent is not None:
            wanted = self.agent.casefold()
            if not any(name and name.casefold() == wanted for name in agent_names):
                return False
        if self.project is not None:
            if not project:
                return False
            root = self.project.rstrip("/") or "/"
            here = os.path.abspath(project)
            if here != root and not here.startswith(root.rstrip("/") + "/"):
                return False
        return True


def budgets_of(config: Config) -> tuple[Budget, ...]:
    """The config's budgets, in its order."""
    made = []
    for entry in config.budgets:
        project = None
        if entry.project:
            project = os.path.abspath(os.path.expanduser(entry.project))
        made.append(
            Budget(
                period=entry.period,
                amount=float(entry.amount),
                currency=" ".join(entry.currency.split()),
                agent=entry.agent or None,
                project=project,
                hard=entry.hard,
            )
        )
    return tuple(made)
