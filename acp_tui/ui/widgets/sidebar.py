"""The sessions sidebar: every past session one keystroke away.

:class:`SessionsSidebar` is a self-contained widget: a header (scope and count), a filter
:class:`~textual.widgets.Input`, a hint line for agents without ``session/list``, and the rows
(:class:`~acp_tui.ui.widgets.session_list.SessionList`, virtualised).

What it shows and asks for is its model's (:class:`~acp_tui.ui.models.sidebar.SidebarModel`,
plain Python: scope, archived, filter, pages per agent, errors); the widget draws it, passes
the person's keys to it, and never talks to the agent: it *asks* for pages with
:class:`SessionsSidebar.LoadMore`, and reports :class:`SessionsSidebar.Open`,
:class:`SessionsSidebar.NewSession` and the rest, each with the sidebar as its ``control``.
The screen owns the store's change feed and calls :meth:`SessionsSidebar.refresh_rows`
(coalesced: any number of calls per frame cost one rebuild) when
:meth:`SessionsSidebar.wants` says a change concerns the sidebar.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import tzinfo
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from acp_tui.store import SessionState, SessionStore
from acp_tui.ui.models.sidebar import (
    CONNECTING_TEXT,
    FILTER_PLACEHOLDER,
    LOADING_TEXT,
    PageAsked,
    Scope,
    SidebarModel,
    SidebarView,
)
from acp_tui.ui.textual_patches import access
from acp_tui.ui.widgets.safe_input import SafeInput
from acp_tui.ui.widgets.session_list import (
    CLOSED_GLYPH,
    ROW_HEIGHT,
    SessionList,
    row_title,
    shorten_path,
)
from acp_tui.ui.widgets.session_status import any_working

__all__ = [
    "CLOSED_GLYPH",
    "CONNECTING_TEXT",
    "LOADING_TEXT",
    "NO_LIST_HINT",
    "SessionList",
    "SessionsSidebar",
    "SidebarMessage",
    "row_title",
    "shorten_path",
]

NO_LIST_HINT = "this agent cannot list sessions: showing sessions started here"
#: How often the rows of agents whose changes this screen does not take are looked at.
OTHER_AGENTS_POLL = 0.5


class SidebarMessage(Message):
    """A message of the sidebar: its ``control`` is the sidebar."""

    def __init__(self, sidebar: SessionsSidebar) -> None:
        super().__init__()
        self.sidebar = sidebar

    @property
    def control(self) -> SessionsSidebar:
        return self.sidebar


class RowMessage(SidebarMessage):
    """A message about one row's session."""

    def __init__(self, sidebar: SessionsSidebar, session_id: str) -> None:
        super().__init__(sidebar)
        self.session_id = session_id


