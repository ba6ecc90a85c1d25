"""What the agent sends a :class:`~acp_tui.session.agent.controller.SessionController` and asks of
it: session updates (v2: the turn's state), permission requests and elicitations (queued for
the person, answered ``cancelled`` while the turn is being cancelled), files and terminals
(the services, within the session's directories)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio

from acp_tui.protocol import v2
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from acp_tui.services.errors import ServiceError
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.agent.turns import Turns
from acp_tui.session.asking.elicitation import CANCEL, ElicitationError, answer
from acp_tui.session.asking.permissions import CANCELLED, PendingPermission
from acp_tui.store import ACTIVITY_IDLE, TOOL_ALLOWED, TOOL_REJECTED
from acp_tui.wire.constants import Method, UpdateKind


class AgentRequests:
    """The agent -> client half of the controller, over the controller's ``state``: a turn ended by
    the agent (v2) ends through ``turns``."""

    def __init__(self, state: ControllerState, turns: Turns) -> None:
        self.state = state
        self.turns = turns

    async def on_notification(self, method: str, params: Any) -> None:
        if method == Method.SESSION_UPDATE:
            self.state.store.apply(params)
            if self.state.spend is not None:
                self.state.spend.on_update(params)
            # Only a v2 connection ends turns on `state_update` idle; on v1 the update is
            # shown (the store's activity) and the prompt's answer ends the turn.
            if self.state.v2_lifecycle and isinstance(params, dict):
                self._v2_state(params)
            if self.state.child_runtimes:
                self._children_stopped()
        elif method == Method.AUTH_STATUS_UPDATE:
            self.state.sign_in.pushed(params)
        elif method == Method.ELICITATION_COMPLETE and self.state.elicitations is not None:
            if isinstance(params, dict):
                self.state.elicitations.complete(params.get("elicitationId"))

    def _v2_state(self, params: dict[str, Any]) -> None:
        """v2: the agent's ``state_update`` is the turn: running (after a prompt, or work of
        the agent's own) until idle, which ends it (its stop reason and usage go to the store)
        and lets what waits go."""
        update = params.get("update")
        session_id = params.get("sessionId")
        if not (
            isinstance(update, dict)
            and update.get("sessionUpdate") in ("state_update", "state_change")
            and isinstance(session_id, str)
            and session_id in self.state.runtimes
        ):
            return
        runtime = self.state.runtimes[session_id]
        state = update.get("state")
        if state in ("running", "requires_action"):
            runtime.turn_running = True
        elif state == "idle":
            if not runtime.turn_running:
                self.turns.flush(session_id)  # an idle that ended no turn of ours
                return
            reason = update.get("stopReason")
            error = update.get("error")
            self.turns.note_stop(
                session_id,
                reason if isinstance(reason, str) else None,
                error if isinstance(error, dict) else None,
            )
            self.turns.turn_idle(session_id)

    def _children_stopped(self) -> None:
        """A subagent the person cancelled that is idle again asks afresh from now on."""
        for child_id, runtime in self.state.child_runtimes.items():
            if runtime.cancelling:
                child = self.state.store.get(child_id)
                if child is None or child.activity == ACTIVITY_IDLE:
                    runtime.cancelling = False

    async def on_permission(self, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        session_id = params.get("sessionId")
        if self.state.v2_lifecycle:
            params, upsert = v2.permission_params(params)
            if upsert is not None and isinstance(session_id, str):
                self.state.store.apply_update(
                    session_id, {"sessionUpdate": UpdateKind.TOOL_CALL_UPDATE, **upsert}
                )
        params = self._with_known_tool_call(params)
        if self.state.v2_lifecycle:
            params = v2.with_prompt_title(params)
        handler = self.state.permission_handler
        if handler is None:
            return dict(CANCELLED)
        if not isinstance(session_id, str) or self.state.store.get(session_id) is None:
            # A question for a session this client never opened (or for none) has no place:
            # shown, it would read as a question of whatever session is on screen.
            label = PendingPermission.from_params(params).label
            self.state.events.on_error(
                f"The agent asked permission for a session it never opened ({label}): "
                "answered cancelled."
            )
            return dict(CANCELLED)
        self._announce_tool_call(session_id, params)
        runtime = self.state.asking_runtime(session_id)
        if runtime is not None and runtime.cancelling:
            self.state.store.add_notice(
                str(session_id),
                "Cancelled (the turn is being cancelled): "
                + PendingPermission.from_params(params).label,
                severity="warning",
            )
            return dict(CANCELLED)
        scope = anyio.CancelScope()
        try:
            with self._waiting_for_person(session_id), scope:
                if runtime is not None:
                    runtime.asking.add(scope)
                answer = await handler(params)
                self._note_answer(session_id, params, answer)
                return answer
            # Cancelled through runtime.stop_asking: the handler answered (and echoed) the
            # request as cancelled; so does the agent's answer.
            return dict(CANCELLED)
        finally:
            if runtime is not None:
                runtime.asking.discard(scope)

    async def on_elicitation(self, params: Any) -> Any:
        """``elicitation/create``: queued for the person like a permission request. One that
        comes while the turn is being cancelled is answered ``cancel`` at once; those open
        when the turn is cancelled or ends are cancelled by the queue's owner
        (:meth:`ElicitationQueue.cancel_session`), after ``session/cancel`` went out."""
        assert self.state.elicitations is not None
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        runtime = self.state.asking_runtime(session_id)
        if runtime is not None and runtime.cancelling:
            return answer(CANCEL)
        if isinstance(session_id, str) and self.state.store.get(session_id) is None:
            # Session-scoped, for a session never opened: as with permissions, never shown
            # as a question of the session on screen. (Request-scoped ones have no session.)
            self.state.events.on_error(
                "The agent asked a question for a session it never opened: answered cancel."
            )
            return answer(CANCEL)
        try:
            # Waiting for the person, like a permission request: the session's row says so.
            with self._waiting_for_person(session_id):
                return await self.state.elicitations.request(params)
        except ElicitationError as error:
            if isinstance(session_id, str):
                self.state.store.add_notice(
                    session_id,
                    f"The agent asked something acp-tui cannot show: {error}",
                    severity="warning",
                )
            raise RpcError(INVALID_PARAMS, str(error)) from None

    @contextlib.contextmanager
    def _waiting_for_person(self, session_id: Any) -> Iterator[None]:
        """The session's activity is ``requires_action`` while the agent waits for the
        person's answer, then what it was before."""
        if not isinstance(session_id, str):
            yield
            return
        previous = self.state.store.get(session_id)
        before = previous.activity if previous else None
        self.state.store.set_activity(session_id, "requires_action")
        try:
            yield
        finally:
            state = self.state.store.get(session_id)
            if state and state.activity == "requires_action" and before is not None:
                self.state.store.set_activity(session_id, before)

    def _with_known_tool_call(self, params: dict[str, Any]) -> dict[str, Any]:
        """Some agents (Mistral Vibe) send only the toolCallId in a permission request: take the
        title and kind the tool call already has in the store, so the dialog and the record
        line ("Allowed once: …") name the tool call, not its id."""
        tool_call = params.get("toolCall")
        session_id = params.get("sessionId")
        if not isinstance(tool_call, dict) or not isinstance(session_id, str):
            return params
        tool_call_id = tool_call.get("toolCallId")
        state = self.state.store.get(session_id)
        known = (
            state.tool_index.get(tool_call_id) if state and isinstance(tool_call_id, str) else None
        )
        if known is None:
            return params
        filled = dict(tool_call)
        kind = known.tool_kind if known.tool_kind != "other" else ""
        for key, value in (("title", known.title), ("kind", kind)):
            current = filled.get(key)
            if (not isinstance(current, str) or not current.strip()) and value:
                filled[key] = value
        return {**params, "toolCall": filled}

    def _note_answer(self, session_id: str, params: dict[str, Any], answer: Any) -> None:
        """A tool call whose permission was rejected is ``rejected`` until the agent says
        otherwise: Qwen Code sends nothing more of it, and it stayed "pending" for good. One
        allowed and not started yet is ``allowed`` (OpenHands never updates the tool call it
        asks for, and the turn's end read it "not run")."""
        outcome = answer.get("outcome") if isinstance(answer, dict) else None
        chosen = outcome.get("optionId") if isinstance(outcome, dict) else None
        if not isinstance(chosen, str):
            return
        request = PendingPermission.from_params(params)
        choice = request.option(chosen)
        tool_call_id = request.tool_call.get("toolCallId")
        if choice is None or not isinstance(tool_call_id, str):
            return
        if choice.is_reject:
            self.state.store.end_tool_call(session_id, tool_call_id, TOOL_REJECTED)
        elif choice.is_allow:
            self.state.store.end_tool_call(
                session_id, tool_call_id, TOOL_ALLOWED, only_pending=True
            )

    def _announce_tool_call(self, session_id: str, params: dict[str, Any]) -> None:
        """A permission asked for a tool call the agent never announced (Qwen Code sends no
        ``tool_call`` before it asks, only updates after) becomes the tool
        call, as the request describes it: otherwise the transcript's card, made later from
        the bare updates, was named by its id. A tool call already known is left as it is
        (the dialog shows the request's fields over it)."""
        tool_call = params.get("toolCall")
        if not isinstance(tool_call, dict):
            return
        tool_call_id = tool_call.get("toolCallId")
        state = self.state.store.get(session_id)
        if not isinstance(tool_call_id, str) or not tool_call_id or state is None:
            return
        if tool_call_id not in state.tool_index:
            self.state.store.apply_update(
                session_id, {**tool_call, "sessionUpdate": UpdateKind.TOOL_CALL}
            )

    def service(self, method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        async def call(params: Any) -> Any:
            if not self.state.machine_access:
                raise RpcError(
                    METHOD_NOT_FOUND, "a replay never reads or writes files or runs commands"
                )
            try:
                return await method(params if isinstance(params, dict) else {})
            except ServiceError as error:
                raise RpcError(error.code, error.message, error.data) from None

        return call

    async def release_terminal(self, params: dict[str, Any]) -> Any:
        # The tool call that embeds a terminal stays on screen after the agent releases it:
        # keep its last output for the transcript.
        terminal_id = params.get("terminalId")
        if isinstance(terminal_id, str) and terminal_id in self.state.terminals:
            self.state.released_terminals[terminal_id] = self.state.terminals.get(terminal_id)
        return await self.state.terminals.release(params)

    async def create_terminal(self, params: Any) -> Any:
        return await self.state.terminals.create(params, guard=self.state.roots.guard_for(params))

    def terminal_state(self, terminal_id: str) -> Any:
        """The live state of a terminal, or its last state once released; None if unknown."""
        if terminal_id in self.state.terminals:
            return self.state.terminals.get(terminal_id)
        if terminal_id in self.state.released_terminals:
            return self.state.released_terminals[terminal_id]
        return self.state.store.agent_terminal(terminal_id)  # v2: the agent's own terminals
