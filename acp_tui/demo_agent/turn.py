"""One prompt turn: its cancel flag, and the helpers commands use to speak during it.

Cancel is cooperative: every chunk and every sleep checks the turn's flag, so a turn stops
within one chunk. A pending permission request is left for the client to answer
``cancelled`` (as the protocol requires of it), with a short grace period after which the
agent stops waiting; an open elicitation is withdrawn at once with ``$/cancel_request``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from acp_tui.demo_agent import config, wire
from acp_tui.demo_agent.auth import AuthState
from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.demo_agent.sessions import SessionRecord, SessionStore
from acp_tui.demo_agent.status import StatusMethods
from acp_tui.protocol.jsonrpc import RpcError

CHUNK_CHARS = 24
CANCEL_GRACE = 2.0
_WORD_CHUNKS = re.compile(r"\S+\s*|\s+")

PERMISSION_OPTIONS: tuple[dict[str, str], ...] = (
    {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow_always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject_always", "name": "Always reject", "kind": "reject_always"},
)


class TurnCancelled(Exception):
    """The client cancelled the turn (session/cancel, or a cancelled permission outcome)."""


def message_id() -> str:
    return str(uuid.uuid4())


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    pieces: list[str] = []
    current = ""
    for match in _WORD_CHUNKS.finditer(text):
        current += match.group(0)
        if len(current) >= size:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


@dataclass(slots=True)
class Turn:
    cancel_event: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    cancelled: bool = False
    agent_item: dict[str, Any] | None = None
    output_chars: int = 0
    thought_chars: int = 0
    title_changed: bool = False
    fill_target: int | None = None
    #: ``/cost``: what this turn costs (instead of its tokens' price; may be negative).
    cost: float | None = None
    #: ``/suggest``: the prompts to suggest after this turn (instead of the usual ones).
    suggestions: list[str] | None = None
    #: Messages the client injected (``session/inject``, steer) not delivered yet: the user
    #: items they become.
    injected: list[dict[str, Any]] = field(default_factory=list)

    def cancel(self) -> None:
        self.cancelled = True
        self.cancel_event.set()

    def check(self) -> None:
        if self.cancelled:
            raise TurnCancelled

    async def sleep(self, seconds: float) -> None:
        self.check()
        if seconds > 0:
            with anyio.move_on_after(seconds):
                await self.cancel_event.wait()
        self.check()


@dataclass(slots=True)
class LiveSession:
    record: SessionRecord
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    turn: Turn | None = None
    deleted: bool = False
    #: v2 prompts waiting for the lock, not yet inserted: session/cancel withdraws them.
    held: set[anyio.CancelScope] = field(default_factory=set)
    #: v2 agent-owned terminals still running, by id, for terminal/cancel.
    terminals: dict[str, anyio.CancelScope] = field(default_factory=dict)
    #: Work that outlives its turn (``/background``), by (kind, id): what stops it. v2 lists
    #: it in every ``state_update``; ``tool_call/cancel``, ``terminal/cancel`` or
    #: ``session/cancel`` (on the child; on the session itself, v1's only way) stop it.
    background: dict[tuple[str, str], anyio.CancelScope] = field(default_factory=dict)
    #: A ``background`` list was reported: the next state says so even when it is empty.
    background_reported: bool = False
    #: The client's system prompt of the request that opened it: (mode, text), or None.
    system_prompt: tuple[str, str] | None = None
    #: Set while a turn runs (``session/inject`` may wait for the turn of a prompt just read).
    turn_begun: anyio.Event = field(default_factory=anyio.Event)

    def begin(self, turn: Turn) -> None:
        self.turn = turn
        self.turn_begun.set()

    def end_turn(self) -> None:
        self.turn = None
        self.turn_begun = anyio.Event()

    @property
    def id(self) -> str:
        return self.record.session_id


class Serving(Protocol):
    """What a turn, its commands and the prompt handling use of the agent that runs them
    (:class:`~acp_tui.demo_agent.agent.DemoAgent`), declared here so that none of them
    imports the agent (no import cycle)."""

    caps: ClientCaps
    chunk_delay: float
    auth: AuthState
    sessions: dict[str, LiveSession]
    children: dict[str, Turn]
    #: Its state directory (a session a file there).
    store: SessionStore

    def live(self, session_id: str) -> LiveSession: ...

    def save(self, session: LiveSession) -> None: ...

    def used_tokens(self, record: SessionRecord) -> int: ...

    def plan_update(self, plan_id: str, entries: list[dict[str, Any]]) -> dict[str, Any]: ...

    def plan_removed(self, plan_id: str) -> dict[str, Any]: ...

    async def update(self, session_id: str, update: dict[str, Any]) -> None: ...

    async def update_shielded(self, session_id: str, update: dict[str, Any]) -> None: ...

    async def request(self, method: str, params: dict[str, Any]) -> Any: ...

    async def notify(self, method: str, params: dict[str, Any]) -> None: ...

    async def send_serialized(self, lines: list[str]) -> None: ...

    async def state(self, session: LiveSession, state: str, **fields: Any) -> None: ...

    def spawn(self, job: Callable[[], Coroutine[Any, Any, None]]) -> None: ...

    async def send_usage(self, session: LiveSession) -> None: ...

    async def send_info(self, session: LiveSession, *, full: bool) -> None: ...

    @property
    def status(self) -> StatusMethods: ...


class TurnContext:
    """What a command has to work with: the agent, the session and the turn, and the ways
    to speak (chunks, thoughts, tool calls, permission requests, elicitations)."""

    def __init__(self, agent: Serving, session: LiveSession, turn: Turn, blocks: list[Any]):
        self.agent = agent
        self.session = session
        self.turn = turn
        self.blocks: list[dict[str, Any]] = blocks

    @property
    def caps(self) -> ClientCaps:
        return self.agent.caps

    @property
    def record(self) -> SessionRecord:
        return self.session.record

    def option(self, option_id: str) -> Any:
        return config.value(self.record, option_id, self.caps)

    @property
    def chunk_delay(self) -> float:
        """The pause between chunks of text, at the session's speed (its ``speed`` option)."""
        return self.agent.chunk_delay * config.SPEED_FACTOR[self.option(config.SPEED)]

    async def update(self, update: dict[str, Any]) -> None:
        await self.agent.update(self.session.id, update)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return await self.agent.request(method, params)

    async def state(self, state: str, **fields: Any) -> None:
        await self.agent.state(self.session, state, **fields)

    # ------------------------------------------------------------------ messages

    async def say(self, text: str, *, delay: float | None = None) -> None:
        """Stream agent text in small chunks, recorded into the turn's current message."""
        delay = self.chunk_delay if delay is None else delay
        for piece in chunks(text):
            await self.say_chunk(piece)
            await self.turn.sleep(delay)

    async def say_chunk(self, piece: str) -> None:
        self.turn.check()
        if self.turn.injected:
            await self.take_injected()
        item = self.current_message()
        item["text"] += piece
        self.turn.output_chars += len(piece)
        await self.update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": item["messageId"],
                "content": wire.text_block(piece),
            }
        )

    async def take_injected(self) -> None:
        """Deliver the messages injected meanwhile, at this break-point between chunks: each
        becomes a user message of the history (v2: echoed as ``user_message``), and the
        reply goes on in a new message that says what it took."""
        taken, self.turn.injected = self.turn.injected, []
        await self.end_message()
        for item in taken:
            self.record.history.append(item)
            if self.caps.v2:
                await self.update(
                    {
                        "sessionUpdate": "user_message",
                        "messageId": item["messageId"],
                        "content": item["blocks"],
                    }
                )
        said = "; ".join(f"“{item['text']}”" for item in taken)
        await self.say_chunk(f"\n\nSteered mid-turn: you said {said}. Taking it into account.\n\n")

    def current_message(self) -> dict[str, Any]:
        item = self.turn.agent_item
        if item is None:
            item = {"kind": "agent", "messageId": message_id(), "text": ""}
            self.record.history.append(item)
            self.turn.agent_item = item
        return item

    async def end_message(self) -> None:
        """Close the current agent message; v2 also gets it whole, as an upsert."""
        item, self.turn.agent_item = self.turn.agent_item, None
        if item is not None and self.caps.v2:
            with anyio.CancelScope(shield=True):
                await self.update(
                    {
                        "sessionUpdate": "agent_message",
                        "messageId": item["messageId"],
                        "content": [wire.text_block(item["text"])],
                    }
                )

    async def think(self, text: str) -> None:
        await self.end_message()
        item = {"kind": "thought", "messageId": message_id(), "text": ""}
        self.record.history.append(item)
        try:
            for piece in chunks(text):
                self.turn.check()
                item["text"] += piece
                self.turn.thought_chars += len(piece)
                await self.update(
                    {
                        "sessionUpdate": "agent_thought_chunk",
                        "messageId": item["messageId"],
                        "content": wire.text_block(piece),
                    }
                )
                await self.turn.sleep(self.chunk_delay)
        finally:
            if self.caps.v2:
                with anyio.CancelScope(shield=True):
                    await self.update(
                        {
                            "sessionUpdate": "agent_thought",
                            "messageId": item["messageId"],
                            "content": [wire.text_block(item["text"])],
                        }
                    )

    # ------------------------------------------------------------------ tool calls

    async def tool_start(self, tool_call: dict[str, Any]) -> dict[str, Any]:
        stored = dict(tool_call)
        await self.end_message()
        self.record.history.append({"kind": "tool", "toolCall": stored})
        await self.update(wire.tool_start(tool_call, self.caps.v2))
        return stored

    async def tool_update(
        self,
        stored: dict[str, Any],
        *,
        persist_content: list[dict[str, Any]] | None = None,
        **fields: Any,
    ) -> None:
        """Send ``fields`` and keep them; ``persist_content`` is what a replay shows instead
        of the live content (a live terminal cannot be replayed)."""
        stored.update(fields)
        if persist_content is not None:
            stored["content"] = persist_content
        update = {"sessionUpdate": "tool_call_update", "toolCallId": stored["toolCallId"]}
        with anyio.CancelScope(shield=True):
            await self.update({**update, **wire.tool_fields(fields, self.caps.v2)})

    async def tool_failed(
        self, stored: dict[str, Any], note: str, keep: tuple[dict[str, Any], ...] = ()
    ) -> None:
        """Mark a tool call failed: ``note`` after what it still shows (``keep``, e.g. its diff)."""
        await self.tool_update(stored, status="failed", content=[*keep, wire.text_content(note)])

    async def permitted(
        self,
        stored: dict[str, Any],
        key: str,
        *,
        cancelled: str,
        rejected: str,
        reply: str,
        keep: tuple[dict[str, Any], ...] = (),
        subject: dict[str, Any] | None = None,
    ) -> bool:
        """Ask the client's permission for ``stored``. Rejected: the call fails with
        ``rejected``, ``reply`` is said, False. Cancelled: it fails with ``cancelled`` and the
        turn ends. With the "Ask before tools" option off, or in the mode that bypasses
        permissions, nothing is asked."""
        if not self.option(config.CONFIRM_TOOLS) or self.option(config.MODE) == config.BYPASS_MODE:
            return True
        decision = await self._permission(stored, key, subject)
        if decision == "cancelled":
            await self.tool_failed(stored, cancelled, keep)
            raise TurnCancelled
        if decision == "reject":
            await self.tool_failed(stored, rejected, keep)
            await self.say(reply)
            return False
        return True

    def _permission_params(
        self, stored: dict[str, Any], subject: dict[str, Any] | None
    ) -> dict[str, Any]:
        tool_call = {k: v for k, v in stored.items() if k != "rawOutput"}
        if not self.caps.v2:
            return {
                "sessionId": self.session.id,
                "toolCall": tool_call,
                "options": list(PERMISSION_OPTIONS),
            }
        return {
            "sessionId": self.session.id,
            "title": f"Allow: {stored.get('title', 'a tool call')}",
            "subject": subject
            or {"type": "tool_call", "toolCall": wire.tool_fields(tool_call, True)},
            "options": list(PERMISSION_OPTIONS),
        }

    async def _permission(
        self, stored: dict[str, Any], key: str, subject: dict[str, Any] | None
    ) -> str:
        """'allow', 'reject' or 'cancelled'. Remembers allow_always / reject_always per session."""
        turn = self.turn
        if turn.cancelled:
            return "cancelled"
        remembered = self.record.permissions.get(key)
        if remembered in ("allow", "reject"):
            return remembered
        await self.state("requires_action")
        try:
            answered, result = await self.request_or_cancel(
                "session/request_permission",
                self._permission_params(stored, subject),
                CANCEL_GRACE,
            )
        except RpcError:
            answered, result = True, {"outcome": {"outcome": "selected", "optionId": "reject_once"}}
        if not turn.cancelled:
            await self.state("running")
        outcome = result.get("outcome") if answered and isinstance(result, dict) else None
        if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
            turn.cancel()
            return "cancelled"
        option = outcome.get("optionId")
        if option not in {o["optionId"] for o in PERMISSION_OPTIONS}:
            return "reject"  # an option that was not offered is no approval
        if option == "allow_always":
            self.record.permissions[key] = "allow"
        elif option == "reject_always":
            self.record.permissions[key] = "reject"
        if turn.cancelled:
            return "cancelled"
        return "allow" if option in ("allow_once", "allow_always") else "reject"

    async def request_or_cancel(
        self, method: str, params: dict[str, Any], grace: float
    ) -> tuple[bool, Any]:
        """Send a request; if the turn is cancelled and no answer comes within ``grace``
        seconds, stop waiting (the request is withdrawn with ``$/cancel_request``).
        Returns (answered, result); raises RpcError as is."""
        outcome: dict[str, Any] = {}
        turn = self.turn

        async def watchdog(scope: anyio.CancelScope) -> None:
            await turn.cancel_event.wait()
            await anyio.sleep(grace)
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(watchdog, group.cancel_scope)
            try:
                outcome["result"] = await self.request(method, params)
            except RpcError as error:
                outcome["error"] = error
            finally:
                group.cancel_scope.cancel()
        if "error" in outcome:
            raise outcome["error"]
        return ("result" in outcome, outcome.get("result"))