class _FilterInput(SafeInput):
    """The filter box: typing filters, up/down move the highlight, Enter opens it, Escape
    clears the filter (or, when already empty, moves to the list)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "sidebar_cursor(-1)", "Up", show=False, id="filter-up"),
        Binding("down", "sidebar_cursor(1)", "Down", show=False, id="filter-down"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="filter-clear"),
    ]

    def __init__(self, sidebar: SessionsSidebar, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.sidebar = sidebar

    def action_sidebar_cursor(self, delta: int) -> None:
        lst = self.sidebar.session_list
        lst.move_cursor(lst.cursor + delta)

    def action_clear_filter(self) -> None:
        if self.value:
            self.value = ""
        else:
            self.screen.set_focus(self.sidebar.session_list)

    def on_focus(self) -> None:
        self.sidebar.session_list.refresh()

    def on_blur(self) -> None:
        self.sidebar.session_list.refresh()


class SessionsSidebar(Widget):
    """Sessions of this directory (or all, toggled with ``a``): filter, pages, open, new.

    Given its store and cwd; set by the screen: :attr:`current_session_id` (which schedules a
    refresh), :attr:`connecting`, and, on its :attr:`model`, the ``directory`` of every agent's
    sessions and the ``agent_key`` of its own. ``now`` (a clock returning POSIX seconds),
    ``tz`` and ``home`` are injectable for tests (the rows' times and paths).
    """

    class Open(RowMessage):
        """Enter or a click on a row: open this session, of the agent ``agent_key`` (the
        sidebar's :attr:`agent_key`, i.e. the screen's agent, unless the row is another's)."""

        def __init__(
            self, sidebar: SessionsSidebar, session_id: str, agent_key: str | None = None
        ) -> None:
            super().__init__(sidebar, session_id)
            self.agent_key = agent_key

    class NewSession(SidebarMessage):
        """The person asked for a new session (``n``)."""

    class Leave(SidebarMessage):
        """Escape in the list: the person is done here (the screen focuses the prompt)."""

    class LoadMore(SidebarMessage):
        """Please send ``session/list`` for ``cwd`` (``None`` = all directories) with
        ``cursor`` (``None`` = first page), of the archived sessions with ``archived``,
        apply the result with ``store.apply_list_page(result, cwd=cwd, cursor=cursor,
        archived=archived)``, then call ``sidebar.set_loading(False)`` (with ``error=...``
        when it failed). ``agent_key``: the agent to ask when the list shows several
        (``None``: the screen's own); answer with ``set_loading(False, agent_key=...)``."""

        def __init__(self, sidebar: SessionsSidebar, page: PageAsked) -> None:
            super().__init__(sidebar)
            self.cwd = page.cwd
            self.cursor = page.cursor
            self.archived = page.archived
            self.agent_key = page.agent_key

    class Branch(RowMessage):
        """``b`` on a row: branch (fork) this session."""

    class Rename(RowMessage):
        """``e`` on a row: give this session a title."""

    class Archive(RowMessage):
        """``x`` on a row: archive it (``archived``) or bring it back from the archive."""

        def __init__(self, sidebar: SessionsSidebar, session_id: str, archived: bool) -> None:
            super().__init__(sidebar, session_id)
            self.archived = archived

    DEFAULT_CSS = """
    SessionsSidebar {
        width: 36;
        height: 1fr;
        layout: vertical;
        background: $surface;
        border-right: vkey $foreground 10%;
        & > #sidebar-header {
            height: 1;
            padding: 0 1;
            color: $text-muted;
            text-style: bold;
        }
        /* Ctrl+B hides the sidebar only when it has the focus: that shows plainly. */
        &.-focused > #sidebar-header {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
        & > #sidebar-filter {
            height: 1;
            border: none;
            padding: 0 1;
            margin: 0 0 1 0;
            background: $boost;
            &:focus { background: $boost 200%; }
        }
        & > #sidebar-hint {
            height: auto;
            padding: 0 1 1 1;
            color: $text-warning;
            text-style: italic;
            display: none;
        }
        &.-no-list > #sidebar-hint { display: block; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "toggle_scope",
            "All dirs",
            tooltip="Sessions of this directory / all",
            id="sidebar-scope",
        ),
        Binding("n", "new_session", "New session", id="sidebar-new-session"),
        Binding("slash", "focus_filter", "Filter", show=False, id="sidebar-filter"),
        Binding("r", "retry_load", "Retry", show=False, id="sidebar-retry"),
        Binding(
            "b",
            "branch",
            "Branch",
            tooltip="Branch (fork) the highlighted session",
            id="sidebar-branch",
        ),
        Binding(
            "e", "rename", "Rename", tooltip="Rename the highlighted session", id="sidebar-rename"
        ),
        Binding(
            "x",
            "archive",
            "Archive",
            tooltip="Archive the highlighted session (in the archived view: bring it back)",
            id="sidebar-archive",
        ),
        Binding(
            "X",
            "toggle_archived",
            "Archived",
            tooltip="Show the archived sessions / the others",
            id="sidebar-archived",
        ),
    ]

    def __init__(
        self,
        store: SessionStore | None = None,
        cwd: str | None = None,
        *,
        current_session_id: str | None = None,
        now: Callable[[], float] = time.time,
        tz: tzinfo | None = None,
        home: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        #: What the sidebar shows and asks for (plain Python).
        self.model = SidebarModel(store, cwd, current_session_id=current_session_id)
        self._refresh_scheduled = False
        self._offered: tuple[bool, bool, bool] | None = None
        self.session_list = SessionList(
            self.model,
            on_moved=self._highlight_moved,
            on_scrolled=self._ask_for_pages,
            on_open=self.open_highlighted,
            on_leave=lambda: self.post_message(self.Leave(self)),
            on_fold=self._fold,
            filter_focused=lambda: self.filter_has_focus,
            now=now,
            tz=tz,
            home=home,
            id="sidebar-list",
        )
        # Not selected on focus: a key typed in the list goes on the end of the filter; a
        # selected filter was replaced by it ("Tools" became "x").
        self._filter_input = _FilterInput(
            self,
            placeholder=FILTER_PLACEHOLDER,
            id="sidebar-filter",
            compact=True,
            select_on_focus=False,
        )
        self._header = Static("", id="sidebar-header", markup=False)
        self._header_label = ""
        self._hint = Static(NO_LIST_HINT, id="sidebar-hint", markup=False)

    # -- what the screen sets ----------------------------------------------------------------
    @property
    def current_session_id(self) -> str | None:
        return self.model.current_session_id

    @current_session_id.setter
    def current_session_id(self, session_id: str | None) -> None:
        if self.model.set_current(session_id):
            self.refresh_rows()

    @property
    def connecting(self) -> bool:
        """True while the agent is starting (the screen sets it): until the store knows the
        agent's capabilities, the list says "connecting…" rather than guessing."""
        return self.model.connecting

    @connecting.setter
    def connecting(self, value: bool) -> None:
        if value != self.model.connecting:
            self.model.connecting = value
            self.refresh_rows()

    @property
    def loading(self) -> bool:
        """True while a :class:`LoadMore` is outstanding (shows the "loading more…" row)."""
        return self.model.loading

    @loading.setter
    def loading(self, value: bool) -> None:
        self.set_loading(value)

    def set_loading(
        self, loading: bool, error: str | None = None, *, agent_key: str | None = None
    ) -> None:
        """The screen answers a :class:`LoadMore`: ``False`` once the page was applied, with
        ``error`` when the request failed (shown in the list; ``r`` retries); ``agent_key``:
        that of the :class:`LoadMore` answered, when it had one."""
        self.model.set_loading(loading, error, agent_key=agent_key)
        self.refresh_rows()

    # -- reading -----------------------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        """``"cwd"`` (this directory) or ``"all"``."""
        return self.model.scope

    @property
    def filter_text(self) -> str:
        return self.model.filter

    @property
    def filter_has_focus(self) -> bool:
        return self._filter_input.has_focus

    @property
    def rows(self) -> list[SessionState]:
        """The sessions shown, in order (after the filter)."""
        return self.session_list.rows

    def highlighted_session_id(self) -> str | None:
        """The id of the highlighted row (palette close / delete act on it), or ``None``;
        also ``None`` for a row of another agent than the screen's (not its to act on)."""
        lst = self.session_list
        s = lst.highlighted
        if s is None or not self.model.own(lst.agent_of(lst.cursor)):
            return None
        return s.id

    def highlighted_agent_key(self) -> str | None:
        """The agent of the highlighted row (the screen's agent unless it is another's)."""
        return self.session_list.agent_of(self.session_list.cursor) or self.model.agent_key

    wants = staticmethod(SidebarModel.wants)

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self._header
        yield self._filter_input
        yield self._hint
        yield self.session_list

    def on_mount(self) -> None:
        self.set_interval(30, self.session_list.refresh_changed)  # relative times age
        self.set_interval(OTHER_AGENTS_POLL, self._check_other_agents)
        # Built after the first refresh, not now: the screen sets what the list shows (its
        # agent, the sessions remembered here) in its own on_mount, which runs after this one.
        self._refresh_scheduled = True
        self.call_after_refresh(self._rebuild)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.add_class("-focused")

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.set_class(self.has_focus_within, "-focused")

    def on_show(self) -> None:
        self.refresh_rows()

    def tick_working(self) -> None:
        """A working row's clock moves: redraw when one is in view (the screen calls this once
        a second, when the person is not typing)."""
        lst = self.session_list
        if not self.display or not lst.rows:
            return
        first = round(lst.scroll_y) // ROW_HEIGHT
        shown = lst.rows[first : first + lst.size.height // ROW_HEIGHT + 2]
        if any_working(shown):
            lst.refresh_changed()

    # -- the person's keys -------------------------------------------------------------------
    def toggle_scope(self) -> None:
        """Switch between this directory's sessions and all directories."""
        self.model.toggle_scope()
        self.refresh_rows()

    def action_toggle_scope(self) -> None:
        self.toggle_scope()

    def action_toggle_archived(self) -> None:
        """Switch between the archived sessions and the others."""
        self.model.toggle_archived()
        self.refresh_bindings()
        self.refresh_rows()

    def _highlighted_id(self) -> str | None:
        """The highlighted session, to branch / rename / archive: those go to the screen's
        agent, so a row of another agent says to open it first."""
        lst = self.session_list
        s = lst.highlighted
        if s is None:
            return None
        if not self.model.own(lst.agent_of(lst.cursor)):
            self.notify("Open the session first: this acts on the agent on screen.")
            return None
        return s.id

    def action_branch(self) -> None:
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Branch(self, session_id))

    def action_rename(self) -> None:
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Rename(self, session_id))

    def action_archive(self) -> None:
        """Archive the highlighted session; in the archived view, bring it back."""
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Archive(self, session_id, not self.model.archived))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._filter_input.value and self._on_a_character(action):
            # A filter being typed from the list: its letters are the filter's ("renamed"
            # lost its r, e, n and a to Retry, Rename, New session and All dirs).
            return False
        # Nothing to retry, branch or archive: the letter is typing (it was eaten whatever
        # the list showed).
        return self.model.allows(action)

    def _on_a_character(self, action: str) -> bool:
        """Whether ``action`` is on a key that types a character, as the keys are configured
        (``a``, ``n``, ``e``… by default)."""
        return any(
            binding.action == action and len(key) == 1
            for key, bindings in access.bindings(self).key_to_bindings.items()
            for binding in bindings
        )

    def set_filter(self, text: str) -> None:
        """Filter rows by title, cwd and id, and show ``text`` in the filter box."""
        if self._filter_input.value != text:
            self._filter_input.value = text
        if self.model.set_filter(text):
            self.refresh_rows()

    def open_highlighted(self) -> None:
        s = self.session_list.highlighted
        if s is not None:
            self.post_message(self.Open(self, s.id, self.highlighted_agent_key()))

    def action_new_session(self) -> None:
        self.post_message(self.NewSession(self))

    def action_focus_filter(self) -> None:
        # At once: the keys typed right after "/" must find the box focused.
        self.screen.set_focus(self._filter_input)

    def typing_target(self) -> Input:
        """Where typing goes when the list has the focus and the key is not one of its own:
        the filter (type to filter)."""
        return self._filter_input

    def action_retry_load(self) -> None:
        self.model.retry()
        self.refresh_rows()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self._filter_input:
            event.stop()
            # The box's value now, not the event's: typing queues one event per key, and
            # writing an older event's value back into the box made them chase each other
            # for ever (the filter never applied, the typed text came out scrambled).
            if self.model.set_filter(self._filter_input.value):
                self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self._filter_input:
            event.stop()
            self.open_highlighted()

    # -- pages -------------------------------------------------------------------------------
    def reload(self) -> None:
        """Ask for the first page again: sessions made elsewhere appear, listed titles catch
        up. Rows already listed stay while the answer is on its way (live titles keep
        priority, see :meth:`SessionStore.apply_list_page`). Only while shown."""
        if not self.is_mounted or not self.display:
            return
        asked = self.model.reload()
        self._ask(asked)
        if asked or self.model.several_agents:
            self.refresh_rows()

    def reveal(self) -> None:
        """Show the sidebar (reloaded) if hidden; the focus stays where it is."""
        if not self.display:
            self.display = True
            self.reload()

    def _ask(self, pages: list[PageAsked]) -> None:
        for page in pages:
            self.post_message(self.LoadMore(self, page))

    def _ask_for_pages(self) -> None:
        """Post :class:`LoadMore` for the pages the model wants now (see
        :meth:`SidebarModel.pages`)."""
        if not self.is_mounted or not self.display:
            return
        asked = self.model.pages(self.session_list.near_end())
        if asked:
            self._ask(asked)
            self.refresh_rows()

    def _fold(self, session_id: str, open_it: bool) -> None:
        """List a session's subagents under it, or fold them (Right and Left in the list)."""
        if self.model.fold(session_id, open_it):
            self.refresh_rows()

    def _highlight_moved(self) -> None:
        s = self.session_list.highlighted
        self.model.highlight_moved(s.id if s else None, self.highlighted_agent_key())
        self._ask_for_pages()

    # -- refresh -----------------------------------------------------------------------------
    def refresh_rows(self) -> None:
        """Re-read the store on the next message-loop turn; calls coalesce into one rebuild
        (the highlighted session stays highlighted, by id)."""
        if self._refresh_scheduled or not self.is_mounted:
            return
        self._refresh_scheduled = True
        self.call_later(self._rebuild)

    def rebuild_now(self) -> None:
        """Rebuild synchronously (tests, or right after a scope change)."""
        self.model.built_from = None
        self._rebuild()

    def _rebuild(self) -> None:
        self._refresh_scheduled = False
        if self.model.stale():
            self._show(self.model.build())
        # A page may be wanted (the list was just shown, or came near its end).
        self._ask_for_pages()

    def _show(self, view: SidebarView) -> None:
        """Draw ``view``: the rows, the filter's placeholder, the keys the agent's abilities
        allow, the hint for agents that cannot list, the header."""
        if self._filter_input.placeholder != view.placeholder:
            self._filter_input.placeholder = view.placeholder
        if view.offered != self._offered:
            self._offered = view.offered
            self.refresh_bindings()
        self.set_class(view.capabilities_known and not view.can_list, "-no-list")
        lst = self.session_list
        lst.set_rows(
            view.rows,
            keep_id=view.keep_id,
            footer=view.footer,
            footer_is_error=view.footer_is_error,
            to_top=view.to_top,
            agents=view.agents,
            keep_agent=view.keep_agent,
            depths=view.depths,
        )
        highlighted = lst.highlighted
        self.model.kept(view, highlighted.id if highlighted else None, lst.agent_of(lst.cursor))
        if view.header != self._header_label:  # unchanged, it would still repaint its row
            self._header_label = view.header
            self._header.update(Text(view.header, no_wrap=True, overflow="ellipsis"))

    def _check_other_agents(self) -> None:
        """The stores of other agents change without this screen taking their changes (a
        page, a title, a session of theirs): rebuild when any of them moved on."""
        if not self.display or self._refresh_scheduled:
            return
        if self.model.others_moved():
            self.refresh_rows()
