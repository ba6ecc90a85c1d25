"""The demo agent's subagents: child sessions it starts, shows and lets the client cancel
(https://agentclientprotocol.com/protocol/v1/subagents; in v2 a baseline).

A child is announced on its parent with ``subagent_update`` (title, description, the
``cancel`` capability), given its task as a ``session_message`` from the parent, works in its
own session (messages, a tool call, maybe a permission request naming it), reports back to
the parent with a ``session_message`` and goes idle. v1 reports its state on the parent's
``subagent_update``; v2 also on the child's own ``state_update``. ``session/cancel`` on the
child's id stops it (stop reason ``cancelled``). Children live only while the agent runs:
they are not saved with the session.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from acp_tui.demo_agent import wire
from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.demo_agent.turn import (
    CANCEL_GRACE,
    PERMISSION_OPTIONS,
    Turn,
    TurnCancelled,
    chunks,
    message_id,
)
from acp_tui.protocol.jsonrpc import RpcError

__all__ = ["Child", "ChildScript", "Parenting", "announce", "new_child", "run_child"]


class Parenting(Protocol):
    """What a child needs of the agent that runs it."""

    caps: ClientCaps
    chunk_delay: float
    children: dict[str, Turn]

    async def update(self, session_id: str, update: dict[str, Any]) -> None: ...

    async def request(self, method: str, params: dict[str, Any]) -> Any: ...


@dataclass(frozen=True, slots=True)
class ChildScript:
    """What a child does: its task, what it says while it works (one message per item),
    the tool call it runs, and whether it asks permission first."""

    title: str
    description: str
    task: str
    steps: tuple[str, ...]
    tool: str
    report: str
    asks: bool = False
    #: Seconds between steps (a background child takes its time).
    pause: float = 0.4


@dataclass(slots=True)
class Child:
    """A child at work: its id, its parent's, and its turn (cancelled by session/cancel)."""

    session_id: str
    parent_id: str
    script: ChildScript
    turn: Turn = field(default_factory=Turn)
    stop_reason: str = "end_turn"


def new_child(parent_id: str, script: ChildScript) -> Child:
    return Child(f"sub-{uuid.uuid4().hex[:12]}", parent_id, script)


async def announce(agent: Parenting, child: Child) -> None:
    """``subagent_update`` on the parent: the child exists, may be cancelled, and runs."""
    agent.children[child.session_id] = child.turn
    await agent.update(
        child.parent_id,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": child.session_id,
            "title": child.script.title,
            "description": child.script.description,
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
        },
    )
    if agent.caps.v2:
        await agent.update(child.session_id, {"sessionUpdate": "state_update", "state": "running"})


async def _state(agent: Parenting, child: Child, state: str, **fields: Any) -> None:
    """The child's state: on the parent's ``subagent_update`` (v1's only way), and on the
    child itself in v2."""
    snapshot = {"state": state, **fields}
    with anyio.CancelScope(shield=True):
        await agent.update(
            child.parent_id,
            {"sessionUpdate": "subagent_update", "sessionId": child.session_id, "state": snapshot},
        )
        if agent.caps.v2:
            await agent.update(child.session_id, {"sessionUpdate": "state_update", **snapshot})


async def _say(agent: Parenting, child: Child, text: str) -> None:
    mid = message_id()
    for piece in chunks(text):
        child.turn.check()
        await agent.update(
            child.session_id,
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": mid,
                "content": wire.text_block(piece),
            },
        )
        await child.turn.sleep(agent.chunk_delay)


async def _message(
    agent: Parenting, on: str, text: str, *, sender: str | None, recipient: str | None
) -> None:
    """A message between sessions, in ``on``'s transcript."""
    with anyio.CancelScope(shield=True):
        await agent.update(
            on,
            {
                "sessionUpdate": "session_message",
                "messageId": message_id(),
                "senderSessionId": sender,
                "recipientSessionId": recipient,
                "content": [wire.text_block(text)],
            },
        )


async def _permission(agent: Parenting, child: Child, tool_call: dict[str, Any]) -> bool:
    """Ask the client's permission for the child's tool call (the request names the
    child's session). True: allowed."""
    await _state(agent, child, "requires_action")
    if agent.caps.v2:
        params: dict[str, Any] = {
            "sessionId": child.session_id,
            "title": f"Allow: {tool_call['title']}",
            "subject": {"type": "tool_call", "toolCall": tool_call},
            "options": list(PERMISSION_OPTIONS),
        }
    else:
        params = {
            "sessionId": child.session_id,
            "toolCall": tool_call,
            "options": list(PERMISSION_OPTIONS),
        }
    result: Any = None
    async with anyio.create_task_group() as group:

        async def give_up_after_cancel() -> None:
            await child.turn.cancel_event.wait()
            await anyio.sleep(CANCEL_GRACE)
            group.cancel_scope.cancel()

        group.start_soon(give_up_after_cancel)
        try:
            result = await agent.request("session/request_permission", params)
        except RpcError:
            result = None
        group.cancel_scope.cancel()
    child.turn.check()
    outcome = result.get("outcome") if isinstance(result, dict) else None
    if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
        child.turn.cancel()
        raise TurnCancelled
    await _state(agent, child, "running")
    return outcome.get("optionId") in ("allow_once", "allow_always")


async def _work(agent: Parenting, child: Child) -> None:
    script = child.script
    for step in script.steps[:1]:
        await _say(agent, child, step)
    tool_call_id = f"read-{uuid.uuid4().hex[:10]}"
    tool_call = {
        "toolCallId": tool_call_id,
        "title": script.tool,
        "kind": "read",
        "status": "pending",
    }
    await agent.update(child.session_id, wire.tool_start(tool_call, agent.caps.v2))
    allowed = True if not script.asks else await _permission(agent, child, tool_call)
    done = {"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id}
    if not allowed:
        with anyio.CancelScope(shield=True):
            await agent.update(
                child.session_id,
                {**done, "status": "failed", "content": [wire.text_content("Rejected.")]},
            )
        await _say(agent, child, "You said no, so I skipped that step.")
    else:
        await agent.update(child.session_id, {**done, "status": "in_progress"})
        try:
            await child.turn.sleep(script.pause)
        except TurnCancelled:
            with anyio.CancelScope(shield=True):
                await agent.update(
                    child.session_id,
                    {**done, "status": "failed", "content": [wire.text_content("Cancelled.")]},
                )
            raise
        await agent.update(child.session_id, {**done, "status": "completed"})
    for step in script.steps[1:]:
        await child.turn.sleep(script.pause)
        await _say(agent, child, step)


async def run_child(agent: Parenting, child: Child, *, announced: bool = False) -> str:
    """Announce the child (unless ``announced``), give it its task, let it work, report
    back: its stop reason (``cancelled`` when the client cancelled it, or its parent's turn
    was)."""
    if not announced:
        await announce(agent, child)
    await _message(
        agent,
        child.session_id,
        child.script.task,
        sender=child.parent_id,
        recipient=child.session_id,
    )
    try:
        await _work(agent, child)
        child.turn.check()
    except TurnCancelled:
        child.stop_reason = "cancelled"
    finally:
        agent.children.pop(child.session_id, None)
    if child.stop_reason == "cancelled":
        report = f"{child.script.title}: cancelled before it finished."
    else:
        report = child.script.report
    await _message(
        agent, child.parent_id, report, sender=child.session_id, recipient=child.parent_id
    )
    await _state(agent, child, "idle", stopReason=child.stop_reason)
    return child.stop_reason
