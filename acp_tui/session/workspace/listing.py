"""Agents started only to list their sessions: "show sessions of: NAME" (issue 19).

A configured agent that is not running is started in the background when the person asks for
its sessions, never at start-up: through the workspace (so it is stopped with the others and
its rows join the session browser across agents), with a store of its own, and without opening
a session (only ``initialize``; its list is paged in as the browser asks). Opening one of its
sessions later goes through the same controller.
"""

from __future__ import annotations

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.workspace import Workspace

__all__ = ["run_for_listing", "start_for_listing"]


def start_for_listing(
    workspace: Workspace,
    spec: AgentSpec,
    face: FaceHooks | None = None,
    process: ProcessSetup | None = None,
) -> SessionController:
    """A controller for ``spec``'s agent in ``workspace``, with parts of its own (its own
    store; a permission request, for a session it never opened, is refused). Its caller runs
    it with :func:`run_for_listing`. Raises :class:`~acp_tui.session.workspace.workspace.AgentRunning`
    when the agent runs already."""
    return workspace.start(AgentParts(spec, policy="deny", process=process), face)


async def run_for_listing(controller: SessionController) -> None:
    """Run the agent until it is stopped or exits, opening no session."""
    await controller.run(_open_nothing)


async def _open_nothing(controller: SessionController) -> None:
    """Started to list: no session is made until the person opens one."""
