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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui import __version__
from acp_tui.protocol import v2
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
from acp_tui.wire.constants import PROTOCOL_VERSION, Method
from acp_tui.wire.updates import JsonObject

if TYPE_CHECKING:
    from acp_tui.protocol.recording import WireRecorder
    from acp_tui.wire.schema import CancelNotification, Implementation, McpServer


# Agent -> client requests whose presence in `handlers` turns on a client capability.
FS_READ = Method.FS_READ_TEXT_FILE
FS_WRITE = Method.FS_WRITE_TEXT_FILE
TERMINAL_METHODS = (
    Method.TERMINAL_CREATE,
    Method.TERMINAL_OUTPUT,
    Method.TERMINAL_WAIT_FOR_EXIT,
    Method.TERMINAL_KILL,
    Method.TERMINAL_RELEASE,
)
ELICITATION_CREATE = Method.ELICITATION_CREATE
ELICITATION_COMPLETE = Method.ELICITATION_COMPLETE
SESSION_UPDATE = Method.SESSION_UPDATE


@dataclass(frozen=True, slots=True)
class ClientFeature:
    """One client capability and what implements it: it is advertised only when every
    agent->client request it names has a handler, every notification and ``session/update``
    kind it names is handled, and the driver declares every ability it names (a mode or
    behaviour that no method name shows, e.g. ``elicitation.url``)."""

    path: tuple[str, ...]
    #: What is advertised at ``path``: ``True``, or ``{}`` for ACP's opt-in objects.
    value: Any
    methods: tuple[str, ...] = ()
    notifications: tuple[str, ...] = ()
    updates: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()


#: Every client capability this client can advertise, one row each
#: (https://agentclientprotocol.com/protocol/v1/initialization#client-capabilities).
CLIENT_FEATURES: tuple[ClientFeature, ...] = (
    ClientFeature(("fs", "readTextFile"), True, methods=(FS_READ,)),
    ClientFeature(("fs", "writeTextFile"), True, methods=(FS_WRITE,)),
    ClientFeature(("terminal",), True, methods=TERMINAL_METHODS),
    ClientFeature(
        ("elicitation", "form"), {}, methods=(ELICITATION_CREATE,), abilities=("elicitation.form",)
    ),
    ClientFeature(
        ("elicitation", "url"),
        {},
        methods=(ELICITATION_CREATE,),
        notifications=(ELICITATION_COMPLETE,),
        abilities=("elicitation.url",),
    ),
    ClientFeature(("session", "notices"), {}, updates=("notice",)),
    # Unstable: the store keeps each plan by id, in each of its forms, and marks a removed one.
    ClientFeature(("plan",), {}, updates=("plan_update", "plan_removed")),
    ClientFeature(("auth", "terminal"), True, abilities=("auth.terminal",)),
    # The same, as spelt before the protocol had it (Zed's): claude-agent-acp offers its
    # terminal sign-in only to a client that says this (see session.auth_methods).
    ClientFeature(("_meta", "terminal-auth"), True, abilities=("auth.terminal",)),
    # Boolean session config options shown as toggles (acp_tui.store.options, the chat bar).
    ClientFeature(
        ("session", "configOptions", "boolean"), {}, abilities=("config_options.boolean",)
    ),
    ClientFeature(
        ("session", "compaction"), {}, updates=("compaction_update", "compaction_summary_chunk")
    ),
    # Subagents (stable since 2026-11-20; the SDK 2.4.0 schema still says unstable): each
    # child a session of its own under its parent, its card live, cancelled on its own.
    ClientFeature(
        ("subagents",),
        {},
        updates=("subagent_update", "session_message", "session_message_chunk"),
        abilities=("subagents.cancel",),
    ),
    # Unstable (schema v1.32.0): the agent's guesses at the next prompt, offered by a face
    # that lets the person take one (the TUI's chips; never sent unless taken).
    ClientFeature(
        ("session", "promptSuggestions"),
        {},
        updates=("prompt_suggestions_update",),
        abilities=("prompt_suggestions",),
    ),
)
#: Agent->client requests and notifications every client takes, advertised by no capability.
BASELINE_METHODS: tuple[str, ...] = (Method.SESSION_REQUEST_PERMISSION,)
BASELINE_NOTIFICATIONS: tuple[str, ...] = (SESSION_UPDATE,)


