"""The one factory: what every face runs an agent with.

:class:`AgentParts` builds, for one :class:`~acp_tui.session.launch.spec.AgentSpec`, the store,
the queue of messages, the permission broker and the elicitation queue, which a face keeps
across the agent's restarts, and makes the :class:`~acp_tui.session.agent.controller.
SessionController` of each start (:meth:`AgentParts.controller`). The TUI's chat screen, the
headless commands and an agent started only to list its sessions all build theirs here; they
differ only in the hooks they hand in (how each reaches the person).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.asking.dialog_queue import AnsweredCallback, QueueCallback
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.permissions import PermissionBroker, Policy
from acp_tui.session.checkpoints.book import Checkpoints
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.queue import PromptQueue, QueueKey
from acp_tui.store import SessionStore

__all__ = ["AgentParts"]


class AgentParts:
    """One agent as a face runs it: its spec, and what outlives each of its processes."""

    def __init__(
        self,
        spec: AgentSpec,
        *,
        policy: Policy = "ask",
        process: ProcessSetup | None = None,
        on_answered: AnsweredCallback | None = None,
        on_permissions_changed: QueueCallback | None = None,
        on_elicitations_changed: QueueCallback | None = None,
        on_queue_changed: Callable[[QueueKey], None] | None = None,
    ) -> None:
        self.spec = spec
        self.process = process or ProcessSetup()
        #: Every session the agent told of, and their transcripts.
        self.store = SessionStore()
        #: Messages that cannot go out yet, per session (they survive a restart).
        self.prompts = (
            PromptQueue(on_change=on_queue_changed) if on_queue_changed else PromptQueue()
        )
        #: Where permission requests go: answered by ``policy``, or shown one at a time.
        self.broker = PermissionBroker(
            policy, on_answered=on_answered, on_queue_changed=on_permissions_changed
        )
        #: Where ``elicitation/create`` requests go (offered once a presenter is set).
        self.elicitations = ElicitationQueue(
            on_answered=on_answered, on_queue_changed=on_elicitations_changed
        )
        #: Snapshots of its sessions' files at each turn (None: off for this agent).
        self.checkpoints = (
            Checkpoints(spec.checkpoints, agent=spec.key) if spec.checkpoints.enabled else None
        )

    def controller(self, face: FaceHooks | None = None) -> SessionController:
        """The controller of one start of the agent (its caller runs it). Permission requests
        go to ``face.permission_handler``, else to the broker."""
        face = face or FaceHooks()
        if face.permission_handler is None:
            face = dataclasses.replace(face, permission_handler=self.broker.request)
        return SessionController(
            self.spec,
            store=self.store,
            face=face,
            process=self.process,
            prompts=self.prompts,
            elicitations=self.elicitations,
            checkpoints=self.checkpoints,
        )
