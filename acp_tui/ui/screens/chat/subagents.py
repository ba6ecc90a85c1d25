"""The chat view's subagents and background work: a child's card opens its own view (the
child's transcript on screen, its header naming its parent; Escape goes back, Delete cancels
it), a child is cancelled from its card or its view (``session/cancel`` on the child), and
the background-work panel (Ctrl+P → Background work) lists what still runs in every agent
of the workspace, each row cancelled with its own cancel or jumped to.

:class:`Subagents` is a plain object the chat screen owns, given the view's model, the
workspace and the few ways to act on the screen it needs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from acp_tui.session.errors import SessionError
from acp_tui.session.workspace import background
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store import SessionState
from acp_tui.text.safety import one_line
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.widgets.status_line import BackgroundCount, StatusLine
from acp_tui.ui.widgets.subagent_views import SubagentCardView, cancellable

__all__ = ["ChatMain", "Subagents"]


class Subagents:
    """The view's part in subagents and background work (see the module docstring).
    ``push`` shows a screen over the view, ``app`` is the app (it goes to a session of any agent)
    (``app``'s), ``focus_transcript`` puts the keys on the transcript (a child's view takes
    no prompt)."""

    def __init__(
        self,
        model: ChatModel,
        workspace: Workspace,
        agent_key: str,
        *,
        push: Callable[[Any], object],
        app: Callable[[], Any],
        focus_transcript: Callable[[], object],
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.agent_key = agent_key
        self.push = push
        self.app = app
        self.focus_transcript = focus_transcript

    # -- a child's view ----------------------------------------------------------------------

    def shown_child(self) -> SessionState | None:
        """The subagent on screen, if the view shows one."""
        return self.model.child(self.model.session_id)

    def open(self, child_id: str) -> None:
        """The child's own transcript on screen (from its card, the sidebar, the panel)."""
        self.model.open(child_id)
        self.focus_transcript()

    def back(self) -> None:
        """From a child's view to its parent's."""
        child = self.shown_child()
        if child is not None and child.parent_id is not None:
            self.model.open(child.parent_id)

    def cancel(self, child_id: str) -> None:
        """``session/cancel`` on the child, when it allows it; said either way."""
        controller = self.model.controller
        child = self.model.store.get(child_id)
        name = one_line(child.card.label if child and child.card else child_id, 80)
        if controller is None or not self.model.agent_alive:
            self.model.notify("The agent is not running.", severity="warning")
            return
        if not controller.can_cancel_child(child_id):
            self.model.notify(f"“{name}” cannot be cancelled: its agent does not offer it.")
            return

        async def cancel() -> None:
            await controller.cancel_child(child_id)

        controller.spawn(cancel, "cancel subagent")
        self.model.notify(f"Cancelling the subagent “{name}”…")

    def cancel_shown(self) -> None:
        child = self.shown_child()
        if child is not None:
            self.cancel(child.id)

    # -- background work ---------------------------------------------------------------------

    def running(self) -> list[background.RunningWork]:
        """What still runs in every agent of the workspace."""
        return background.running_work(self.workspace)

    def show_panel(self) -> None:
        from acp_tui.ui.screens.background import BackgroundScreen

        self.push(BackgroundScreen(self.running, cancel=self.cancel_row, jump=self.jump))

    async def cancel_row(self, row: background.RunningWork) -> str | None:
        """Cancel a row's work with its own cancel: None when it went out, else why not."""
        try:
            await background.cancel(self.workspace, row)
        except SessionError as error:
            return str(error)
        return None

    def jump(self, row: background.RunningWork) -> None:
        """Go to a row's work: a subagent's own view, or the session its work runs in."""
        target = row.work.session_id
        if row.agent_key != self.agent_key:
            show = getattr(self.app(), "show_session", None)
            if callable(show):
                show(row.agent_key, target)
        elif self.model.child(target) is not None:
            self.open(target)
        else:
            self.model.open(target)

    def agent_commands(self) -> Iterable[AgentCommand]:
        """ "Open subagent: TITLE" for each subagent of the session on screen (its title is
        the agent's words)."""
        state = self.model.state()
        for child in self.model.store.children(state.id) if state is not None else ():
            label = child.card.label if child.card is not None else child.id
            yield AgentCommand(
                f"Open subagent: {label}",
                "Show this subagent's own transcript (Escape comes back)",
                lambda child_id=child.id: self.open(child_id),  # type: ignore[misc]
            )

    def palette_commands(self) -> Iterable[SystemCommand]:
        count = len(self.running())
        yield SystemCommand(
            "Background work",
            f"What still runs in every session and agent ({count} now): cancel or go to each",
            self.show_panel,
        )
        child = self.shown_child()
        if child is None:
            return
        yield SystemCommand(
            "Back to the parent session",
            "Leave this subagent's view for the session that started it",
            self.back,
        )
        if child.card is not None and cancellable(child.card):
            yield SystemCommand(
                "Cancel this subagent",
                "Stop this subagent's work (session/cancel on it)",
                self.cancel_shown,
            )


class ChatMain(Vertical):
    """The chat view's column (transcript, status, queue, prompt): where a subagent's card
    and the background count are answered, and a child's view has its keys (Escape back to
    the parent, Delete cancels it). ``subagents`` is given by the screen once made."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back_to_parent", "Back", id="back-to-parent"),
        Binding("delete", "cancel_subagent", "Cancel subagent", id="subagent-cancel"),
    ]

    subagents: Subagents | None = None
    #: Whether Delete was offered at the last count (the footer follows a change).
    _cancel_offered = False

    def on_mount(self) -> None:
        # What runs in the background, anywhere in the workspace: counted once a second.
        self.set_interval(1.0, self.count_background)

    def count_background(self) -> None:
        if self.subagents is not None and self.is_attached:
            count = len(self.subagents.running())
            for status in self.query(StatusLine):
                status.set_background(count)
            offered = bool(self.check_action("cancel_subagent", ()))
            if offered != self._cancel_offered:
                self._cancel_offered = offered
                self.screen.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        child = self.subagents.shown_child() if self.subagents is not None else None
        if action == "back_to_parent":
            # Only in a child's view; elsewhere the keys are the screen's and the prompt's.
            return child is not None
        if action == "cancel_subagent":
            # Offered only while the child can be cancelled (not once it is done).
            return child is not None and child.card is not None and cancellable(child.card)
        return True

    def action_back_to_parent(self) -> None:
        if self.subagents is not None:
            self.subagents.back()

    def action_cancel_subagent(self) -> None:
        if self.subagents is not None:
            self.subagents.cancel_shown()

    @on(SubagentCardView.Open)
    def _open_child(self, event: SubagentCardView.Open) -> None:
        event.stop()
        if self.subagents is not None:
            self.subagents.open(event.child_id)

    @on(SubagentCardView.Cancel)
    def _cancel_child(self, event: SubagentCardView.Cancel) -> None:
        event.stop()
        if self.subagents is not None:
            self.subagents.cancel(event.child_id)

    @on(BackgroundCount.Pressed)
    def _background_pressed(self, event: BackgroundCount.Pressed) -> None:
        event.stop()
        if self.subagents is not None:
            self.subagents.show_panel()
