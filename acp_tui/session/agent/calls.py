"""The calls about sessions a :class:`~acp_tui.session.agent.controller.SessionController` makes:
sign-in when the agent requires it, ``session/new`` (with the choices made before it existed),
reopening a past session (resume, load, or v2's replaying resume), listing pages, a session's
mode, model and options, close and delete."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from acp_tui.protocol.errors import AcpError, AgentExitedError, NotSupportedError
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND, RpcError
from acp_tui.session.agent.roots import dirs_to_send
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.agent.turns import NOT_SIGNED_IN, Turns
from acp_tui.wire.constants import SessionStatusName

log = logging.getLogger(__name__)

#: Choices for a new session: its mode, config options (id -> value), legacy model.
Choices = tuple[str | None, dict[str, Any], str | None]


class SessionCalls:
    """Opening, listing and configuring sessions, over the controller's ``state``; a call the
    agent refuses for want of a sign-in signs in through ``turns`` and is made again."""

    def __init__(self, state: ControllerState, turns: Turns) -> None:
        self.state = state
        self.turns = turns

    async def with_auth(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """Run a session call; on 'authentication required' pick a method and retry once.
        When the agent said it is not signed in (``auth/status``), the sign-in comes first."""
        if self.state.sign_in.needs_sign_in:
            await self.turns.authenticate(NOT_SIGNED_IN)
        try:
            return await call()
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            await self.turns.authenticate(error.reason)
            return await call()

    @property
    def can_logout(self) -> bool:
        return (
            self.state.client is not None
            and self.state.agent is not None
            and self.state.client.can_logout
        )

    async def logout(self) -> None:
        """``logout``: the agent forgets the sign-in; the next call that needs it asks again."""
        client = self.state.require_client()
        sign_in = self.state.sign_in
        pushes = sign_in.pushes
        await client.logout()
        sign_in.signed_out = True
        await sign_in.changed_here(client, pushes)

    async def new_session(
        self,
        cwd: str | None = None,
        *,
        adopt: bool = False,
        mode: str | None = None,
        config: dict[str, Any] | None = None,
        model: str | None = None,
        choices: Callable[[], Choices] | None = None,
        sign_in: bool = True,
    ) -> str:
        """``session/new``. The session is a draft (not listed, not remembered) until its first
        prompt. ``mode`` and ``config`` (config id -> value): choices the person made before
        the session existed, applied before anything is sent; or ``choices``, which hands
        them over: once before the request, then after its answer until it has none left (a
        choice made meanwhile is never lost). ``adopt``: the messages queued for "the new session" (key
        ``None``) are this session's, and go out now. ``sign_in=False``: an agent that wants
        a sign-in first is not signed in to here (the call fails; a later one signs in)."""
        client = self.state.require_client()
        cwd = cwd or self.state.cwd
        self.state.events.on_status("starting a new session")
        dirs = self.session_dirs(None)
        # What is chosen already goes with the request where the agent takes it
        # (session/options' capability); what it ignores is set below, as for any agent.
        first: Choices = choices() if choices is not None else (mode, dict(config or {}), model)
        extra = _dirs_param(dirs)
        agent = self.state.agent
        if first[1] and agent is not None and agent.can_session_options:
            extra["configOptions"] = [client.config_value(k, v) for k, v in first[1].items()]
        answered = anyio.Event()
        self.state.creating.add(answered)
        try:
            call = functools.partial(client.new_session, cwd, self.state.mcp_servers, **extra)
            result = await (self.with_auth(call) if sign_in else call())
        finally:
            self.state.creating.discard(answered)
            answered.set()
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str):
            raise AcpError("the agent answered session/new without a sessionId")
        self.set_session_dirs(session_id, cwd, dirs)
        self.state.store.register_session(session_id, cwd=cwd, response=result, new=True)
        self.state.events.on_session_created(session_id, result)
        chosen = first
        while True:
            if any(chosen):
                await self._apply_choices(session_id, *chosen)
            if choices is None:
                break
            chosen = choices()
            if not any(chosen):
                break
        if adopt:
            self.state.prompts.rekey(None, session_id)
        self._opened(session_id)
        return session_id

    async def _apply_choices(
        self, session_id: str, mode: str | None, config: dict[str, Any], model: str | None
    ) -> None:
        """Set what differs from what the new session has (each refusal said, none fatal)."""
        state = self.state.store.get(session_id)
        if state is None:
            return
        if mode and state.current_mode_id != mode and not self.state.v2_lifecycle:  # v2: no modes
            await self._apply_choice(lambda: self.set_mode(session_id, mode), "set mode")
        if model and isinstance(state.models, dict) and state.models.get("currentModelId") != model:
            await self._apply_choice(lambda: self.set_model(session_id, model), "set model")
        for config_id, value in config.items():
            option = next((o for o in state.config_options or [] if o.get("id") == config_id), None)
            if option is not None and option.get("currentValue") != value:
                await self._apply_choice(
                    functools.partial(self.set_config_option, session_id, config_id, value),
                    "set option",
                )

    async def _apply_choice(self, call: Callable[[], Awaitable[None]], what: str) -> None:
        try:
            await call()
        except (AcpError, RpcError) as error:
            if isinstance(error, AgentExitedError):
                raise
            self.state.events.on_error(f"{what}: {error}")

    async def open_session(
        self,
        session_id: str,
        cwd: str | None = None,
        *,
        adopt: bool = False,
        history: bool = True,
    ) -> str:
        """Reopen a past session: resume when the agent can and we already have its
        transcript, else load (replayed), else resume; else a clear error. ``adopt``: the
        messages queued for "the new session" go to this one (a start-up ``--continue``).
        ``history=False``: the caller does not show the past conversation (headless), so a
        resume is preferred to a load. A resume the agent advertises but does not implement
        (-32601) falls back to a load."""
        client = self.state.require_client()
        agent = self.state.agent
        assert agent is not None
        state = self.state.store.get(session_id)
        cwd = cwd or (state.cwd if state and state.cwd else self.state.cwd)
        if state is not None and state.live and session_id in self.state.runtimes:
            if adopt:
                self.state.prompts.rekey(None, session_id)
            self._opened(session_id)
            return "switch"
        await self._ask_status(session_id)
        have_transcript = state is not None and bool(state.transcript)
        if self.state.spend is not None:
            self.state.spend.reopening(session_id)
        dirs = self.session_dirs(session_id)
        extra = _dirs_param(dirs)
        if state is not None:
            # Only the agent's answer tells the session's mode now: one known from the local
            # index or an earlier agent process must not hide that the agent reports none (the
            # screen then re-applies the remembered choice).
            self.state.store.set_current_mode(session_id, None)
        if agent.can_resume and self.state.v2_lifecycle and not have_transcript:
            # v2 has no session/load: a resume that replays the conversation from its start.
            await self._replayed(
                session_id,
                cwd,
                dirs,
                lambda: client.resume_session(
                    session_id, cwd, self.state.mcp_servers, replay=True, **extra
                ),
                keep=False,
            )
            method = "load"
        elif (
            agent.can_resume
            and not self.state.resume_unsupported
            and (have_transcript or not history or not agent.can_load)
        ):
            self.state.events.on_status("resuming session")
            if have_transcript:
                # A resume replays nothing, yet some agents replay the whole conversation
                # (fast-agent): built apart and judged as a load's is, it is never shown twice.
                self.state.store.begin_replay(session_id, cwd=cwd, keep=True)
            try:
                result = await self.with_auth(
                    lambda: client.resume_session(session_id, cwd, self.state.mcp_servers, **extra)
                )
            except BaseException as error:
                if have_transcript:
                    self.state.store.end_replay(session_id, None)
                if not isinstance(error, RpcError) or (
                    error.code != METHOD_NOT_FOUND or not agent.can_load
                ):
                    raise
                # Advertised, not implemented (pydantic-acp, the TS SDK): load, now and later.
                self.state.resume_unsupported = True
                return await self.open_session(session_id, cwd, adopt=adopt, history=history)
            if have_transcript:
                self.state.store.end_replay(session_id, result, resumed=True)
            self.set_session_dirs(session_id, cwd, dirs)
            self.state.store.register_session(session_id, cwd=cwd, response=result)
            method = "resume"
        elif agent.can_load:
            # The transcript on screen stays unless the replay holds all of it.
            await self._replayed(
                session_id,
                cwd,
                dirs,
                lambda: client.load_session(session_id, cwd, self.state.mcp_servers, **extra),
                keep=have_transcript,
            )
            method = "load"
        else:
            raise NotSupportedError(
                f"{agent.display_name} cannot reopen past sessions (it supports neither "
                "session/resume nor session/load)"
            )
        if adopt:
            self.state.prompts.rekey(None, session_id)
        self._opened(session_id)
        return method

    async def _ask_status(self, session_id: str) -> None:
        """``session/status`` before reopening, where the agent answers it: a session it
        does not know (-32002) fails here, before anything is replayed; one it has in memory
        already is noted (another client may be in it). Any other refusal changes nothing."""
        client = self.state.require_client()
        self.state.reported_status.pop(session_id, None)
        if self.state.agent is None or not self.state.agent.can_session_status:
            return
        try:
            raw = await client.session_status(session_id)
        except RpcError as error:
            if error.code == RESOURCE_NOT_FOUND:
                raise
            log.info("session/status: %s", error)
            return
        status = raw.get("status")
        # An unknown value means saved (the spec's MUST).
        self.state.reported_status[session_id] = (
            SessionStatusName.OPEN if status == SessionStatusName.OPEN else SessionStatusName.SAVED
        )

    async def _replayed(
        self,
        session_id: str,
        cwd: str,
        dirs: list[str],
        call: Callable[[], Awaitable[Any]],
        *,
        keep: bool,
    ) -> None:
        """A call that replays the session's conversation (``session/load``, v2's replaying
        resume) into the store; ``keep``: the transcript already shown stays unless the
        replay holds all of it."""
        self.state.events.on_status("loading session")
        self.state.store.begin_replay(session_id, cwd=cwd, keep=keep)
        try:
            result = await self.with_auth(call)
            self.set_session_dirs(session_id, cwd, dirs)
        except BaseException:
            self.state.store.end_replay(session_id, None)
            raise
        self.state.store.end_replay(session_id, result)

    def session_dirs(self, session_id: str | None) -> list[str]:
        """The additional directories a session call carries: the session's own, then this
        run's; none when the agent does not take them (it was told so at start)."""
        if self.state.agent is None or not self.state.agent.can_add_dirs:
            return []
        state = self.state.store.get(session_id) if session_id is not None else None
        return dirs_to_send(state.additional_dirs if state else None, self.state.additional_dirs)

    def set_session_dirs(self, session_id: str, cwd: str, dirs: list[str]) -> None:
        """What a session was opened with: its containment, and the store (header, index)."""
        self.state.roots.set(session_id, cwd, dirs)
        self.state.store.set_additional_dirs(session_id, dirs)

    def _opened(self, session_id: str) -> None:
        self.state.current_session_id = session_id
        self.state.runtime(session_id)
        self.turns.checkpoints.warm(session_id)
        self.state.events.on_session_opened(session_id)
        self.turns.flush(session_id)

    async def list_sessions(
        self,
        cwd: str | None,
        cursor: str | None,
        *,
        archived: bool = False,
        pages: list[Any] | None = None,
    ) -> str | None:
        """Fetch one page into the store (of the archived sessions with ``archived``);
        returns the next cursor (None when done). ``pages``: the raw page is appended there
        too (``acp-tui sessions --json`` prints the agent's rows as sent)."""
        client = self.state.require_client()
        page = await client.list_sessions(cwd, cursor, "only" if archived else None)
        if pages is not None:
            pages.append(page)
        self.state.store.apply_list_page(page, cwd=cwd, cursor=cursor, archived=archived)
        state = self.state.store.list_state(cwd, archived=archived)
        return None if state.complete else state.next_cursor

    def adopt_session(self, session_id: str) -> None:
        """A session the agent made by other means than session/new (a fork) is open here
        now, and shown."""
        self._opened(session_id)

    def drop_session(self, session_id: str) -> None:
        """The agent no longer has the session open (archived): reopened before use."""
        self.state.runtimes.pop(session_id, None)

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        client = self.state.require_client()
        await client.set_mode(session_id, mode_id)
        self.state.store.set_current_mode(session_id, mode_id)

    async def set_model(self, session_id: str, model_id: str) -> None:
        """The legacy ``models`` state's model (agents without a model config option)."""
        client = self.state.require_client()
        await client.set_model(session_id, model_id)
        self.state.store.set_current_model(session_id, model_id)

    async def set_config_option(self, session_id: str, config_id: str, value: Any) -> None:
        client = self.state.require_client()
        result = await client.set_config_option(session_id, config_id, value)
        options = result.get("configOptions") if isinstance(result, dict) else None
        if isinstance(options, list):
            self.state.store.set_config_options(session_id, options)

    async def close_session(self, session_id: str) -> None:
        await self.state.require_client().close_session(session_id)

    async def delete_session(self, session_id: str) -> None:
        await self.state.require_client().delete_session(session_id)
        self.state.store.forget(session_id)

    def unused_sessions(self) -> list[str]:
        """The sessions made here by ``session/new`` that never had a prompt, nothing waits
        for and nothing runs in: empty sessions the person never used."""
        out = []
        for session_id, runtime in self.state.runtimes.items():
            state = self.state.store.get(session_id)
            if (
                state is not None
                and state.draft
                and not runtime.turn_running
                and not self.state.prompts.has(session_id)
            ):
                out.append(session_id)
        return out

    async def discard_unused(self) -> list[str]:
        """Leave no empty session behind (as the person leaves): a ``session/new`` still on
        its way is waited for, then each unused session (:meth:`unused_sessions`) is closed
        (``session/close``) and deleted (``session/delete``), as far as the agent advertises
        either. Returns the sessions discarded. The caller bounds the wait."""
        agent = self.state.agent
        client = self.state.client
        if agent is None or client is None or not (agent.can_close or agent.can_delete):
            return []
        while self.state.creating:
            await next(iter(self.state.creating)).wait()
        discarded = []
        for session_id in self.unused_sessions():
            closed = False
            if agent.can_close:
                closed = await _quietly(client.close_session(session_id))
            if agent.can_delete:
                # After a close, an agent that kept nothing of an empty session may not know
                # it any more: that is no failure.
                deleted = await _quietly(client.delete_session(session_id), gone_ok=closed)
                closed = closed or deleted
            if closed:
                self.state.runtimes.pop(session_id, None)
                self.state.store.forget(session_id)
                discarded.append(session_id)
        return discarded


async def _quietly(call: Awaitable[Any], *, gone_ok: bool = False) -> bool:
    """Whether ``call`` succeeded (a "not found" counts with ``gone_ok``); the agent going
    away ends the discarding (nothing is left to discard in it)."""
    try:
        await call
    except RpcError as error:
        if gone_ok and error.code == RESOURCE_NOT_FOUND:
            return True
        log.info("discarding an unused session: %s", error)
        return False
    except AcpError as error:
        if isinstance(error, AgentExitedError):
            raise
        log.info("discarding an unused session: %s", error)
        return False
    return True


def _dirs_param(dirs: list[str]) -> dict[str, Any]:
    """``additionalDirectories`` for a session call (left out when there are none)."""
    return {"additionalDirectories": list(dirs)} if dirs else {}
