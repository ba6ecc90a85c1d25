"""The controller between one agent process and the store: what the UI asks for, done over ACP.

No Textual here: the UI hands in callbacks (:class:`ControllerEvents`) and calls intents
(:meth:`SessionController.send_prompt`, :meth:`SessionController.cancel`, ...). Everything the agent says lands
in the :class:`~acp_tui.store.SessionStore`; the UI renders the store.

Turn lifecycle (https://agentclientprotocol.com/protocol/prompt-turn): a prompt sent while a
turn runs is queued per session (:class:`~acp_tui.session.prompts.queue.PromptQueue`, which outlives one
agent process) and sent when the turn ends. A v2 connection (negotiated at ``initialize``)
accepts prompts at any time, so its queue drains at once; on v1 a ``state_update`` only changes
the activity shown. What waits for a session that is not open
yet goes out when it opens (:meth:`SessionController.flush`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.protocol import reaper
from acp_tui.protocol.agent_info import AgentInfo
from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.errors import AcpError, AgentExitedError, NotAnAgentError
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.process import AgentProcess, AgentStartError
from acp_tui.session.agent.background import Background
from acp_tui.session.agent.calls import SessionCalls
from acp_tui.session.agent.checkpointing import TurnCheckpoints
from acp_tui.session.agent.events import (
    AgentExit,
    ControllerEvents,
    FaceHooks,
    NotResponding,
    PermissionHandler,
    ProcessSetup,
)
from acp_tui.session.agent.mcp import select_mcp_servers
from acp_tui.session.agent.requests import AgentRequests
from acp_tui.session.agent.reviewed_writes import ReviewedWrites
from acp_tui.session.agent.roots import SessionRoots
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.agent.steering import Steering
from acp_tui.session.agent.traffic import Traffic
from acp_tui.session.agent.turns import Turns
from acp_tui.session.asking.elicitation import URL
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.write_reviews import WriteReviews
from acp_tui.session.auth.signin import SignIn
from acp_tui.session.checkpoints.book import Checkpoints
from acp_tui.session.errors import AgentGone, SessionError, translating, translating_now
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.launch.system_prompt import SystemPrompt
from acp_tui.session.prompts.queue import PromptQueue, QueuedPrompt
from acp_tui.session.spend.feed import SpendFeed
from acp_tui.store import SessionStore
from acp_tui.wire.constants import Method

if TYPE_CHECKING:
    from acp_tui.wire.schema import McpServer

log = logging.getLogger(__name__)

__all__ = [
    "AgentExit",
    "ControllerEvents",
    "NotResponding",
    "PermissionHandler",
    "QueuedPrompt",
    "SessionController",
]


class SessionController:
    """One agent process for the lifetime of :meth:`run`: its state (:class:`ControllerState`) and
    its parts, each a plain object over that state (:class:`Turns`, :class:`SessionCalls`,
    :class:`AgentRequests`). What the faces call is the parts' work, named here."""

    def __init__(
        self,
        spec: AgentSpec,
        *,
        store: SessionStore,
        face: FaceHooks | None = None,
        process: ProcessSetup | None = None,
        prompts: PromptQueue | None = None,
        elicitations: ElicitationQueue | None = None,
        checkpoints: Checkpoints | None = None,
        write_reviews: WriteReviews | None = None,
        spend: SpendFeed | None = None,
    ) -> None:
        self.state = ControllerState(
            spec,
            store=store,
            face=face,
            process=process,
            prompts=prompts,
            elicitations=elicitations,
        )
        self.state.spend = spend
        #: Snapshots around each turn, and the rewinds the faces ask for.
        self.checkpoints = TurnCheckpoints(self.state, checkpoints)
        #: Client writes, reviewed first where a session asks for it (None: never).
        self.write_reviews = write_reviews
        self.turns = Turns(self.state, self.checkpoints)
        self.calls = SessionCalls(self.state, self.turns)
        self.requests = AgentRequests(self.state, self.turns)
        self.background = Background(self.state, self.turns)
        self.steering = Steering(self.state, self.turns)
        # What the faces call: the parts' work, what fails said in the session layer's words
        # (acp_tui.session.errors), never the wire's. Prompts and turns:
        turns = self.turns
        self.build_prompt = turns.build_prompt
        self.shell_output_blocks = turns.shell_output_blocks
        self.send_prompt = translating_now(turns.send_prompt)
        self.can_send = turns.can_send
        self.flush = translating_now(turns.flush)
        self.authenticate = translating(turns.authenticate)
        self.begin_cancel = turns.begin_cancel
        self.cancel = translating(turns.cancel)
        self.cancel_running_turns = translating(turns.cancel_running_turns)
        self.is_cancelling = turns.is_cancelling
        self.is_busy = turns.is_busy
        self.edit_saved = translating_now(turns.edit_saved)
        self.edit_queued = translating_now(turns.edit_queued)
        self.queue = turns.queue
        self.send_now = translating_now(self.steering.send_now)
        self.can_inject = self.steering.can_inject
        # Session calls.
        calls = self.calls
        self.new_session = translating(calls.new_session)
        self.open_session = translating(calls.open_session)
        self.list_sessions = translating(calls.list_sessions)
        self.adopt_session = translating_now(calls.adopt_session)
        self.drop_session = calls.drop_session
        self.session_dirs = calls.session_dirs
        self.set_session_dirs = calls.set_session_dirs
        self.set_mode = translating(calls.set_mode)
        self.set_model = translating(calls.set_model)
        self.set_config_option = translating(calls.set_config_option)
        self.close_session = translating(calls.close_session)
        self.delete_session = translating(calls.delete_session)
        self.unused_sessions = calls.unused_sessions
        self.discard_unused = translating(calls.discard_unused)
        self.logout = translating(calls.logout)
        # Subagents and background work.
        self.background_work = self.background.work
        self.cancel_work = translating(self.background.cancel)
        self.cancel_child = translating(self.background.cancel_child)
        self.can_cancel_child = self.background.can_cancel_child
        # The state's own.
        self.is_open = self.state.is_open
        self.runtime = self.state.runtime
        self.spawn = self.state.spawn
        self.terminal_state = self.requests.terminal_state

    # ------------------------------------------------------------------ what it holds

    @property
    def spec(self) -> AgentSpec:
        return self.state.spec

    @property
    def argv(self) -> list[str]:
        return self.state.argv

    @property
    def cwd(self) -> str:
        return self.state.cwd

    @property
    def store(self) -> SessionStore:
        return self.state.store

    @property
    def prompts(self) -> PromptQueue:
        return self.state.prompts

    @property
    def elicitations(self) -> ElicitationQueue | None:
        return self.state.elicitations

    @property
    def events(self) -> ControllerEvents:
        return self.state.events

    @property
    def sign_in(self) -> SignIn:
        return self.state.sign_in

    @property
    def client(self) -> AcpClient | None:
        return self.state.client

    @property
    def agent(self) -> AgentInfo | None:
        return self.state.agent

    @property
    def current_session_id(self) -> str | None:
        return self.state.current_session_id

    @property
    def v2_lifecycle(self) -> bool:
        return self.state.v2_lifecycle

    @property
    def resume_unsupported(self) -> bool:
        return self.state.resume_unsupported

    @property
    def additional_dirs(self) -> list[str]:
        return self.state.additional_dirs

    @property
    def system_prompt(self) -> SystemPrompt | None:
        """The system prompt in force for this agent's sessions (see
        :mod:`acp_tui.session.launch.system_prompt`)."""
        return self.state.spec.system_prompt

    @property
    def system_prompt_sent(self) -> bool | None:
        """Whether it goes with the sessions: None until the agent said what it takes."""
        return self.state.system_prompt_sent

    @property
    def mcp_servers(self) -> list[McpServer]:
        return self.state.mcp_servers

    @property
    def roots(self) -> SessionRoots:
        return self.state.roots

    @property
    def terminal_auth(self) -> bool:
        return self.state.terminal_auth

    @property
    def ready(self) -> anyio.Event:
        """Set once the agent answered ``initialize`` (a new event after it exits)."""
        return self.state.ready

    @property
    def finished(self) -> anyio.Event:
        """Set when :meth:`run` has returned: the agent and its terminals are gone."""
        return self.state.finished

    @property
    def can_logout(self) -> bool:
        return self.calls.can_logout

    @property
    def process(self) -> AgentProcess | None:
        client = self.state.client
        return client.process if client else None

    @property
    def start_failure(self) -> str | None:
        """Why the agent never became usable (not an ACP agent, initialize failed); None
        when it started, or when it simply ended (then :attr:`process` tells how)."""
        return self.state.start_failure

    def traffic(self) -> Traffic | None:
        """What went by on the agent's connection (the protocol inspector's), or None before
        it started."""
        client = self.state.client
        return Traffic(client.connection, self.state.argv, self.state.cwd) if client else None

    # ------------------------------------------------------------------ running

    async def run(
        self, open_session: Callable[[SessionController], Awaitable[None]] | None = None
    ) -> None:
        """Start the agent, initialize, open a first session (``open_session`` or a new one),
        then serve until :meth:`stop` or the agent exits. Never raises for agent failures:
        they are reported through ``events.on_exit``."""
        try:
            await self._run(open_session)
        finally:
            self.state.finished.set()

    def client_setup(self) -> dict[str, Any]:
        """What the client is built with: the agent->client request handlers, and what else
        it handles (the client capabilities sent at ``initialize`` are derived from these)."""
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            Method.SESSION_REQUEST_PERMISSION: self.requests.on_permission,
            Method.TERMINAL_CREATE: self.requests.service(self.requests.create_terminal),
            Method.TERMINAL_OUTPUT: self.requests.service(self.state.terminals.output),
            Method.TERMINAL_WAIT_FOR_EXIT: self.requests.service(
                self.state.terminals.wait_for_exit
            ),
            Method.TERMINAL_KILL: self.requests.service(self.state.terminals.kill),
            Method.TERMINAL_RELEASE: self.requests.service(self.requests.release_terminal),
        }
        if self.state.client_files:
            handlers[Method.FS_READ_TEXT_FILE] = self.requests.service(
                self.state.roots.read_text_file
            )
            write = self.checkpoints.write_text_file
            if self.write_reviews is not None:
                write = ReviewedWrites(
                    self.write_reviews, write, self.state.roots.roots
                ).write_text_file
            handlers[Method.FS_WRITE_TEXT_FILE] = self.requests.service(write)
        # The agent's sign-in state, pushed (unstable; no client capability announces it).
        notifications = {Method.SESSION_UPDATE, Method.AUTH_STATUS_UPDATE}
        abilities: set[str] = set()
        if self.state.elicitations is not None and self.state.elicitations.modes:
            handlers[Method.ELICITATION_CREATE] = self.requests.on_elicitation
            if URL in self.state.elicitations.modes:  # it closes a url request; forms have none
                notifications.add(Method.ELICITATION_COMPLETE)
            abilities.update(f"elicitation.{mode}" for mode in self.state.elicitations.modes)
        if self.state.terminal_auth:
            abilities.add("auth.terminal")
        # The chat bar shows boolean config options as toggles (acp_tui.store.options).
        abilities.add("config_options.boolean")
        if self.state.offers_suggestions:
            abilities.add("prompt_suggestions")
        if self.state.shows_agent_terminals:
            abilities.add("tool_call.agent_terminal")
        # A subagent is cancelled on its own (Background.cancel_child).
        abilities.add("subagents.cancel")
        return {
            "handlers": handlers,
            "notifications": notifications,
            "updates": self.state.store.update_kinds,
            "abilities": abilities,
        }

    async def _run(
        self, open_session: Callable[[SessionController], Awaitable[None]] | None
    ) -> None:
        try:
            async with AcpClient.launch(
                self.state.argv,
                cwd=self.state.cwd,
                env=self.state.env,
                log_dir=self.state.log_dir,
                recorder=self.state.recorder,
                process_factory=self.state.process_factory,
                on_notification=self.requests.on_notification,
                terminal_auth=self.state.terminal_auth,
                protocol_version=self.state.protocol_version,
                **self.client_setup(),
            ) as client:
                self.state.client = client
                async with anyio.create_task_group() as task_group:
                    self.state.task_group = task_group
                    self.state.terminals.start(task_group)
                    task_group.start_soon(self._watch_exit, client)
                    task_group.start_soon(_reap_orphans)
                    try:
                        # A stop (quit) must never wait for an agent that does not answer.
                        task_group.start_soon(self._start, client, open_session)
                        await self.state.stop_requested.wait()
                    finally:
                        await self.state.terminals.aclose()
                        task_group.cancel_scope.cancel()
                        # Closed from here on: an intent spawned now is told the agent is gone.
                        self.state.task_group = None
        except AgentStartError as error:
            self.state.events.on_exit(
                AgentExit(error.reason, None, [], expected=False, start_failed=True)
            )
            return
        interrupted = False
        if not self.state.stopping:
            interrupted = self.turns.end_turns_of_a_gone_agent()
        self._report_exit(interrupted)

    async def _start(
        self, client: AcpClient, open_session: Callable[[SessionController], Awaitable[None]] | None
    ) -> None:
        self.state.events.on_status("initializing")
        watchdog = anyio.CancelScope()
        if self.state.task_group is None:
            return  # stopped before it started
        self.state.task_group.start_soon(self._watch_initialize, client, watchdog)
        try:
            agent = await client.initialize()
        except (AcpError, RpcError) as error:
            if isinstance(error, NotAnAgentError):
                self.state.start_failure = str(error)
            elif not isinstance(error, AgentExitedError):
                self.state.start_failure = f"initialize failed: {error}"
            self.stop()
            return
        finally:
            watchdog.cancel()
        self.state.agent = agent
        # The negotiated version decides the turn lifecycle, once: never a notification.
        self.state.v2_lifecycle = agent.protocol_version >= 2
        self.state.store.protocol_version = agent.protocol_version
        self.state.sign_in.configure(
            agent.auth_methods,
            v2=self.state.v2_lifecycle,
            agent_name=agent.display_name,
            tells_status=agent.can_auth_status,
        )
        self.state.store.set_agent_capabilities(agent.capabilities)
        # MCP servers from the config go out only in the transports this agent supports.
        self.state.mcp_servers, notes = select_mcp_servers(self.state.configured_mcp_servers, agent)
        for note in notes:
            self.state.events.on_error(note)
        self._offer_system_prompt(client, agent)
        if self.state.additional_dirs and not agent.can_add_dirs:
            self.state.events.on_error(
                f"{agent.display_name} does not take additional directories: "
                f"{', '.join(self.state.additional_dirs)} not sent (its sessions work in their cwd only)"
            )
        self.state.ready.set()
        self.checkpoints.warm()
        self.state.events.on_ready(agent)
        if (
            self.state.task_group is not None
            and agent.can_session_options
            and self.state.shows_new_session_options
        ):
            self.state.task_group.start_soon(self._session_options, client)
        try:
            # Before the first session: whether the person must sign in first.
            with anyio.move_on_after(AUTH_STATUS_WAIT):
                await self.state.sign_in.ask_status(client)
            if open_session is not None:
                await open_session(self)
            else:
                await self.new_session()
        except AgentGone:
            return
        except SessionError as error:
            self.state.events.on_error(str(error))

    async def _session_options(self, client: AcpClient) -> None:
        """``session/options``: what a new session would offer (its model and other options),
        for the new session's view before the session exists. Asked once; a refusal is
        only logged (the view keeps what the agent's last new session offered)."""
        dirs = self.calls.session_dirs(None)
        try:
            raw = await client.session_options(
                self.state.cwd, **({"additionalDirectories": dirs} if dirs else {})
            )
        except (AcpError, RpcError) as error:
            log.info("session/options: %s", error)
            return
        self.state.events.on_session_options(raw)

    def reported_status(self, session_id: str) -> str | None:
        """What ``session/status`` said of the session as it was reopened here (``open``:
        the agent had it in memory already), or None when not asked."""
        return self.state.reported_status.get(session_id)

    def _offer_system_prompt(self, client: AcpClient, agent: AgentInfo) -> None:
        """The system prompt in force goes with every session setup request when the agent
        takes it in its mode; else the person is told, once, that it is not sent."""
        prompt = self.state.spec.system_prompt
        self.state.system_prompt_sent = False
        if prompt is None:
            return
        modes = agent.system_prompt_modes
        if prompt.mode in modes:
            client.system_prompt = prompt.wire()
            self.state.system_prompt_sent = True
            return
        why = (
            "does not take one" if not modes else f"takes one only to {' or '.join(sorted(modes))}"
        )
        # What matters first: a toast shows the start of a long line.
        self.state.events.on_error(
            f"System prompt not sent: {agent.display_name} {why} (yours: {prompt.describe()})"
        )

    async def _watch_initialize(self, client: AcpClient, scope: anyio.CancelScope) -> None:
        """Tell the person when ``initialize`` takes too long (the wait goes on: a slow first
        start, e.g. an npx download, may still answer)."""
        with scope:
            await anyio.sleep(self.state.initialize_timeout)
            if self.state.agent is None and not client.connection.closed:
                stats = client.connection.stats
                self.state.events.on_not_responding(
                    NotResponding(
                        seconds=self.state.initialize_timeout,
                        printed=list(stats.first_skipped),
                        printed_count=stats.skipped_lines,
                        stderr_tail=list(client.process.stderr_tail)[-8:],
                    )
                )

    async def _watch_exit(self, client: AcpClient) -> None:
        await client.connection.closed_event.wait()
        # Give the exit status a moment to arrive so the banner can name it, and the rest of
        # stderr to be read: the banner shows the tail as it is when the exit is reported, and
        # what an agent prints last is often why it stopped (stderr is read apart from stdout;
        # long lines take several reads, and a busy machine lags behind).
        with anyio.move_on_after(1):
            await client.process.exited.wait()
        with anyio.move_on_after(1):
            await client.process.stderr_done.wait()
        self.stop()

    def _report_exit(self, interrupted: bool = False) -> None:
        """Tell the face how the agent ended; ``interrupted``: a turn of it was running."""
        state = self.state
        client = state.client
        process = client.process if client else None
        if client is None or process is None:
            return
        state.ready = anyio.Event()
        failure = state.start_failure
        if failure is None and state.agent is None and not state.stopping:
            failure = "the agent ended before answering initialize"
        printed = list(client.connection.stats.first_skipped)
        description = process.exit_description
        if client.closed_its_input and not state.stopping:
            # Our write failed while the agent ran: that, not the signal we then sent, is
            # what happened.
            description = (
                "it closed its input: acp-tui could not write to its stdin and stopped it, "
                + description
            )
        state.events.on_exit(
            AgentExit(
                description=f"{failure} ({description})" if failure else description,
                start_failed=failure is not None,
                returncode=process.returncode,
                stderr_tail=list(process.stderr_tail)[-20:],
                expected=state.stopping,
                log_path=str(process.log_path) if process.log_path else None,
                printed=printed if state.agent is None else [],
                status=process.exit_description,
                closed_input=client.closed_its_input,
                # A v2 prompt carries its key: sent again it runs at most once. Never v1.
                reconnect=(
                    failure is None
                    and not state.stopping
                    and state.v2_lifecycle
                    and (interrupted or state.prompts.awaiting_retry())
                ),
            )
        )

    def stop(self) -> None:
        """End :meth:`run`: the agent is shut down (EOF, then TERM, then KILL)."""
        self.state.stop_requested.set()

    def request_stop(self) -> None:
        """A stop the person asked for (quit), so the exit is not reported as a crash."""
        self.state.stopping = True
        self.stop()


#: How long the first session waits for the agent to tell its sign-in state (``auth/status``).
AUTH_STATUS_WAIT = 10.0

#: How often exited orphans re-parented to acp-tui (the subreaper) are collected.
ORPHAN_REAP_SECONDS = 2.0


async def _reap_orphans() -> None:
    """A subreaper must collect the orphans that exit, or a busy agent fills the process
    table with zombies: one cheap non-blocking syscall every couple of seconds."""
    while True:
        await anyio.sleep(ORPHAN_REAP_SECONDS)
        reaper.reap()