def implements(
    feature: ClientFeature,
    *,
    handlers: Collection[str],
    notifications: Collection[str],
    updates: Collection[str],
    abilities: Collection[str],
) -> bool:
    """Whether what a client handles covers everything ``feature`` needs."""
    return (
        all(method in handlers for method in feature.methods)
        and all(name in notifications for name in feature.notifications)
        and all(kind in updates for kind in feature.updates)
        and all(ability in abilities for ability in feature.abilities)
    )


def client_capabilities(
    *,
    handlers: Collection[str],
    notifications: Collection[str] = BASELINE_NOTIFICATIONS,
    updates: Collection[str] = (),
    abilities: Collection[str] = (),
) -> dict[str, Any]:
    """The ``clientCapabilities`` of a client that handles these: every
    :data:`CLIENT_FEATURES` row it implements, and nothing else. fs and terminal are always
    sent (false when absent), as the schema's defaults."""
    caps: dict[str, Any] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
    }
    for feature in CLIENT_FEATURES:
        if implements(
            feature,
            handlers=handlers,
            notifications=notifications,
            updates=updates,
            abilities=abilities,
        ):
            *parents, leaf = feature.path
            node = caps
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = copy.deepcopy(feature.value)
    return caps


Handler = Callable[[Any], Awaitable[Any]]
NotificationCallback = Callable[[str, Any], Awaitable[None] | None]
#: Makes the agent's process from (argv, cwd=, env=, log_dir=); AgentProcess by default.
ProcessFactory = Callable[..., AgentProcess]


class AcpError(Exception):
    """Base for client-level failures with a message fit for a person."""


class NotSupportedError(AcpError):
    """The agent did not advertise the capability a call needs."""


class ProtocolVersionError(AcpError):
    """The agent answered initialize with a protocol version this client cannot speak."""


class NotAnAgentError(AcpError):
    """The command answers, but not as an ACP agent (``cat`` sends our requests back)."""


class AgentExitedError(AcpError):
    """The agent process ended while a call was waiting."""


@dataclass(slots=True)
class AgentInfo:
    """What initialize told us about the agent."""

    protocol_version: int = PROTOCOL_VERSION
    name: str = ""
    title: str = ""
    version: str = ""
    capabilities: JsonObject = field(default_factory=dict)
    auth_methods: list[JsonObject] = field(default_factory=list)
    raw: JsonObject = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        return self.title or self.name or "agent"

    def session_capability(self, name: str) -> bool:
        caps = self.capabilities.get("sessionCapabilities")
        return isinstance(caps, dict) and caps.get(name) is not None

    @property
    def can_load(self) -> bool:
        return bool(self.capabilities.get("loadSession"))

    @property
    def can_list(self) -> bool:
        return self.session_capability("list")

    @property
    def can_resume(self) -> bool:
        return self.session_capability("resume")

    @property
    def can_close(self) -> bool:
        return self.session_capability("close")

    @property
    def can_delete(self) -> bool:
        return self.session_capability("delete")

    @property
    def can_add_dirs(self) -> bool:
        """``additionalDirectories`` on session/new, load, resume (and fork)."""
        return self.session_capability("additionalDirectories")

    @property
    def can_fork(self) -> bool:
        return self.session_capability("fork")

    @property
    def can_set_title(self) -> bool:
        return self.session_capability("title")

    @property
    def can_archive(self) -> bool:
        return self.session_capability("archive")

    @property
    def system_prompt_modes(self) -> frozenset[str]:
        """The ``systemPrompt`` modes the agent takes on session setup requests: none, or
        ``append`` (``sessionCapabilities.systemPrompt``) and ``override`` when its ``mode``
        says so."""
        caps = self.capabilities.get("sessionCapabilities")
        prompt = caps.get("systemPrompt") if isinstance(caps, dict) else None
        if not isinstance(prompt, dict):
            return frozenset()
        modes = prompt.get("mode")
        override = isinstance(modes, dict) and isinstance(modes.get("override"), dict)
        return frozenset({"append", "override"} if override else {"append"})

    def mcp_capability(self, transport: str) -> bool:
        caps = self.capabilities.get("mcpCapabilities")
        return isinstance(caps, dict) and bool(caps.get(transport))

    def prompt_capability(self, name: str) -> bool:
        caps = self.capabilities.get("promptCapabilities")
        return isinstance(caps, dict) and bool(caps.get(name))


