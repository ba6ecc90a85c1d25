"""The sessions sidebar: every past session one keystroke away.

:class:`SessionsSidebar` is a self-contained widget: a header (scope and count), a filter
:class:`~textual.widgets.Input`, a hint line for agents without ``session/list``, and
:class:`SessionList`, a virtualised Line-API list (two lines per session, only the visible lines
are ever rendered, no widget per row), so thousands of sessions scroll smoothly.

It reads a :class:`~acp_tui.store.SessionStore` and never talks to the agent: it *asks* for
pages with :class:`SessionsSidebar.LoadMore`, and reports :class:`SessionsSidebar.Open` and
:class:`SessionsSidebar.NewSession`. The screen owns the store's change feed and calls
:meth:`SessionsSidebar.refresh_rows` (coalesced: any number of calls per frame cost one
rebuild) when :meth:`SessionsSidebar.wants` says a change concerns the sidebar.

Everything the agent sends (titles, cwds) is sanitised and drawn as plain Rich ``Text``: no
markup or escape sequence is interpreted, long values are cut with an ellipsis.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import tzinfo
from typing import ClassVar, Literal, Self

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from acp_tui.session.directory import DirectoryRows, PageRequest, SessionDirectory
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
from acp_tui.text.relative_time import relative_time
from acp_tui.text.safety import one_line
from acp_tui.text.usage import format_percent
from acp_tui.ui.textual_patches import access
from acp_tui.ui.widgets.base_style import CachedBaseStyle
from acp_tui.ui.widgets.safe_input import SafeInput
from acp_tui.ui.widgets.session_status import (
    STATUS_COMPONENTS,
    any_working,
    row_status,
)

__all__ = ["SessionList", "SessionsSidebar", "row_title", "shorten_path"]

Scope = Literal["cwd", "all"]

#: Lines per session row: title line, then time / cwd / context line.
ROW_HEIGHT = 2
#: Lines of the list whose last drawing is kept to compare with (a few screens' worth).
DRAWN_LINES_KEPT = 400
#: Ask for the next page when the cursor or the viewport's last row is this close to the end.
NEAR_END_ROWS = 10
#: Session parts whose change alters a sidebar row.
SIDEBAR_PARTS = frozenset({PART_TITLE, PART_STATE, PART_USAGE, PART_INFO, PART_META})

NO_LIST_HINT = "this agent cannot list sessions: showing sessions started here"
LOADING_TEXT = "loading more…"
#: Until the agent answers ``initialize`` nobody knows whether it can list sessions.
CONNECTING_TEXT = "connecting…"
CLOSED_GLYPH = "⊘"
CURRENT_BAR = "▎"
#: Colours of the agents' marks (component classes ``sessions-list--agent-N``), by slot.
AGENT_COLOURS = 6
#: How often the rows of agents whose changes this screen does not take are looked at.
OTHER_AGENTS_POLL = 0.5
FILTER_PLACEHOLDER = "Filter sessions…"
#: With several agents the filter also takes ``@name`` (see acp_tui.session.directory).
AGENTS_FILTER_PLACEHOLDER = "Filter sessions… (@agent)"


def row_title(session: SessionState) -> str:
    """The row's title: the session title, else the first line of the first prompt, else
    ``"Untitled"``; sanitised and folded to one line."""
    for candidate in (session.title, session.first_prompt):
        if candidate:
            line = one_line(candidate, 500)
            if line:
                return line
    return "Untitled"


def shorten_path(path: str, home: str | None, limit: int) -> str:
    """``path`` with the home directory as ``~``, cut from the left (``…/tail``) to ``limit``
    cells; sanitised (agents send cwds)."""
    p = one_line(path, 4096)
    if home and (p == home or p.startswith(home.rstrip(os.sep) + os.sep)):
        p = "~" + p[len(home.rstrip(os.sep)) :]
    if limit <= 0:
        return ""
    if cell_len(p) <= limit:
        return p
    tail = p
    while tail and cell_len(tail) > limit - 1:
        tail = tail[1:]
    return "…" + tail


def _fg(style: Style) -> Style:
    """A component style without its background (it is drawn over the row's own)."""
    return Style(
        color=style.color,
        bold=style.bold,
        italic=style.italic,
        dim=style.dim,
        underline=style.underline,
        reverse=style.reverse,
    )


class SessionList(CachedBaseStyle, ScrollView, can_focus=True):
    """The virtualised rows of a :class:`SessionsSidebar` (Line API: ``render_line`` draws only
    what is visible). Owned by the sidebar; use the sidebar's API."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sessions-list--title",
        "sessions-list--current",
        "sessions-list--meta",
        "sessions-list--closed",
        "sessions-list--busy",
        "sessions-list--attention",
        "sessions-list--bar",
        "sessions-list--context",
        "sessions-list--cursor",
        "sessions-list--cursor-focused",
        "sessions-list--footer",
        "sessions-list--error",
        *STATUS_COMPONENTS,
        *(f"sessions-list--agent-{i}" for i in range(AGENT_COLOURS)),
    }

    DEFAULT_CSS = """
    SessionList {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        background: $surface;
        & > .sessions-list--title { color: $foreground; }
        & > .sessions-list--current { color: $foreground; text-style: bold; }
        & > .sessions-list--meta { color: $text-muted; }
        & > .sessions-list--closed { color: $text-disabled; }
        & > .sessions-list--busy { color: $text-warning; text-style: bold; }
        & > .sessions-list--attention { color: $text-error; text-style: bold; }
        & > .sessions-list--bar { color: $accent; text-style: bold; }
        & > .sessions-list--context { color: $text-secondary; }
        & > .sessions-list--cursor { background: $primary 20%; }
        & > .sessions-list--cursor-focused { background: $primary 50%; }
        & > .sessions-list--footer { color: $text-muted; text-style: italic; }
        & > .sessions-list--error { color: $text-error; }
        & > .sessions-list--unread { color: $text-success; text-style: bold; }
        & > .sessions-list--failed { color: $text-error; text-style: bold; }
        & > .sessions-list--agent-0 { color: $text-accent; }
        & > .sessions-list--agent-1 { color: $text-success; }
        & > .sessions-list--agent-2 { color: $text-primary; }
        & > .sessions-list--agent-3 { color: $text-error; }
        & > .sessions-list--agent-4 { color: $text-secondary; }
        & > .sessions-list--agent-5 { color: $text-warning; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False, id="sidebar-up"),
        Binding("down", "cursor_down", "Down", show=False, id="sidebar-down"),
        Binding("pageup", "page_up", "Page up", show=False, id="sidebar-page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="sidebar-page-down"),
        Binding("home", "first", "First", show=False, id="sidebar-first"),
        Binding("end", "last", "Last", show=False, id="sidebar-last"),
        Binding("enter", "open", "Open", show=False, id="sidebar-open"),
        Binding("escape", "leave", "Back to the prompt", show=False, id="sidebar-leave"),
    ]

    def __init__(self, sidebar: SessionsSidebar, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sidebar = sidebar
        self.rows: list[SessionState] = []
        #: The agent key of each row when the rows are of several agents (else empty).
        self.row_agents: list[str] = []
        self.cursor = -1
        self.footer: str | None = None
        self.footer_is_error = False
        #: What each line (by its number in the list, not on screen) looked like when last
        #: drawn: a change repaints only the lines that now look different.
        self._drawn: dict[int, Strip] = {}

    # -- data --------------------------------------------------------------------------------
    @property
    def line_count(self) -> int:
        return len(self.rows) * ROW_HEIGHT + (1 if self.footer else 0)

    def set_rows(
        self,
        rows: list[SessionState],
        *,
        keep_id: str | None,
        footer: str | None,
        footer_is_error: bool = False,
        to_top: bool = False,
        agents: list[str] | None = None,
        keep_agent: str | None = None,
    ) -> None:
        """Replace the rows; the cursor stays on ``keep_id`` when it is still there (and, unless
        the list is scrolled to the top, on the same screen line). ``to_top``: a new view
        (filter or scope changed): when ``keep_id`` is gone, start at the first row."""
        prev_cursor = self.cursor
        prev_scroll = round(self.scroll_y)
        old_cursor = 0 if to_top else prev_cursor
        old_screen_line = old_cursor * ROW_HEIGHT - round(self.scroll_y)
        was_visible = old_cursor >= 0 and 0 <= old_screen_line < max(1, self.size.height)
        self.rows = rows
        self.row_agents = agents or []
        self.footer = footer
        self.footer_is_error = footer_is_error
        cursor = -1
        if keep_id is not None:
            for i, s in enumerate(rows):
                if s.id == keep_id and (
                    keep_agent is None or not self.row_agents or self.row_agents[i] == keep_agent
                ):
                    cursor = i
                    break
        if cursor < 0 and rows:
            cursor = min(max(old_cursor, 0), len(rows) - 1)
        self.cursor = cursor
        self.virtual_size = Size(0, self.line_count)
        if to_top:
            self.scroll_to(y=0, animate=False, immediate=True)
            if cursor > 0:
                self.scroll_to_region(
                    Region(0, cursor * ROW_HEIGHT, 1, ROW_HEIGHT), animate=False, immediate=True
                )
        elif cursor >= 0 and was_visible and self.scroll_y > 0 and cursor != prev_cursor:
            self.scroll_to(
                y=max(0, cursor * ROW_HEIGHT - old_screen_line), animate=False, immediate=True
            )
        if round(self.scroll_y) != prev_scroll:
            self.refresh()
        else:
            self.refresh_changed()

    def refresh_changed(self) -> None:
        """Repaint the lines in view that would now be drawn differently, and only those.

        The list changes at every store change that a row shows (a running session's usage,
        its state, a title): repainting all of it made every frame of a streaming reply redraw
        the whole height of the screen beside the transcript, the sidebar included."""
        height = self.scrollable_content_region.height
        if not self._drawn or height <= 0:
            self.refresh()
            return
        top = round(self.scroll_y)
        start = None  # the first of a run of changed lines
        for line in range(top, top + height):
            if self._drawn.get(line) != self._line(line):
                if start is None:
                    start = line
            elif start is not None:
                self.refresh_lines(start, line - start)
                start = None
        if start is not None:
            self.refresh_lines(start, top + height - start)

    @property
    def highlighted(self) -> SessionState | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    def agent_of(self, row: int) -> str | None:
        """The agent key of row ``row`` when the rows are of several agents, else None."""
        if 0 <= row < len(self.row_agents):
            return self.row_agents[row]
        return None

    def last_visible_row(self) -> int:
        bottom = round(self.scroll_y) + max(self.scrollable_content_region.height, 1)
        return (bottom - 1) // ROW_HEIGHT

    def near_end(self, rows: int = NEAR_END_ROWS) -> bool:
        """True when the cursor or the bottom of the viewport is within ``rows`` of the end."""
        last = len(self.rows) - 1
        return self.cursor >= last - rows or self.last_visible_row() >= last - rows

    # -- cursor ------------------------------------------------------------------------------
    def move_cursor(self, index: int) -> None:
        if not self.rows:
            return
        index = max(0, min(index, len(self.rows) - 1))
        if index != self.cursor:
            self.cursor = index
            self.refresh()
        self.scroll_to_region(
            Region(0, index * ROW_HEIGHT, 1, ROW_HEIGHT), animate=False, immediate=True
        )
        self.sidebar._cursor_moved()

    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height // ROW_HEIGHT)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor - self._page_rows())

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor + self._page_rows())

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self.rows) - 1)

    def action_open(self) -> None:
        self.sidebar.open_highlighted()

    def action_leave(self) -> None:
        self.sidebar.post_message(self.sidebar.Leave())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.sidebar._scrolled()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = (offset.y + round(self.scroll_y)) // ROW_HEIGHT
        if 0 <= row < len(self.rows):
            event.stop()
            self.move_cursor(row)
            self.sidebar.open_highlighted()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- rendering ---------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        line = round(self.scroll_y) + y
        strip = self._line(line)
        if len(self._drawn) > DRAWN_LINES_KEPT:
            self._drawn.clear()
        self._drawn[line] = strip
        return strip

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        if not regions and repaint:
            self._drawn.clear()  # all of it is drawn again: what it looked like is moot
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _line(self, line: int) -> Strip:
        """Line ``line`` of the list (counted from its top, not the screen's)."""
        width = self.scrollable_content_region.width
        base = self.base_style
        row, sub = divmod(line, ROW_HEIGHT)
        if row < len(self.rows):
            return self._render_row(
                self.rows[row], sub, width, row == self.cursor, self.agent_of(row)
            )
        if self.footer and line == len(self.rows) * ROW_HEIGHT:
            name = "sessions-list--error" if self.footer_is_error else "sessions-list--footer"
            text = Text("  ", style=base, end="")
            text.append(self.footer, style=_fg(self.get_component_rich_style(name)))
            text.truncate(width, overflow="ellipsis")
            return self._strip(text, width, base)
        return Strip.blank(width, base)

    def _strip(self, text: Text, width: int, style: Style) -> Strip:
        segments = [s for s in text.render(self.app.console) if s.text != "\n"]
        return Strip(segments).extend_cell_length(width, style).crop(0, width)

    def _agent_mark(self, agent: str | None) -> Text | None:
        """The row's agent, in its colour (a theme variable by slot), when the list shows
        several agents: its short name is data, drawn as plain text."""
        directory = self.sidebar.directory
        if agent is None or directory is None:
            return None
        slot = directory.slot_of(agent) % AGENT_COLOURS
        style = _fg(self.get_component_rich_style(f"sessions-list--agent-{slot}"))
        return Text(directory.name_of(agent), style=style, end="", no_wrap=True)

    def _abilities_known(self, agent: str | None) -> bool:
        """Whether the row's agent has said what it can do (``initialize``): until then a
        row says nothing of whether it can be reopened. Every row read "can't reopen" while
        OpenCode took its 5-9 s to start."""
        directory = self.sidebar.directory
        store = directory.store_of(agent) if agent is not None and directory else None
        if store is None:
            store = self.sidebar.store
        return store is None or store.capabilities_known

    def _render_row(
        self, s: SessionState, sub: int, width: int, is_cursor: bool, agent: str | None = None
    ) -> Strip:
        sidebar = self.sidebar
        style = self.get_component_rich_style
        base = self.base_style
        if is_cursor:
            focused = self.has_focus or sidebar.filter_has_focus
            name = "sessions-list--cursor-focused" if focused else "sessions-list--cursor"
            cursor_bg = style(name).bgcolor
            if cursor_bg is not None:
                base = base + Style(bgcolor=cursor_bg)
        reopenable = s.live or s.resumable or not self._abilities_known(agent)
        text = Text(style=base, end="", no_wrap=True)
        if sub == 0:
            current = s.id == sidebar.current_session_id
            text.append(CURRENT_BAR if current else " ", style=_fg(style("sessions-list--bar")))
            status = row_status(s, sidebar.now())
            if status is not None:
                text.append(status.glyph, style=_fg(style(status.component)))
            elif not reopenable:
                text.append(CLOSED_GLYPH, style=_fg(style("sessions-list--closed")))
            else:
                text.append(" ")
            text.append(" ")
            if current:
                title_style = style("sessions-list--current")
            elif reopenable:
                title_style = style("sessions-list--title")
            else:
                title_style = style("sessions-list--closed")
            title = Text(row_title(s), style=_fg(title_style), end="", no_wrap=True)
            title.truncate(max(width - 3, 0), overflow="ellipsis")
            text.append_text(title)
            return self._strip(text, width, base)
        right = ""
        right_style = _fg(style("sessions-list--context"))
        ctx = s.context
        if ctx is not None and s.live and ctx.fraction is not None:
            # As the gauge says it: "<1%" for a little, never rounded up to a threshold.
            right = format_percent(ctx.used, ctx.size)
        elif not reopenable:
            right = "can't reopen"
            right_style = _fg(style("sessions-list--closed"))
        avail = max(width - 3 - (cell_len(right) + 1 if right else 0), 0)
        status = row_status(s, sidebar.now())
        mark = self._agent_mark(agent)
        if mark is not None:
            mark.truncate(avail, overflow="ellipsis")
            avail = max(avail - mark.cell_len - 1, 0)
        left = relative_time(s.updated_ts, sidebar.now(), tz=sidebar.tz)
        if s.cwd and s.cwd != sidebar.cwd:
            room = avail - (cell_len(left) + 3 if left else 0)
            if room >= 6:
                short = shorten_path(s.cwd, sidebar.home, room)
                left = f"{left} · {short}" if left else short
        meta = Text(left, style=_fg(style("sessions-list--meta")), end="", no_wrap=True)
        if status is not None:
            # What goes on now before when it last changed.
            meta = Text(status.text, style=_fg(style(status.component)), end="", no_wrap=True)
            if left and status.with_time:
                meta.append(f" · {left}", style=_fg(style("sessions-list--meta")))
        meta.truncate(avail, overflow="ellipsis")
        text.append("   ")
        if mark is not None:
            text.append_text(mark)
            text.append(" ")
        text.append_text(meta)
        if right:
            pad = width - 3 - meta.cell_len - cell_len(right)
            if mark is not None:
                pad -= mark.cell_len + 1
            if pad >= 1:
                text.append(" " * pad)
                text.append(right, style=right_style)
        return self._strip(text, width, base)


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

    Attributes set by the screen: :attr:`store`, :attr:`cwd`, :attr:`current_session_id`
    (each setter schedules a refresh). ``now`` (a clock returning POSIX seconds), ``tz`` and
    ``home`` are injectable for tests.
    """

    class Open(Message):
        """Enter or a click on a row: open this session, of the agent ``agent_key`` (the
        sidebar's :attr:`agent_key`, i.e. the screen's agent, unless the row is another's)."""

        def __init__(self, session_id: str, agent_key: str | None = None) -> None:
            super().__init__()
            self.session_id = session_id
            self.agent_key = agent_key

    class NewSession(Message):
        """The person asked for a new session (``n``)."""

    class Leave(Message):
        """Escape in the list: the person is done here (the screen focuses the prompt)."""

    class LoadMore(Message):
        """Please send ``session/list`` for ``cwd`` (``None`` = all directories) with
        ``cursor`` (``None`` = first page), of the archived sessions with ``archived``,
        apply the result with ``store.apply_list_page(result, cwd=cwd, cursor=cursor,
        archived=archived)``, then set ``sidebar.loading = False`` (or
        ``set_loading(False, error=...)``). ``agent_key``: the agent to ask when the list
        shows several (``None``: the screen's own); answer with
        ``set_loading(False, error=..., agent_key=agent_key)``."""

        def __init__(
            self,
            cwd: str | None,
            cursor: str | None = None,
            archived: bool = False,
            agent_key: str | None = None,
        ):
            super().__init__()
            self.cwd = cwd
            self.cursor = cursor
            self.archived = archived
            self.agent_key = agent_key

    class Branch(Message):
        """``b`` on a row: branch (fork) this session."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    class Rename(Message):
        """``e`` on a row: give this session a title."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    class Archive(Message):
        """``x`` on a row: archive it (``archived``) or bring it back from the archive."""

        def __init__(self, session_id: str, archived: bool) -> None:
            super().__init__()
            self.session_id = session_id
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
        self._store = store
        self._cwd = cwd
        self._current_session_id = current_session_id
        self.now = now
        self.tz = tz
        self.home = home if home is not None else os.path.expanduser("~")
        self._scope: Scope = "cwd"
        #: The archived sessions are shown instead of the others.
        self._archived = False
        self._offered: tuple[bool, bool, bool] | None = None
        self._filter = ""
        self._loading = False
        self._error: str | None = None
        self._cursor_id: str | None = None
        self._refresh_scheduled = False
        self._requested: tuple[str | None, int, str | None, bool] | None = None
        self._new_view = False
        self._connecting = True
        #: The sessions of every agent of the workspace (the screen sets it): shown merged
        #: once there is more than one agent; with one, the rows are :attr:`store`'s as ever.
        self.directory: SessionDirectory | None = None
        #: The screen's agent (the key of :attr:`store`'s agent in the workspace).
        self.agent_key: str | None = None
        self._cursor_agent: str | None = None
        #: Several agents: those with a page on its way, those whose last request failed,
        #: and what was asked of each (never the same page twice for nothing).
        self._loading_agents: set[str] = set()
        self._agent_errors: dict[str, str] = {}
        self._requested_of: dict[str, PageRequest] = {}
        self._seen_version: object = None
        #: What the rows were last built from (:meth:`_shown_state`): a refresh that would
        #: build the same rows is skipped (a start asked for seven rebuilds; three show news).
        self._built_from: object = None
        self.session_list = SessionList(self, id="sidebar-list")
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

    # -- attributes the screen sets ---------------------------------------------------------
    @property
    def store(self) -> SessionStore | None:
        return self._store

    @store.setter
    def store(self, store: SessionStore | None) -> None:
        self._store = store
        self._requested = None
        self.refresh_rows()

    @property
    def cwd(self) -> str | None:
        """The current working directory (the default scope; rows elsewhere show their cwd)."""
        return self._cwd

    @cwd.setter
    def cwd(self, cwd: str | None) -> None:
        self._cwd = cwd
        self._requested = None
        self.refresh_rows()

    @property
    def current_session_id(self) -> str | None:
        return self._current_session_id

    @current_session_id.setter
    def current_session_id(self, session_id: str | None) -> None:
        if session_id != self._current_session_id:
            self._current_session_id = session_id
            if session_id is not None:
                self._cursor_id = session_id
                self._cursor_agent = self.agent_key
            self.refresh_rows()

    @property
    def loading(self) -> bool:
        """True while a :class:`LoadMore` is outstanding (shows the "loading more…" row)."""
        return self._loading or bool(self._loading_agents)

    @loading.setter
    def loading(self, value: bool) -> None:
        self.set_loading(value)

    def set_loading(
        self, loading: bool, error: str | None = None, *, agent_key: str | None = None
    ) -> None:
        """The screen answers a :class:`LoadMore`: ``False`` once the page was applied, with
        ``error`` when the request failed (shown in the list; ``r`` retries); ``agent_key``:
        that of the :class:`LoadMore` answered, when it had one."""
        if agent_key is not None:
            self._set_agent_loading(agent_key, loading, error)
            return
        self._loading = loading
        self._error = None if loading else error
        self.refresh_rows()

    @property
    def connecting(self) -> bool:
        """True while the agent is starting (the screen sets it): until the store knows the
        agent's capabilities, the list says "connecting…" rather than guessing."""
        return self._connecting

    @connecting.setter
    def connecting(self, value: bool) -> None:
        if value != self._connecting:
            self._connecting = value
            self.refresh_rows()

    # -- reading -----------------------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        """``"cwd"`` (this directory) or ``"all"``."""
        return self._scope

    @property
    def showing_archived(self) -> bool:
        return self._archived

    @property
    def scope_cwd(self) -> str | None:
        """The ``cwd`` of the scope shown (``None`` for all directories)."""
        return self._cwd if self._scope == "cwd" else None

    @property
    def filter_text(self) -> str:
        return self._filter

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
        s = self.session_list.highlighted
        if s is None or not self._own_row(self.session_list.cursor):
            return None
        return s.id

    def highlighted_agent_key(self) -> str | None:
        """The agent of the highlighted row (the screen's agent unless it is another's)."""
        return self.session_list.agent_of(self.session_list.cursor) or self.agent_key

    def _own_row(self, row: int) -> bool:
        agent = self.session_list.agent_of(row)
        return agent is None or agent == self.agent_key

    @property
    def several_agents(self) -> bool:
        """The list shows the sessions of more than one agent."""
        return self.directory is not None and len(self.directory) > 1

    @staticmethod
    def wants(changes: Changes) -> bool:
        """Whether a :class:`~acp_tui.store.Changes` concerns the sidebar (catalog, titles,
        activity, usage, cwd...)."""
        if changes.catalog_changed:
            return True
        return any(not parts.isdisjoint(SIDEBAR_PARTS) for parts in changes.sessions.values())

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

    # -- actions -----------------------------------------------------------------------------
    def toggle_scope(self) -> None:
        """Switch between this directory's sessions and all directories."""
        self._scope = "all" if self._scope == "cwd" else "cwd"
        self._requested = None
        self._new_view = True
        self.refresh_rows()

    def toggle_archived(self) -> None:
        """Switch between the archived sessions and the others."""
        self._archived = not self._archived
        self.refresh_bindings()
        self._requested = None
        self._error = None
        self._new_view = True
        self.refresh_rows()

    def action_toggle_archived(self) -> None:
        self.toggle_archived()

    def _highlighted_id(self) -> str | None:
        """The highlighted session, to branch / rename / archive: those go to the screen's
        agent, so a row of another agent says to open it first."""
        s = self.session_list.highlighted
        if s is None:
            return None
        if not self._own_row(self.session_list.cursor):
            self.notify("Open the session first: this acts on the agent on screen.")
            return None
        return s.id

    def action_branch(self) -> None:
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Branch(session_id))

    def action_rename(self) -> None:
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Rename(session_id))

    def action_archive(self) -> None:
        """Archive the highlighted session; in the archived view, bring it back."""
        session_id = self._highlighted_id()
        if session_id is not None:
            self.post_message(self.Archive(session_id, not self._archived))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        store = self._store
        if self._filter_input.value and self._on_a_character(action):
            # A filter being typed from the list: its letters are the filter's ("renamed"
            # lost its r, e, n and a to Retry, Rename, New session and All dirs).
            return False
        if action == "retry_load":
            # Nothing to retry: the letter is typing (it was eaten whatever the list showed).
            return bool(self._error or self._agent_errors)
        if action == "branch":
            return store is not None and store.can_fork
        if action == "archive":
            return store is not None and store.can_archive
        if action == "toggle_archived":
            return self._archived or (store is not None and store.can_archive and store.can_list)
        return True

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
        self._apply_filter(text)

    def _apply_filter(self, text: str) -> None:
        if text != self._filter:
            self._filter = text
            self._requested = None
            self._new_view = True
            self._cursor_id = None
            self._cursor_agent = None
            self.refresh_rows()

    def open_highlighted(self) -> None:
        s = self.session_list.highlighted
        if s is not None:
            self.post_message(self.Open(s.id, self.highlighted_agent_key()))

    def action_toggle_scope(self) -> None:
        self.toggle_scope()

    def action_new_session(self) -> None:
        self.post_message(self.NewSession())

    def action_focus_filter(self) -> None:
        # At once: the keys typed right after "/" must find the box focused.
        self.screen.set_focus(self._filter_input)

    def typing_target(self) -> Input:
        """Where typing goes when the list has the focus and the key is not one of its own:
        the filter (type to filter)."""
        return self._filter_input

    def reload(self) -> None:
        """Ask for the first page again: sessions made elsewhere appear, listed titles catch
        up. Rows already listed stay while the answer is on its way (live titles keep
        priority, see :meth:`SessionStore.apply_list_page`). Only while shown."""
        store = self._store
        if self.several_agents and self.is_mounted and self.display:
            self._reload_agents()
        if store is None or not store.can_list or self._loading:
            return
        if not self.is_mounted or not self.display:
            return
        self._error = None
        self._requested = (self.scope_cwd, -1, None, self._archived)
        self._loading = True
        self.post_message(self.LoadMore(self.scope_cwd, None, self._archived))
        self.refresh_rows()

    def action_retry_load(self) -> None:
        self._requested = None
        self._error = None
        self._agent_errors.clear()
        self._requested_of.clear()
        self.refresh_rows()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self._filter_input:
            event.stop()
            # The box's value now, not the event's: typing queues one event per key, and
            # writing an older event's value back into the box made them chase each other
            # for ever (the filter never applied, the typed text came out scrambled).
            self._apply_filter(self._filter_input.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self._filter_input:
            event.stop()
            self.open_highlighted()

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
        self._built_from = None
        self._rebuild()

    def _shown_state(self) -> tuple[object, ...]:
        """Everything the rows, footer and header are built from: the stores' versions (which
        grow with every change a list shows) and the sidebar's own state."""
        store = self._store
        directory = self.directory
        return (
            id(store),
            store.version if store is not None else None,
            (store.capabilities_known, store.can_list) if store is not None else None,
            directory.version() if self.several_agents and directory is not None else None,
            self._scope,
            self._archived,
            self._filter,
            self._cwd,
            self._current_session_id,
            self._cursor_id,
            self._cursor_agent,
            self.agent_key,
            self._connecting,
            self._loading,
            self._error,
            self._new_view,
            frozenset(self._loading_agents),
            tuple(self._agent_errors.items()),
        )

    def _rebuild(self) -> None:
        self._refresh_scheduled = False
        shown = self._shown_state()
        if shown == self._built_from:
            # Nothing shown changed; a page may still be wanted (the list was just shown).
            self._maybe_load_more()
            return
        self._built_from = shown
        several = self.several_agents
        placeholder = AGENTS_FILTER_PLACEHOLDER if several else FILTER_PLACEHOLDER
        if self._filter_input.placeholder != placeholder:
            self._filter_input.placeholder = placeholder
        if several:
            self._rebuild_merged()
            return
        store = self._store
        scope = self.scope_cwd
        lst = self.session_list
        archived = self._archived
        if store is None:
            rows: list[SessionState] = []
        elif self._filter.strip():
            rows = store.search(self._filter, scope, archived=archived)
        else:
            rows = store.catalog(scope, archived=archived)
        self._show_capabilities(
            known=store is not None and store.capabilities_known,
            can_list=store is not None and store.can_list,
        )
        footer, is_error = self._footer(
            loading=self._loading,
            errors=[one_line(self._error, 200)] if self._error else [],
            stopped=store.list_state(scope, archived=archived).stopped
            if store is not None
            else None,
            empty=not rows and store is not None,
        )
        keep = self._cursor_id
        if keep is None and not self._filter.strip():
            keep = self._current_session_id
        to_top, self._new_view = self._new_view, False
        lst.set_rows(rows, keep_id=keep, footer=footer, footer_is_error=is_error, to_top=to_top)
        self._seen_version = None
        highlighted = lst.highlighted
        if highlighted is not None and keep is not None and highlighted.id == keep:
            # A session to keep that is not listed yet (a new one just opened) stays the one
            # to keep: the highlight goes to it once it is listed. Until the person moves the
            # highlight or opens a session, none is kept: it stays on the first row, the most
            # recent, as pages arrive (it stuck to the first row of the local index, listed
            # first, and --resume offered that instead of the agent's newest session).
            self._cursor_id = highlighted.id
        self._update_header(store, scope, len(rows))
        self._maybe_load_more()

    def _show_capabilities(self, *, known: bool, can_list: bool) -> None:
        """The keys shown follow what the screen's agent turned out to support; the hint says
        when no agent shown can list (``known``, ``can_list``: of every agent shown)."""
        store = self._store
        offered = (store.can_fork, store.can_archive, store.can_list) if store is not None else None
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()
        self.set_class(known and not can_list, "-no-list")

    def _footer(
        self, *, loading: bool, errors: list[str], stopped: str | None, empty: bool
    ) -> tuple[str | None, bool]:
        """The list's last row, and whether it is an error: one agent's or several agents'."""
        store = self._store
        if store is not None and not store.capabilities_known and self._connecting:
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
            if self._filter.strip():
                return "no matches", False
            return ("no archived sessions" if self._archived else "no sessions yet"), False
        return None, False

    def _update_header(
        self,
        store: SessionStore | None,
        scope: str | None,
        count: int,
        complete: bool | None = None,
    ) -> None:
        where = "this folder" if self._scope == "cwd" else "all folders"
        more = ""
        archived = self._archived
        if complete is not None:
            more = "" if complete else "+"
        elif (
            store is not None
            and store.can_list
            and not store.list_state(scope, archived=archived).complete
        ):
            more = "+"
        label = f"{'Archived' if archived else 'Sessions'} · {where} ({count}{more})"
        if self._filter.strip():
            label = f"Matches in {where}: {count}{more}"
        if label != self._header_label:  # unchanged, it would still repaint its row
            self._header_label = label
            self._header.update(Text(label, no_wrap=True, overflow="ellipsis"))

    def _cursor_moved(self) -> None:
        s = self.session_list.highlighted
        if s is not None:
            self._cursor_id = s.id
            self._cursor_agent = self.highlighted_agent_key()
        self._maybe_load_more()

    def _scrolled(self) -> None:
        self._maybe_load_more()

    def _maybe_load_more(self) -> None:
        """Post :class:`LoadMore` for the next page when one is wanted and none is pending:
        the scope has no page yet, or the view is near the end, or a filter is active (so
        matches keep paging in), and the scope is not complete."""
        if self.several_agents:
            self._load_more_merged()
            return
        store = self._store
        if store is None or not store.can_list or self._loading or self._error:
            return
        if not self.is_mounted or not self.display:
            return
        scope = self.scope_cwd
        archived = self._archived
        if archived and not store.can_archive:
            return
        st = store.list_state(scope, archived=archived)
        if st.pages and (st.complete or st.next_cursor is None):
            return
        want = st.pages == 0 or bool(self._filter.strip()) or self.session_list.near_end()
        if not want:
            return
        key = (scope, st.pages, st.next_cursor, archived)
        if key == self._requested:
            return  # asked for exactly this page already and nothing arrived: do not spin
        self._requested = key
        self._loading = True
        self.post_message(self.LoadMore(scope, st.next_cursor if st.pages else None, archived))
        self.refresh_rows()

    # -- several agents (the session browser across agents) ------------------------------------
    def _merged_rows(self) -> DirectoryRows:
        assert self.directory is not None
        return self.directory.rows(self.scope_cwd, archived=self._archived, text=self._filter)

    def _rebuild_merged(self) -> None:
        """The rows of every agent, merged (:class:`SessionDirectory`), each with its agent:
        the same footers, header and highlight rules as one agent's list."""
        directory = self.directory
        assert directory is not None
        store = self._store
        lst = self.session_list
        merged = self._merged_rows()
        self._seen_version = directory.version()
        sources = directory.sources()
        self._show_capabilities(
            known=all(source.store.capabilities_known for source in sources),
            can_list=any(source.store.can_list for source in sources),
        )
        footer, is_error = self._footer(
            loading=bool(self._loading_agents),
            errors=[
                f"{directory.name_of(key)}: {one_line(error, 200)}"
                for key, error in self._agent_errors.items()
            ],
            stopped=merged.stopped,
            empty=not merged.sessions,
        )
        keep, keep_agent = self._cursor_id, self._cursor_agent
        if keep is None and not self._filter.strip():
            keep, keep_agent = self._current_session_id, self.agent_key
        to_top, self._new_view = self._new_view, False
        lst.set_rows(
            merged.sessions,
            keep_id=keep,
            footer=footer,
            footer_is_error=is_error,
            to_top=to_top,
            agents=merged.keys,
            keep_agent=keep_agent,
        )
        highlighted = lst.highlighted
        if highlighted is not None and keep is not None and highlighted.id == keep:
            # As for one agent's list: nothing kept until the person chooses.
            self._cursor_id = highlighted.id
            self._cursor_agent = lst.agent_of(lst.cursor)
        self._update_header(store, self.scope_cwd, len(merged), merged.complete)
        self._maybe_load_more()

    def _load_more_merged(self) -> None:
        """Ask for the pages the merged view needs (first pages of every agent, then the next
        ones near the end), one :class:`LoadMore` per agent, never twice the same one."""
        directory = self.directory
        if directory is None or not self.is_mounted or not self.display:
            return
        wanted = directory.pages_wanted(
            self.scope_cwd,
            archived=self._archived,
            text=self._filter,
            near_end=self.session_list.near_end(),
            busy=self._loading_agents | set(self._agent_errors),
        )
        asked = False
        for request in wanted:
            if self._requested_of.get(request.key) == request:
                continue  # asked for exactly this page already and nothing came: no spin
            self._requested_of[request.key] = request
            self._loading_agents.add(request.key)
            self.post_message(
                self.LoadMore(request.cwd, request.cursor, request.archived, request.key)
            )
            asked = True
        if asked:
            self.refresh_rows()

    def _reload_agents(self) -> None:
        """Ctrl+B with several agents: every agent's first page again (see :meth:`reload`),
        but the screen's own, which :meth:`reload` asks for as ever."""
        directory = self.directory
        if directory is None:
            return
        for source in directory.sources():
            key = source.key
            if key == self.agent_key or key in self._loading_agents:
                continue
            if not source.store.can_list:
                continue
            request = PageRequest(key, self.scope_cwd, None, self._archived)
            self._agent_errors.pop(key, None)
            self._requested_of[key] = request
            self._loading_agents.add(key)
            self.post_message(self.LoadMore(request.cwd, None, request.archived, key))
        self.refresh_rows()

    def _set_agent_loading(self, agent_key: str, loading: bool, error: str | None) -> None:
        if loading:
            self._loading_agents.add(agent_key)
        else:
            self._loading_agents.discard(agent_key)
        if error:
            self._agent_errors[agent_key] = error
        else:
            self._agent_errors.pop(agent_key, None)
        self.refresh_rows()

    def _check_other_agents(self) -> None:
        """The stores of other agents change without this screen taking their changes (a
        page, a title, a session of theirs): rebuild when any of them moved on."""
        directory = self.directory
        if directory is None or not self.display or self._refresh_scheduled:
            return
        if not self.several_agents:
            if self._seen_version is not None:  # down to one agent: back to its own rows
                self.refresh_rows()
            return
        if directory.version() != self._seen_version:
            self.refresh_rows()
