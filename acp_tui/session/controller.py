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
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from acp_tui.protocol import reaper
from acp_tui.protocol.client import (
    AcpClient,
    AcpError,
    AgentExitedError,
    NotAnAgentError,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.process import AgentProcess, AgentStartError
from acp_tui.session.agent_requests import AgentRequests
from acp_tui.session.elicitation import URL
from acp_tui.session.link_events import AgentExit, LinkEvents, NotResponding, PermissionHandler
from acp_tui.session.mcp import select_mcp_servers
from acp_tui.session.queue import QueuedPrompt
from acp_tui.session.session_calls import SessionCalls
from acp_tui.session.turns import Turns
from acp_tui.wire.constants import Method

log = logging.getLogger(__name__)

__all__ = [
    "AgentExit",
    "LinkEvents",
    "NotResponding",
    "PermissionHandler",
    "QueuedPrompt",
    "SessionController",
]


class SessionController(AgentRequests, SessionCalls, Turns):
    """One agent process for the lifetime of :meth:`run` (its parts: see
    :mod:`acp_tui.session.link_state`)."""

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
            Method.TERMINAL_CREATE: self._service(self._create_terminal),
            Method.TERMINAL_OUTPUT: self._service(self.terminals.output),
            Method.TERMINAL_WAIT_FOR_EXIT: self._service(self.terminals.wait_for_exit),
            Method.TERMINAL_KILL: self._service(self.terminals.kill),
            Method.TERMINAL_RELEASE: self._service(self._release_terminal),
        }
        if self.client_files:
            handlers[Method.FS_READ_TEXT_FILE] = self._service(self.roots.read_text_file)
            handlers[Method.FS_WRITE_TEXT_FILE] = self._service(self.roots.write_text_file)
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
        if not self._stopping:
            self.end_turns_of_a_gone_agent()
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
        # Give the exit status a moment to arrive so the banner can name it, and the rest of
        # stderr to be read: the banner shows the tail as it is when the exit is reported, and
        # what an agent prints last is often why it stopped (stderr is read apart from stdout;
        # long lines take several reads, and a busy machine lags behind).
        with anyio.move_on_after(1):
            await client.process.exited.wait()
        with anyio.move_on_after(1):
            await client.process.stderr_done.wait()
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
