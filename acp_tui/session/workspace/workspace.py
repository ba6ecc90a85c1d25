"""The running agents of the app: one :class:`SessionController` per agent, by agent key.

The app owns the workspace; a view (the chat screen, later several side by side) asks it for
the controller of its agent instead of making one of its own, so the agents outlive the views
that show them and one place knows every process to stop. Today a view drives one agent; the
workspace is keyed so that several can run at once (issue 16).

No Textual here: a controller is started by whoever runs its :meth:`SessionController.run`
(the chat screen runs it in a worker, headless in its task group); the workspace creates,
finds, restarts and stops them, and keeps why an agent could not start (the command line
prints it and exits 1).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import anyio

from acp_tui.config import locations
from acp_tui.config.budgets import Budget
from acp_tui.protocol import reaper
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.errors import SessionError
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.spend.budgets import Budgets
from acp_tui.session.workspace.attention import AttentionBoard
from acp_tui.store.search_writer import SearchWriter
from acp_tui.store.spend_writer import SpendWriter

__all__ = ["AgentRunning", "Workspace", "kill_every_agent"]

#: How long :meth:`Workspace.stop` waits for an agent to exit (EOF, TERM, then KILL).
STOP_GRACE = 6.0
#: Seconds a stop waits to send ``session/cancel`` for the running turns (a write to a pipe).
CANCEL_GRACE = 0.5
#: Seconds a stop waits for the unused sessions to be closed and deleted.
DISCARD_GRACE = 1.5


class AgentRunning(RuntimeError):
    """A controller was started for an agent key whose controller is still running."""


@dataclass(frozen=True, slots=True)
class _Made:
    """What a controller was made from: a restart makes the next one the same way."""

    parts: AgentParts
    face: FaceHooks


class Workspace:
    """Controllers by agent key (:attr:`acp_tui.session.launch.spec.AgentSpec.key`: the
    agent's configured name, or its exact command line and env)."""

    def __init__(
        self,
        rules: RuleBook | None = None,
        search: SearchWriter | None = None,
        spend: SpendWriter | None = None,
        budgets: Sequence[Budget] = (),
    ) -> None:
        #: The permission rules every agent of the app answers by (one book: an edit made
        #: in one agent's view applies to all). Default: the person's files.
        self.rules = (
            rules
            if rules is not None
            else RuleBook(locations.rules_file(), locations.rules_state_file())
        )
        self._controllers: dict[str, SessionController] = {}
        self._made: dict[str, _Made] = {}
        self._start_failures: dict[str, str] = {}
        #: Keys whose agent was asked to stop: a new run may replace it even if the old one
        #: has not finished within the grace (it is on its way out).
        self._stopping: set[str] = set()
        #: Each agent's label by key (``[agents.NAME]``, ``--demo``'s "demo agent"), set by
        #: whoever starts it: every list of sessions names an agent the same way.
        self.labels: dict[str, str] = {}
        #: What needs the person, in every agent's sessions (the views keep it up to date).
        self.attention = AttentionBoard()
        #: The search index of every session of every agent (one writer for the app), or
        #: None: nothing is indexed.
        self.search = search
        #: The spend ledger's writer (one for the app; None: no cost is recorded), and the
        #: budgets summed against it.
        self.spend = spend
        self.budgets = Budgets(budgets, spend)

    # ------------------------------------------------------------------ finding

    def get(self, key: str) -> SessionController | None:
        """The controller of ``key``'s latest run (finished or not), or None."""
        return self._controllers.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._controllers

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._controllers))

    def __len__(self) -> int:
        return len(self._controllers)

    def running(self) -> list[SessionController]:
        """The controllers whose agent has not finished."""
        return [c for c in self._controllers.values() if not c.finished.is_set()]

    # ------------------------------------------------------------------ lifecycle

    def start(self, parts: AgentParts, face: FaceHooks | None = None) -> SessionController:
        """A new controller for ``parts``' agent (its key: ``parts.spec.key``), replacing its
        finished (or stopping) one. Its caller runs it (:meth:`SessionController.run`)."""
        key = parts.spec.key
        current = self._controllers.get(key)
        if current is not None and not current.finished.is_set() and key not in self._stopping:
            raise AgentRunning(f"the agent {key!r} is still running: stop it first")
        self._stopping.discard(key)
        made = _Made(parts, face or FaceHooks())
        controller = parts.controller(made.face)
        self._controllers[key] = controller
        self._made[key] = made
        return controller

    def restart(self, key: str) -> SessionController:
        """A new controller for ``key``, made as its last one was (which must have finished:
        :meth:`stop` it first)."""
        made = self._made.get(key)
        if made is None:
            raise KeyError(key)
        return self.start(made.parts, made.face)

    async def stop(self, key: str, grace: float = STOP_GRACE) -> None:
        """Ask ``key``'s agent to stop (EOF, TERM, KILL) and wait up to ``grace`` seconds for
        its controller to finish, so quitting never leaves a process or a terminal behind."""
        controller = self._controllers.get(key)
        if controller is None or controller.finished.is_set():
            return
        # Quitting reaches here from the app and from each view: the agent is asked once.
        if key not in self._stopping:
            self._stopping.add(key)
            # No empty session is left in the agent's list (one opened early for the person's
            # choices, one made by "New session" and never used); briefly: a close the agent
            # never answers must not hold the quit.
            with anyio.move_on_after(DISCARD_GRACE), contextlib.suppress(SessionError):
                await controller.discard_unused()
            # Its running turns are cancelled first, as the spec has a client do; briefly: an
            # agent that reads nothing (a full pipe) must not hold the quit.
            with anyio.move_on_after(CANCEL_GRACE):
                await controller.cancel_running_turns()
            controller.request_stop()
        with anyio.move_on_after(grace):
            await controller.finished.wait()

    async def stop_all(self, grace: float = STOP_GRACE) -> None:
        """Stop every agent, all at once (each within ``grace``)."""
        async with anyio.create_task_group() as group:
            for key in self:
                group.start_soon(self.stop, key, grace)

    def close_search(self) -> None:
        """Index what every agent's sessions hold now and write it out (as the app quits:
        the last second of a reply is not lost)."""
        search = self.search
        if search is None:
            return
        for made in self._made.values():
            if made.parts.search is not None:
                made.parts.search.detach()
        search.close()

    def close_spend(self) -> None:
        """Write out the costs reported so far (as the app quits)."""
        if self.spend is not None:
            self.spend.close()

    def spec_of(self, key: str) -> AgentSpec | None:
        """The spec ``key``'s controller was made from, or None: a view that takes over an
        agent started elsewhere (to list its sessions) starts it the same way."""
        made = self._made.get(key)
        return made.parts.spec if made is not None else None

    def forget(self, key: str) -> None:
        """Drop ``key``'s finished controller (a running one stays: stop it first)."""
        controller = self._controllers.get(key)
        if controller is not None and not controller.finished.is_set():
            raise AgentRunning(f"the agent {key!r} is still running: stop it first")
        self._controllers.pop(key, None)
        self._made.pop(key, None)

    # ------------------------------------------------------------------ start failures

    def note_start_failure(self, key: str, text: str) -> None:
        """``key``'s agent never became usable (said by the view that saw it happen)."""
        self._start_failures.pop(key, None)
        self._start_failures[key] = text

    @property
    def start_failure(self) -> str | None:
        """Why the agent last reported could not start: printed after the app exits, which
        then exits 1. Kept after a successful restart, as the command line always did."""
        return next(reversed(self._start_failures.values()), None)

    @property
    def start_failures(self) -> list[str]:
        """Why each agent that could not start did not, oldest first (one per agent key): with
        several agents, every one is printed after the app exits."""
        return list(self._start_failures.values())


def kill_every_agent() -> None:
    """At a forced exit (the process ends now, its agents not stopped in order): every agent
    and terminal this process started is killed at once. Synchronous: the caller ends the
    process next."""
    reaper.kill_everything()
