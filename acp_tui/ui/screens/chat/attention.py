"""The chat screen's part in "what needs you" (issue 19): sessions run in parallel, and only
the one on screen may take it.

- A permission request or a question from a session that is not on screen does not steal the
  screen: it waits (the broker's and the queue's ``ready``), the session's row says "waiting
  for you", a toast names the session and its agent and the key that goes there
  (``jump-waiting``), and the dialog shows, armed afresh, once the session is on screen.
- A session that is not on screen and finishes a turn, fails one or starts waiting rings the
  bell and asks the terminal for a desktop notification (any session does while the terminal
  is not focused); the window title says what needs the person (``acp-tui · 1 waiting``).

The live states of every agent's sessions meet on the workspace's
:class:`~acp_tui.session.workspace.attention.AttentionBoard`; each view reports its own.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.session.workspace.attention import APP_TITLE, Event
from acp_tui.store import LIVE_WAITING, live_state
from acp_tui.ui.keymap import key_label
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.screens.chat.common import display_title
from acp_tui.ui.terminal_signals import TerminalSignals, signals_of
from acp_tui.ui.textual_patches import access
from acp_tui.ui.toasts import about_session, toast_text

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object

#: How long the toast of a background session whose turn failed stays (seconds).
TOAST_SECONDS = 10
#: A "needs you" toast stays until the session waits no more or is shown (then it goes).
WAITING_TOAST_SECONDS = 120


class ChatAttention(ChatHost):
    """Hold what is not on screen, and tell the person about it."""

    _attention_toasts: dict[str, str] | None = None

    @property
    def signals(self) -> TerminalSignals:
        """The app's bell, desktop notifications and window title."""
        return signals_of(self.app)

    # -- what is on screen -----------------------------------------------------------------

    def _attention_ready(self) -> None:
        """Requests show only for the session on screen (called once, at mount)."""
        self.broker.ready = lambda pending: self.shows_session(pending.session_id)
        self.elicitations.ready = lambda pending: self.shows_session(pending.session_id)

    def _view_in_front(self) -> bool:
        """Whether this view is the chat in front: another agent's view may be (each agent's
        view lives in its own mode, so this one is then not in the stack shown at all)."""
        chats = [s for s in self.app.screen_stack if isinstance(s, ChatAttention)]
        return chats[-1] is self if chats else self in self.app.screen_stack

    def shows_session(self, session_id: str) -> bool:
        """Whether a request of ``session_id`` may take the screen now. One that names no
        session, or one not open here, is shown as ever: nobody could go to it."""
        state = self.store.get(session_id) if session_id else None
        if state is None or not state.live:
            return True
        return session_id == self.session_id and self._view_in_front()

    def _viewing_changed(self) -> None:
        """Another session is on screen (or this view came to the front, or left it): its
        unread output is read, and what waited for it may show now."""
        in_front = self._view_in_front()
        self.store.set_viewing(self.session_id if in_front else None)
        if in_front and self.session_id is not None:
            self._withdraw_toast(self.session_id)  # seen now
        self.broker.reconsider()
        self.elicitations.reconsider()

    def on_screen_resume(self) -> None:
        self._viewing_changed()

    def on_screen_suspend(self) -> None:
        # A dialog over this view leaves it on screen; another agent's view does not.
        self._viewing_changed()

    # -- telling ---------------------------------------------------------------------------

    def _agent_name(self) -> str:
        """Named as the header and the sidebar name it (its label first)."""
        return agent_label(self.spec, self.link)

    def _note_live(self, session_id: str) -> None:
        """The session's state changed: the board learns it; a change worth telling is told."""
        state = self.store.get(session_id)
        live = live_state(state) if state is not None and state.live else None
        board = self.workspace.attention
        event = board.note(self.spec.key, session_id, live)
        if event is not None and state is not None:
            self._tell(event, session_id, display_title(state.display_title, 60))
        if live != LIVE_WAITING:
            self._withdraw_toast(session_id)
        self._write_title()

    def _tell(self, event: Event, session_id: str, title: str) -> None:
        background = not self.shows_session(session_id)
        if not background and self.app.app_focus:
            return  # the person sees it happen
        agent = display_title(self._agent_name(), 40)
        happened = {"waiting": "needs you", "failed": "ended in an error"}.get(event, "finished")
        what = f"“{title}” ({agent}) {happened}"
        # A turn that simply finished has its row ("done · unread"), the bell and the title: a
        # toast for each would bury the ones that ask something of the person.
        if background and event != "finished":
            hint = (
                f": {key_label(self, 'jump-waiting')} to go there"
                if event == "waiting"
                else f": open it from the sessions ({key_label(self, 'sessions-sidebar')})"
            )
            # Said whole, however long the names: the title and the agent give way.
            told = about_session(title, agent, happened + hint)
            self.notify(
                told,
                title="Waiting for you" if event == "waiting" else "",
                severity="warning",
                timeout=WAITING_TOAST_SECONDS if event == "waiting" else TOAST_SECONDS,
            )
            if event == "waiting":
                self._waiting_toasts()[session_id] = told
        if self.ui_settings.notify_when_unfocused:
            self.signals.bell()
        self.signals.desktop(APP_TITLE, what, self.ui_settings.desktop_notifications)

    def _waiting_toasts(self) -> dict[str, str]:
        """The text of the "needs you" toast shown for each session, while it is up."""
        toasts = self._attention_toasts
        if toasts is None:
            toasts = self._attention_toasts = {}
        return toasts

    def _withdraw_toast(self, session_id: str) -> None:
        """The session waits no more (answered, cancelled, gone to): its "needs you" toast,
        still up, would send the person to nothing."""
        text = self._waiting_toasts().pop(session_id, None)
        if text is None:
            return
        access.dismiss_notifications(self.app, toast_text(text))

    def _write_title(self) -> None:
        if not self.ui_settings.terminal_title:
            return
        title = self.workspace.attention.title()
        if title != APP_TITLE or self.signals.title_written:
            self.signals.set_title(title)

    def _leave_attention(self) -> None:
        """The view goes: its sessions need nobody now; the terminal gets its title back
        when no view is left."""
        board = self.workspace.attention
        board.forget_agent(self.spec.key)
        views = getattr(self.app, "agent_views", None)
        others = (
            [view for view in views.values() if view is not self]
            if isinstance(views, dict)
            else [
                s for s in self.app.screen_stack if isinstance(s, ChatAttention) and s is not self
            ]
        )
        if others:
            self._write_title()
        else:
            self.signals.restore_title()

    # -- going there -----------------------------------------------------------------------

    def action_jump_waiting(self) -> None:
        """Go to the session that has waited longest for the person; its dialog shows (after
        the keys typed before it: see ``after_typed``)."""
        self.after_typed(self._jump_waiting)

    def _jump_waiting(self) -> None:
        here = (self.spec.key, self.session_id)
        target = self.workspace.attention.oldest_waiting(besides=here)
        if target is None:
            self.notify("No session is waiting for you.")
            return
        if target.agent_key == self.spec.key:
            self.open_session(target.session_id)
            return
        show = getattr(self.app, "show_session", None)
        if callable(show):
            show(target.agent_key, target.session_id)
        else:
            self.notify("That session's agent has no view here.", severity="warning")