#: The requests that complete an agent-type sign-in (v1, v2).
LOGIN_METHODS = (Method.AUTHENTICATE, "auth/login")


def refuse_terminal_login(agent: AgentInfo | None, params: Any) -> None:
    """The last guard of a MUST: a method the agent advertised as ``terminal`` is never sent
    to ``authenticate`` (v2: ``auth/login``), whoever asks. Any method that is not plainly an
    agent method (v1: no ``type``; either: ``type: "agent"``) is refused the same way."""
    if agent is None:
        return
    method_id = params.get("methodId") if isinstance(params, dict) else None
    for method in agent.auth_methods:
        advertised = method.get("methodId", method.get("id"))
        if advertised != method_id:
            continue
        kind = method.get("type", None if agent.protocol_version < 2 else "")
        if kind not in (None, "agent"):
            raise AcpError(
                f"refused to send the {kind!r} sign-in method {method_id!r} to the agent's "
                "login call: only agent methods go there (a terminal method runs the agent's "
                "command in a terminal)"
            )


#: Pages in a row with no new session after which listing stops (a cursor that never ends).
MAX_STALE_PAGES = 3


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None:
        notes.append(text)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_agent_info(result: Any) -> AgentInfo:
    if not isinstance(result, dict):
        raise ProtocolVersionError("the agent's initialize answer is not a JSON object")
    version = result.get("protocolVersion")
    raw_info = v2.agent_identity(result) if version == v2.V2 else result.get("agentInfo")
    info = raw_info if isinstance(raw_info, dict) else {}
    caps = v2.agent_capabilities(result) if version == v2.V2 else result.get("agentCapabilities")
    methods = result.get("authMethods")
    return AgentInfo(
        protocol_version=version if isinstance(version, int) else -1,
        name=_text(info.get("name")),
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        capabilities=caps if isinstance(caps, dict) else {},
        auth_methods=[m for m in methods if isinstance(m, dict)]
        if isinstance(methods, list)
        else [],
        raw=result,
    )


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
    ) -> JsonObject:
        """session/fork (unstable): a new session with the conversation so far."""
        self._require(self.info.can_fork, "branching sessions (session/fork)")
        params: dict[str, Any] = {
            "sessionId": session_id,
            "cwd": cwd,
            "mcpServers": mcp_servers or [],
        }
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

    async def prompt(self, session_id: str, prompt: list[JsonObject]) -> JsonObject:
        result = await self.call(Method.SESSION_PROMPT, {"sessionId": session_id, "prompt": prompt})
        return result if isinstance(result, dict) else {}

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

    async def set_config_option(self, session_id: str, config_id: str, value: Any) -> object:
        params: dict[str, Any] = {"sessionId": session_id, "configId": config_id, "value": value}
        if isinstance(value, bool):
            params["type"] = "boolean"
        elif self.v2:
            params["type"] = "id"  # v2 names the kind of every value
        return await self.call(Method.SESSION_SET_CONFIG_OPTION, params)
