"""The sessions sidebar's model: what the list shows (scope, archived or not, the filter), the
pages it asks for per agent and why a list failed, and which row stays highlighted.

Plain Python over the session stores (one agent's, or every agent's through a
:class:`~acp_tui.session.workspace.directory.SessionDirectory`). The widget
(:class:`acp_tui.ui.widgets.sidebar.SessionsSidebar`) draws :meth:`SidebarModel.build`'s
:class:`SidebarView`, posts the :class:`PageAsked` requests the model returns as
``LoadMore`` messages, and tells the model what the person did (a filter typed, a toggle, the
highlight moved) and what the screen answered (``set_loading``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from acp_tui.session.workspace.directory import PageRequest, SessionDirectory
from acp_tui.store import (
    PART_INFO,
    PART_META,
    PART_STATE,
    PART_TITLE,
    PART_USAGE,
    Changes,
    SessionState,
    SessionStore,
)
from acp_tui.text.safety import one_line

__all__ = [
    "CONNECTING_TEXT",
    "LOADING_TEXT",
    "PageAsked",
    "Scope",
    "SidebarModel",
    "SidebarView",
]

Scope = Literal["cwd", "all"]

#: Session parts whose change alters a sidebar row.
SIDEBAR_PARTS = frozenset({PART_TITLE, PART_STATE, PART_USAGE, PART_INFO, PART_META})
LOADING_TEXT = "loading more…"
#: Until the agent answers ``initialize`` nobody knows whether it can list sessions.
CONNECTING_TEXT = "connecting…"
FILTER_PLACEHOLDER = "Filter sessions…"
#: With several agents the filter also takes ``@name`` (see acp_tui.session.workspace.directory).
AGENTS_FILTER_PLACEHOLDER = "Filter sessions… (@agent)"


@dataclass(frozen=True, slots=True)
class PageAsked:
    """A ``session/list`` page the list needs: for ``cwd`` (``None``: all directories) from
    ``cursor`` (``None``: the first page), of the archived sessions with ``archived``, of the
    agent ``agent_key`` (``None``: the view's own)."""

    cwd: str | None
    cursor: str | None
    archived: bool
    agent_key: str | None = None


@dataclass(frozen=True, slots=True)
class SidebarView:
    """What the sidebar shows, as built by :meth:`SidebarModel.build`."""

    #: The sessions, in order; with several agents, ``agents[i]`` is the agent of row i.
    rows: list[SessionState]
    agents: list[str] | None
    #: The list's last row (loading, failed, empty...), and whether it is an error.
    footer: str | None
    footer_is_error: bool
    header: str
    placeholder: str
    #: The row to keep highlighted, by session (and agent, with several).
    keep_id: str | None
    keep_agent: str | None
    #: A new view (filter, scope or archive changed): start from the first row.
    to_top: bool
    #: Every agent shown said what it can do; one of them can list.
    capabilities_known: bool
    can_list: bool
    #: What the view's own agent offers (fork, archive, list): the keys shown follow it.
    offered: tuple[bool, bool, bool] | None
    #: How deep each row is: 0 for a session, 1 for a subagent shown under it, and so on.
    depths: list[int] | None = None


class SidebarModel:
    """The sidebar's state and its rules (see the module docstring)."""

    def __init__(
        self,
        store: SessionStore | None = None,
        cwd: str | None = None,
        *,
        current_session_id: str | None = None,
    ) -> None:
        self.store = store
        #: The current working directory (the default scope; rows elsewhere show their cwd).
        self.cwd = cwd
        #: The session on screen (its row is marked).
        self.current_session_id = current_session_id
        #: The sessions of every agent of the workspace: shown merged once there is more
        #: than one agent; with one, the rows are :attr:`store`'s as ever.
        self.directory: SessionDirectory | None = None
        #: The view's agent (the key of :attr:`store`'s agent in the workspace).
        self.agent_key: str | None = None
        self.scope: Scope = "cwd"
        #: The archived sessions are shown instead of the others.
        self.archived = False
        self.filter = ""
        #: The agent is starting: until its store knows what it can do, the list says so.
        self.connecting = True
        #: A page of the view's agent is on its way; why its last request failed.
        self.own_loading = False
        self.error: str | None = None
        #: The row kept highlighted (by session and agent) as the rows change.
        self.cursor_id: str | None = None
        self.cursor_agent: str | None = None
        #: The next build starts a new view (at the first row).
        self.new_view = False
        #: The page last asked of the view's agent (never the same page twice for nothing).
        self.requested: tuple[str | None, int, str | None, bool] | None = None
        #: Several agents: those with a page on its way, those whose last request failed, and
        #: what was asked of each.
        self.loading_agents: set[str] = set()
        self.agent_errors: dict[str, str] = {}
        self.requested_of: dict[str, PageRequest] = {}
        #: The directory's version the rows were built from (several agents), else None.
        self.seen_version: object = None
        #: What the rows were last built from (:meth:`shown_state`).
        self.built_from: object = None
        #: Sessions whose subagents are listed under them (collapsed by default).
        self.expanded: set[str] = set()

    # ------------------------------------------------------------------ reading

    @property
    def scope_cwd(self) -> str | None:
        """The ``cwd`` of the scope shown (``None`` for all directories)."""
        return self.cwd if self.scope == "cwd" else None

    @property
    def several_agents(self) -> bool:
        """The list shows the sessions of more than one agent."""
        return self.directory is not None and len(self.directory) > 1

    @property
    def loading(self) -> bool:
        """A page is on its way (the list says "loading more…")."""
        return self.own_loading or bool(self.loading_agents)

    def own(self, agent: str | None) -> bool:
        """Whether a row of ``agent`` (None: the list is of one agent) is of the view's agent:
        only those may be branched, renamed, archived, closed or deleted here."""
        return agent is None or agent == self.agent_key

    @staticmethod
    def wants(changes: Changes) -> bool:
        """Whether a :class:`~acp_tui.store.Changes` concerns the sidebar (catalog, titles,
        activity, usage, cwd...)."""
        if changes.catalog_changed:
            return True
        return any(not parts.isdisjoint(SIDEBAR_PARTS) for parts in changes.sessions.values())

    def allows(self, action: str) -> bool:
        """Whether a key of the list does something now: retry only after a failure, branch
        and archive only when the agent can."""
        store = self.store
        if action == "retry_load":
            return bool(self.error or self.agent_errors)
        if action == "branch":
            return store is not None and store.can_fork
        if action == "archive":
            return store is not None and store.can_archive
        if action == "toggle_archived":
            return self.archived or (store is not None and store.can_archive and store.can_list)
        return True

    # ------------------------------------------------------------------ what the person did

    def set_current(self, session_id: str | None) -> bool:
        """The session on screen changed: its row is marked and, unless None, highlighted.
        Returns whether anything changed."""
        if session_id == self.current_session_id:
            return False
        self.current_session_id = session_id
        if session_id is not None:
            self.cursor_id = session_id
            self.cursor_agent = self.agent_key
            self._unfold_to(session_id)
        return True

    # ------------------------------------------------------------------ subagents

    def _unfold_to(self, session_id: str) -> None:
        """A subagent on screen: the sessions above it list their subagents, so its row
        shows."""
        store = self.store
        state = store.get(session_id) if store is not None else None
        hops = 0
        while store is not None and state is not None and state.parent_id and hops < 64:
            self.expanded.add(state.parent_id)
            state, hops = store.get(state.parent_id), hops + 1

    def fold(self, session_id: str, open_it: bool) -> bool:
        """List ``session_id``'s subagents under it (``open_it``), or not. Returns whether
        anything changed (a session without subagents has nothing to list)."""
        if open_it == (session_id in self.expanded):
            return False
        if open_it:
            self.expanded.add(session_id)
        else:
            self.expanded.discard(session_id)
        return True

    def _nest(
        self, rows: list[SessionState], agents: list[str] | None
    ) -> tuple[list[SessionState], list[str] | None, list[int]]:
        """The rows with the subagents of each unfolded session under it, and each row's
        depth. A subagent's row is of its parent's agent."""
        out: list[SessionState] = []
        out_agents: list[str] | None = [] if agents is not None else None
        depths: list[int] = []

        def add(state: SessionState, agent: str | None, depth: int) -> None:
            out.append(state)
            depths.append(depth)
            if out_agents is not None and agent is not None:
                out_agents.append(agent)
            if state.id not in self.expanded or depth >= 8:
                return
            store = self.store_of(agent)
            for child in store.children(state.id) if store is not None else ():
                add(child, agent, depth + 1)

        for index, state in enumerate(rows):
            add(state, agents[index] if agents is not None else None, 0)
        return out, out_agents, depths

    def store_of(self, agent: str | None) -> SessionStore | None:
        """The store of a row's agent (None: the view's own)."""
        directory = self.directory
        if agent is not None and directory is not None:
            found = directory.store_of(agent)
            if found is not None:
                return found
        return self.store

    def set_filter(self, text: str) -> bool:
        """Filter by title, cwd and id (and ``@agent``). Returns whether it changed."""
        if text == self.filter:
            return False
        self.filter = text
        self.requested = None
        self.new_view = True
        self.cursor_id = None
        self.cursor_agent = None
        return True

    def toggle_scope(self) -> None:
        """This directory's sessions, or all directories'."""
        self.scope = "all" if self.scope == "cwd" else "cwd"
        self.requested = None
        self.new_view = True

    def toggle_archived(self) -> None:
        """The archived sessions, or the others."""
        self.archived = not self.archived
        self.requested = None
        self.error = None
        self.new_view = True

    def highlight_moved(self, session_id: str | None, agent: str | None) -> None:
        """The person moved the highlight: that row is kept as the rows change."""
        if session_id is not None:
            self.cursor_id = session_id
            self.cursor_agent = agent

    def retry(self) -> None:
        """Ask again what failed."""
        self.requested = None
        self.error = None
        self.agent_errors.clear()
        self.requested_of.clear()

    # ------------------------------------------------------------------ what the screen answered

    def set_loading(
        self, loading: bool, error: str | None = None, *, agent_key: str | None = None
    ) -> None:
        """The answer to a ``LoadMore``: ``False`` once its page is applied, with ``error``
        when the request failed; ``agent_key``: that of the request, when it had one."""
        if agent_key is None:
            self.own_loading = loading
            self.error = None if loading else error
            return
        if loading:
            self.loading_agents.add(agent_key)
        else:
            self.loading_agents.discard(agent_key)
        if error:
            self.agent_errors[agent_key] = error
        else:
            self.agent_errors.pop(agent_key, None)

    # ------------------------------------------------------------------ building the rows

    def shown_state(self) -> tuple[object, ...]:
        """Everything the rows, footer and header are built from: the stores' versions (which
        grow with every change a list shows) and the sidebar's own state."""
        store = self.store
        directory = self.directory
        return (
            id(store),
            store.version if store is not None else None,
            (store.capabilities_known, store.can_list) if store is not None else None,
            directory.version() if self.several_agents and directory is not None else None,
            self.scope,
            self.archived,
            self.filter,
            self.cwd,
            self.current_session_id,
            self.cursor_id,
            self.cursor_agent,
            self.agent_key,
            self.connecting,
            self.own_loading,
            self.error,
            self.new_view,
            frozenset(self.loading_agents),
            tuple(self.agent_errors.items()),
            frozenset(self.expanded),
        )

    def stale(self) -> bool:
        """Whether the rows would be built differently now (a build that would show the same
        rows is skipped: a start asked for seven rebuilds, three showed news)."""
        return self.shown_state() != self.built_from

    def build(self) -> SidebarView:
        """The rows, footer and header of the view as it is now (one agent's, or every
        agent's merged)."""
        self.built_from = self.shown_state()
        store = self.store
        scope = self.scope_cwd
        archived = self.archived
        filtered = bool(self.filter.strip())
        to_top, self.new_view = self.new_view, False
        offered = (store.can_fork, store.can_archive, store.can_list) if store else None
        placeholder = FILTER_PLACEHOLDER
        if self.several_agents:
            assert self.directory is not None
            directory = self.directory
            merged = directory.rows(scope, archived=archived, text=self.filter)
            self.seen_version = directory.version()
            sources = directory.sources()
            keep, keep_agent = self.cursor_id, self.cursor_agent
            if keep is None and not filtered:
                keep, keep_agent = self.current_session_id, self.agent_key
            footer, is_error = self._footer(
                loading=bool(self.loading_agents),
                errors=[
                    f"{directory.name_of(key)}: {one_line(error, 200)}"
                    for key, error in self.agent_errors.items()
                ],
                stopped=merged.stopped,
                empty=not merged.sessions,
            )
            nested, nested_agents, depths = self._nest(merged.sessions, merged.keys)
            return SidebarView(
                rows=nested,
                agents=nested_agents,
                footer=footer,
                footer_is_error=is_error,
                header=self._header(len(merged), merged.complete),
                placeholder=AGENTS_FILTER_PLACEHOLDER,
                keep_id=keep,
                keep_agent=keep_agent,
                to_top=to_top,
                capabilities_known=all(s.store.capabilities_known for s in sources),
                can_list=any(s.store.can_list for s in sources),
                offered=offered,
                depths=depths,
            )
        if store is None:
            rows: list[SessionState] = []
        elif filtered:
            rows = store.search(self.filter, scope, archived=archived)
        else:
            rows = store.catalog(scope, archived=archived)
        footer, is_error = self._footer(
            loading=self.own_loading,
            errors=[one_line(self.error, 200)] if self.error else [],
            stopped=store.list_state(scope, archived=archived).stopped if store else None,
            empty=not rows and store is not None,
        )
        keep = self.cursor_id
        if keep is None and not filtered:
            keep = self.current_session_id
        self.seen_version = None
        complete = None
        if store is not None and store.can_list:
            complete = store.list_state(scope, archived=archived).complete
        count = len(rows)  # the sessions, not their subagents under them
        rows, _, depths = self._nest(rows, None)
        return SidebarView(
            rows=rows,
            agents=None,
            footer=footer,
            footer_is_error=is_error,
            header=self._header(count, complete),
            placeholder=placeholder,
            keep_id=keep,
            keep_agent=None,
            to_top=to_top,
            capabilities_known=store is not None and store.capabilities_known,
            can_list=store is not None and store.can_list,
            offered=offered,
            depths=depths,
        )

    def kept(self, view: SidebarView, session_id: str | None, agent: str | None) -> None:
        """The rows of ``view`` are shown, ``session_id`` (of ``agent``) highlighted. A
        session to keep that is not listed yet (a new one just opened) stays the one to keep:
        the highlight goes to it once it is listed. Until the person moves the highlight or
        opens a session, none is kept: it stays on the first row, the most recent, as pages
        arrive (it stuck to the first row of the local index, listed first, and --resume
        offered that instead of the agent's newest session)."""
        if session_id is None or view.keep_id is None or session_id != view.keep_id:
            return
        self.cursor_id = session_id
        if view.agents is not None:
            self.cursor_agent = agent

    def _footer(
        self, *, loading: bool, errors: list[str], stopped: str | None, empty: bool
    ) -> tuple[str | None, bool]:
        """The list's last row, and whether it is an error: one agent's or several agents'."""
        store = self.store
        if store is not None and not store.capabilities_known and self.connecting:
            return CONNECTING_TEXT, False
        if loading:
            return LOADING_TEXT, False
        if errors:
            return f"list failed (r: retry): {'; '.join(errors)}", True
        if stopped:
            # Why the list ended early, even when nothing of it is a row (an unused new session
            # is not listed): more use than "no sessions yet".
            return stopped, False
        if empty:
            if self.filter.strip():
                return "no matches", False
            return ("no archived sessions" if self.archived else "no sessions yet"), False
        return None, False

    def _header(self, count: int, complete: bool | None) -> str:
        """``Sessions · this folder (12+)``: ``+`` while the list goes on."""
        where = "this folder" if self.scope == "cwd" else "all folders"
        more = "" if complete is None or complete else "+"
        if self.filter.strip():
            return f"Matches in {where}: {count}{more}"
        return f"{'Archived' if self.archived else 'Sessions'} · {where} ({count}{more})"

    # ------------------------------------------------------------------ pages

    def pages(self, near_end: bool) -> list[PageAsked]:
        """The pages to ask for now (each is then on its way): the scope has no page yet, or
        the view is ``near_end`` of its rows, or a filter is typed (so matches keep paging
        in), and the list is not complete. Never the same page twice for nothing."""
        if self.several_agents:
            return self._pages_merged(near_end)
        store = self.store
        if store is None or not store.can_list or self.own_loading or self.error:
            return []
        scope = self.scope_cwd
        archived = self.archived
        if archived and not store.can_archive:
            return []
        state = store.list_state(scope, archived=archived)
        if state.pages and (state.complete or state.next_cursor is None):
            return []
        if not (state.pages == 0 or bool(self.filter.strip()) or near_end):
            return []
        key = (scope, state.pages, state.next_cursor, archived)
        if key == self.requested:
            return []  # asked for exactly this page already and nothing arrived: do not spin
        self.requested = key
        self.own_loading = True
        return [PageAsked(scope, state.next_cursor if state.pages else None, archived)]

    def _pages_merged(self, near_end: bool) -> list[PageAsked]:
        """The first pages of every agent, then the next ones near the end: one request per
        agent, never twice the same one."""
        assert self.directory is not None
        wanted = self.directory.pages_wanted(
            self.scope_cwd,
            archived=self.archived,
            text=self.filter,
            near_end=near_end,
            busy=self.loading_agents | set(self.agent_errors),
        )
        asked = []
        for request in wanted:
            if self.requested_of.get(request.key) == request:
                continue  # asked for exactly this page already and nothing came: no spin
            self.requested_of[request.key] = request
            self.loading_agents.add(request.key)
            asked.append(PageAsked(request.cwd, request.cursor, request.archived, request.key))
        return asked

    def reload(self) -> list[PageAsked]:
        """The first page again (sessions made elsewhere appear, listed titles catch up), of
        every agent that can list; rows already listed stay meanwhile."""
        asked = []
        if self.several_agents:
            asked = self._reload_agents()
        store = self.store
        if store is None or not store.can_list or self.own_loading:
            return asked
        self.error = None
        self.requested = (self.scope_cwd, -1, None, self.archived)
        self.own_loading = True
        return [*asked, PageAsked(self.scope_cwd, None, self.archived)]

    def _reload_agents(self) -> list[PageAsked]:
        """Every other agent's first page (the view's own is asked by :meth:`reload`)."""
        assert self.directory is not None
        asked = []
        for source in self.directory.sources():
            key = source.key
            if key == self.agent_key or key in self.loading_agents:
                continue
            if not source.store.can_list:
                continue
            request = PageRequest(key, self.scope_cwd, None, self.archived)
            self.agent_errors.pop(key, None)
            self.requested_of[key] = request
            self.loading_agents.add(key)
            asked.append(PageAsked(request.cwd, None, request.archived, key))
        return asked

    def others_moved(self) -> bool:
        """The stores of other agents change without this view taking their changes (a page,
        a title, a session of theirs): whether the rows are out of date for that."""
        directory = self.directory
        if directory is None:
            return False
        if not self.several_agents:
            return self.seen_version is not None  # down to one agent: back to its own rows
        return directory.version() != self.seen_version
