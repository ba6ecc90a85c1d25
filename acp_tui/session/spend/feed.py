"""Hands every cost an agent reports to the spend ledger's writer.

:class:`SpendFeed` is called where the controller reads the agent's ``session/update``
notifications (:class:`~acp_tui.session.agent.requests.AgentRequests`), after the store took
the update: a ``usage_update`` becomes a :class:`~acp_tui.store.spend_ledger.CostReport`
(the session's total, its currency, its project, whether it is history) queued for the
writer's thread. Nothing here waits on SQLite.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from acp_tui.store import SessionStore
from acp_tui.store.spend_ledger import CostReport
from acp_tui.store.spend_writer import SpendWriter
from acp_tui.wire.constants import UpdateKind

__all__ = ["SpendFeed"]


class SpendFeed:
    """One agent's reported costs (``agent``: its key; ``name``: its configured name or "";
    ``label()``: how it is shown)."""

    def __init__(
        self,
        writer: SpendWriter,
        store: SessionStore,
        *,
        agent: str,
        name: str,
        label: Callable[[], str],
        cwd: Callable[[], str],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.writer = writer
        self.store = store
        self.agent = agent
        self.name = name
        self.label = label
        self.cwd = cwd
        self.clock = clock
        #: Sessions reopened here (load, resume) that have reported nothing since: their
        #: past is unknown, so a first total the ledger has no baseline for is not spend now.
        self._reopened: set[str] = set()
        #: Whether a usage without a cost was handed over (once is enough to say so).
        self._said_none = False

    def reopening(self, session_id: str) -> None:
        """``session_id`` is being loaded or resumed."""
        self._reopened.add(session_id)

    def on_update(self, params: Any) -> None:
        """A ``session/update``'s params, as the agent sent them."""
        if not isinstance(params, dict):
            return
        update = params.get("update")
        session_id = params.get("sessionId")
        if not (
            isinstance(update, dict)
            and update.get("sessionUpdate") == UpdateKind.USAGE_UPDATE
            and isinstance(session_id, str)
        ):
            return
        amount: float | None = None
        currency: str | None = None
        cost = update.get("cost")
        if isinstance(cost, dict):
            value = cost.get("amount")
            if isinstance(value, int | float) and not isinstance(value, bool):
                amount = float(value)
            unit = cost.get("currency")
            currency = unit if isinstance(unit, str) else None
        elif "cost" in update and cost is not None:
            return  # a malformed cost: neither spend nor "reports none"
        if amount is None:
            if self._said_none:
                return
            self._said_none = True
        state = self.store.get(session_id)
        replaying = state is not None and state.replaying
        fresh = session_id not in self._reopened
        if not replaying and amount is not None:
            self._reopened.discard(session_id)
        self.writer.report(
            CostReport(
                at=self.clock(),
                agent=self.agent,
                name=self.name,
                label=self.label(),
                session_id=session_id,
                project=(state.cwd if state is not None and state.cwd else self.cwd()),
                amount=amount,
                currency=currency,
                history=replaying,
                fresh=fresh,
            )
        )
