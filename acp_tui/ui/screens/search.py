"""Search all sessions: every word said in every session of every agent, as you type.

A field on top, the results below, best first: each says its agent, project, session title
and when, then the text around the match with the words found highlighted. Everything in a
result came from an agent or the person, so it is shown literally (:mod:`acp_tui.ui.
agent_text`). Filters: ``@agent``, ``in:project``, ``before:``/``after:`` dates. Up and Down
move through the results while typing, Enter (or a click) opens the one highlighted, Ctrl+R
takes its session out of the index, Escape closes.

The search runs in a thread (SQLite never on the thread that draws), a moment after the last
key; a result that comes back for text no longer in the field is dropped. The screen
dismisses with the chosen :class:`~acp_tui.store.search_index.SearchHit`;
:mod:`acp_tui.ui.search_sessions` opens it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.store.search_index import SearchHit, SearchIndex
from acp_tui.store.search_query import SearchQuery, parse_query
from acp_tui.text.relative_time import relative_time
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.agent_text import agent_content, line_of
from acp_tui.ui.widgets.safe_input import SafeInput

__all__ = ["SearchScreen", "hit_prompt"]

#: Seconds after the last key before the search runs.
DEBOUNCE = 0.08
#: Results asked for.
LIMIT = 50
_KIND_WORDS = {
    "user": "you",
    "agent": "reply",
    "thought": "thought",
    "tool": "tool",
    "message": "message",
}
_HOME = str(Path.home())


def _project(path: str) -> str:
    if path == _HOME or path.startswith(_HOME + "/"):
        return "~" + path[len(_HOME) :]
    return path


def hit_prompt(hit: SearchHit, now: float) -> Content:
    """A result as two lines: who, where and when; then the snippet, its matches
    highlighted. Every part is agent text made inert, never markup."""
    head = Content.assemble(
        agent_content(hit.label, 30, style="bold $accent"),
        "  ",
        agent_content(hit.title, 60, style="bold"),
        "  ",
        agent_content(_project(hit.project), 50, style="$text-muted"),
        "  ",
        agent_content(
            f"{_KIND_WORDS.get(hit.kind, hit.kind)} · {relative_time(hit.at, now)}",
            style="$text-muted",
        ),
    )
    pieces: list[Content] = []
    cursor = 0
    for start, end in hit.spans:
        if start < cursor:
            continue
        pieces.append(_inert(hit.snippet[cursor:start]))
        pieces.append(_inert(hit.snippet[start:end]).stylize("bold reverse"))
        cursor = end
    pieces.append(_inert(hit.snippet[cursor:]))
    return Content.assemble(head, "\n", *pieces)


def _inert(piece: str) -> Content:
    """A piece of a snippet, inert, its spaces kept (a snippet is one line already)."""
    return Content(sanitize_terminal_text(piece).replace("\n", " "))


class SearchScreen(ModalScreen[SearchHit | None]):
    """Dismisses with the hit chosen, or None (Escape)."""

    DEFAULT_CSS = """
    SearchScreen { align: center middle; }
    SearchScreen > Vertical {
        width: 110; max-width: 96%; height: 90%; padding: 0 1;
        background: $panel; border: thick $primary;
    }
    SearchScreen .title { text-style: bold; }
    SearchScreen #search-note { color: $text-muted; height: auto; }
    SearchScreen #search-note.-problem { color: $text-warning; }
    SearchScreen OptionList { height: 1fr; border: none; padding: 0; }
    SearchScreen OptionList > .option-list--option { padding: 0 0 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("ctrl+r", "forget", "Forget session", id="search-forget"),
    ]
    AUTO_FOCUS = "#search-input"

    def __init__(
        self,
        index: SearchIndex,
        *,
        query: str = "",
        forget: Callable[[SearchHit], None] | None = None,
        written: Callable[[], object] | None = None,
    ) -> None:
        super().__init__()
        self.index = index
        #: Waits (in the search's thread) until what the sessions said is written.
        self.written = written
        #: Takes a session out of the index (Ctrl+R on one of its results).
        self.forget = forget
        self._initial = query
        self._timer: Timer | None = None
        #: The hits shown, in the order of the list.
        self.hits: list[SearchHit] = []
        #: The text the results shown were found for (None: none yet).
        self.shown_for: str | None = None
        self._open_first = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Search all sessions"), classes="title")
            yield SafeInput(
                self._initial,
                placeholder="Words; @agent in:project before:2026-01-31 after:3d",
                id="search-input",
            )
            yield Static(self._help(), id="search-note")
            yield OptionList(id="search-results")

    def _help(self) -> Content:
        note = self.index.note
        words = (
            "↑↓ choose · Enter open · Ctrl+R forget session · Esc close · "
            "@agent in:project before: after:"
        )
        return Content(f"{note} · {words}" if note else words)

    def on_mount(self) -> None:
        self.query_one(OptionList).can_focus = False  # typing stays in the field
        if self._initial:
            self._search_soon()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search_soon()

    def _search_soon(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, self._search_now)

    def _search_now(self) -> None:
        self._timer = None
        text = self.query_one(Input).value
        query = parse_query(text)
        if query.empty:
            self._show(text, query, [])
            return
        self._run(text, query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _run(self, text: str, query: SearchQuery) -> None:
        if self.written is not None:
            self.written()
        hits = self.index.search(query, limit=LIMIT)
        self.app.call_from_thread(self._show, text, query, hits)

    def _show(self, text: str, query: SearchQuery, hits: list[SearchHit]) -> None:
        if not self.is_mounted or self.query_one(Input).value != text:
            return  # typed on since: its own search comes
        results = self.query_one(OptionList)
        chosen = _place(self.hits, results.highlighted)
        self.hits = hits
        self.shown_for = text
        now = time.time()
        results.set_options(Option(hit_prompt(hit, now)) for hit in hits)
        if hits:
            # The same search again (a debounce that read the final text early, the index
            # grown since) keeps the result the person moved to: Enter must open that one.
            places = [_place(hits, i) for i in range(len(hits))]
            results.highlighted = places.index(chosen) if chosen in places else 0
        note = self.query_one("#search-note", Static)
        problems = list(query.problems)
        if problems:
            note.update(Content(" · ".join(line_of(p) for p in problems)))
        elif not query.empty and not hits:
            note.update(Content("Nothing found. " + line_of(self._help().plain)))
        else:
            count = f"{len(hits)}{'+' if len(hits) >= LIMIT else ''} found · " if hits else ""
            note.update(Content(count) + self._help())
        note.set_class(bool(problems), "-problem")
        if self._open_first:
            self._open_first = False
            self._open(0)

    def on_key(self, event: events.Key) -> None:
        results = self.query_one(OptionList)
        if event.key in ("up", "down", "pageup", "pagedown"):
            event.stop()
            event.prevent_default()
            action = {
                "up": results.action_cursor_up,
                "down": results.action_cursor_down,
                "pageup": results.action_page_up,
                "pagedown": results.action_page_down,
            }[event.key]
            action()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None or self.shown_for != event.value:
            # Enter before the results of what was typed came: the best of them opens.
            self._open_first = True
            if self._timer is not None:
                self._timer.stop()
                self._search_now()
            return
        self._open(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._open(event.option_index)

    def action_forget(self) -> None:
        """Take the highlighted result's session out of the index; its results go."""
        index = self.query_one(OptionList).highlighted
        if self.forget is None or index is None or not 0 <= index < len(self.hits):
            return
        gone = self.hits[index]
        self.forget(gone)
        text = self.shown_for or ""
        kept = [
            hit for hit in self.hits if (hit.agent, hit.session_id) != (gone.agent, gone.session_id)
        ]
        self._show(text, parse_query(text), kept)
        self.notify(f"Forgotten: {line_of(gone.title, 80)}", title="Search", markup=False)

    def _open(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.hits):
            self.dismiss(self.hits[index])


def _place(hits: list[SearchHit], index: int | None) -> tuple[str, str, int] | None:
    """Which entry the result at ``index`` is (None: no such result)."""
    if index is None or not 0 <= index < len(hits):
        return None
    hit = hits[index]
    return (hit.agent, hit.session_id, hit.position)
