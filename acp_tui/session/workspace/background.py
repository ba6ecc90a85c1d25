"""Everything still running anywhere in the workspace, across sessions and agents: each
agent's background work (:meth:`SessionController.background_work`) with the agent and the
session it belongs to named, for the background-work panel and the status bar's count.

No Textual here: the panel draws the rows and calls :func:`cancel` or jumps to a row's
session."""

from __future__ import annotations

from dataclasses import dataclass

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.errors import AgentGone
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store import BackgroundWork

__all__ = ["RunningWork", "cancel", "running_work"]


@dataclass(frozen=True, slots=True)
class RunningWork:
    """One row: the agent (its key and label), the session a person knows it by (a
    subagent's parent; the session itself otherwise) and its title, and the work."""

    agent_key: str
    agent_label: str
    session_id: str
    session_title: str
    work: BackgroundWork

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.agent_key, *self.work.key)


def _session_of(controller: SessionController, work: BackgroundWork) -> tuple[str, str]:
    """The top-level session the work belongs to, and its title (a child's: its parent's,
    through every level)."""
    store = controller.store
    sid = work.parent_id or work.session_id
    state = store.get(sid)
    hops = 0
    while state is not None and state.parent_id is not None and hops < 64:
        sid, state, hops = state.parent_id, store.get(state.parent_id), hops + 1
    return sid, state.display_title if state is not None else sid


def running_work(workspace: Workspace) -> list[RunningWork]:
    """Every agent's running work, longest running first (not known last)."""
    rows: list[RunningWork] = []
    for key in workspace:
        controller = workspace.get(key)
        if controller is None or controller.finished.is_set():
            continue
        agent = controller.agent
        # As the views name it: its label, else the name it gave at initialize.
        label = workspace.labels.get(key) or controller.spec.label
        label = label or (agent.display_name if agent is not None else key)
        for work in controller.background_work():
            sid, title = _session_of(controller, work)
            rows.append(RunningWork(key, label, sid, title, work))
    rows.sort(key=lambda r: (r.work.started_at is None, r.work.started_at or 0.0))
    return rows


async def cancel(workspace: Workspace, row: RunningWork) -> None:
    """Cancel a row's work with its agent's own cancel (raises a
    :class:`~acp_tui.session.errors.SessionError` saying why it could not)."""
    controller = workspace.get(row.agent_key)
    if controller is None or controller.finished.is_set():
        raise AgentGone("the agent is not running")
    await controller.cancel_work(row.work)
