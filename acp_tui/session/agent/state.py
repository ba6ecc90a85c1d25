"""What a :class:`~acp_tui.session.agent.controller.SessionController` holds, and the few helpers
each of its parts uses: one agent process's client, the sessions open in it (their turn state),
the queue of messages, the services the agent may call.

The controller owns one :class:`ControllerState` and hands it to each of its parts, plain objects by
job: :class:`~acp_tui.session.agent.turns.Turns` (prompts, the queue, sign-in, cancel),
:class:`~acp_tui.session.agent.calls.SessionCalls` (new, open, list, options, close) and
:class:`~acp_tui.session.agent.requests.AgentRequests` (what the agent sends and asks), the two
last also holding the turns. The controller itself runs the process's life."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.protocol.agent_info import AgentInfo
from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.errors import AcpError, AgentExitedError
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.services.terminals import TerminalManager
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.agent.roots import SessionRoots
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.auth.signin import SignIn
from acp_tui.session.errors import SessionError
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.queue import PromptQueue
from acp_tui.session.spend.feed import SpendFeed
from acp_tui.store import SessionStore

if TYPE_CHECKING:
    from acp_tui.wire.schema import McpServer


@dataclass(slots=True)
class SessionRuntime:
    turn_running: bool = False
    #: session/cancel was sent and the turn has not ended yet: a permission request that
    #: arrives now is answered ``cancelled`` at once, as the spec requires after a cancel.
    cancelling: bool = False
    #: The permission requests of this session waiting for the person (their cancel scopes).
    asking: set[anyio.CancelScope] = field(default_factory=set)
    #: A prompt was refused for want of a sign-in the person did not give: what waits is
    #: held until they send or edit a message, or sign in.
    auth_blocked: bool = False
    #: Set once the running turn's ``session/prompt`` has gone out (or never will): what
    #: goes into the turn (``session/inject``) must not reach the agent before it.
    on_wire: anyio.Event | None = None

    def stop_asking(self) -> None:
        """Answer ``cancelled`` to every permission request still waiting (its dialog
        closes): after a cancel, and when the turn has ended, nobody can use the answer."""
        for scope in self.asking:
            scope.cancel()


class ControllerState:
    """The state of one agent connection, shared by the controller's parts (see the module's
    docstring)."""

    def __init__(
        self,
        spec: AgentSpec,
        *,
        store: SessionStore,
        face: FaceHooks | None = None,
        process: ProcessSetup | None = None,
        prompts: PromptQueue | None = None,
        elicitations: ElicitationQueue | None = None,
    ) -> None:
        face = face or FaceHooks()
        process = process or ProcessSetup()
        #: What the agent is started with (see :mod:`acp_tui.session.launch.spec`).
        self.spec = spec
        self.argv = list(spec.argv)
        #: Whether the client's file access is offered to the agent.
        self.client_files = spec.client_files
        #: Whether the agent's ``fs/*`` and ``terminal/*`` requests may act on this machine.
        #: False for a replay: a recording is a file anyone can write, and whatever line in it
        #: reaches the client as a request (one filed as junk, a batch) is refused here.
        self.machine_access = process.machine_access
        #: Absolute directories every session of this run works in too (``--add-dir``).
        self.additional_dirs = list(spec.additional_dirs)
        #: Where ``elicitation/create`` requests go (None: not offered to the agent).
        self.elicitations = elicitations
        #: Where the costs the agent reports go (None: no spend ledger).
        self.spend: SpendFeed | None = None
        self.cwd = os.path.abspath(spec.cwd)
        self.store = store
        self.events = face.events
        self.permission_handler = face.permission_handler
        self.choose_auth = face.choose_auth
        self.env = spec.env_dict()
        #: Authentication: methods, the chooser, and how a terminal method runs.
        self.sign_in = SignIn(
            self.argv,
            self.cwd,
            self.env,
            face.choose_auth,
            face.run_terminal_login,
            face.approve_outside,
        )
        self.sign_in.on_status = lambda status: self.events.on_auth_status(status)
        #: What ``session/status`` (unstable) said of each session as it was reopened here:
        #: ``open`` (the agent had it in memory already: another client may use it) or
        #: ``saved``; asked once per reopening, never polled.
        self.reported_status: dict[str, str] = {}
        self.configured_mcp_servers = spec.mcp_server_list()
        #: What session/new, load and resume carry: set after initialize.
        self.mcp_servers: list[McpServer] = []
        # Each agent's stderr is kept in a file the crash banner names (None: only in memory);
        # the default place is the settings' (AppSettings.log_dir).
        self.log_dir = process.log_dir
        #: Recording and replay (``--record``, ``acp-tui replay``): passed to the launcher.
        self.recorder = process.recorder
        self.process_factory = process.process_factory
        self.client: AcpClient | None = None
        self.agent: AgentInfo | None = None
        #: Each session's directories: what its file reads, writes and terminals may touch.
        self.roots = SessionRoots(self.cwd, face.approve_outside)
        self.files = self.roots.default
        self.terminals = TerminalManager(self._terminal_output, guard=self.files.guard)
        self.released_terminals: dict[str, Any] = {}
        self.current_session_id: str | None = None
        #: Whether the system prompt in force goes with each session (None: not decided
        #: before the agent answered initialize).
        self.system_prompt_sent: bool | None = None
        self.v2_lifecycle = False
        #: The agent answered session/resume "method not found" although it advertises it:
        #: its sessions are loaded instead.
        self.resume_unsupported = False
        self.runtimes: dict[str, SessionRuntime] = {}
        #: The ``session/new`` calls on their way, each set once answered (an unused session
        #: they make is discarded too as the person leaves).
        self.creating: set[anyio.Event] = set()
        #: The subagents' (never opened here, never prompted): their permission requests
        #: waiting, and whether the person cancelled their work.
        self.child_runtimes: dict[str, SessionRuntime] = {}
        #: Messages waiting to be sent, per session; owned by whoever drives the controller, so they
        #: survive a restart of the agent.
        self.prompts = prompts if prompts is not None else PromptQueue()
        self.initialize_timeout = spec.initialize_timeout
        #: Asked for at initialize (``--protocol 2``); the agent's answer is what counts.
        self.protocol_version = spec.protocol_version
        #: Whether terminal sign-in methods can run here (not in a browser): advertised so.
        self.terminal_auth = face.terminal_auth
        #: Whether the face offers prompt suggestions to take: advertised so.
        self.offers_suggestions = face.offers_suggestions
        #: Whether the face shows the agent's own terminals' output: advertised so.
        self.shows_agent_terminals = face.shows_agent_terminals
        self.shows_new_session_options = face.shows_new_session_options
        self.task_group: anyio.abc.TaskGroup | None = None
        self.stop_requested = anyio.Event()
        self.stopping = False
        #: Why the agent never became usable (initialize failed), for the start-failure banner.
        self.start_failure: str | None = None
        self.ready = anyio.Event()
        #: Set when :meth:`run` has returned: the agent and its terminals are gone.
        self.finished = anyio.Event()

    def _terminal_output(self, terminal_id: str) -> None:
        self.events.on_terminal_output(terminal_id)

    def require_client(self) -> AcpClient:
        if self.client is None or self.agent is None:
            raise AgentExitedError("the agent is not running")
        return self.client

    def is_open(self, session_id: str) -> bool:
        """Whether this agent process has the session open (new, loaded or resumed here)."""
        return session_id in self.runtimes

    def runtime(self, session_id: str) -> SessionRuntime:
        runtime = self.runtimes.get(session_id)
        if runtime is None:
            runtime = self.runtimes[session_id] = SessionRuntime()
        return runtime

    def asking_runtime(self, session_id: object) -> SessionRuntime | None:
        """Where a request of ``session_id`` for the person waits: an open session's runtime,
        or a subagent's (made on first use); None for any other session."""
        if not isinstance(session_id, str):
            return None
        runtime = self.runtimes.get(session_id)
        if runtime is not None:
            return runtime
        state = self.store.get(session_id)
        if state is None or state.parent_id is None:
            return None
        return self.child_runtimes.setdefault(session_id, SessionRuntime())

    def spawn(self, job: Callable[[], Awaitable[Any]], what: str) -> None:
        """Run an intent in the controller's task group; failures become error events."""

        async def guarded() -> None:
            try:
                await job()
            except (AcpError, RpcError, SessionError) as error:
                self.events.on_error(f"{what}: {error}")

        if self.task_group is None:
            self.events.on_error(f"{what}: the agent is not running")
            return
        try:
            self.task_group.start_soon(guarded)
        except RuntimeError:  # the group is closing (the agent stops): never a traceback
            self.events.on_error(f"{what}: the agent is not running")
