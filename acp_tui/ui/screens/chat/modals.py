"""The chat screen's dialogs: permission requests, the agent's questions, sign-in, and access
outside the project; each one waits for the person's answer.

Permission requests and the agent's questions have their own presenters (they close their
dialog when the request is cancelled); the other dialogs are pushed with ``push_screen_wait``
in a worker of the screen.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.screen import Screen
from textual.worker import WorkerCancelled, WorkerFailed

from acp_tui.services.paths import OutsideRequest
from acp_tui.session.auth_methods import AuthMethod, TerminalLogin
from acp_tui.session.controller import SessionController
from acp_tui.session.elicitation_queue import PendingElicitation
from acp_tui.session.permissions import PendingPermission
from acp_tui.store.entries import ToolCall
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.screens.chat.common import display_title
from acp_tui.ui.widgets.prompt import PromptEditor

#: The worker group of the dialogs' waits.
DIALOGS = "dialogs"


if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class ChatModals(ChatHost):
    """Present a dialog and wait for its answer."""

    async def _present_permission(
        self, pending: PendingPermission, position: int, total: int
    ) -> str | None:
        from acp_tui.ui.screens.permission import present_permission

        tool_call: ToolCall | None = None
        session_label: str | None = None
        state = self.store.get(pending.session_id) if pending.session_id else None
        if state is not None:
            entry = state.tool_index.get(pending.tool_call_id or "")
            if isinstance(entry, ToolCall):
                tool_call = entry
            if pending.session_id != self.session_id:
                session_label = display_title(state.display_title, 80)
        # The bell (and a desktop notification) rang as the session started waiting (see
        # attention.py).
        return await present_permission(
            self.app,
            pending,
            position,
            total,
            tool_call=tool_call,
            session_label=session_label,
            forward_typing=self.query_one(PromptEditor).take_typing,
        )

    def _on_permission_queue_changed(self, position: int, total: int) -> None:
        """Another request queued or went: the open dialog says "k of n", so the person knows
        that another one will take its place."""
        from acp_tui.ui.screens.permission import PermissionScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, PermissionScreen) and not screen.answered and total:
                screen.set_position(position, total)

    def _on_permission_answered(self, session_id: str, text: str) -> None:
        if session_id:
            self.store.add_notice(session_id, text, severity="info")

    async def _present_elicitation(
        self, pending: PendingElicitation, position: int, total: int
    ) -> dict[str, Any] | None:
        from acp_tui.ui.screens.elicitation import present_elicitation

        state = self.store.get(pending.session_id) if pending.session_id else None
        label = None
        if state is not None and pending.session_id != self.session_id:
            label = display_title(state.display_title, 80)
        return await present_elicitation(
            self.app,
            pending,
            position,
            total,
            session_label=label,
            forward_typing=self.query_one(PromptEditor).take_typing,
        )

    def _on_elicitation_queue_changed(self, position: int, total: int) -> None:
        from acp_tui.ui.screens.elicitation import ElicitationScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, ElicitationScreen) and not screen.answered and total:
                screen.set_position(position, total)

    async def _choose_auth(self, methods: list[AuthMethod], reason: str) -> str | None:
        from acp_tui.ui.screens.auth import AuthScreen

        agent = self.link.agent if self.link else None
        return await self._answer_of(
            AuthScreen(agent.display_name if agent else "The agent", methods, reason)
        )

    async def _run_terminal_login(self, login: TerminalLogin) -> int:
        from acp_tui.ui import terminal_login

        agent = self.link.agent if self.link else None
        name = sanitize_terminal_text(agent.display_name if agent else "The agent")
        status = await terminal_login.run_terminal_login(self.app, login, name)
        if status == 0:
            self.notify(f"Signed in ({login.method.label})", timeout=5, markup=False)
        return status

    async def _answer_of(self, dialog: Screen[Any]) -> Any:
        """Push ``dialog`` and wait for what it dismisses with. The controller asks from its
        own tasks, which are not workers: ``push_screen_wait`` runs in a worker of this screen
        (group ``dialogs``), and this waits for that worker. None if the screen goes away
        first (Textual cancels its workers)."""
        worker = self.run_worker(
            self.app.push_screen_wait(dialog),
            name=f"dialog {type(dialog).__name__}",
            group=DIALOGS,
            exit_on_error=False,
        )
        try:
            return await worker.wait()
        except WorkerCancelled:
            return None
        except WorkerFailed as failed:
            raise failed.error from None

    @work(group=DIALOGS)
    async def _confirm_delete(self, link: SessionController, session_id: str) -> None:
        """Ask before deleting a session (the agent removes it for good), then delete it."""
        from acp_tui.ui.screens.confirm import ConfirmScreen

        state = self.store.get(session_id)
        title = display_title(state.display_title if state else session_id, 120)
        yes = await self.app.push_screen_wait(
            ConfirmScreen(
                "Delete session", f"Delete “{title}”? The agent removes it for good.", "Delete"
            )
        )
        if not yes:
            return

        async def delete() -> None:
            await link.delete_session(session_id)
            if self.model.index is not None:
                self.model.index.forget(session_id)
            self.notify(f"Deleted “{title}”.")

        link.spawn(delete, "delete session")

    async def _approve_outside(self, request: OutsideRequest) -> bool:
        """A file outside the project, or a command outside it or with an environment that
        changes what runs: the person decides, seeing every value the agent sent."""
        from acp_tui.services import outside
        from acp_tui.ui.screens.confirm import ConfirmScreen

        allowed = await self._answer_of(
            ConfirmScreen(
                outside.title(request),
                outside.summary(request),
                confirm_label="Allow this once",
                cancel_label="Refuse",
                details=outside.details(request),
            )
        )
        return bool(allowed)
