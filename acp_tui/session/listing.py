"""Agents started only to list their sessions: "show sessions of: NAME" (issue 19).

A configured agent that is not running is started in the background when the person asks for
its sessions, never at start-up: through the workspace (so it is stopped with the others and
its rows join the session browser across agents), with a store of its own, and without opening
a session (only ``initialize``; its list is paged in as the browser asks). Opening one of its
sessions later goes through the same controller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp_tui.session.controller import SessionController
from acp_tui.session.workspace import Workspace
from acp_tui.store import SessionStore

__all__ = ["run_for_listing", "start_for_listing"]


def start_for_listing(
    workspace: Workspace, key: str, argv: Sequence[str], *, cwd: str, **options: Any
) -> SessionController:
    """A controller for agent ``key`` in ``workspace`` with a store of its own (``options``:
    the other keywords of :class:`SessionController`). Its caller runs it with
    :func:`run_for_listing`. Raises :class:`~acp_tui.session.workspace.AgentRunning` when
    ``key`` runs already."""
    options.setdefault("store", SessionStore())
    return workspace.start(key, argv, cwd=cwd, **options)


async def run_for_listing(controller: SessionController) -> None:
    """Run the agent until it is stopped or exits, opening no session."""
    await controller.run(_open_nothing)


async def _open_nothing(controller: SessionController) -> None:
    """Started to list: no session is made until the person opens one."""
