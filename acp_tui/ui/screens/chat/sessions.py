"""The chat screen's sessions: which one is on screen, switching (drafts go with the session
they were typed for), the new session, and the sidebar's requests (open, load more, close,
delete).

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`; handlers by name: ``@on`` is collected only on message-pump classes, not on a mixin).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.session.errors import SessionError
from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_MODES,
    PART_STATE,
    PART_TITLE,
    PART_USAGE,
)
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.chat_header import ChatHeader
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class SessionSwitching(ChatHost):
    """Show, open, create and switch sessions."""

    def _on_session_opened(self, session_id: str) -> None:
        switch = self.model.session_opened(session_id)
        state = self.store.get(session_id)
        if state is not None:
            self.index_sync.session_opened(state)
        if switch:
            # At once: a message sent from now on is this session's (drawn on the next turn).
            self._show(session_id)

    async def show_session(self, session_id: str | None) -> None:
        """Show a session; ``None`` shows the new session (created by the first message)."""
        self._enter_view(session_id)
        await self._draw_view()

    def _show(self, session_id: str | None) -> None:
        """Put ``session_id`` on screen: messages go there at once, drawn on the next turn."""
        self._enter_view(session_id)
        self.call_later(self._draw_view)

    def _enter_view(self, session_id: str | None) -> None:
        """Make ``session_id`` the one messages go to, at once (a message already on its way
        after the key that switched must not go to the session left), and swap drafts."""
        prompt = self.query_one(PromptEditor)
        draft = self.model.enter(session_id, prompt.draft)
        self.query_one(SessionsSidebar).current_session_id = session_id
        self._viewing_changed()
        prompt.set_draft(draft)
        prompt.target = self.model.queue_key()

    async def _draw_view(self) -> None:
        """Draw the session of :meth:`_enter_view`: transcript, header, bar, queue."""
        session_id = self.session_id
        transcript = self.query_one(Transcript)
        self.query_one(ContextGauge).clear()
        async with self._transcript_lock:
            state = self.store.get(session_id) if session_id else None
            await transcript.show_session(session_id, list(state.transcript) if state else [])
        if state is None:
            self._draw_new_session()
            self._set_status(self.model.new_session_status())
        else:
            # The session's own activity set the status line (a turn may run already: what
            # waited for the session went out as it opened).
            self._draw_session_parts(
                state,
                {PART_TITLE, PART_STATE, PART_USAGE, PART_MODES, PART_CONFIG, PART_COMMANDS},
            )
        await self._draw_queue()
        self._focus_after_open()

    def _draw_new_session(self) -> None:
        """The header and bar of the new session, before it exists: the mode, model and
        commands its agent offered last time (a choice is applied once it is made)."""
        self.busy = False
        link = self.link
        self.query_one(ChatHeader).set_dirs(link.session_dirs(None) if link else [])
        if self.model.reopening_at_start:
            # Not the new session's view: the reopened session's own comes with it.
            self.query_one(ChatHeader).set_title("Reopening a session…")
            self.query_one(ChatBar).show_options([])
            self.query_one(PromptEditor).commands = []
            return
        self.query_one(ChatHeader).set_title("New session")
        preview = self.model.new_choices.preview()
        self.options.draw(preview)
        self.query_one(PromptEditor).commands = list(preview.commands or [])

    def action_new_session(self) -> None:
        """Show the new session and create it at once (the person asked for it: its modes,
        models and commands become available). Not listed until its first prompt. After the
        keys typed before it (see :meth:`after_typed`)."""
        self.after_typed(self.model.new)

    def action_toggle_sidebar(self) -> None:
        """Hidden: show it and go there. Shown but elsewhere: go there. In it: hide it."""
        sidebar = self.query_one(SessionsSidebar)
        focused = self.focused
        inside = focused is not None and sidebar in focused.ancestors_with_self
        if sidebar.display and inside:
            sidebar.display = False
            self.focus_prompt()
            return
        self.reveal_sidebar()
        self.set_focus(sidebar.session_list)

    def reveal_sidebar(self) -> None:
        """Show the sessions sidebar (reloaded) if hidden; the focus stays where it is."""
        self.query_one(SessionsSidebar).reveal()

    def on_sessions_sidebar_load_more(self, event: SessionsSidebar.LoadMore) -> None:
        """A page of this agent's list, or (``agent_key``) of one agent of the merged list,
        through that agent's controller; an agent not running (yet) answers nothing."""
        event.stop()
        key = event.agent_key
        if key is None:
            # Not yet: asked again once the agent is ready (see _on_agent_ready).
            link, ready = self.link, self.model.agent_alive
        else:
            link = self.workspace.get(key)
            ready = link is not None and not link.finished.is_set()
        sidebar = self.query_one(SessionsSidebar)
        agent = link.agent if link is not None else None
        if link is None or agent is None or not ready or not agent.can_list:
            sidebar.set_loading(False, agent_key=key)
            return
        controller = link
        cwd, cursor, archived = event.cwd, event.cursor, event.archived

        async def load() -> None:
            try:
                await controller.list_sessions(cwd, cursor, archived=archived)
            except SessionError as error:
                sidebar.set_loading(False, error=str(error), agent_key=key)
                return
            sidebar.set_loading(False, agent_key=key)  # redraws the rows

        controller.spawn(load, "list sessions")

    def on_sessions_sidebar_open(self, event: SessionsSidebar.Open) -> None:
        event.stop()
        if event.agent_key is not None and event.agent_key != self.spec.key:
            # A session of another agent: the app shows it in that agent's view, with the
            # list the person chose it from still beside it.
            self.app.show_session(event.agent_key, event.session_id)  # type: ignore[attr-defined]
            views = getattr(self.app, "agent_views", None)
            there = views.get(event.agent_key) if isinstance(views, dict) else None
            if isinstance(there, SessionSwitching) and there is not self and there.is_mounted:
                there.reveal_sidebar()
            return
        self.open_session(event.session_id)

    def on_sessions_sidebar_leave(self, event: SessionsSidebar.Leave) -> None:
        event.stop()
        if self.model.offering_sessions:
            self.model.offering_sessions = False
            self._set_status("")
        self.focus_prompt()

    def on_sessions_sidebar_new_session(self, event: SessionsSidebar.NewSession) -> None:
        event.stop()
        self.action_new_session()

    def open_session(self, session_id: str) -> None:
        """Switch to a live session at once, else resume / load it through the agent."""
        self.model.open(session_id)
