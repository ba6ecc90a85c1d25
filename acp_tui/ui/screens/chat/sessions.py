"""The sessions sidebar's requests to the chat view: a page of a list (of this agent or of
another one of the merged list), open a session (here, or in its agent's view), leave the list,
a new session, and the keys on a row (branch, rename, archive).

:class:`SidebarRequests` is a plain object the chat screen owns: the screen hands it every
message of its sidebar (each carries the sidebar as its ``control``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual.app import App
from textual.screen import Screen

from acp_tui.session.errors import SessionError
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.directory import SessionDirectory
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.models.sidebar_placement import SidebarPlacement
from acp_tui.ui.screens.chat.drawing import ChatDrawing
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.widgets.sidebar import SessionsSidebar, SidebarMessage

__all__ = ["SIDEBAR_MIN_WIDTH", "SidebarRequests"]

#: The sidebar shows from this width of the terminal on (unless configured or chosen).
SIDEBAR_MIN_WIDTH = 100


class SidebarRequests:
    """Act on what the sidebar asks, and show or hide it. ``new_session`` is the view's (after
    the keys typed before it), ``focus_prompt`` gives the prompt the focus, ``app`` is the app
    (its other agents' views), ``show_sidebar`` the config's choice (None: by the width)."""

    def __init__(
        self,
        model: ChatModel,
        workspace: Workspace,
        spec: AgentSpec,
        *,
        drawing: ChatDrawing,
        actions: SessionActions,
        new_session: Callable[[], object],
        focus_prompt: Callable[[], object],
        app: Callable[[], App[Any]],
        show_sidebar: bool | None = None,
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.spec = spec
        self.drawing = drawing
        self.actions = actions
        self.new_session = new_session
        self.focus_prompt = focus_prompt
        self.app = app
        self.placement = SidebarPlacement(show_sidebar, SIDEBAR_MIN_WIDTH)

    def attach(
        self, sidebar: SessionsSidebar, *, index_records: Callable[[str], Iterable[Any]]
    ) -> None:
        """The sidebar lists this agent's sessions and, beside them, those of every agent of
        the workspace (``index_records``: what the local index remembers of one)."""
        sidebar.model.agent_key = self.spec.key
        if self.spec.label:
            self.workspace.labels[self.spec.key] = self.spec.label
        sidebar.model.directory = SessionDirectory(
            self.workspace,
            primary=self.spec.key,
            names=self.workspace.labels,
            index_records=index_records,
        )

    def handle(self, message: SidebarMessage) -> None:
        """One message of the sidebar (stopped here: the screen is where it ends)."""
        message.stop()
        if isinstance(message, SessionsSidebar.LoadMore):
            self.load_more(message)
        elif isinstance(message, SessionsSidebar.Open):
            self.open(message)
        elif isinstance(message, SessionsSidebar.Leave):
            if self.model.offering_sessions:
                self.model.offering_sessions = False
                self.drawing.set_status("")
            self.focus_prompt()
        elif isinstance(message, SessionsSidebar.NewSession):
            self.new_session()
        elif isinstance(message, SessionsSidebar.Branch):
            self.actions.branch(message.session_id)
        elif isinstance(message, SessionsSidebar.Rename):
            self.actions.rename(message.session_id)
        elif isinstance(message, SessionsSidebar.Archive):
            self.actions.archive(message.session_id, message.archived)

    # -- where it shows ----------------------------------------------------------------------

    def place(self, width: int) -> None:
        """At start: shown as configured, else from :data:`SIDEBAR_MIN_WIDTH` columns on."""
        self.drawing.widgets.sidebar.display = self.placement.at_start(width)

    def fit(self, width: int) -> None:
        """The terminal was resized: without the person's choice, the sidebar gives way under
        its width and comes back over it (the prompt keeps the focus it had there)."""
        shown = self.placement.resized(width)
        sidebar = self.drawing.widgets.sidebar
        if shown is None or shown == sidebar.display:
            return
        if shown:
            sidebar.reveal()
            return
        had_focus = sidebar.has_focus_within
        sidebar.display = False
        if had_focus:
            self.focus_prompt()

    def toggle(self) -> None:
        """Ctrl+B, by what the person sees (see :meth:`SidebarPlacement.step`)."""
        sidebar = self.drawing.widgets.sidebar
        step = self.placement.step(bool(sidebar.display), sidebar.has_focus_within)
        if step == "hide":
            sidebar.display = False
            self.focus_prompt()
            return
        sidebar.reveal()
        # At once: "/" typed right after Ctrl+B must find the list focused.
        sidebar.screen.set_focus(sidebar.session_list)

    def show(self, text: str = "") -> None:
        """``/resume``: the sidebar, shown and focused, filtered by ``text`` when given."""
        sidebar = self.drawing.widgets.sidebar
        sidebar.reveal()
        sidebar.set_filter(text)
        sidebar.screen.set_focus(sidebar.session_list)

    def load_more(self, message: SessionsSidebar.LoadMore) -> None:
        """A page of this agent's list, or (``agent_key``) of one agent of the merged list,
        through that agent's controller; an agent not running (yet) answers nothing."""
        sidebar = message.sidebar
        key = message.agent_key
        if key is None:
            # Not yet: asked again once the agent is ready (see AgentRunner._ready).
            controller, ready = self.model.controller, self.model.agent_alive
        else:
            controller = self.workspace.get(key)
            ready = controller is not None and not controller.finished.is_set()
        agent = controller.agent if controller is not None else None
        if controller is None or agent is None or not ready or not agent.can_list:
            sidebar.set_loading(False, agent_key=key)
            return
        controller = controller
        cwd, cursor, archived = message.cwd, message.cursor, message.archived

        async def load() -> None:
            try:
                await controller.list_sessions(cwd, cursor, archived=archived)
            except SessionError as error:
                sidebar.set_loading(False, error=str(error), agent_key=key)
                return
            sidebar.set_loading(False, agent_key=key)  # redraws the rows

        controller.spawn(load, "list sessions")

    def open(self, message: SessionsSidebar.Open) -> None:
        if message.agent_key is None or message.agent_key == self.spec.key:
            self.model.open(message.session_id)
            return
        # A session of another agent: the app shows it in that agent's view, with the list
        # the person chose it from still beside it.
        app = self.app()
        app.show_session(message.agent_key, message.session_id)  # type: ignore[attr-defined]
        views = getattr(app, "agent_views", None)
        there = views.get(message.agent_key) if isinstance(views, dict) else None
        if isinstance(there, Screen) and there.is_mounted:
            there.query_one(SessionsSidebar).reveal()
