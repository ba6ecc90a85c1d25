"""Your status line's part of the chat view: each second and after each drawn change, the
session on screen's state (:mod:`acp_tui.session.status.state`) onto the line, and offered to
the status command, which runs paced and off the UI's loop
(:class:`~acp_tui.session.status.runner.StatusCommand`) while this view is in front."""

from __future__ import annotations

import time
from collections.abc import Callable

from acp_tui.services.git_branch import GitBranch
from acp_tui.services.status_command import StatusOutput
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.status.runner import StatusCommand
from acp_tui.session.status.state import StatusSource, state_json, status_items, status_state
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.widgets.own_status import OwnStatusLine

__all__ = ["OwnStatus"]


class OwnStatus:
    """Fills the :class:`OwnStatusLine` of one agent's view (nothing at all when its
    ``status_items`` and ``status_command`` are both unset)."""

    def __init__(
        self,
        model: ChatModel,
        spec: AgentSpec,
        *,
        line: Callable[[], OwnStatusLine],
        in_front: Callable[[], bool],
        label: Callable[[], str],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.model = model
        self.spec = spec
        self.settings = spec.status_line
        self.line = line
        self.in_front = in_front
        self.label = label
        #: The store's clock (a running turn's start is of it).
        self.clock = clock
        self._branches: dict[str, GitBranch] = {}
        self.command = (
            StatusCommand(self.settings.command, self._command_said)
            if self.settings.command
            else None
        )
        self.output = StatusOutput()
        self._items: list[str] = []

    def mount(self) -> None:
        self.line().set_shown(self.settings.shown)
        self.refresh()

    def _branch(self, cwd: str) -> str | None:
        branch = self._branches.get(cwd)
        if branch is None:
            branch = self._branches[cwd] = GitBranch(cwd)
        return branch.current()

    def refresh(self) -> None:
        """The line from the state now; the command is offered it (it runs if due)."""
        if not self.settings.shown:
            return
        model = self.model
        state = model.state()
        cwd = state.cwd if state is not None and state.cwd else self.spec.cwd
        source = StatusSource(
            agent_name=self.spec.name,
            agent_label=self.label(),
            cwd=cwd,
            git_branch=self._branch(cwd),
            now=self.clock(),
        )
        preview = model.new_choices.preview() if state is None else None
        data = status_state(state, source, preview)
        self._items = status_items(data, self.settings.items)
        self._draw()
        if self.command is not None and not model.quitting and self.in_front():
            self.command.offer(state_json(data), cwd)

    def _command_said(self, output: StatusOutput) -> None:
        self.output = output
        self._draw()

    def _draw(self) -> None:
        self.line().show(self._items, self.output.line, self.output.problem)

    async def stop(self) -> None:
        if self.command is not None:
            await self.command.stop()
