"""The transcript: one view per store entry, refreshed at most once per frame.

The store says which entries changed (:class:`acp_tui.store.Changes`); each view compares the
entry's ``version`` with the one it drew and only then re-renders. Agent messages are drawn by
:class:`~acp_tui.ui.widgets.markdown_lines.MarkdownLines`, which renders each top-level block
once, so a streamed reply costs about what rendering it once costs.

Long sessions and huge replies stay cheap because the widget tree stays bounded and only what
is on screen is drawn: the transcript mounts views for the last :data:`WINDOW` entries only
(older ones wait behind a "show earlier" row, and a session that keeps growing while followed at
the bottom drops its oldest views), and a reply of any size is laid out as it arrives and drawn
where it is seen (:class:`MarkdownLines`). Nothing of a reply is ever folded away.

The views of the entries are in :mod:`~acp_tui.ui.widgets.transcript_views` and
:mod:`~acp_tui.ui.widgets.tool_call_view`. Every string from the agent is shown literally (``rich.text.Text``, never markup) after
:func:`acp_tui.text.safety.sanitize_terminal_text` removes escape sequences.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.store.entries import (
    Entry,
)
from acp_tui.ui.keymap import key_label
from acp_tui.ui.textual_patches import access
from acp_tui.ui.textual_patches.tall import with_coarse_grid
from acp_tui.ui.widgets.entry_view import EntryView
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.subagent_views import (
    SessionLookup,
)
from acp_tui.ui.widgets.tool_call_view import TerminalLookup, ToolCallView
from acp_tui.ui.widgets.transcript_views import ThoughtView, view_for

log = logging.getLogger(__name__)

#: Entries with a mounted view at most, while the person follows the bottom.
WINDOW = 60
#: How far past :data:`WINDOW` the view count may grow before the oldest views are dropped
#: (dropping in steps keeps it off the per-frame path).
WINDOW_SLACK = 40
#: Entries a "show earlier" press mounts.
EARLIER_STEP = 50
#: Entries with a view when a session is first shown: a screen's worth and more. The rest
#: of the window is mounted above them after the first frame, :data:`FILL_STEP` at a time, so
#: a resumed session of thousands of entries shows its last ones at once (mounting and laying
#: out all :data:`WINDOW` first took half a second on a 2-core machine).
FIRST_SHOWN = 12
#: Entries mounted per frame while the rest of the window fills in above.
FILL_STEP = 12


class FoldedText(Static, can_focus=True):
    """A row standing for content that is not mounted: Enter or a click shows it."""

    DEFAULT_CSS = """
    FoldedText { color: $text-muted; text-style: italic; padding: 0 1; }
    FoldedText:hover, FoldedText:focus { background: $boost; color: $text; }
    """
    BINDINGS = [Binding("enter", "unfold", "Show", id="show-folded")]

    class Unfold(Message):
        def __init__(self, row: FoldedText) -> None:
            super().__init__()
            self.row = row

    def on_click(self) -> None:
        self.action_unfold()

    def action_unfold(self) -> None:
        self.post_message(self.Unfold(self))


class Transcript(VerticalScroll):
    """The conversation of one session. Follows the bottom unless the person scrolled up.

    Only the last :data:`WINDOW` entries have views when a session is shown; a "show earlier"
    row on top mounts :data:`EARLIER_STEP` more at a time. While the person follows the
    bottom, views of entries older than the window are dropped again as the session grows."""

    # The scrollbar is always there: one that appears when the transcript first overflows
    # narrows every message by a column, and everything would be wrapped and drawn again.
    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-y: scroll; }
    Transcript.-hide-thoughts ThoughtView { display: none; }
    Transcript > .empty-hint { color: $text-muted; margin: 1 0; }
    Transcript > FoldedText.earlier-entries { margin: 1 0 0 0; display: none; }
    Transcript > FoldedText.earlier-entries.-folded { display: block; }
    """

    class Behind(Message):
        """New output arrived below the view (``behind``), or the view caught up again."""

        def __init__(self, transcript: Transcript, behind: bool) -> None:
            super().__init__()
            self.transcript = transcript
            self.behind = behind

        @property
        def control(self) -> Transcript:
            return self.transcript

    def __init__(
        self, *, id: str | None = None, terminal_lookup: TerminalLookup | None = None
    ) -> None:
        super().__init__(id=id)
        self.session_id: str | None = None
        #: Where tool calls find their terminals' output (handed to each tool call view).
        self.terminal_lookup = terminal_lookup
        #: Finds a session by id, for who sent a message between sessions (the screen's).
        self.session_lookup: SessionLookup | None = None
        self._views: dict[int, EntryView] = {}
        self._busy = False
        #: The entries last synced, and how many of the first ones have no view.
        self._entries: list[Entry] = []
        self._hidden = 0
        self._thoughts_expanded: bool | None = None
        self._earlier = FoldedText(classes="earlier-entries")
        #: Mounting awaits, and the screen syncs from its own task: one change at a time.
        self._lock = asyncio.Lock()
        #: Output arrived while the person was reading further up.
        self._behind = False
        #: Entries still to mount above, after a session was shown (see FIRST_SHOWN), and
        #: which showing they belong to (another one stops them).
        self._to_fill = 0
        self._shown_count = 0

    def compose(self) -> ComposeResult:
        yield self._earlier

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # As tall as every reply shown: see acp_tui.ui.textual_patches.tall.
        return with_coarse_grid(self, super().arrange(size, optimal))

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        """Whether the view sticks to the bottom (the person has not scrolled up)."""
        return self.is_anchored and not access.anchor_released(self)

    @property
    def behind(self) -> bool:
        """Whether output arrived below the view since the person scrolled up."""
        return self._behind

    def _set_behind(self, behind: bool) -> None:
        if behind != self._behind:
            self._behind = behind
            self.post_message(self.Behind(self, behind))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._behind and self.following:
            self._set_behind(False)

    def page(self, pages: int) -> None:
        """Scroll by ``pages`` screens (negative: up), as PgUp / PgDn do in the transcript."""
        height = max(1, self.scrollable_content_region.height - 1)
        self._scroll_by(pages * height)

    def _scroll_by(self, rows: float) -> None:
        """Up lets go of the bottom; down to (or past) the end follows it again. Textual's
        scroll_to lets go of it either way and takes it back only when the position changes
        to the end: a PgDn pressed at the end left the view behind the output after it."""
        if rows < 0:
            self.release_anchor()
        elif self.scroll_y + rows >= self.max_scroll_y:
            self.to_bottom()
            return
        self.scroll_to(y=self.scroll_y + rows, animate=False, immediate=True, release_anchor=False)

    # The keys of a focused transcript, as Textual's (a key it cannot use goes on up).
    def action_page_down(self) -> None:
        self._key_scroll(1, paged=True)

    def action_page_up(self) -> None:
        self._key_scroll(-1, paged=True)

    def action_scroll_down(self) -> None:
        self._key_scroll(1, paged=False)

    def action_scroll_up(self) -> None:
        self._key_scroll(-1, paged=False)

    def _key_scroll(self, direction: int, *, paged: bool) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        if paged:
            self.page(direction)
        else:
            self._scroll_by(direction)

    def to_top(self) -> None:
        self.release_anchor()
        self.scroll_home(animate=False, immediate=True)

    def to_bottom(self) -> None:
        """Jump to the newest output and follow it again."""
        self.anchor()
        self._set_behind(False)

    def action_scroll_home(self) -> None:
        """Home: the top at once (Textual animates Home for a second, through every row of a
        reply of megabytes on the way)."""
        self.to_top()

    def action_scroll_end(self) -> None:
        """End: the newest output at once, followed again."""
        self.to_bottom()

    def toggle_latest(self, kind: type[ThoughtView] | type[ToolCallView]) -> bool | None:
        """Expand the latest thought (or tool call's output) if collapsed, else collapse it.
        Returns whether it is now expanded; None when there is none."""
        for view in reversed(self._views.values()):
            if isinstance(view, kind):
                expanded = not view.expanded
                view.set_expanded(expanded)
                if not self.following:
                    self.call_after_refresh(view.scroll_visible, animate=False)
                return expanded
        return None

    async def show_session(self, session_id: str | None, entries: list[Entry]) -> None:
        """Replace everything with the transcript of ``session_id``."""
        async with self._lock:
            await self._show_session(session_id, entries)

    async def _show_session(self, session_id: str | None, entries: list[Entry]) -> None:
        # The same session shown afresh (its replay or a reload reset it) keeps the place of
        # someone reading further up, or of a search result shown; another starts at its end.
        keep = self._top_entry_id() if session_id == self.session_id else None
        self.session_id = session_id
        self.to_bottom()  # another session: nothing of it was read yet
        self._views.clear()
        await self.remove_children([c for c in self.children if c is not self._earlier])
        self._shown_count += 1
        self._hidden = max(0, len(entries) - FIRST_SHOWN)
        await self._sync_entries(entries, set())
        self.to_bottom()
        self._to_fill = min(self._hidden, WINDOW - FIRST_SHOWN)
        position = next((n for n, entry in enumerate(entries) if entry.id == keep), None)
        if position is not None:
            await self._reveal(position)
        elif self._to_fill:
            self.call_after_refresh(self._fill_step, self._shown_count)

    def _top_entry_id(self) -> int | None:
        """The entry at the top of the view when the person is not following the end (None
        when following): the place to keep."""
        if self.following:
            return None
        top = self.content_region.y
        for entry in self._entries:
            view = self._views.get(entry.id)
            if view is not None and view.region.height and view.region.bottom > top:
                return entry.id
        return None

    async def reveal(self, position: int) -> bool:
        """Scroll to the entry at ``position`` of the transcript shown (mounting the entries
        before it when it is behind the "earlier entries" row), its top at the top, and stop
        following the bottom. False when there is no such entry."""
        async with self._lock:
            return await self._reveal(position)

    async def _reveal(self, position: int) -> bool:
        if not 0 <= position < len(self._entries):
            return False
        self._to_fill = 0
        if position < self._hidden:
            await self._show_earlier(self._hidden - position)
        view = self._views.get(self._entries[position].id)
        if view is None:
            return False
        self.release_anchor()
        self.call_after_refresh(self._hold, view)
        return True

    def _hold(self, view: EntryView) -> None:
        """Scroll ``view`` to the top and stay there: Textual follows the end again when a
        scroll lands on it (an entry near the end, the rest not drawn yet), and what was
        asked for would scroll away under the output after it (which the marker tells of)."""
        if not view.is_attached:
            return
        self.scroll_to_widget(view, top=True, animate=False, immediate=True)
        self.release_anchor()

    @property
    def entries(self) -> list[Entry]:
        """The entries of the transcript shown, as last synced."""
        return self._entries

    @property
    def shown_count(self) -> int:
        """How many times a session was shown (put on screen afresh, at the bottom)."""
        return self._shown_count

    @property
    def filling(self) -> bool:
        """Whether views are still being mounted above those shown first."""
        return bool(self._to_fill)

    async def _fill_step(self, shown: int) -> None:
        """Mount up to :data:`FILL_STEP` more views above, while the person follows the
        bottom (content added above would move what someone reading further up sees: the
        rest stays behind the "earlier entries" row then)."""
        async with self._lock:
            if shown != self._shown_count:
                return  # another session (or this one again) was shown since: its own fill
            if not self.following or not self._hidden:
                self._to_fill = 0
                return
            step = min(FILL_STEP, self._to_fill)
            await self._show_earlier(step, follow=True)
            self._to_fill -= step
        if self._to_fill:
            self.call_after_refresh(self._fill_step, shown)

    async def sync_entries(self, entries: list[Entry], changed: set[int] | None) -> None:
        """Mount views for new entries and redraw changed ones (``None``: check all)."""
        async with self._lock:
            await self._sync_entries(entries, changed)

    async def _sync_entries(self, entries: list[Entry], changed: set[int] | None) -> None:
        # The store keeps changing while we await mounts: work on a snapshot of the list.
        entries = list(entries)
        if not self.following and self.session_id is not None:
            self._set_behind(True)
        self._entries = entries
        hidden = min(self._hidden, len(entries))
        if self.following and len(entries) - hidden > WINDOW + WINDOW_SLACK:
            hidden = len(entries) - WINDOW
        self._hidden = hidden
        shown = entries[hidden:]
        new_views: list[EntryView] = []
        for entry in shown:
            view = self._views.get(entry.id)
            if view is None:
                view = view_for(entry, self.terminal_lookup)
                self._views[entry.id] = view
                new_views.append(view)
        if new_views:
            with self.app.batch_update():
                await self.mount_all(new_views)
        fresh = set(new_views)
        failure = await _sync_each(
            (entry, self._views[entry.id])
            for entry in shown
            if self._views[entry.id] in fresh or changed is None or entry.id in changed
        )
        if fresh:
            self._apply_thought_state(fresh)
        if len(self._views) != len(shown):
            alive = {entry.id for entry in shown}
            gone = [key for key in self._views if key not in alive]
            await self.remove_children([self._views.pop(key) for key in gone])
        self._update_earlier()
        if failure is not None:
            raise failure

    async def show_earlier(self, count: int = EARLIER_STEP) -> None:
        """Mount views for up to ``count`` more of the entries before the first shown."""
        async with self._lock:
            await self._show_earlier(count)

    async def _show_earlier(self, count: int, follow: bool = False) -> None:
        """``follow``: keep following the bottom (views added above, out of sight), else the
        view stays where it is (at the top, where "show earlier" was pressed)."""
        if not self._hidden:
            return
        if not follow:
            self._to_fill = 0
            self.release_anchor()
        start = max(0, self._hidden - count)
        entries = self._entries[start : self._hidden]
        views = [view_for(entry, self.terminal_lookup) for entry in entries]
        first = next(
            (c for c in self.children if isinstance(c, EntryView)),
            None,
        )
        # In the transcript's order (the earlier ones first): "the latest" of Ctrl+T and
        # Ctrl+O is the last of them, and views added at the end would be taken for it.
        later = dict(self._views)
        self._views.clear()
        for entry, view in zip(entries, views, strict=True):
            self._views[entry.id] = view
        self._views.update(later)
        self._hidden = start
        with self.app.batch_update():
            if first is not None:
                await self.mount_all(views, before=first)
            else:
                await self.mount_all(views)
        failure = await _sync_each(zip(entries, views, strict=True))
        self._apply_thought_state(set(views))
        self._update_earlier()
        if failure is not None:
            raise failure

    def _update_earlier(self) -> None:
        row = self._earlier
        if self._hidden:
            row.update(
                Text(
                    f"⋯ {self._hidden:,} earlier entries: "
                    f"{key_label(row, 'show-folded', owner=FoldedText)} or click to show "
                    f"{min(self._hidden, EARLIER_STEP)} more"
                )
            )
        row.set_class(bool(self._hidden), "-folded")

    async def on_folded_text_unfold(self, event: FoldedText.Unfold) -> None:
        if event.row is self._earlier:
            event.stop()
            await self.show_earlier()

    def on_markdown_lines_shifted(self, event: MarkdownLines.Shifted) -> None:
        """Rows above the view became exact as they were drawn: move by as much, so what
        the person is reading stays where it is (at the bottom, the anchor does that)."""
        event.stop()
        if self.following or self._scrolling():
            return  # an animated scroll (Home, PgUp) goes where it was sent
        rows = event.rows
        lines = event.lines

        def keep_still() -> None:
            # Only while the reply still begins above the view: a shift measured before the
            # view moved (a search result revealed, a key pressed) would move what is now
            # on screen away, a search result off the top.
            if not self.following and not self._scrolling() and self._begins_above(lines):
                self.scroll_to(y=self.scroll_y + rows, animate=False, immediate=True)

        self.call_after_refresh(keep_still)

    def _begins_above(self, lines: MarkdownLines) -> bool:
        """Whether ``lines`` begins above the row at the top of the view. Measured in the
        transcript's own rows (the scroll may have moved since the screen was last drawn;
        where each widget lies in the transcript has not)."""
        entry: Widget = lines
        while entry.parent is not self:
            if not isinstance(entry.parent, Widget):
                return False  # no longer in this transcript
            entry = entry.parent
        top = entry.virtual_region.y + (lines.region.y - entry.region.y)
        return top < self.scroll_y

    def _scrolling(self) -> bool:
        return self.app.animator.is_being_animated(self, "scroll_y")

    def refresh_terminals(self) -> None:
        for view in self._views.values():
            if isinstance(view, ToolCallView):
                view.refresh_terminal()

    def set_thoughts_visible(self, visible: bool) -> None:
        self.set_class(not visible, "-hide-thoughts")

    def expand_thoughts(self, expanded: bool) -> None:
        self._thoughts_expanded = expanded
        for view in self._views.values():
            if isinstance(view, ThoughtView):
                view.set_expanded(expanded)

    def _apply_thought_state(self, views: set[EntryView]) -> None:
        if self._thoughts_expanded is None:
            return
        for view in views:
            if isinstance(view, ThoughtView):
                view.set_expanded(self._thoughts_expanded)


async def _sync_each(pairs: Iterable[tuple[Entry, EntryView]]) -> Exception | None:
    """Draw each entry into its view; one that cannot draw (a bug, an input nobody foresaw)
    never leaves the entries after it blank. The first failure is returned, for the caller to
    raise once the rest is drawn (the screen logs it and tells the person)."""
    failure: Exception | None = None
    for entry, view in pairs:
        try:
            await view.sync(entry)
        except Exception as error:
            failure = failure or error
    return failure
