"""The turns of a :class:`~acp_tui.session.agent.controller.SessionController`'s sessions: a prompt
sent now or queued (v1 agents take one turn at a time; what waits for a session not open yet
goes when it opens), why a turn ended, a prompt refused for want of a sign-in kept unsent,
cancel, and the queue's edits."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import anyio

from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.errors import AcpError, AgentExitedError, NotSupportedError
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RpcError
from acp_tui.session.agent.checkpointing import TurnCheckpoints
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.auth.signin import AuthNotDone
from acp_tui.session.prompts.attachments import (
    BuiltPrompt,
    PromptCapabilities,
    build_prompt,
    fit_to_capabilities,
)
from acp_tui.session.prompts.queue import QueuedPrompt
from acp_tui.session.prompts.shell_output import shell_output_blocks
from acp_tui.store import ACTIVITY_IDLE, TOOL_CANCELLED, TOOL_INTERRUPTED, TOOL_NOT_RUN
from acp_tui.store.entries import UserMessage
from acp_tui.wire import constants as wire

#: Why the sign-in is offered before a call: the agent said so (``auth/status``).
NOT_SIGNED_IN = "the agent says you are not signed in"


class Turns:
    """Prompts and turns of the controller's sessions, over its ``state``."""

    def __init__(self, state: ControllerState, checkpoints: TurnCheckpoints | None = None) -> None:
        self.state = state
        #: Snapshots around each turn (see acp_tui.session.agent.checkpointing).
        self.checkpoints = checkpoints or TurnCheckpoints(state, None)
        #: Blocks that go before the next prompt of a session (a rewound conversation).
        self._carried: dict[str, list[dict[str, Any]]] = {}

    def carry_context(self, session_id: str, blocks: list[dict[str, Any]]) -> None:
        """``blocks`` go before the next prompt sent in the session, once (the conversation
        a rewind reconstructs: see acp_tui.session.agent.rewind_talk)."""
        self._carried[session_id] = list(blocks)

    def build_prompt(self, text: str) -> BuiltPrompt:
        """The blocks of a prompt the person wrote: its text, then each file or image it
        names with ``@`` (embedded, linked or attached as this agent takes them: before it
        said, built rich and fitted when sent). Every face sends what this builds."""
        agent = self.state.agent
        caps = PromptCapabilities.from_agent(agent.capabilities) if agent else PromptCapabilities()
        return build_prompt(text, Path(self.state.cwd), caps)

    def shell_output_blocks(self, command: str, output: str, status: str) -> list[dict[str, Any]]:
        """A shell-mode command's output, as this agent takes it with a prompt."""
        agent = self.state.agent
        caps = PromptCapabilities.from_agent(agent.capabilities) if agent else PromptCapabilities()
        return shell_output_blocks(command, output, status, caps)

    def send_prompt(
        self, session_id: str, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        """Send now, or queue when a turn is running (v1 agents take one turn at a time) or
        when earlier messages still wait (they go first)."""
        blocks = blocks or [{"type": "text", "text": text}]
        target = self.state.store.get(session_id)
        if target is not None and target.parent_id is not None:
            # The spec forbids it: a subagent's work is its parent's to give.
            raise NotSupportedError("a subagent takes no messages from you, only its parent's")
        runtime = self.state.runtime(session_id)
        runtime.auth_blocked = False  # the person sends: what waited for a sign-in tries again
        if (runtime.turn_running and not self.state.v2_lifecycle) or self.state.prompts.has(
            session_id
        ):
            self.state.prompts.add(session_id, text, blocks)
            self.flush(session_id)
            return
        self._start_turn(session_id, blocks)

    def can_send(self, session_id: str) -> bool:
        """Whether a prompt for this session can go out now (open here, agent running)."""
        return (
            session_id in self.state.runtimes
            and self.state.task_group is not None
            and self.state.client is not None
            and not self.state.client.connection.closed
        )

    def flush(self, session_id: str) -> None:
        """Send what waits for this session, if it is open and idle (all of it at once to a
        v2 agent). An item being edited holds the queue."""
        if not self.can_send(session_id):
            return
        runtime = self.state.runtime(session_id)
        if runtime.auth_blocked:
            return
        while not runtime.turn_running or self.state.v2_lifecycle:
            queued = self.state.prompts.take_next(session_id)
            if queued is None:
                return
            self._start_turn(session_id, queued.blocks, queued.idempotency_key)

    def _start_turn(
        self, session_id: str, blocks: list[dict[str, Any]], key: str | None = None
    ) -> None:
        """Send ``blocks`` as a turn. v2: with an ``idempotencyKey``, ``key`` when the prompt
        went out before (its answer lost), else a new one, the same on every attempt."""
        if self.state.task_group is None:
            raise AgentExitedError("the agent is not running")
        runtime = self.state.runtime(session_id)
        runtime.turn_running = True
        runtime.on_wire = anyio.Event()
        carried = self._carried.pop(session_id, None)
        if carried:
            blocks = [*carried, *blocks]
        # Built before the agent said what it takes (or for another agent): what it cannot
        # take goes as a link, and the person is told below their message.
        notes: list[str] = []
        if self.state.agent is not None:
            caps = PromptCapabilities.from_agent(self.state.agent.capabilities)
            blocks, notes = fit_to_capabilities(blocks, caps)
        turn = self.state.store.prompt_sent(session_id, blocks)
        session = self.state.store.get(session_id)
        last = session.transcript[-1] if session is not None and session.transcript else None
        entry_id = last.id if isinstance(last, UserMessage) else None
        for note in notes:
            self.state.store.add_notice(session_id, note, severity="warning")
        if key is None and self.state.v2_lifecycle:
            key = uuid.uuid4().hex
        self.state.task_group.start_soon(self._run_turn, session_id, blocks, turn, entry_id, key)

    async def _run_turn(
        self,
        session_id: str,
        blocks: list[dict[str, Any]],
        turn: int,
        entry_id: int | None = None,
        key: str | None = None,
    ) -> None:
        client = self.state.require_client()
        reason: str | None = None
        unsent = False
        try:
            # What the turn may change can be put back: snapshot first, then the prompt.
            await self.checkpoints.before_prompt(session_id, blocks, entry_id)
            if self.state.runtime(session_id).cancelling:
                # Cancelled while the snapshot was taken: the prompt never goes out (a
                # session/cancel sent before it would reach no turn, and the turn would run).
                unsent = True
                result = {"stopReason": wire.CANCELLED}
            else:
                self._on_wire(session_id)
                result = await self._prompt_signed_in(client, session_id, blocks, key)
            reason = result.get("stopReason") if isinstance(result.get("stopReason"), str) else None
            if not self.state.v2_lifecycle:
                self._left_unfinished(session_id, turn)
            self.state.store.prompt_finished(session_id, result, turn=turn)
            self.note_stop(session_id, reason)
        except AuthNotDone as error:
            self._keep_unsent(session_id, blocks, turn, str(error))
            reason = "error"
        except RpcError as error:
            self._interrupted(session_id, turn)
            self.state.store.prompt_finished(
                session_id, None, error=f"The agent reported an error: {error}", turn=turn
            )
            reason = "error"
        except AgentExitedError as error:
            if key is not None and self.state.v2_lifecycle:
                self._keep_for_retry(session_id, blocks, turn, key, str(error))
            else:
                self._interrupted(session_id, turn)
                self.state.store.prompt_finished(session_id, None, error=str(error), turn=turn)
            reason = "error"
        except AcpError as error:
            self._interrupted(session_id, turn)
            self.state.store.prompt_finished(session_id, None, error=str(error), turn=turn)
            reason = "error"
        finally:
            self._on_wire(session_id)
            # v2 ends a turn on the agent's idle state update: one never prompted sends none.
            if not self.state.v2_lifecycle or reason == "error" or unsent:
                self.turn_idle(session_id, reason)

    def _on_wire(self, session_id: str) -> None:
        """The turn's prompt goes out now (or never will): what waited for it may go."""
        event = self.state.runtime(session_id).on_wire
        if event is not None:
            event.set()

    def _left_unfinished(self, session_id: str, turn: int) -> None:
        """The agent answered the prompt: the turn is over, and a tool call of it still
        pending never ran, or was never reported (it said "pending" for good). One reported
        running may go on after the turn. Later updates, if any, still apply. A cancelled
        turn's were marked ``cancelled`` already."""
        state = self.state.store.get(session_id)
        if state is not None and state.turn == turn:
            self.state.store.end_unfinished_tool_calls(session_id, TOOL_NOT_RUN, only_pending=True)

    def _interrupted(self, session_id: str, turn: int) -> None:
        """The turn failed (the agent exited, or answered it with an error): its tool calls
        that had not finished never will, and say so (the notice below says why). Not for a
        turn newer than this one, whose tool calls are still on their way."""
        state = self.state.store.get(session_id)
        if state is not None and state.turn == turn:
            self.state.store.end_unfinished_tool_calls(session_id, TOOL_INTERRUPTED)

    def note_stop(
        self, session_id: str, reason: str | None, error: dict[str, Any] | None = None
    ) -> None:
        """Say why a turn ended, unless it simply ended (v1: the prompt's answer; v2: the
        idle ``state_update``, whose ``error`` object details an ``error`` stop)."""
        if reason == wire.CANCELLED:
            self.state.store.add_notice(session_id, "Cancelled", severity="warning")
        elif reason in (wire.MAX_TOKENS, wire.MAX_TURN_REQUESTS, wire.REFUSAL):
            self.state.store.add_notice(
                session_id, f"The turn ended: {reason.replace('_', ' ')}", severity="warning"
            )
        elif reason == "error":
            message = error.get("message") if isinstance(error, dict) else None
            self.state.store.add_notice(
                session_id,
                "The agent reported an error"
                + (f": {message}" if isinstance(message, str) and message else ""),
                severity="error",
            )

    async def authenticate(self, reason: str) -> None:
        """The agent needs a sign-in: the person picks a method, completed by its type (a
        terminal method runs in the terminal, never through ``authenticate``). Raises
        :class:`AuthNotDone` when it did not happen. Sessions waiting on it may go again."""
        client = self.state.require_client()
        await self.state.sign_in.sign_in(client, reason, login_call=client.login_method)
        for session_id, runtime in self.state.runtimes.items():
            if runtime.auth_blocked:
                runtime.auth_blocked = False
                self.flush(session_id)

    async def _prompt_signed_in(
        self,
        client: AcpClient,
        session_id: str,
        blocks: list[dict[str, Any]],
        key: str | None = None,
    ) -> dict[str, Any]:
        """``session/prompt``; when the agent answers "authentication required" (-32000), sign
        in and send it once more (with the same idempotency key: one prompt, two attempts).
        :class:`AuthNotDone` when the sign-in did not happen. When the agent said it is not
        signed in (``auth/status``), the sign-in comes first."""
        if self.state.sign_in.needs_sign_in:
            await self.authenticate(NOT_SIGNED_IN)
        try:
            return await client.prompt(session_id, blocks, key)
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            reason = error.reason
        await self.authenticate(reason)
        try:
            return await client.prompt(session_id, blocks, key)
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            raise AuthNotDone(
                f"signed in, but the agent still requires authentication: {error.reason}"
            ) from error

    def _keep_unsent(
        self, session_id: str, blocks: list[dict[str, Any]], turn: int, why: str
    ) -> None:
        """A prompt the agent refused for want of a sign-in: it leaves the transcript (it was
        not sent) and waits at the head of the queue, held until the person acts."""
        self.state.store.withdraw_prompt(session_id, turn)
        text = "\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        self.state.prompts.put_back(session_id, text, blocks)
        self.state.runtime(session_id).auth_blocked = True
        self.state.store.add_notice(
            session_id,
            "Not sent: the agent needs you to sign in",
            severity="error",
            description=f"{why.rstrip('.')}. Your message waits in the queue: send another "
            "message, or edit it, to try again.",
        )

    def _keep_for_retry(
        self, session_id: str, blocks: list[dict[str, Any]], turn: int, key: str, why: str
    ) -> None:
        """v2: the agent exited before it answered the prompt, which it may or may not have
        taken. It waits at the head of the queue with its idempotency key and goes again once
        the agent is back: an agent that took it answers with the message it made then, and
        runs nothing twice (https://agentclientprotocol.com/rfds/v2/idempotency-keys)."""
        self.state.store.withdraw_prompt(session_id, turn)
        text = "\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        self.state.prompts.put_back(session_id, text, blocks, idempotency_key=key)
        self.state.store.add_notice(
            session_id,
            "The agent exited before it answered your message",
            severity="error",
            description=f"{why.rstrip('.')}. Your message waits in the queue and goes again "
            "once the agent is back, with the same idempotency key: an agent that took it "
            "already does not run it twice.",
        )

    def turn_idle(self, session_id: str, reason: str | None = None) -> None:
        runtime = self.state.runtime(session_id)
        runtime.turn_running = False
        runtime.cancelling = False
        # A dialog still open for a turn that is over can only be answered in vain.
        runtime.stop_asking()
        self.checkpoints.turn_ended(session_id)
        state = self.state.store.get(session_id)
        self.state.events.on_turn_ended(
            session_id, reason or (state.stop_reason if state else None)
        )
        self.flush(session_id)

    def end_turns_of_a_gone_agent(self) -> bool:
        """The agent exited on its own: a turn it was running can never end by its word. A v1
        turn's prompt already failed with the connection; a v2 turn was answered at once and
        waited for a state update that will not come. Each ends as an error, said once.
        Whether any turn was running."""
        interrupted = False
        for session_id, state in list(self.state.store.sessions.items()):
            if state.activity != ACTIVITY_IDLE:
                interrupted = True
                self.state.store.end_unfinished_tool_calls(session_id, TOOL_INTERRUPTED)
                self.state.store.prompt_finished(
                    session_id, None, error="The agent exited during this turn"
                )
        for session_id, runtime in list(self.state.runtimes.items()):
            if runtime.turn_running:
                interrupted = True
                self.turn_idle(session_id, "error")
        return interrupted

    def begin_cancel(self, session_id: str) -> None:
        """The person cancelled the turn: until it ends, every permission request of the
        session is answered ``cancelled``, those waiting now and those still to come."""
        runtime = self.state.runtime(session_id)
        if runtime.turn_running:
            runtime.cancelling = True
            self.state.store.end_unfinished_tool_calls(session_id, TOOL_CANCELLED)
        runtime.stop_asking()

    async def cancel_running_turns(self) -> None:
        """``session/cancel`` for every turn still running (quitting): the spec's way to end
        a turn, before the agent's input closes (Codex answered a bare ``$/cancel_request``
        for the prompt with an error and streamed on)."""
        for session_id, runtime in list(self.state.runtimes.items()):
            if runtime.turn_running and not runtime.cancelling:
                with contextlib.suppress(AcpError, RpcError):
                    await self.cancel(session_id)

    def is_cancelling(self, session_id: str) -> bool:
        """Whether the person cancelled the session's turn and it has not ended yet."""
        runtime = self.state.runtimes.get(session_id)
        return runtime is not None and runtime.cancelling

    async def cancel(self, session_id: str) -> None:
        """session/cancel, after :meth:`begin_cancel` (the spec: pending permission requests
        are answered ``cancelled``)."""
        self.begin_cancel(session_id)
        client = self.state.require_client()
        await client.cancel(session_id)

    def edit_saved(self, session_id: str) -> None:
        """The person saved an edit of a queued message: it may go (again) now."""
        self.state.runtime(session_id).auth_blocked = False
        self.flush(session_id)

    def queue(self, session_id: str | None) -> list[QueuedPrompt]:
        return self.state.prompts.items(session_id)

    def edit_queued(self, session_id: str, queue_id: int, text: str | None) -> None:
        """Replace the text of a queued prompt, or remove it with ``text=None``."""
        if text is None:
            self.state.prompts.remove(session_id, queue_id)
        else:
            self.state.prompts.save_edit(session_id, queue_id, text)
            self.state.runtime(session_id).auth_blocked = False
        self.flush(session_id)

    def is_busy(self, session_id: str) -> bool:
        return self.state.runtime(session_id).turn_running
