"""What still runs in a store's sessions, apart from what a person waits for: subagents at
work, the terminals and tool calls a v2 agent lists as its background work
(https://agentclientprotocol.com/rfds/v2/background-work), and the tool calls an agent
reported running after its turn ended (v1 has no list: a tool call still ``in_progress``
once the prompt was answered is work that goes on). Read by the background-work panel and
the status bar's count; each item says how it can be cancelled, if at all."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from acp_tui.store.agent_terminals import AgentTerminal
from acp_tui.store.session import (
    ACTIVITY_IDLE,
    ACTIVITY_REQUIRES_ACTION,
    ACTIVITY_RUNNING,
    ACTIVITY_UNKNOWN,
    SessionState,
)

__all__ = [
    "CANCEL_SESSION",
    "CANCEL_TERMINAL",
    "CANCEL_TOOL_CALL",
    "WORK_SUBAGENT",
    "WORK_TERMINAL",
    "WORK_TOOL_CALL",
    "BackgroundWork",
    "background_work",
]

WORK_SUBAGENT = "subagent"
WORK_TERMINAL = "terminal"
WORK_TOOL_CALL = "tool_call"

#: How an item is cancelled: ``session/cancel`` on its session (a subagent advertising
#: ``cancel``; a v1 tool call, whose protocol cancels only a whole session), ``terminal/cancel``
#: or ``tool_call/cancel`` (v2, when the item advertises ``capabilities.cancel``).
CANCEL_SESSION = "session"
CANCEL_TERMINAL = "terminal"
CANCEL_TOOL_CALL = "tool_call"

#: A child at work: running, waiting for the person, or not known to have stopped.
_CHILD_BUSY = (ACTIVITY_RUNNING, ACTIVITY_REQUIRES_ACTION, ACTIVITY_UNKNOWN)
#: Statuses of a tool call whose work has not ended (``allowed``: permitted, not started).
_TOOL_GOING = (None, "pending", "in_progress", "allowed")


@dataclass(frozen=True, slots=True)
class BackgroundWork:
    """One piece of work still running. ``session_id`` is the session it runs in (a
    subagent's: the child itself), ``ref_id`` the child, terminal or tool call it is;
    ``what`` is the agent's name for it, raw (shown through the inert text paths);
    ``started_at`` the store's clock (None: not known); ``cancel`` one of the ``CANCEL_*``
    ways, None when the agent offers none."""

    kind: str
    session_id: str
    ref_id: str
    what: str
    started_at: float | None
    cancel: str | None
    parent_id: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """The same piece of work from one reading to the next."""
        return (self.kind, self.session_id, self.ref_id)


def _child(s: SessionState) -> BackgroundWork:
    card = s.card
    return BackgroundWork(
        WORK_SUBAGENT,
        s.id,
        s.id,
        card.label if card is not None else s.display_title,
        s.turn_started if s.turn_started is not None else (card.started_at if card else None),
        CANCEL_SESSION if card is not None and card.can_cancel else None,
        s.parent_id,
    )


def _listed(s: SessionState, terminals: Mapping[str, AgentTerminal]) -> Iterable[BackgroundWork]:
    for ref in s.background or ():
        if ref.kind == WORK_TERMINAL:
            terminal = terminals.get(ref.ref_id)
            if terminal is not None and terminal.exit_status is not None:
                continue  # reported ended: the list is a step behind
            yield BackgroundWork(
                WORK_TERMINAL,
                s.id,
                ref.ref_id,
                terminal.command_line if terminal is not None else f"terminal {ref.ref_id}",
                terminal.started_at if terminal is not None else ref.since,
                CANCEL_TERMINAL if terminal is not None and terminal.can_cancel else None,
            )
        elif ref.kind == WORK_TOOL_CALL:
            tool = s.tool_index.get(ref.ref_id)
            if tool is not None and tool.status not in _TOOL_GOING:
                continue
            yield BackgroundWork(
                WORK_TOOL_CALL,
                s.id,
                ref.ref_id,
                tool.label if tool is not None else ref.ref_id,
                s.tool_started.get(ref.ref_id, ref.since),
                CANCEL_TOOL_CALL if ref.ref_id in s.tool_cancel else None,
            )


def _left_running(s: SessionState, v1: bool) -> Iterable[BackgroundWork]:
    """Tool calls reported running after the session's turn ended."""
    for tool_call_id, tool in s.tool_index.items():
        if tool.status != "in_progress":
            continue
        cancel = CANCEL_TOOL_CALL if tool_call_id in s.tool_cancel else None
        yield BackgroundWork(
            WORK_TOOL_CALL,
            s.id,
            tool_call_id,
            tool.label,
            s.tool_started.get(tool_call_id),
            cancel or (CANCEL_SESSION if v1 else None),
        )


def background_work(
    sessions: Iterable[SessionState],
    terminals: Mapping[str, AgentTerminal],
    protocol_version: int,
) -> list[BackgroundWork]:
    """Everything still running in ``sessions``, longest running first."""
    found: list[BackgroundWork] = []
    for s in sessions:
        if not s.live or s.shadow or s.replaying:
            continue
        if s.parent_id is not None and s.activity in _CHILD_BUSY:
            found.append(_child(s))
        if s.background is not None:
            found.extend(_listed(s, terminals))
        elif s.activity == ACTIVITY_IDLE:
            found.extend(_left_running(s, protocol_version < 2))
    found.sort(key=lambda w: (w.started_at is None, w.started_at or 0.0))
    return found
