"""The link between one agent process and the store: what the UI asks for, done over ACP.

No Textual here: the UI hands in callbacks (:class:`LinkEvents`) and calls intents
(:meth:`SessionController.send_prompt`, :meth:`SessionController.cancel`, ...). Everything the agent says lands
in the :class:`~acp_tui.store.SessionStore`; the UI renders the store.

Turn lifecycle (https://agentclientprotocol.com/protocol/prompt-turn): a prompt sent while a
turn runs is queued per session (:class:`~acp_tui.session.queue.PromptQueue`, which outlives one
agent process) and sent when the turn ends. A v2 connection (negotiated at ``initialize``)
accepts prompts at any time, so its queue drains at once; on v1 a ``state_update`` only changes
the activity shown. What waits for a session that is not open
yet goes out when it opens (:meth:`SessionController.flush`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.config import locations
from acp_tui.config.defaults import DEFAULT_INITIALIZE_TIMEOUT
from acp_tui.protocol import constants as wire
from acp_tui.protocol import reaper, v2
from acp_tui.protocol.client import (
    AcpClient,
    AcpError,
    AgentExitedError,
    AgentInfo,
    NotAnAgentError,
    NotSupportedError,
    ProcessFactory,
)
from acp_tui.protocol.constants import Method, UpdateKind
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.process import AgentProcess, AgentStartError
from acp_tui.protocol.recording import WireRecorder
from acp_tui.services.errors import ServiceError
from acp_tui.services.paths import ApproveOutside
from acp_tui.services.terminals import TerminalManager
from acp_tui.session.attachments import PromptCapabilities, fit_to_capabilities
from acp_tui.session.auth import AuthChooser, AuthNotDone, SignIn, TerminalRunner
from acp_tui.session.elicitation import CANCEL, URL, ElicitationError, answer
from acp_tui.session.elicitation_queue import ElicitationQueue
from acp_tui.session.mcp import select_mcp_servers
from acp_tui.session.permissions import CANCELLED, PendingPermission
from acp_tui.session.queue import PromptQueue, QueuedPrompt
from acp_tui.session.roots import SessionRoots, dirs_to_send
from acp_tui.store import SessionStore

if TYPE_CHECKING:
    from acp_tui.protocol.schema import McpServer

log = logging.getLogger(__name__)

PermissionHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


__all__ = ["AgentExit", "LinkEvents", "NotResponding", "QueuedPrompt", "SessionController"]


@dataclass(slots=True)
class NotResponding:
    """The agent has not answered ``initialize`` in time: what it did print, for the banner."""

    seconds: float
    #: The first lines it printed on stdout that were not ACP (JSON-RPC) messages.
    printed: list[str]
    #: How many such lines there were in all.
    printed_count: int
    stderr_tail: list[str]


@dataclass(slots=True)
class LinkEvents:
    """How the link talks back to whoever drives it (the Textual app, or a test)."""

    on_ready: Callable[[AgentInfo], None] = lambda agent: None
    on_status: Callable[[str], None] = lambda text: None
    on_error: Callable[[str], None] = lambda text: None
    on_session_opened: Callable[[str], None] = lambda session_id: None
    #: A ``session/new`` answered (its raw answer): what a new session of this agent offers.
    on_session_created: Callable[[str, Any], None] = lambda session_id, response: None
    on_turn_ended: Callable[[str, str | None], None] = lambda session_id, reason: None
    on_exit: Callable[[AgentExit], None] = lambda exit_info: None
    on_terminal_output: Callable[[str], None] = lambda terminal_id: None
    on_not_responding: Callable[[NotResponding], None] = lambda report: None


@dataclass(slots=True)
class AgentExit:
    """Why the agent is gone, for the banner."""

    description: str
    returncode: int | None
    stderr_tail: list[str]
    expected: bool
    start_failed: bool = False
    log_path: str | None = None
    #: Lines it printed on stdout that were not ACP messages (the first few).
    printed: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _SessionRuntime:
    turn_running: bool = False
    #: session/cancel was sent and the turn has not ended yet: a permission request that
    #: arrives now is answered ``cancelled`` at once, as the spec requires after a cancel.
    cancelling: bool = False
    #: The permission requests of this session waiting for the person (their cancel scopes).
    asking: set[anyio.CancelScope] = field(default_factory=set)
    #: A prompt was refused for want of a sign-in the person did not give: what waits is
    #: held until they send or edit a message, or sign in.
    auth_blocked: bool = False

    def stop_asking(self) -> None:
        """Answer ``cancelled`` to every permission request still waiting (its dialog
        closes): after a cancel, and when the turn has ended, nobody can use the answer."""
        for scope in self.asking:
            scope.cancel()


class SessionController:
    """One agent process for the lifetime of :meth:`run`."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: str,
        store: SessionStore,
        events: LinkEvents | None = None,
        permission_handler: PermissionHandler | None = None,
        approve_outside: ApproveOutside | None = None,
        choose_auth: AuthChooser | None = None,
        run_terminal_login: TerminalRunner | None = None,
        mcp_servers: list[dict[str, Any]] | None = None,
        env: dict[str, str] | None = None,
        log_dir: Path | None = None,
        recorder: WireRecorder | None = None,
        process_factory: ProcessFactory | None = None,
        prompts: PromptQueue | None = None,
        initialize_timeout: float = DEFAULT_INITIALIZE_TIMEOUT,
        additional_dirs: list[str] | None = None,
        protocol_version: int = 1,
        terminal_auth: bool = True,
        elicitations: ElicitationQueue | None = None,
    ) -> None:
        self.argv = list(argv)
        #: Absolute directories every session of this run works in too (``--add-dir``).
        self.additional_dirs = list(additional_dirs or [])
        #: Where ``elicitation/create`` requests go (None: not offered to the agent).
        self.elicitations = elicitations
        self.cwd = os.path.abspath(cwd)
        self.store = store
        self.events = events or LinkEvents()
        self.permission_handler = permission_handler
        self.choose_auth = choose_auth
        #: Authentication: methods, the chooser, and how a terminal method runs.
        self.sign_in = SignIn(self.argv, self.cwd, env, choose_auth, run_terminal_login)
        self.configured_mcp_servers = list(mcp_servers or [])
        #: What session/new, load and resume carry: set after initialize.
        self.mcp_servers: list[McpServer] = []
        self.env = env
        # Each agent's stderr is kept in a file the crash banner names.
        self.log_dir = log_dir if log_dir is not None else locations.log_dir()
        #: Recording and replay (``--record``, ``acp-tui replay``): passed to the launcher.
        self.recorder = recorder
        self.process_factory = process_factory
        self.client: AcpClient | None = None
        self.agent: AgentInfo | None = None
        #: Each session's directories: what its file reads, writes and terminals may touch.
        self.roots = SessionRoots(self.cwd, approve_outside)
        self.files = self.roots.default
        self.terminals = TerminalManager(self._terminal_output, guard=self.files.guard)
        self.released_terminals: dict[str, Any] = {}
        self.current_session_id: str | None = None
        self.v2_lifecycle = False
        #: The agent answered session/resume "method not found" although it advertises it:
        #: its sessions are loaded instead.
        self.resume_unsupported = False
        self._runtime: dict[str, _SessionRuntime] = {}
        #: Messages waiting to be sent, per session; owned by whoever drives the link, so they
        #: survive a restart of the agent.
        self.prompts = prompts if prompts is not None else PromptQueue()
        self.initialize_timeout = initialize_timeout
        #: Asked for at initialize (``--protocol 2``); the agent's answer is what counts.
        self.protocol_version = protocol_version
        #: Whether terminal sign-in methods can run here (not in a browser): advertised so.
        self.terminal_auth = terminal_auth
        self._task_group: anyio.abc.TaskGroup | None = None
        self._stop = anyio.Event()
        self._stopping = False
        #: Why the agent never became usable (initialize failed), for the start-failure banner.
        self._start_failure: str | None = None
        self.ready = anyio.Event()
        #: Set when :meth:`run` has returned: the agent and its terminals are gone.
        self.finished = anyio.Event()

    # ------------------------------------------------------------------ running

    @property
    def process(self) -> AgentProcess | None:
        return self.client.process if self.client else None

    @property
    def start_failure(self) -> str | None:
        """Why the agent never became usable (not an ACP agent, initialize failed); None
        when it started, or when it simply ended (then :attr:`process` tells how)."""
        return self._start_failure

    async def run(
        self, open_session: Callable[[SessionController], Awaitable[None]] | None = None
    ) -> None:
        """Start the agent, initialize, open a first session (``open_session`` or a new one),
        then serve until :meth:`stop` or the agent exits. Never raises for agent failures:
        they are reported through ``events.on_exit``."""
        try:
            await self._run(open_session)
        finally:
            self.finished.set()

    def client_setup(self) -> dict[str, Any]:
        """What the client is built with: the agent->client request handlers, and what else
        it handles (the client capabilities sent at ``initialize`` are derived from these)."""
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            Method.SESSION_REQUEST_PERMISSION: self._on_permission,
            Method.FS_READ_TEXT_FILE: self._service(self.roots.read_text_file),
            Method.FS_WRITE_TEXT_FILE: self._service(self.roots.write_text_file),
            Method.TERMINAL_CREATE: self._service(self._create_terminal),
            Method.TERMINAL_OUTPUT: self._service(self.terminals.output),
            Method.TERMINAL_WAIT_FOR_EXIT: self._service(self.terminals.wait_for_exit),
            Method.TERMINAL_KILL: self._service(self.terminals.kill),
            Method.TERMINAL_RELEASE: self._service(self._release_terminal),
        }
        notifications = {Method.SESSION_UPDATE}
        abilities: set[str] = set()
        if self.elicitations is not None and self.elicitations.modes:
            handlers[Method.ELICITATION_CREATE] = self._on_elicitation
            if URL in self.elicitations.modes:  # it closes a url request; forms have none
                notifications.add(Method.ELICITATION_COMPLETE)
            abilities.update(f"elicitation.{mode}" for mode in self.elicitations.modes)
        if self.terminal_auth:
            abilities.add("auth.terminal")
        # The chat bar shows boolean config options as toggles (acp_tui.store.options).
        abilities.add("config_options.boolean")
        return {
            "handlers": handlers,
            "notifications": notifications,
            "updates": self.store.update_kinds,
            "abilities": abilities,
        }

    async def _run(
        self, open_session: Callable[[SessionController], Awaitable[None]] | None
    ) -> None:
        try:
            async with AcpClient.launch(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                log_dir=self.log_dir,
                recorder=self.recorder,
                process_factory=self.process_factory,
                on_notification=self._on_notification,
                terminal_auth=self.terminal_auth,
                protocol_version=self.protocol_version,
                **self.client_setup(),
            ) as client:
                self.client = client
                async with anyio.create_task_group() as task_group:
                    self._task_group = task_group
                    self.terminals.start(task_group)
                    task_group.start_soon(self._watch_exit, client)
                    task_group.start_soon(_reap_orphans)
                    try:
                        # A stop (quit) must never wait for an agent that does not answer.
                        task_group.start_soon(self._start, client, open_session)
                        await self._stop.wait()
                    finally:
                        await self.terminals.aclose()
                        task_group.cancel_scope.cancel()
                        # Closed from here on: an intent spawned now is told the agent is gone.
                        self._task_group = None
        except AgentStartError as error:
            self.events.on_exit(
                AgentExit(error.reason, None, [], expected=False, start_failed=True)
            )
            return
        self._report_exit()

    async def _start(
        self, client: AcpClient, open_session: Callable[[SessionController], Awaitable[None]] | None
    ) -> None:
        self.events.on_status("initializing")
        watchdog = anyio.CancelScope()
        if self._task_group is None:
            return  # stopped before it started
        self._task_group.start_soon(self._watch_initialize, client, watchdog)
        try:
            agent = await client.initialize()
        except (AcpError, RpcError) as error:
            if isinstance(error, NotAnAgentError):
                self._start_failure = str(error)
            elif not isinstance(error, AgentExitedError):
                self._start_failure = f"initialize failed: {error}"
            self.stop()
            return
        finally:
            watchdog.cancel()
        self.agent = agent
        # The negotiated version decides the turn lifecycle, once: never a notification.
        self.v2_lifecycle = agent.protocol_version >= 2
        self.store.protocol_version = agent.protocol_version
        self.sign_in.configure(
            agent.auth_methods, v2=self.v2_lifecycle, agent_name=agent.display_name
        )
        self.store.set_agent_capabilities(agent.capabilities)
        # MCP servers from the config go out only in the transports this agent supports.
        self.mcp_servers, notes = select_mcp_servers(self.configured_mcp_servers, agent)
        for note in notes:
            self.events.on_error(note)
        if self.additional_dirs and not agent.can_add_dirs:
            self.events.on_error(
                f"{agent.display_name} does not take additional directories: "
                f"{', '.join(self.additional_dirs)} not sent (its sessions work in their cwd only)"
            )
        self.ready.set()
        self.events.on_ready(agent)
        try:
            if open_session is not None:
                await open_session(self)
            else:
                await self.new_session()
        except AgentExitedError:
            return
        except (AcpError, RpcError) as error:
            self.events.on_error(str(error))

    async def _watch_initialize(self, client: AcpClient, scope: anyio.CancelScope) -> None:
        """Tell the person when ``initialize`` takes too long (the wait goes on: a slow first
        start, e.g. an npx download, may still answer)."""
        with scope:
            await anyio.sleep(self.initialize_timeout)
            if self.agent is None and not client.connection.closed:
                stats = client.connection.stats
                self.events.on_not_responding(
                    NotResponding(
                        seconds=self.initialize_timeout,
                        printed=list(stats.first_skipped),
                        printed_count=stats.skipped_lines,
                        stderr_tail=list(client.process.stderr_tail)[-8:],
                    )
                )

    async def _watch_exit(self, client: AcpClient) -> None:
        await client.connection.closed_event.wait()
        # Give the exit status a moment to arrive so the banner can name it.
        with anyio.move_on_after(1):
            await client.process.exited.wait()
        self.stop()

    def _report_exit(self) -> None:
        process = self.client.process if self.client else None
        if process is None:
            return
        self.ready = anyio.Event()
        failure = self._start_failure
        if failure is None and self.agent is None and not self._stopping:
            failure = "the agent ended before answering initialize"
        printed = list(self.client.connection.stats.first_skipped) if self.client else []
        description = process.exit_description
        if self.client is not None and self.client.closed_its_input and not self._stopping:
            # Our write failed while the agent ran: that, not the signal we then sent, is
            # what happened.
            description = (
                "it closed its input: acp-tui could not write to its stdin and stopped it, "
                + description
            )
        self.events.on_exit(
            AgentExit(
                description=f"{failure} ({description})" if failure else description,
                start_failed=failure is not None,
                returncode=process.returncode,
                stderr_tail=list(process.stderr_tail)[-20:],
                expected=self._stopping,
                log_path=str(process.log_path) if process.log_path else None,
                printed=printed if self.agent is None else [],
            )
        )

    def stop(self) -> None:
        """End :meth:`run`: the agent is shut down (EOF, then TERM, then KILL)."""
        self._stop.set()

    def request_stop(self) -> None:
        """A stop the person asked for (quit), so the exit is not reported as a crash."""
        self._stopping = True
        self.stop()

    # ------------------------------------------------------------------ incoming

    async def _on_notification(self, method: str, params: Any) -> None:
        if method == Method.SESSION_UPDATE:
            self.store.apply(params)
            # Only a v2 connection ends turns on `state_update` idle; on v1 the update is
            # shown (the store's activity) and the prompt's answer ends the turn.
            if self.v2_lifecycle and isinstance(params, dict):
                self._v2_state(params)
        elif method == Method.ELICITATION_COMPLETE and self.elicitations is not None:
            if isinstance(params, dict):
                self.elicitations.complete(params.get("elicitationId"))

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
            and session_id in self._runtime
        ):
            return
        runtime = self._runtime[session_id]
        state = update.get("state")
        if state in ("running", "requires_action"):
            runtime.turn_running = True
        elif state == "idle":
            if not runtime.turn_running:
                self.flush(session_id)  # an idle that ended no turn of ours
                return
            reason = update.get("stopReason")
            error = update.get("error")
            self._note_stop(
                session_id,
                reason if isinstance(reason, str) else None,
                error if isinstance(error, dict) else None,
            )
            self._turn_idle(session_id)

    async def _on_permission(self, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        session_id = params.get("sessionId")
        if self.v2_lifecycle:
            params, upsert = v2.permission_params(params)
            if upsert is not None and isinstance(session_id, str):
                self.store.apply_update(
                    session_id, {"sessionUpdate": UpdateKind.TOOL_CALL_UPDATE, **upsert}
                )
        params = self._with_known_tool_call(params)
        if self.v2_lifecycle:
            params = v2.with_prompt_title(params)
        if self.permission_handler is None:
            return dict(CANCELLED)
        runtime = self._runtime.get(session_id) if isinstance(session_id, str) else None
        if runtime is not None and runtime.cancelling:
            self.store.add_notice(
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
                return await self.permission_handler(params)
            # Cancelled through runtime.stop_asking: the handler answered (and echoed) the
            # request as cancelled; so does the agent's answer.
            return dict(CANCELLED)
        finally:
            if runtime is not None:
                runtime.asking.discard(scope)

    async def _on_elicitation(self, params: Any) -> Any:
        """``elicitation/create``: queued for the person like a permission request. One that
        comes while the turn is being cancelled is answered ``cancel`` at once; those open
        when the turn is cancelled or ends are cancelled by the queue's owner
        (:meth:`ElicitationQueue.cancel_session`), after ``session/cancel`` went out."""
        assert self.elicitations is not None
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        runtime = self._runtime.get(session_id) if isinstance(session_id, str) else None
        if runtime is not None and runtime.cancelling:
            return answer(CANCEL)
        try:
            # Waiting for the person, like a permission request: the session's row says so.
            with self._waiting_for_person(session_id):
                return await self.elicitations.request(params)
        except ElicitationError as error:
            if isinstance(session_id, str):
                self.store.add_notice(
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
        previous = self.store.get(session_id)
        before = previous.activity if previous else None
        self.store.set_activity(session_id, "requires_action")
        try:
            yield
        finally:
            state = self.store.get(session_id)
            if state and state.activity == "requires_action" and before is not None:
                self.store.set_activity(session_id, before)

    def _with_known_tool_call(self, params: dict[str, Any]) -> dict[str, Any]:
        """Some agents (Mistral Vibe) send only the toolCallId in a permission request: take the
        title and kind the tool call already has in the store, so the dialog and the record
        line ("Allowed once: …") name the tool call, not its id."""
        tool_call = params.get("toolCall")
        session_id = params.get("sessionId")
        if not isinstance(tool_call, dict) or not isinstance(session_id, str):
            return params
        tool_call_id = tool_call.get("toolCallId")
        state = self.store.get(session_id)
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

    def _service(self, method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        async def call(params: Any) -> Any:
            try:
                return await method(params if isinstance(params, dict) else {})
            except ServiceError as error:
                raise RpcError(error.code, error.message, error.data) from None

        return call

    async def _release_terminal(self, params: dict[str, Any]) -> Any:
        # The tool call that embeds a terminal stays on screen after the agent releases it:
        # keep its last output for the transcript.
        terminal_id = params.get("terminalId")
        if isinstance(terminal_id, str) and terminal_id in self.terminals:
            self.released_terminals[terminal_id] = self.terminals.get(terminal_id)
        return await self.terminals.release(params)

    async def _create_terminal(self, params: Any) -> Any:
        return await self.terminals.create(params, guard=self.roots.guard_for(params))

    def terminal_state(self, terminal_id: str) -> Any:
        """The live state of a terminal, or its last state once released; None if unknown."""
        if terminal_id in self.terminals:
            return self.terminals.get(terminal_id)
        if terminal_id in self.released_terminals:
            return self.released_terminals[terminal_id]
        return self.store.agent_terminal(terminal_id)  # v2: the agent's own terminals

    def _terminal_output(self, terminal_id: str) -> None:
        self.events.on_terminal_output(terminal_id)

    # ------------------------------------------------------------------ sessions

    def _client(self) -> AcpClient:
        if self.client is None or self.agent is None:
            raise AcpError("the agent is not running")
        return self.client

    def is_open(self, session_id: str) -> bool:
        """Whether this agent process has the session open (new, loaded or resumed here)."""
        return session_id in self._runtime

    def runtime(self, session_id: str) -> _SessionRuntime:
        runtime = self._runtime.get(session_id)
        if runtime is None:
            runtime = self._runtime[session_id] = _SessionRuntime()
        return runtime

    async def _with_auth(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """Run a session call; on 'authentication required' pick a method and retry once."""
        try:
            return await call()
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            await self.authenticate(error.message)
            return await call()

    async def authenticate(self, reason: str) -> None:
        """The agent needs a sign-in: the person picks a method, completed by its type (a
        terminal method runs in the terminal, never through ``authenticate``). Raises
        :class:`AuthNotDone` when it did not happen. Sessions waiting on it may go again."""
        client = self._client()
        await self.sign_in.sign_in(client, reason, login_call=client.login_method)
        for session_id, runtime in self._runtime.items():
            if runtime.auth_blocked:
                runtime.auth_blocked = False
                self.flush(session_id)

    @property
    def can_logout(self) -> bool:
        return self.client is not None and self.agent is not None and self.client.can_logout

    async def logout(self) -> None:
        """``logout``: the agent forgets the sign-in; the next call that needs it asks again."""
        await self._client().logout()
        self.sign_in.signed_out = True

    async def new_session(
        self,
        cwd: str | None = None,
        *,
        adopt: bool = False,
        mode: str | None = None,
        config: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> str:
        """``session/new``. The session is a draft (not listed, not remembered) until its first
        prompt. ``mode`` and ``config`` (config id -> value): choices the person made before
        the session existed, applied before anything is sent. ``adopt``: the messages queued
        for "the new session" (key ``None``) are this session's, and go out now."""
        client = self._client()
        cwd = cwd or self.cwd
        self.events.on_status("starting a new session")
        dirs = self.session_dirs(None)
        result = await self._with_auth(
            lambda: client.new_session(cwd, self.mcp_servers, **_dirs_param(dirs))
        )
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str):
            raise AcpError("the agent answered session/new without a sessionId")
        self.set_session_dirs(session_id, cwd, dirs)
        state = self.store.register_session(session_id, cwd=cwd, response=result, new=True)
        self.events.on_session_created(session_id, result)
        if mode and state.current_mode_id != mode and not self.v2_lifecycle:  # v2: no modes
            await self._apply_choice(lambda: self.set_mode(session_id, mode), "set mode")
        if model and isinstance(state.models, dict) and state.models.get("currentModelId") != model:
            await self._apply_choice(lambda: self.set_model(session_id, model), "set model")
        for config_id, value in (config or {}).items():
            option = next((o for o in state.config_options or [] if o.get("id") == config_id), None)
            if option is not None and option.get("currentValue") != value:
                await self._apply_choice(
                    functools.partial(self.set_config_option, session_id, config_id, value),
                    "set option",
                )
        if adopt:
            self.prompts.rekey(None, session_id)
        self._opened(session_id)
        return session_id

    async def _apply_choice(self, call: Callable[[], Awaitable[None]], what: str) -> None:
        try:
            await call()
        except (AcpError, RpcError) as error:
            if isinstance(error, AgentExitedError):
                raise
            self.events.on_error(f"{what}: {error}")

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
        client = self._client()
        agent = self.agent
        assert agent is not None
        state = self.store.get(session_id)
        cwd = cwd or (state.cwd if state and state.cwd else self.cwd)
        if state is not None and state.live and session_id in self._runtime:
            if adopt:
                self.prompts.rekey(None, session_id)
            self._opened(session_id)
            return "switch"
        have_transcript = state is not None and bool(state.transcript)
        dirs = self.session_dirs(session_id)
        extra = _dirs_param(dirs)
        if state is not None:
            # Only the agent's answer tells the session's mode now: one known from the local
            # index or an earlier agent process must not hide that the agent reports none (the
            # screen then re-applies the remembered choice).
            self.store.set_current_mode(session_id, None)
        if agent.can_resume and self.v2_lifecycle and not have_transcript:
            # v2 has no session/load: a resume that replays the conversation from its start.
            self.events.on_status("loading session")
            self.store.begin_replay(session_id, cwd=cwd, keep=False)
            try:
                result = await self._with_auth(
                    lambda: client.resume_session(
                        session_id, cwd, self.mcp_servers, replay=True, **extra
                    )
                )
                self.set_session_dirs(session_id, cwd, dirs)
            except BaseException:
                self.store.end_replay(session_id, None)
                raise
            self.store.end_replay(session_id, result)
            method = "load"
        elif (
            agent.can_resume
            and not self.resume_unsupported
            and (have_transcript or not history or not agent.can_load)
        ):
            self.events.on_status("resuming session")
            if have_transcript:
                # A resume replays nothing, yet some agents replay the whole conversation
                # (fast-agent): built apart and judged as a load's is, it is never shown twice.
                self.store.begin_replay(session_id, cwd=cwd, keep=True)
            try:
                result = await self._with_auth(
                    lambda: client.resume_session(session_id, cwd, self.mcp_servers, **extra)
                )
            except BaseException as error:
                if have_transcript:
                    self.store.end_replay(session_id, None)
                if not isinstance(error, RpcError) or (
                    error.code != METHOD_NOT_FOUND or not agent.can_load
                ):
                    raise
                # Advertised, not implemented (pydantic-acp, the TS SDK): load, now and later.
                self.resume_unsupported = True
                return await self.open_session(session_id, cwd, adopt=adopt, history=history)
            if have_transcript:
                self.store.end_replay(session_id, result, resumed=True)
            self.set_session_dirs(session_id, cwd, dirs)
            self.store.register_session(session_id, cwd=cwd, response=result)
            method = "resume"
        elif agent.can_load:
            self.events.on_status("loading session")
            # The transcript on screen stays unless the replay holds all of it.
            self.store.begin_replay(session_id, cwd=cwd, keep=have_transcript)
            try:
                result = await self._with_auth(
                    lambda: client.load_session(session_id, cwd, self.mcp_servers, **extra)
                )
                self.set_session_dirs(session_id, cwd, dirs)
            except BaseException:
                self.store.end_replay(session_id, None)
                raise
            self.store.end_replay(session_id, result)
            method = "load"
        else:
            raise NotSupportedError(
                f"{agent.display_name} cannot reopen past sessions (it supports neither "
                "session/resume nor session/load)"
            )
        if adopt:
            self.prompts.rekey(None, session_id)
        self._opened(session_id)
        return method

    def session_dirs(self, session_id: str | None) -> list[str]:
        """The additional directories a session call carries: the session's own, then this
        run's; none when the agent does not take them (it was told so at start)."""
        if self.agent is None or not self.agent.can_add_dirs:
            return []
        state = self.store.get(session_id) if session_id is not None else None
        return dirs_to_send(state.additional_dirs if state else None, self.additional_dirs)

    def set_session_dirs(self, session_id: str, cwd: str, dirs: list[str]) -> None:
        """What a session was opened with: its containment, and the store (header, index)."""
        self.roots.set(session_id, cwd, dirs)
        self.store.set_additional_dirs(session_id, dirs)

    def _opened(self, session_id: str) -> None:
        self.current_session_id = session_id
        self.runtime(session_id)
        self.events.on_session_opened(session_id)
        self.flush(session_id)

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
        client = self._client()
        page = await client.list_sessions(cwd, cursor, "only" if archived else None)
        if pages is not None:
            pages.append(page)
        self.store.apply_list_page(page, cwd=cwd, cursor=cursor, archived=archived)
        state = self.store.list_state(cwd, archived=archived)
        return None if state.complete else state.next_cursor

    def adopt_session(self, session_id: str) -> None:
        """A session the agent made by other means than session/new (a fork) is open here
        now, and shown."""
        self._opened(session_id)

    def drop_session(self, session_id: str) -> None:
        """The agent no longer has the session open (archived): reopened before use."""
        self._runtime.pop(session_id, None)

    # ------------------------------------------------------------------ turns

    def send_prompt(
        self, session_id: str, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        """Send now, or queue when a turn is running (v1 agents take one turn at a time) or
        when earlier messages still wait (they go first)."""
        blocks = blocks or [{"type": "text", "text": text}]
        runtime = self.runtime(session_id)
        runtime.auth_blocked = False  # the person sends: what waited for a sign-in tries again
        if (runtime.turn_running and not self.v2_lifecycle) or self.prompts.has(session_id):
            self.prompts.add(session_id, text, blocks)
            self.flush(session_id)
            return
        self._start_turn(session_id, blocks)

    def can_send(self, session_id: str) -> bool:
        """Whether a prompt for this session can go out now (open here, agent running)."""
        return (
            session_id in self._runtime
            and self._task_group is not None
            and self.client is not None
            and not self.client.connection.closed
        )

    def flush(self, session_id: str) -> None:
        """Send what waits for this session, if it is open and idle (all of it at once to a
        v2 agent). An item being edited holds the queue."""
        if not self.can_send(session_id):
            return
        runtime = self.runtime(session_id)
        if runtime.auth_blocked:
            return
        while not runtime.turn_running or self.v2_lifecycle:
            queued = self.prompts.take_next(session_id)
            if queued is None:
                return
            self._start_turn(session_id, queued.blocks)

    def _start_turn(self, session_id: str, blocks: list[dict[str, Any]]) -> None:
        if self._task_group is None:
            raise AcpError("the agent is not running")
        runtime = self.runtime(session_id)
        runtime.turn_running = True
        # Built before the agent said what it takes (or for another agent): what it cannot
        # take goes as a link, and the person is told below their message.
        notes: list[str] = []
        if self.agent is not None:
            caps = PromptCapabilities.from_agent(self.agent.capabilities)
            blocks, notes = fit_to_capabilities(blocks, caps)
        turn = self.store.prompt_sent(session_id, blocks)
        for note in notes:
            self.store.add_notice(session_id, note, severity="warning")
        self._task_group.start_soon(self._run_turn, session_id, blocks, turn)

    async def _run_turn(self, session_id: str, blocks: list[dict[str, Any]], turn: int) -> None:
        client = self._client()
        reason: str | None = None
        try:
            result = await self._prompt_signed_in(client, session_id, blocks)
            self.store.prompt_finished(session_id, result, turn=turn)
            reason = result.get("stopReason") if isinstance(result.get("stopReason"), str) else None
            self._note_stop(session_id, reason)
        except AuthNotDone as error:
            self._keep_unsent(session_id, blocks, turn, str(error))
            reason = "error"
        except AgentExitedError as error:
            self.store.prompt_finished(session_id, None, error=str(error), turn=turn)
            reason = "error"
        except RpcError as error:
            self.store.prompt_finished(
                session_id, None, error=f"The agent reported an error: {error}", turn=turn
            )
            reason = "error"
        except AcpError as error:
            self.store.prompt_finished(session_id, None, error=str(error), turn=turn)
            reason = "error"
        finally:
            if not self.v2_lifecycle or reason == "error":
                self._turn_idle(session_id, reason)

    def _note_stop(
        self, session_id: str, reason: str | None, error: dict[str, Any] | None = None
    ) -> None:
        """Say why a turn ended, unless it simply ended (v1: the prompt's answer; v2: the
        idle ``state_update``, whose ``error`` object details an ``error`` stop)."""
        if reason == wire.CANCELLED:
            self.store.add_notice(session_id, "Cancelled", severity="warning")
        elif reason in (wire.MAX_TOKENS, wire.MAX_TURN_REQUESTS, wire.REFUSAL):
            self.store.add_notice(
                session_id, f"The turn ended: {reason.replace('_', ' ')}", severity="warning"
            )
        elif reason == "error":
            message = error.get("message") if isinstance(error, dict) else None
            self.store.add_notice(
                session_id,
                "The agent reported an error"
                + (f": {message}" if isinstance(message, str) and message else ""),
                severity="error",
            )

    async def _prompt_signed_in(
        self, client: AcpClient, session_id: str, blocks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """``session/prompt``; when the agent answers "authentication required" (-32000), sign
        in and send it once more. :class:`AuthNotDone` when the sign-in did not happen."""
        try:
            return await client.prompt(session_id, blocks)
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            reason = error.message
        await self.authenticate(reason)
        try:
            return await client.prompt(session_id, blocks)
        except RpcError as error:
            if error.code != AUTH_REQUIRED:
                raise
            raise AuthNotDone(
                f"signed in, but the agent still requires authentication: {error.message}"
            ) from error

    def _keep_unsent(
        self, session_id: str, blocks: list[dict[str, Any]], turn: int, why: str
    ) -> None:
        """A prompt the agent refused for want of a sign-in: it leaves the transcript (it was
        not sent) and waits at the head of the queue, held until the person acts."""
        self.store.withdraw_prompt(session_id, turn)
        text = "\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        self.prompts.put_back(session_id, text, blocks)
        self.runtime(session_id).auth_blocked = True
        self.store.add_notice(
            session_id,
            "Not sent: the agent needs you to sign in",
            severity="error",
            description=f"{why.rstrip('.')}. Your message waits in the queue: send another "
            "message, or edit it, to try again.",
        )

    def _turn_idle(self, session_id: str, reason: str | None = None) -> None:
        runtime = self.runtime(session_id)
        runtime.turn_running = False
        runtime.cancelling = False
        # A dialog still open for a turn that is over can only be answered in vain.
        runtime.stop_asking()
        state = self.store.get(session_id)
        self.events.on_turn_ended(session_id, reason or (state.stop_reason if state else None))
        self.flush(session_id)

    def begin_cancel(self, session_id: str) -> None:
        """The person cancelled the turn: until it ends, every permission request of the
        session is answered ``cancelled``, those waiting now and those still to come."""
        runtime = self.runtime(session_id)
        if runtime.turn_running:
            runtime.cancelling = True
        runtime.stop_asking()

    def is_cancelling(self, session_id: str) -> bool:
        """Whether the person cancelled the session's turn and it has not ended yet."""
        runtime = self._runtime.get(session_id)
        return runtime is not None and runtime.cancelling

    async def cancel(self, session_id: str) -> None:
        """session/cancel, after :meth:`begin_cancel` (the spec: pending permission requests
        are answered ``cancelled``)."""
        self.begin_cancel(session_id)
        client = self._client()
        await client.cancel(session_id)

    def edit_saved(self, session_id: str) -> None:
        """The person saved an edit of a queued message: it may go (again) now."""
        self.runtime(session_id).auth_blocked = False
        self.flush(session_id)

    def queue(self, session_id: str | None) -> list[QueuedPrompt]:
        return self.prompts.items(session_id)

    def edit_queued(self, session_id: str, queue_id: int, text: str | None) -> None:
        """Replace the text of a queued prompt, or remove it with ``text=None``."""
        if text is None:
            self.prompts.remove(session_id, queue_id)
        else:
            self.prompts.save_edit(session_id, queue_id, text)
            self.runtime(session_id).auth_blocked = False
        self.flush(session_id)

    def is_busy(self, session_id: str) -> bool:
        return self.runtime(session_id).turn_running

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        client = self._client()
        await client.set_mode(session_id, mode_id)
        self.store.set_current_mode(session_id, mode_id)

    async def set_model(self, session_id: str, model_id: str) -> None:
        """The legacy ``models`` state's model (agents without a model config option)."""
        client = self._client()
        await client.set_model(session_id, model_id)
        self.store.set_current_model(session_id, model_id)

    async def set_config_option(self, session_id: str, config_id: str, value: Any) -> None:
        client = self._client()
        result = await client.set_config_option(session_id, config_id, value)
        options = result.get("configOptions") if isinstance(result, dict) else None
        if isinstance(options, list):
            self.store.set_config_options(session_id, options)

    async def close_session(self, session_id: str) -> None:
        await self._client().close_session(session_id)

    async def delete_session(self, session_id: str) -> None:
        await self._client().delete_session(session_id)
        self.store.forget(session_id)

    def spawn(self, job: Callable[[], Awaitable[Any]], what: str) -> None:
        """Run an intent in the link's task group; failures become error events."""

        async def guarded() -> None:
            try:
                await job()
            except (AcpError, RpcError) as error:
                self.events.on_error(f"{what}: {error}")

        if self._task_group is None:
            self.events.on_error(f"{what}: the agent is not running")
            return
        try:
            self._task_group.start_soon(guarded)
        except RuntimeError:  # the group is closing (the agent stops): never a traceback
            self.events.on_error(f"{what}: the agent is not running")


def _dirs_param(dirs: list[str]) -> dict[str, Any]:
    """``additionalDirectories`` for a session call (left out when there are none)."""
    return {"additionalDirectories": list(dirs)} if dirs else {}


#: How often exited orphans re-parented to acp-tui (the subreaper) are collected.
ORPHAN_REAP_SECONDS = 2.0


async def _reap_orphans() -> None:
    """A subreaper must collect the orphans that exit, or a busy agent fills the process
    table with zombies: one cheap non-blocking syscall every couple of seconds."""
    while True:
        await anyio.sleep(ORPHAN_REAP_SECONDS)
        reaper.reap()


def suppress_agent_errors() -> contextlib.AbstractContextManager[None]:
    return contextlib.suppress(AcpError, RpcError)
