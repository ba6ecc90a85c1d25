"""The client side of ACP: launch an agent, negotiate, and call its methods.

Method reference: https://agentclientprotocol.com/protocol/overview. Capability rules:
https://agentclientprotocol.com/protocol/initialization. A method the agent did not advertise
raises :class:`NotSupportedError` locally rather than being sent and failing obscurely.

Results come back as the raw JSON the agent sent (dicts). Updates are routed by their raw
``sessionUpdate`` string further up (the store), so nothing an agent invents is lost here.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui import __version__
from acp_tui.protocol import v2
from acp_tui.protocol.agent_info import (
    LOGIN_METHODS,
    AgentInfo,
    parse_agent_info,
    refuse_terminal_login,
)
from acp_tui.protocol.capabilities import BASELINE_NOTIFICATIONS, client_capabilities
from acp_tui.protocol.errors import (
    AcpError,
    AgentExitedError,
    NotAnAgentError,
    NotSupportedError,
    ProtocolVersionError,
)
from acp_tui.protocol.jsonrpc import (
    CLOSED_INPUT,
    CLOSED_OUTPUT,
    METHOD_NOT_FOUND,
    Connection,
    ConnectionClosed,
    EchoedRequest,
    RpcError,
)
from acp_tui.protocol.process import AgentProcess
from acp_tui.wire.constants import PROTOCOL_VERSION, ForkAtMessage, Inject, Method
from acp_tui.wire.updates import JsonObject

if TYPE_CHECKING:
    from acp_tui.protocol.recording import WireRecorder
    from acp_tui.wire.schema import CancelNotification, Implementation, McpServer


Handler = Callable[[Any], Awaitable[Any]]
NotificationCallback = Callable[[str, Any], Awaitable[None] | None]
#: Makes the agent's process from (argv, cwd=, env=, log_dir=); AgentProcess by default.
ProcessFactory = Callable[..., AgentProcess]


#: Pages in a row with no new session after which listing stops (a cursor that never ends).
MAX_STALE_PAGES = 3


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None:
        notes.append(text)


class AcpClient:
    """A live connection to one agent process.

    ``handlers`` maps agent->client request methods (``session/request_permission``,
    ``fs/read_text_file``, ``terminal/create``...) to async callables taking the params and
    returning the result; the client capabilities sent in initialize are derived from which
    handlers exist (and ``notifications``, ``updates`` and ``abilities``: the notifications,
    ``session/update`` kinds and abilities the driver handles; see :data:`CLIENT_FEATURES`), so
    nothing is advertised that is not implemented. ``on_notification`` receives every
    notification (``session/update`` first of all) in arrival order.
    """

    def __init__(
        self,
        process: AgentProcess,
        *,
        handlers: Mapping[str, Handler] | None = None,
        on_notification: NotificationCallback | None = None,
        notifications: Collection[str] = BASELINE_NOTIFICATIONS,
        updates: Collection[str] = (),
        abilities: Collection[str] = (),
        client_name: str = "acp-tui",
        terminal_auth: bool = False,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        self.process = process
        #: Whether whoever drives this client runs (or shows) terminal sign-in methods.
        self.terminal_auth = terminal_auth
        #: The version asked for at initialize (``--protocol``); the agent's answer decides.
        self.requested_version = protocol_version
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.on_notification = on_notification
        self.notifications = frozenset(notifications)
        self.updates = frozenset(updates)
        self.abilities = frozenset(abilities)
        self.client_name = client_name
        self.agent: AgentInfo | None = None
        #: The ``systemPrompt`` every session setup request carries (new, load, resume,
        #: fork); set by the driver once the agent said it takes it.
        self.system_prompt: JsonObject | None = None
        self.connection = Connection(
            process.stdout,
            process.stdin,
            request_handler=self._handle_request,
            notification_handler=self._handle_notification,
            notification_methods=self.notifications,
        )

    # ------------------------------------------------------------------ launching

    @classmethod
    @contextlib.asynccontextmanager
    async def launch(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        shutdown_grace: float = 2.0,
        recorder: WireRecorder | None = None,
        process_factory: ProcessFactory | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AcpClient]:
        """Spawn the agent and keep the connection running for the ``async with`` body.

        ``recorder`` records the connection's wire; ``process_factory`` stands in for
        spawning (``acp-tui replay`` plays a recording's agent side in-process)."""
        process = (process_factory or AgentProcess)(argv, cwd=cwd, env=env, log_dir=log_dir)
        await process.start()
        # An exception from the body is re-raised as itself after the task group closes;
        # raised inside it, anyio would wrap it in an ExceptionGroup and `except X` around
        # the `async with` would miss it. (Cancellation still flows through the group.)
        body_error: Exception | None = None
        try:
            client = cls(process, **kwargs)
            if recorder is not None:
                recorder.attach(client.connection, argv=process.argv, cwd=str(cwd or os.getcwd()))
            async with anyio.create_task_group() as task_group:
                task_group.start_soon(process.drain_stderr)
                task_group.start_soon(client.connection.run)
                try:
                    yield client
                except Exception as error:
                    body_error = error
                finally:
                    agent_closed = client.connection.close_reason in (CLOSED_OUTPUT, CLOSED_INPUT)
                    await client.connection.aclose()
                    await process.shutdown(shutdown_grace)
                    task_group.cancel_scope.cancel()
                    if recorder is not None:
                        recorder.detach(
                            client.connection,
                            exit_description=process.exit_description,
                            agent_closed=agent_closed,
                        )
        finally:
            with anyio.CancelScope(shield=True):
                await process.shutdown(shutdown_grace)
        if body_error is not None:
            raise body_error

    # ------------------------------------------------------------------ dispatch

    async def _handle_request(self, method: str, params: Any) -> Any:
        handler = self.handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        return await handler(params)

    async def _handle_notification(self, method: str, params: Any) -> None:
        if self.on_notification is None:
            return
        outcome = self.on_notification(method, params)
        if outcome is not None:
            await outcome

    def client_capabilities(self) -> JsonObject:
        # Terminal sign-in is run (or shown) by whoever drives this client: an ability.
        abilities = self.abilities | ({"auth.terminal"} if self.terminal_auth else set())
        return client_capabilities(
            handlers=self.handlers,
            notifications=self.notifications,
            updates=self.updates,
            abilities=abilities,
        )

    async def call(self, method: str, params: Any = None) -> Any:
        """Send a request; an agent exit while waiting becomes :class:`AgentExitedError`."""
        if method in LOGIN_METHODS:
            refuse_terminal_login(self.agent, params)
        try:
            return await self.connection.request(method, params)
        except ConnectionClosed as error:
            raise AgentExitedError(self._exit_reason(method)) from error

    def _exit_reason(self, method: str) -> str:
        status = self.process.exit_description
        if self.connection.close_reason == CLOSED_INPUT:
            # A failed write: the agent stopped reading (closed its stdin) while it still
            # ran; it is then stopped, so its exit status says "killed", which is our doing.
            return f"the agent closed its input (stdin) during {method}"
        if status == "running":
            return f"the agent closed its output during {method}"
        return f"the agent exited ({status}) during {method}"

    @property
    def closed_its_input(self) -> bool:
        """Whether the connection ended because the agent stopped taking input."""
        return self.connection.close_reason == CLOSED_INPUT

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self) -> AgentInfo:
        """Negotiate; must complete before any other call (agents reject pipelining)."""
        info: Implementation = {
            "name": self.client_name,
            "title": "acp-tui",
            "version": __version__,
        }
        params: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": self.client_capabilities(),
            "clientInfo": info,
        }
        if self.requested_version >= v2.V2:
            params = v2.initialize_params(
                self.client_capabilities(), info, terminal_auth=self.terminal_auth
            )
        try:
            result = await self.call(Method.INITIALIZE, params)
        except EchoedRequest:
            raise NotAnAgentError(
                "this is not an ACP agent: it sent our own initialize request back "
                "(it echoes what it reads, as cat does)"
            ) from None
        agent = parse_agent_info(result)
        # v1 always; v2 when asked for (a v1 answer to a v2 request is v1 from then on).
        accepted = {PROTOCOL_VERSION, v2.V2} if self.requested_version >= v2.V2 else {1}
        if agent.protocol_version not in accepted:
            await self.connection.aclose()
            raise ProtocolVersionError(
                f"the agent speaks ACP protocol version {result.get('protocolVersion')!r}; "
                f"acp-tui speaks version {PROTOCOL_VERSION}"
                + (" (and 2, asked for)" if self.requested_version >= v2.V2 else "")
            )
        self.agent = agent
        return agent

    def _require(self, capable: bool, what: str) -> None:
        if not capable:
            name = self.agent.display_name if self.agent else "the agent"
            raise NotSupportedError(f"{name} does not support {what}")

    @property
    def info(self) -> AgentInfo:
        if self.agent is None:
            raise AcpError("initialize has not completed")
        return self.agent

    async def authenticate(self, method_id: str) -> object:
        """Only for agent-type methods: a terminal method MUST NOT be sent here (the caller
        checks the method's type, see :mod:`acp_tui.session.auth.methods`)."""
        return await self.call(Method.AUTHENTICATE, {"methodId": method_id})

    @property
    def v2(self) -> bool:
        """Whether the agent answered initialize with protocol version 2."""
        return self.agent is not None and self.agent.protocol_version >= v2.V2

    @property
    def login_method(self) -> str:
        return "auth/login" if self.v2 else Method.AUTHENTICATE

    @property
    def can_logout(self) -> bool:
        auth = self.agent.capabilities.get("auth") if self.agent else None
        return isinstance(auth, dict) and isinstance(auth.get("logout"), dict)

    async def logout(self) -> object:
        self._require(self.can_logout, "logging out (logout)")
        return await self.call("auth/logout" if self.v2 else Method.LOGOUT, {})

    async def auth_status(self) -> JsonObject:
        """``auth/status`` (unstable): the agent's sign-in state, asked once when it matters;
        the agent pushes changes as ``auth/status_update``."""
        self._require(self.info.can_auth_status, "telling its sign-in state (auth/status)")
        result = await self.call(Method.AUTH_STATUS, {})
        return result if isinstance(result, dict) else {}

    async def session_status(self, session_id: str) -> JsonObject:
        """``session/status`` (unstable): whether the agent has the session in memory; it
        neither opens nor changes it (an unknown session: -32002)."""
        self._require(self.info.can_session_status, "telling a session's status (session/status)")
        result = await self.call(Method.SESSION_STATUS, {"sessionId": session_id})
        return result if isinstance(result, dict) else {}

    async def session_options(self, cwd: str, **extra: Any) -> JsonObject:
        """``session/options`` (unstable): the config options a session in ``cwd`` would
        start with, without creating one."""
        self._require(self.info.can_session_options, "offering options early (session/options)")
        result = await self.call(Method.SESSION_OPTIONS, {"cwd": cwd, **extra})
        return result if isinstance(result, dict) else {}

    async def new_session(
        self, cwd: str, mcp_servers: list[McpServer] | None = None, **extra: Any
    ) -> JsonObject:
        result = await self.call(
            Method.SESSION_NEW, self._setup({"cwd": cwd, "mcpServers": mcp_servers or [], **extra})
        )
        return result if isinstance(result, dict) else {}

    def _setup(self, params: dict[str, Any]) -> dict[str, Any]:
        """A session setup request's params, with the client's system prompt."""
        if self.system_prompt is not None:
            params["systemPrompt"] = copy.deepcopy(self.system_prompt)
        return params

    async def load_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[McpServer] | None = None,
        **extra: Any,
    ) -> JsonObject:
        self._require(self.info.can_load, "loading sessions (session/load)")
        result = await self.call(
            Method.SESSION_LOAD,
            self._setup(
                {"sessionId": session_id, "cwd": cwd, "mcpServers": mcp_servers or [], **extra}
            ),
        )
        return result if isinstance(result, dict) else {}

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[McpServer] | None = None,
        *,
        replay: bool = False,
        **extra: Any,
    ) -> JsonObject:
        """``session/resume``; ``replay`` (v2 only): the agent replays the conversation from
        its start first (``replayFrom``), as ``session/load`` does in v1."""
        self._require(self.info.can_resume, "resuming sessions (session/resume)")
        params: dict[str, Any] = {
            "sessionId": session_id,
            "cwd": cwd,
            "mcpServers": mcp_servers or [],
            **extra,
        }
        if replay and self.v2:
            params["replayFrom"] = dict(v2.REPLAY_FROM_START)
        result = await self.call(Method.SESSION_RESUME, self._setup(params))
        return result if isinstance(result, dict) else {}

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, archived: str | None = None
    ) -> JsonObject:
        """One page of session/list. ``archived`` (unstable): ``"exclude"`` (the default),
        ``"include"`` or ``"only"``; sent only to agents that advertise archiving."""
        self._require(self.info.can_list, "listing sessions (session/list)")
        params: dict[str, Any] = {}
        if cwd is not None:
            params["cwd"] = cwd
        if cursor is not None:
            params["cursor"] = cursor
        if archived is not None:
            self._require(self.info.can_archive, "archived sessions (session/archive)")
            params["archived"] = archived
        result = await self.call(Method.SESSION_LIST, params)
        return result if isinstance(result, dict) else {"sessions": []}

    async def list_all_sessions(
        self,
        cwd: str | None = None,
        max_pages: int = 10_000,
        notes: list[str] | None = None,
    ) -> list[JsonObject]:
        """Every page of session/list, each session once (the first time it is listed).

        A broken agent cannot make this loop: it stops on a cursor seen before (a repeat or a
        cycle), after :data:`MAX_STALE_PAGES` pages in a row with no new session, and after
        ``max_pages``; each such stop is explained in ``notes``."""
        sessions: dict[str, JsonObject] = {}
        cursor: str | None = None
        seen: set[str] = set()
        stale = 0
        for _ in range(max_pages):
            page = await self.list_sessions(cwd, cursor)
            entries = page.get("sessions")
            added = 0
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    continue
                key = entry.get("sessionId")
                key = (
                    key if isinstance(key, str) else json.dumps(entry, sort_keys=True, default=str)
                )
                if key not in sessions:
                    sessions[key] = entry
                    added += 1
            stale = 0 if added else stale + 1
            next_cursor = page.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor:
                break
            if next_cursor in seen or next_cursor == cursor:
                _note(notes, "the agent sent a page cursor it had sent before: stopped listing")
                break
            if stale >= MAX_STALE_PAGES:
                _note(
                    notes,
                    f"{MAX_STALE_PAGES} pages in a row brought no new session: stopped listing",
                )
                break
            seen.add(next_cursor)
            cursor = next_cursor
        else:
            _note(notes, f"stopped listing after {max_pages} pages")
        return list(sessions.values())

    async def close_session(self, session_id: str) -> object:
        self._require(self.info.can_close, "closing sessions (session/close)")
        return await self.call(Method.SESSION_CLOSE, {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> object:
        self._require(self.info.can_delete, "deleting sessions (session/delete)")
        return await self.call(Method.SESSION_DELETE, {"sessionId": session_id})

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        *,
        message_id: str | None = None,
    ) -> JsonObject:
        """session/fork (unstable): a new session with the conversation so far, or (with
        ``message_id``, when the agent forks at a message) up to and including that
        message."""
        self._require(self.info.can_fork, "branching sessions (session/fork)")
        params: dict[str, Any] = {
            "sessionId": session_id,
            "cwd": cwd,
            "mcpServers": mcp_servers or [],
        }
        if message_id is not None:
            self._require(self.info.can_fork_at_message, "forking at a message (session/fork)")
            params[ForkAtMessage.PARAM] = message_id
        if additional_directories:
            params["additionalDirectories"] = list(additional_directories)
        result = await self.call(Method.SESSION_FORK, self._setup(params))
        return result if isinstance(result, dict) else {}

    async def set_session_title(self, session_id: str, title: str) -> str | None:
        """session/set_title (unstable): the title the agent stored (it may normalise it)."""
        self._require(self.info.can_set_title, "renaming sessions (session/set_title)")
        result = await self.call(
            Method.SESSION_SET_TITLE, {"sessionId": session_id, "title": title}
        )
        stored = result.get("title") if isinstance(result, dict) else None
        return stored if isinstance(stored, str) else None

    async def archive_session(self, session_id: str) -> object:
        self._require(self.info.can_archive, "archiving sessions (session/archive)")
        return await self.call(Method.SESSION_ARCHIVE, {"sessionId": session_id})

    async def unarchive_session(self, session_id: str) -> object:
        self._require(self.info.can_archive, "archiving sessions (session/unarchive)")
        return await self.call(Method.SESSION_UNARCHIVE, {"sessionId": session_id})

    async def prompt(
        self, session_id: str, prompt: list[JsonObject], idempotency_key: str | None = None
    ) -> JsonObject:
        """``session/prompt``. v2: with ``idempotency_key`` (the same on every attempt of one
        prompt), an agent inserts the message at most once and answers a retry with the
        original's ``messageId`` (https://agentclientprotocol.com/rfds/v2/idempotency-keys)."""
        params: dict[str, Any] = {"sessionId": session_id, "prompt": prompt}
        if self.v2 and idempotency_key is not None:
            params["idempotencyKey"] = idempotency_key
        result = await self.call(Method.SESSION_PROMPT, params)
        return result if isinstance(result, dict) else {}

    async def inject(self, session_id: str, content: list[JsonObject]) -> str | None:
        """``session/inject`` in ``steer`` mode (the mid-turn input RFD): ``content`` goes
        into the running turn at its next safe break-point. Returns the ``messageId`` the
        agent gave it (None when it gave none)."""
        self._require(self.info.can_steer, "messages during a turn (session/inject)")
        params: dict[str, Any] = {"sessionId": session_id, "mode": Inject.STEER, "content": content}
        result = await self.call(Method.SESSION_INJECT, params)
        found = result.get("messageId") if isinstance(result, dict) else None
        return found if isinstance(found, str) else None

    async def cancel(self, session_id: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            params: CancelNotification = {"sessionId": session_id}
            await self.connection.notify(Method.SESSION_CANCEL, params)

    async def set_mode(self, session_id: str, mode_id: str) -> object:
        return await self.call(
            Method.SESSION_SET_MODE, {"sessionId": session_id, "modeId": mode_id}
        )

    async def set_model(self, session_id: str, model_id: str) -> object:
        """The legacy ``session/set_model``: only for agents that sent a ``models`` state
        (models are config options now; see acp_tui.store.options)."""
        return await self.call("session/set_model", {"sessionId": session_id, "modelId": model_id})

    def config_value(self, config_id: str, value: Any) -> dict[str, Any]:
        """A config option's value as the wire spells it (``session/set_config_option``, and
        the initial values on ``session/new``)."""
        params: dict[str, Any] = {"configId": config_id, "value": value}
        if isinstance(value, bool):
            params["type"] = "boolean"
        elif self.v2:
            params["type"] = "id"  # v2 names the kind of every value
        return params

    async def set_config_option(self, session_id: str, config_id: str, value: Any) -> object:
        params = {"sessionId": session_id, **self.config_value(config_id, value)}
        return await self.call(Method.SESSION_SET_CONFIG_OPTION, params)
