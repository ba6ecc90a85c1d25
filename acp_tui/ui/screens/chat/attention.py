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

:class:`Attention` is a plain object the chat screen owns; :func:`in_front` and
:func:`others_open` read the app's screens for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.screen import Screen

from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.permissions import PermissionBroker
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.attention import APP_TITLE, Event
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store import LIVE_WAITING, live_state
from acp_tui.ui.models import KeyLabel
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.screens.chat.common import display_title
from acp_tui.ui.terminal_signals import TerminalSignals, signals_of
from acp_tui.ui.textual_patches import access
from acp_tui.ui.toasts import about_session, toast_text

__all__ = ["Attention", "in_front", "others_open"]

#: How long the toast of a background session whose turn failed stays (seconds).
TOAST_SECONDS = 10
#: A "needs you" toast stays until the session waits no more or is shown (then it goes).
WAITING_TOAST_SECONDS = 120


def in_front(view: Screen[Any], kind: type[Screen[Any]]) -> bool:
    """Whether ``view`` is the agent view (a screen of ``kind``) in front: another agent's
    view may be (each agent's view lives in its own mode, so this one is then not in the
    stack shown at all)."""
    stack = view.app.screen_stack
    views = [screen for screen in stack if isinstance(screen, kind)]
    return views[-1] is view if views else view in stack


def others_open(view: Screen[Any], kind: type[Screen[Any]]) -> bool:
    """Whether the app has agent views (screens of ``kind``) besides ``view``."""
    app = view.app
    views = getattr(app, "agent_views", None)
    if isinstance(views, dict):
        return any(other is not view for other in views.values())
    return any(isinstance(s, kind) and s is not view for s in app.screen_stack)


class Attention:
    """Hold what is not on screen, and tell the person about it. ``in_front`` says whether
    the view is the agent view in front, ``others_open`` whether other agents' views are
    open; ``app`` is the app (its bell, desktop notifications, window title and toasts)."""

    def __init__(
        self,
        model: ChatModel,
        workspace: Workspace,
        spec: AgentSpec,
        ui_settings: UiSettings,
        *,
        app: Callable[[], App[Any]],
        keys: KeyLabel,
        in_front: Callable[[], bool],
        others_open: Callable[[], bool],
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.spec = spec
        self.ui_settings = ui_settings
        self.app = app
        self.keys = keys
        self.in_front = in_front
        self.others_open = others_open
        #: The text of the "needs you" toast shown for each session, while it is up.
        self._waiting_toasts: dict[str, str] = {}

    @property
    def signals(self) -> TerminalSignals:
        """The app's bell, desktop notifications and window title."""
        return signals_of(self.app())

    # -- what is on screen -----------------------------------------------------------------

    def hold(self, broker: PermissionBroker, elicitations: ElicitationQueue) -> None:
        """Requests show only for the session on screen (called once, at mount)."""
        broker.ready = lambda pending: self.shows_session(pending.session_id)
        elicitations.ready = lambda pending: self.shows_session(pending.session_id)

    def shows_session(self, session_id: str) -> bool:
        """Whether a request of ``session_id`` may take the screen now. One that names no
        session, or one not open here, is shown as ever: nobody could go to it."""
        state = self.model.store.get(session_id) if session_id else None
        if state is None or not state.live:
            return True
        on_screen = self.model.session_id
        # A subagent's question shows over its own view and over its parent's (any level).
        hops = 0
        while state is not None and state.id != on_screen and state.parent_id and hops < 64:
            state, hops = self.model.store.get(state.parent_id), hops + 1
        return state is not None and state.id == on_screen and self.in_front()

    def viewing_changed(self) -> None:
        """Another session is on screen (or this view came to the front, or left it): its
        unread output is read, and what waited for it may show now."""
        model = self.model
        front = self.in_front()
        model.store.set_viewing(model.session_id if front else None)
        if front and model.session_id is not None:
            self._withdraw_toast(model.session_id)  # seen now
        model.broker.reconsider()
        model.elicitations.reconsider()
        if model.write_reviews is not None:
            model.write_reviews.reconsider()

    # -- telling ---------------------------------------------------------------------------

    def note_live(self, session_id: str) -> None:
        """The session's state changed: the board learns it; a change worth telling is told."""
        state = self.model.store.get(session_id)
        live = live_state(state) if state is not None and state.live else None
        if state is not None and state.parent_id is not None and live != LIVE_WAITING:
            live = None  # a subagent needs the person only to answer it; its card says the rest
        board = self.workspace.attention
        event = board.note(self.spec.key, session_id, live)
        if event is not None and state is not None:
            self._tell(event, session_id, display_title(state.display_title, 60))
        if live != LIVE_WAITING:
            self._withdraw_toast(session_id)
        self._write_title()

    def _tell(self, event: Event, session_id: str, title: str) -> None:
        background = not self.shows_session(session_id)
        if not background and self.app().app_focus:
            return  # the person sees it happen
        # Named as the header and the sidebar name it (its label first).
        agent = display_title(agent_label(self.spec, self.model.controller), 40)
        happened = {"waiting": "needs you", "failed": "ended in an error"}.get(event, "finished")
        what = f"“{title}” ({agent}) {happened}"
        # A turn that simply finished has its row ("done · unread"), the bell and the title: a
        # toast for each would bury the ones that ask something of the person.
        if background and event != "finished":
            hint = (
                f": {self.keys('jump-waiting')} to go there"
                if event == "waiting"
                else f": open it from the sessions ({self.keys('sessions-sidebar')})"
            )
            # Said whole, however long the names: the title and the agent give way.
            told = about_session(title, agent, happened + hint)
            self.model.notify(
                told,
                title="Waiting for you" if event == "waiting" else "",
                severity="warning",
                timeout=WAITING_TOAST_SECONDS if event == "waiting" else TOAST_SECONDS,
            )
            if event == "waiting":
                self._waiting_toasts[session_id] = told
        if self.ui_settings.notify_when_unfocused:
            self.signals.bell()
        self.signals.desktop(APP_TITLE, what, self.ui_settings.desktop_notifications)

    def _withdraw_toast(self, session_id: str) -> None:
        """The session waits no more (answered, cancelled, gone to): its "needs you" toast,
        still up, would send the person to nothing."""
        text = self._waiting_toasts.pop(session_id, None)
        if text is None:
            return
        access.dismiss_notifications(self.app(), toast_text(text))

    def _write_title(self) -> None:
        if not self.ui_settings.terminal_title:
            return
        title = self.workspace.attention.title()
        if title != APP_TITLE or self.signals.title_written:
            self.signals.set_title(title)

    def leave(self) -> None:
        """The view goes: its sessions need nobody now; the terminal gets its title back
        when no view is left."""
        self.workspace.attention.forget_agent(self.spec.key)
        if self.others_open():
            self._write_title()
        else:
            self.signals.restore_title()

    # -- going there -----------------------------------------------------------------------

    def jump_waiting(self) -> None:
        """Go to the session that has waited longest for the person; its dialog shows."""
        model = self.model
        here = (self.spec.key, model.session_id)
        target = self.workspace.attention.oldest_waiting(besides=here)
        if target is None:
            model.notify("No session is waiting for you.")
            return
        if target.agent_key == self.spec.key:
            model.open(target.session_id)
            return
        show = getattr(self.app(), "show_session", None)
        if callable(show):
            show(target.agent_key, target.session_id)
        else:
            model.notify("That session's agent has no view here.", severity="warning")
