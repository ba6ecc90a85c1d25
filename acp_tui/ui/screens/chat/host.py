"""What the parts of the chat screen may use of each other, for the type checker only.

The chat screen is :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` and its mixins, one per
job (:mod:`.agent`, :mod:`.sessions`, ...). Each mixin is typed as a subclass of
:class:`ChatHost` (only while type checking: at run time a mixin is a plain class), which
declares the screen's state and the methods one part calls on another. So every part is type
checked, and none imports the screen (no import cycle).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.permissions import PermissionBroker
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.queue import PromptQueue
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store import SessionStore
from acp_tui.store.session import SessionState
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat.local_index import IndexSync
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.screens.chat.options import SessionOptions
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.screens.chat.tools import ChatTools
from acp_tui.ui.typing_focus import TypingRouter

__all__ = ["ChatHost"]


class ChatHost(Screen[None]):
    """The chat screen as its parts see it (see ``ChatScreen.__init__`` for each attribute)."""

    settings: AppSettings
    spec: AgentSpec
    parts: AgentParts
    ui_settings: UiSettings
    workspace: Workspace
    store: SessionStore
    broker: PermissionBroker
    elicitations: ElicitationQueue
    prompts: PromptQueue
    model: ChatModel
    index_sync: IndexSync
    dialogs: ChatDialogs
    options: SessionOptions
    session_actions: SessionActions
    tools: ChatTools
    thoughts_visible: bool
    _started_once: bool
    busy: reactive[bool]
    _transcript_lock: asyncio.Lock
    _typing: TypingRouter

    @property
    def link(self) -> SessionController | None:
        raise NotImplementedError  # screen.py

    @property
    def session_id(self) -> str | None:
        raise NotImplementedError  # screen.py

    @property
    def agent_alive(self) -> bool:
        raise NotImplementedError  # screen.py

    def _draw_new_session(self) -> None:
        raise NotImplementedError  # sessions.py

    async def _draw_queue(self) -> None:
        raise NotImplementedError  # queue.py

    def _draw_session_parts(self, state: SessionState | None, parts: set[str]) -> None:
        raise NotImplementedError  # screen.py

    async def _draw_view(self) -> None:
        raise NotImplementedError  # sessions.py

    def _enter_view(self, session_id: str | None) -> None:
        raise NotImplementedError  # sessions.py

    def _focus_after_open(self) -> None:
        raise NotImplementedError  # screen.py

    def _on_session_opened(self, session_id: str) -> None:
        raise NotImplementedError  # sessions.py

    def open_session(self, session_id: str) -> None:
        raise NotImplementedError  # sessions.py

    def _viewing_changed(self) -> None:
        raise NotImplementedError  # attention.py

    def _show(self, session_id: str | None) -> None:
        raise NotImplementedError  # sessions.py

    def _schedule_refresh(self) -> None:
        raise NotImplementedError  # screen.py

    def _set_status(self, text: str) -> None:
        raise NotImplementedError  # screen.py

    def _draw_activity(self, state: SessionState) -> None:
        raise NotImplementedError  # screen.py

    def _draw_status(self) -> None:
        raise NotImplementedError  # screen.py

    def focus_prompt(self) -> None:
        raise NotImplementedError  # screen.py

    def after_typed(self, switch: Callable[[], object]) -> None:
        raise NotImplementedError  # screen.py

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        raise NotImplementedError  # screen.py
