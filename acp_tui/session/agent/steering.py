""" "Send now": a message that should not wait for the running turn to end.

Where the agent advertises ``session/inject`` with the ``steer`` mode (the mid-turn input
RFD, :class:`~acp_tui.wire.constants.Inject`), the message goes into the running turn, which
goes on; the transcript shows it where it went in. Otherwise the turn is cancelled (the
face's own cancel, which also answers its open questions) and the message waits at the head
of the queue, so it is the first prompt once the cancelled turn has ended; the transcript
says so. With no turn running it simply goes first. An agent that refuses the inject gets
the cancel instead, said the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from acp_tui.protocol.errors import AcpError, NotSupportedError
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.agent.turns import Turns

__all__ = ["SendNow", "Steering"]

#: How a "send now" went: a turn of its own at once (or first in line while the session is
#: not open), into the running turn (the inject is on its way), or the turn cancelled for it.
SendNow = Literal["sent", "injecting", "cancelled"]


class Steering:
    """ "Send now" for the controller's sessions, over its ``state`` and ``turns``."""

    def __init__(self, state: ControllerState, turns: Turns) -> None:
        self.state = state
        self.turns = turns

    def can_inject(self) -> bool:
        """The agent takes a message into a running turn (``session/inject``, ``steer``)."""
        agent = self.state.agent
        return agent is not None and agent.can_steer

    def send_now(
        self,
        session_id: str,
        text: str,
        blocks: list[dict[str, Any]] | None,
        cancel_turn: Callable[[str], None],
    ) -> SendNow:
        """Send ``text`` now (see the module docstring). ``cancel_turn`` is the face's cancel
        of a session's turn (``session/cancel``, and its open questions answered)."""
        blocks = blocks or [{"type": "text", "text": text}]
        target = self.state.store.get(session_id)
        if target is not None and target.parent_id is not None:
            raise NotSupportedError("a subagent takes no messages from you, only its parent's")
        runtime = self.state.runtime(session_id)
        runtime.auth_blocked = False
        if not runtime.turn_running or not self.turns.can_send(session_id):
            self.state.prompts.add(session_id, text, blocks, first=True)
            self.turns.flush(session_id)
            return "sent"
        if self.can_inject() and not runtime.cancelling:

            async def inject() -> None:
                await self._inject(session_id, text, blocks, cancel_turn)

            self.state.spawn(inject, "send now")
            return "injecting"
        self._cancel_and_send(
            session_id,
            text,
            blocks,
            cancel_turn,
            "The agent takes no message during a turn (it does not offer session/inject): "
            "yours goes as soon as the cancelled turn has ended.",
        )
        return "cancelled"

    async def _inject(
        self,
        session_id: str,
        text: str,
        blocks: list[dict[str, Any]],
        cancel_turn: Callable[[str], None],
    ) -> None:
        client = self.state.require_client()
        runtime = self.state.runtime(session_id)
        if runtime.on_wire is not None:
            await runtime.on_wire.wait()  # the agent hears of the turn before of this
        try:
            if not runtime.turn_running:
                raise AcpError("the turn has ended")
            message_id = await client.inject(session_id, blocks)
        except (AcpError, RpcError) as error:
            if not self.state.runtime(session_id).turn_running:
                # The turn ended meanwhile: nothing to steer, it goes as a turn of its own.
                self.state.prompts.add(session_id, text, blocks, first=True)
                self.turns.flush(session_id)
                return
            self._cancel_and_send(
                session_id,
                text,
                blocks,
                cancel_turn,
                f"The agent did not take it into the running turn ({error}): yours goes as "
                "soon as the cancelled turn has ended.",
            )
            return
        self.state.store.message_injected(session_id, blocks, message_id)

    def _cancel_and_send(
        self,
        session_id: str,
        text: str,
        blocks: list[dict[str, Any]],
        cancel_turn: Callable[[str], None],
        why: str,
    ) -> None:
        self.state.prompts.add(session_id, text, blocks, first=True)
        self.state.store.add_notice(
            session_id,
            "Cancelled the turn to send your message now",
            severity="warning",
            description=why,
        )
        cancel_turn(session_id)
