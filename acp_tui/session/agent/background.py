"""Cancelling what runs apart from a turn, each piece with the protocol's own cancel: a
subagent with ``session/cancel`` on its session (when it advertises ``cancel``), a v2
background terminal with ``terminal/cancel``, a v2 tool call with ``tool_call/cancel`` (when
each advertises ``capabilities.cancel``), a tool call a v1 agent left running with
``session/cancel`` on its session (v1's only cancel). Specs:
https://agentclientprotocol.com/protocol/v1/subagents,
https://agentclientprotocol.com/rfds/v2/background-work."""

from __future__ import annotations

from acp_tui.protocol import v2
from acp_tui.protocol.errors import NotSupportedError
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.agent.turns import Turns
from acp_tui.store import TOOL_CANCELLED, BackgroundWork
from acp_tui.store.background import (
    CANCEL_SESSION,
    CANCEL_TERMINAL,
    CANCEL_TOOL_CALL,
    WORK_SUBAGENT,
)

__all__ = ["Background"]


class Background:
    """The background work of the controller's sessions, over its ``state``."""

    def __init__(self, state: ControllerState, turns: Turns) -> None:
        self.state = state
        self.turns = turns

    def work(self) -> list[BackgroundWork]:
        """What still runs in this agent's sessions, longest running first."""
        return self.state.store.background_work()

    async def cancel(self, work: BackgroundWork) -> None:
        """Cancel one piece of work, as it says it can be; the agent's next updates say
        whether it stopped."""
        client = self.state.require_client()
        if work.cancel == CANCEL_SESSION and work.kind == WORK_SUBAGENT:
            await self.cancel_child(work.session_id)
        elif work.cancel == CANCEL_SESSION:
            await self.turns.cancel(work.session_id)
        elif work.cancel == CANCEL_TERMINAL:
            await client.call(
                v2.TERMINAL_CANCEL, v2.cancel_terminal_params(work.session_id, work.ref_id)
            )
        elif work.cancel == CANCEL_TOOL_CALL:
            await client.call(
                v2.TOOL_CALL_CANCEL, v2.cancel_tool_call_params(work.session_id, work.ref_id)
            )
        else:
            raise NotSupportedError(f"the agent offers no way to cancel {work.what!r}")

    def can_cancel_child(self, child_id: str) -> bool:
        child = self.state.store.get(child_id)
        return child is not None and child.card is not None and child.card.can_cancel

    async def cancel_child(self, child_id: str) -> None:
        """``session/cancel`` on a subagent that advertises ``cancel`` (the spec allows no
        other): its questions waiting for the person are answered cancelled, and those it asks
        until it is idle again."""
        if not self.can_cancel_child(child_id):
            raise NotSupportedError(
                "this subagent cannot be cancelled (its agent does not offer it)"
            )
        client = self.state.require_client()
        runtime = self.state.asking_runtime(child_id)
        if runtime is not None:
            runtime.cancelling = True
            runtime.stop_asking()
        # As for a turn the person cancels: its unfinished tool calls say so at once (the
        # agent's later updates still apply).
        self.state.store.end_unfinished_tool_calls(child_id, TOOL_CANCELLED)
        await client.cancel(child_id)
