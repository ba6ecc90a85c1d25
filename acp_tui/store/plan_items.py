"""One entry of a plan, typed (kept apart from :mod:`acp_tui.store.entries`, which shows
plans through it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["PlanItem"]


class PlanItem(NamedTuple):
    """One entry of a plan, typed: ``status`` is ``"pending"`` when missing or not a string (an
    agent's own status string is kept), ``priority`` ``""`` when missing. Spec:
    https://agentclientprotocol.com/protocol/v1/agent-plan#plan-entries"""

    content: str
    status: str = "pending"
    priority: str = ""

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> PlanItem:
        content = raw.get("content")
        status = raw.get("status")
        priority = raw.get("priority")
        return cls(
            content if isinstance(content, str) else "" if content is None else str(content),
            status if isinstance(status, str) else "pending",
            priority if isinstance(priority, str) else "",
        )
