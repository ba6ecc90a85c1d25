"""The sessions sidebar's rows: :class:`SessionList`, a virtualised Line-API list (two lines
per session, only the visible lines are ever rendered, no widget per row), so thousands of
sessions scroll smoothly.

It draws what the sidebar's model holds (:class:`~acp_tui.ui.models.sidebar.SidebarModel`: the
session on screen, the agents of the rows, what each store knows) and the rows the sidebar
gives it (:meth:`SessionList.set_rows`); it tells the sidebar, through the callables it was
given, that the highlight moved or the list scrolled (a page may be wanted), and that the
person chose a row or left.

Everything the agent sends (titles, cwds) is sanitised and drawn as plain Rich ``Text``: no
markup or escape sequence is interpreted, long values are cut with an ellipsis.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import tzinfo
from typing import ClassVar, Self

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.store import SessionState, SubagentCard
from acp_tui.text.relative_time import relative_time
from acp_tui.text.safety import one_line
from acp_tui.text.usage import format_percent
from acp_tui.ui.models.sidebar import SidebarModel
from acp_tui.ui.widgets.base_style import CachedBaseStyle
from acp_tui.ui.widgets.session_status import STATUS_COMPONENTS, row_status

__all__ = ["CLOSED_GLYPH", "ROW_HEIGHT", "SessionList", "row_title", "shorten_path"]

#: Lines per session row: title line, then time / cwd / context line.
ROW_HEIGHT = 2
#: Lines of the list whose last drawing is kept to compare with (a few screens' worth).
DRAWN_LINES_KEPT = 400
#: Ask for the next page when the cursor or the viewport's last row is this close to the end.
NEAR_END_ROWS = 10
CLOSED_GLYPH = "⊘"
CURRENT_BAR = "▎"
#: Colours of the agents' marks (component classes ``sessions-list--agent-N``), by slot.
AGENT_COLOURS = 6


def _nothing() -> None:
    return None


def row_title(session: SessionState) -> str:
    """The row's title: the session title, else the first line of the first prompt, else
    ``"Untitled"``; sanitised and folded to one line."""
    for candidate in (session.title, session.first_prompt):
        if candidate:
            line = one_line(candidate, 500)
            if line:
                return line
    return "Untitled"


def subagent_words(card: SubagentCard) -> str:
    """A subagent's row, second line, when nothing goes on in it: how it ended."""
    if card.status == "idle":
        return "subagent · cancelled" if card.stop_reason == "cancelled" else "subagent · done"
    return "subagent"


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
    """The virtualised rows of the sessions sidebar (Line API: ``render_line`` draws only what
    is visible). Owned by the sidebar; use the sidebar's API.

    ``model`` is the sidebar's; ``on_moved``, ``on_scrolled``, ``on_open`` and ``on_leave`` are
    the sidebar's (the highlight moved, the list scrolled, Enter or a click on a row, Escape);
    ``filter_focused`` says whether the sidebar's filter has the focus (the highlight shows as
    focused then too). ``now`` (a clock of POSIX seconds), ``tz`` and ``home`` are injectable
    for tests."""

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
        Binding("right", "fold(True)", "Subagents", show=False, id="sidebar-unfold"),
        Binding("left", "fold(False)", "Fold", show=False, id="sidebar-fold"),
        Binding("escape", "leave", "Back to the prompt", show=False, id="sidebar-leave"),
    ]

    def __init__(
        self,
        model: SidebarModel,
        *,
        on_moved: Callable[[], object] = _nothing,
        on_scrolled: Callable[[], object] = _nothing,
        on_open: Callable[[], object] = _nothing,
        on_leave: Callable[[], object] = _nothing,
        on_fold: Callable[[str, bool], object] = lambda session_id, open_it: None,
        filter_focused: Callable[[], bool] = lambda: False,
        now: Callable[[], float] = time.time,
        tz: tzinfo | None = None,
        home: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.model = model
        self.on_moved = on_moved
        self.on_scrolled = on_scrolled
        self.on_open = on_open
        self.on_leave = on_leave
        self.on_fold = on_fold
        self.filter_focused = filter_focused
        self.now = now
        self.tz = tz
        self.home = home if home is not None else os.path.expanduser("~")
        self.rows: list[SessionState] = []
        #: The agent key of each row when the rows are of several agents (else empty).
        self.row_agents: list[str] = []
        #: How deep each row is (0: a session; 1: a subagent under it...; empty: all 0).
        self.row_depths: list[int] = []
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
        depths: list[int] | None = None,
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
        self.row_depths = depths or []
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

    def ids_where(self, keep: Callable[[str | None], bool]) -> list[str]:
        """The ids of the rows whose agent (see :meth:`agent_of`) ``keep`` takes, in order."""
        return [s.id for i, s in enumerate(self.rows) if keep(self.agent_of(i))]

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
        self.on_moved()

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
        self.on_open()

    def action_leave(self) -> None:
        self.on_leave()

    def depth_of(self, row: int) -> int:
        return self.row_depths[row] if 0 <= row < len(self.row_depths) else 0

    def action_fold(self, open_it: bool) -> None:
        """Right: list the highlighted session's subagents under it; Left: fold them (on a
        subagent's row: go up to its parent's row and fold it)."""
        s = self.highlighted
        if s is None:
            return
        if not open_it and self.depth_of(self.cursor) > 0 and s.parent_id is not None:
            parent = next(
                (i for i in range(self.cursor - 1, -1, -1) if self.rows[i].id == s.parent_id), None
            )
            if parent is not None:
                self.move_cursor(parent)
            self.on_fold(s.parent_id, False)
            return
        if s.children:
            self.on_fold(s.id, open_it)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.on_scrolled()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = (offset.y + round(self.scroll_y)) // ROW_HEIGHT
        if 0 <= row < len(self.rows):
            event.stop()
            self.move_cursor(row)
            self.on_open()

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
                self.rows[row],
                sub,
                width,
                row == self.cursor,
                self.agent_of(row),
                self.depth_of(row),
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
        directory = self.model.directory
        if agent is None or directory is None:
            return None
        slot = directory.slot_of(agent) % AGENT_COLOURS
        style = _fg(self.get_component_rich_style(f"sessions-list--agent-{slot}"))
        return Text(directory.name_of(agent), style=style, end="", no_wrap=True)

    def _abilities_known(self, agent: str | None) -> bool:
        """Whether the row's agent has said what it can do (``initialize``): until then a
        row says nothing of whether it can be reopened. Every row read "can't reopen" while
        OpenCode took its 5-9 s to start."""
        directory = self.model.directory
        store = directory.store_of(agent) if agent is not None and directory else None
        if store is None:
            store = self.model.store
        return store is None or store.capabilities_known

    def _render_row(
        self,
        s: SessionState,
        sub: int,
        width: int,
        is_cursor: bool,
        agent: str | None = None,
        depth: int = 0,
    ) -> Strip:
        model = self.model
        style = self.get_component_rich_style
        base = self.base_style
        if is_cursor:
            focused = self.has_focus or self.filter_focused()
            name = "sessions-list--cursor-focused" if focused else "sessions-list--cursor"
            cursor_bg = style(name).bgcolor
            if cursor_bg is not None:
                base = base + Style(bgcolor=cursor_bg)
        reopenable = s.live or s.resumable or not self._abilities_known(agent)
        text = Text(style=base, end="", no_wrap=True)
        indent = "  " * depth
        if sub == 0:
            current = s.id == model.current_session_id
            text.append(CURRENT_BAR if current else " ", style=_fg(style("sessions-list--bar")))
            text.append(indent)
            status = row_status(s, self.now())
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
            shown = row_title(s) if s.card is None else "⧉ " + one_line(s.card.label, 500)
            title = Text(shown, style=_fg(title_style), end="", no_wrap=True)
            title.truncate(max(width - 3 - len(indent), 0), overflow="ellipsis")
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
        avail = max(width - 3 - len(indent) - (cell_len(right) + 1 if right else 0), 0)
        status = row_status(s, self.now())
        mark = self._agent_mark(agent)
        if mark is not None:
            mark.truncate(avail, overflow="ellipsis")
            avail = max(avail - mark.cell_len - 1, 0)
        left = relative_time(s.updated_ts, self.now(), tz=self.tz)
        if s.cwd and s.cwd != model.cwd:
            room = avail - (cell_len(left) + 3 if left else 0)
            if room >= 6:
                short = shorten_path(s.cwd, self.home, room)
                left = f"{left} · {short}" if left else short
        if s.card is not None:
            left = subagent_words(s.card)
        elif s.children:
            unfold = "▾" if s.id in model.expanded else "▸"
            count = len(s.children)
            left = f"{unfold} {count} subagent{'s' if count > 1 else ''}" + (
                f" · {left}" if left else ""
            )
        meta = Text(left, style=_fg(style("sessions-list--meta")), end="", no_wrap=True)
        if status is not None:
            # What goes on now before when it last changed.
            meta = Text(status.text, style=_fg(style(status.component)), end="", no_wrap=True)
            if left and status.with_time:
                meta.append(f" · {left}", style=_fg(style("sessions-list--meta")))
        meta.truncate(avail, overflow="ellipsis")
        text.append("   " + indent)
        if mark is not None:
            text.append_text(mark)
            text.append(" ")
        text.append_text(meta)
        if right:
            pad = width - 3 - len(indent) - meta.cell_len - cell_len(right)
            if mark is not None:
                pad -= mark.cell_len + 1
            if pad >= 1:
                text.append(" " * pad)
                text.append(right, style=right_style)
        return self._strip(text, width, base)
