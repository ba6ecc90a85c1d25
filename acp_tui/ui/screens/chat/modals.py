"""The chat view's dialogs: permission requests, the agent's questions, sign-in, access outside
the project, and the confirmations (delete a session, log out); each one waits for the
person's answer.

:class:`ChatDialogs` is a plain object the screen owns. Permission requests and the agent's
questions have their own presenters (they close their dialog when the request is cancelled);
the other dialogs are pushed with ``push_screen_wait`` in a worker of the screen
(``run_worker``: its workers end with it).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.screen import Screen
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from acp_tui.services.paths import OutsideRequest
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.turns import NOT_SIGNED_IN
from acp_tui.session.asking.elicitation_queue import ElicitationQueue, PendingElicitation
from acp_tui.session.asking.permissions import PendingPermission, PermissionBroker
from acp_tui.session.auth.methods import TERMINAL, AuthMethod, TerminalLogin
from acp_tui.store.entries import ToolCall
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.screens.armed import DialogOrigin
from acp_tui.ui.screens.chat.common import display_title

if TYPE_CHECKING:
    from acp_tui.ui.screens.permission import RuleOffer

__all__ = ["DIALOGS", "LOGGED_OUT", "ChatDialogs"]

#: The worker group of the dialogs' waits.
DIALOGS = "dialogs"

LOGGED_OUT = "Logged out: the agent asks you to sign in again when it needs it."

#: Runs a coroutine in a worker of the screen (``Screen.run_worker``).
RunWorker = Callable[..., Worker[Any]]


class ChatDialogs:
    """Present a dialog and wait for its answer. ``app`` is the app the screen is in (its
    screen stack), ``forward_typing`` hands a key typed for the prompt to the prompt."""

    def __init__(
        self,
        model: ChatModel,
        *,
        app: Callable[[], App[Any]],
        run_worker: RunWorker,
        forward_typing: Callable[[str, str], None],
        agent: Callable[[], str],
    ) -> None:
        self.model = model
        self.app = app
        self.run_worker = run_worker
        self.forward_typing = forward_typing
        #: The view's agent, as the person knows it (acp_tui.ui.screens.chat.agent_name).
        self.agent = agent
        #: What a permission dialog offers besides the agent's options (a rule made from the
        #: request: acp_tui.ui.screens.chat.rules); None: nothing.
        self.rule_offer: Callable[[PendingPermission], RuleOffer | None] | None = None

    def attach(self, broker: PermissionBroker, elicitations: ElicitationQueue) -> None:
        """The permission requests and the agent's questions are shown here."""
        broker.on_answered = elicitations.on_answered = self.answered
        broker.on_queue_changed = self.permission_queue_changed
        elicitations.on_queue_changed = self.elicitation_queue_changed

    def present(self, broker: PermissionBroker, elicitations: ElicitationQueue) -> None:
        """From now on (the screen is mounted) a request may show."""
        broker.set_presenter(self.present_permission)
        elicitations.set_presenter(self.present_elicitation)

    # ------------------------------------------------------------------ the agent's requests

    def origin(self, session_id: str | None) -> DialogOrigin:
        """Who a dialog of this view is from: its agent, and the session (None: none). Named
        in every dialog, also one shown over another agent's view."""
        state = self.model.store.get(session_id) if session_id else None
        title = None
        if session_id:
            title = display_title(state.display_title if state else session_id, 120)
        parent = self.model.store.get(state.parent_id) if state and state.parent_id else None
        if parent is not None:  # a subagent's: named with the session it works for
            return DialogOrigin(
                self.agent(), title, parent=display_title(parent.display_title, 120)
            )
        return DialogOrigin(self.agent(), title)

    async def present_permission(
        self, pending: PendingPermission, position: int, total: int
    ) -> str | None:
        from acp_tui.ui.screens.permission import present_permission

        tool_call: ToolCall | None = None
        state = self.model.store.get(pending.session_id) if pending.session_id else None
        if state is not None:
            entry = state.tool_index.get(pending.tool_call_id or "")
            if isinstance(entry, ToolCall):
                tool_call = entry
        # The bell (and a desktop notification) rang as the session started waiting (see
        # attention.py).
        return await present_permission(
            self.app(),
            pending,
            position,
            total,
            tool_call=tool_call,
            origin=self.origin(pending.session_id),
            offer=self.rule_offer(pending) if self.rule_offer is not None else None,
            forward_typing=self.forward_typing,
            project=state.cwd if state is not None else None,
        )

    def permission_queue_changed(self, position: int, total: int) -> None:
        """Another request queued or went: the open dialog says "k of n", so the person knows
        that another one will take its place."""
        from acp_tui.ui.screens.permission import PermissionScreen

        for screen in self.app().screen_stack:
            if isinstance(screen, PermissionScreen) and not screen.answered and total:
                screen.set_position(position, total)

    def answered(self, session_id: str, text: str) -> None:
        if session_id:
            self.model.store.add_notice(session_id, text, severity="info")

    async def present_elicitation(
        self, pending: PendingElicitation, position: int, total: int
    ) -> dict[str, Any] | None:
        from acp_tui.ui.screens.elicitation import present_elicitation

        session_id = pending.session_id
        return await present_elicitation(
            self.app(),
            pending,
            position,
            total,
            origin=self.origin(session_id),
            forward_typing=self.forward_typing,
            cancel_turn=lambda: self.model.cancel_turn_of(session_id),
        )

    def elicitation_queue_changed(self, position: int, total: int) -> None:
        from acp_tui.ui.screens.elicitation import ElicitationScreen

        for screen in self.app().screen_stack:
            if isinstance(screen, ElicitationScreen) and not screen.answered and total:
                screen.set_position(position, total)

    # ------------------------------------------------------------------ sign-in

    def _agent_name(self) -> str:
        controller = self.model.controller
        return (
            controller.agent.display_name
            if controller is not None and controller.agent
            else "The agent"
        )

    async def choose_auth(self, methods: list[AuthMethod], reason: str) -> str | None:
        """The sign-in picker, showing what each terminal method would run."""
        from acp_tui.ui.screens.auth import AuthScreen

        controller = self.model.controller
        logins = {}
        if controller is not None:
            logins = {
                m.id: controller.sign_in.terminal_login(m) for m in methods if m.kind == TERMINAL
            }
        picker = AuthScreen(
            self.agent(),
            methods,
            reason,
            logins=logins,
            origin=self.origin(self.model.session_id),
            forward_typing=self.forward_typing,
        )
        answer: str | None = await self.answer_of(picker)
        return answer

    async def run_terminal_login(self, login: TerminalLogin) -> int:
        from acp_tui.ui import terminal_login

        name = sanitize_terminal_text(self._agent_name())
        status = await terminal_login.run_terminal_login(self.app(), login, name)
        if status == 0:
            self.model.notify(f"Signed in ({login.method.label})", timeout=5, markup=False)
        return status

    # ------------------------------------------------------------------ waiting for an answer

    async def answer_of(self, dialog: Screen[Any]) -> Any:
        """Push ``dialog`` and wait for what it dismisses with. The controller asks from its
        own tasks, which are not workers: ``push_screen_wait`` runs in a worker of the screen
        (group ``dialogs``), and this waits for that worker. None if the screen goes away
        first (Textual cancels its workers)."""
        worker = self.run_worker(
            self.app().push_screen_wait(dialog),
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

    def _in_a_worker(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self.run_worker(work, name=name, group=DIALOGS)

    async def approve_outside(self, request: OutsideRequest) -> bool:
        """A file outside the project, or a command outside it or with an environment that
        changes what runs: the person decides, seeing every value the agent sent."""
        from acp_tui.services import outside
        from acp_tui.ui.screens.confirm import ConfirmScreen

        allowed = await self.answer_of(
            ConfirmScreen(
                outside.title(request),
                outside.summary(request),
                confirm_label="Allow this once",
                cancel_label="Refuse",
                details=outside.details(request),
                origin=self.origin(request.session_id),
                forward_typing=self.forward_typing,
            )
        )
        return bool(allowed)

    # ------------------------------------------------------------------ confirmations

    def ask_yes_no(
        self,
        title: str,
        message: str,
        details: list[tuple[str, str]],
        yes_label: str,
        no_label: str,
        escape_label: str,
        answered: Callable[[bool | None], None],
    ) -> None:
        """A question of this view's session, armed like every dialog that acts; ``answered``
        gets True, False, or None (left with Escape)."""
        from acp_tui.ui.screens.confirm import ConfirmScreen

        self.app().push_screen(
            ConfirmScreen(
                title,
                message,
                yes_label,
                no_label,
                details,
                escape_label=escape_label,
                origin=self.origin(self.model.session_id),
                forward_typing=self.forward_typing,
            ),
            answered,
        )

    def confirm_delete(self, controller: SessionController, session_id: str) -> None:
        """Ask before deleting a session (the agent removes it for good), then delete it."""
        self._in_a_worker(self._delete_after_asking(controller, session_id), "delete session")

    async def _delete_after_asking(self, controller: SessionController, session_id: str) -> None:
        from acp_tui.ui.screens.confirm import ConfirmScreen

        model = self.model
        state = model.store.get(session_id)
        title = display_title(state.display_title if state else session_id, 120)
        yes = await self.app().push_screen_wait(
            ConfirmScreen(
                "Delete session",
                f"Delete “{title}”? The agent removes it for good.",
                "Delete",
                origin=self.origin(session_id),
                forward_typing=self.forward_typing,
            )
        )
        if not yes:
            return

        async def delete() -> None:
            await controller.delete_session(session_id)
            if model.index is not None:
                model.index.forget(session_id)
            model.notify(f"Deleted “{title}”.")

        controller.spawn(delete, "delete session")

    def sign_in(self) -> None:
        """Sign in now (the agent said nobody is): the agent's methods, as when it refuses
        a call for want of a sign-in."""
        controller = self.model.controller
        if controller is None:
            return
        model = self.model

        async def sign_in() -> None:
            await controller.authenticate(NOT_SIGNED_IN)
            model.notify("Signed in.", title="Sign-in", markup=False)

        controller.spawn(sign_in, "sign in")

    def confirm_logout(self) -> None:
        """Ask first, then sign out of the agent (``auth.logout``): the next call that needs a
        sign-in offers the agent's methods again."""
        controller = self.model.controller
        if controller is None:
            return
        self._in_a_worker(self._logout_after_asking(controller), "log out")

    async def _logout_after_asking(self, controller: SessionController) -> None:
        from acp_tui.ui.screens.confirm import ConfirmScreen

        model = self.model
        yes = await self.app().push_screen_wait(
            ConfirmScreen(
                "Log out",
                f"Sign out of {self.agent()}?",
                "Log out",
                origin=self.origin(model.session_id),
                forward_typing=self.forward_typing,
            )
        )
        if not yes or model.controller is not controller:
            return

        async def logout() -> None:
            await controller.logout()
            model.notify(LOGGED_OUT, title="Logged out", markup=False)
            if model.session_id is not None:
                model.store.add_notice(model.session_id, LOGGED_OUT, severity="info")

        controller.spawn(logout, "log out")
