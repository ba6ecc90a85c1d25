"""Review of changes to several files, each file and each hunk kept or left out.

Usage::

    review = ChangeReview([ReviewFile("src/app.py", "restore", change), ...])
    review.choices()        # per file: None (the whole file), frozenset(hunks), or False
                            # (left out); in the order given

One widget for every review of a change: a rewind's preview, "Changes of this turn", and the
review of a write before it lands. It shows a list of files on the left (what happens to
each, ``+added -removed``, ▲ before a conflict's name) and the highlighted file's diff on the right,
hunk by hunk (each drawn by :class:`~acp_tui.ui.widgets.diff_view.DiffView`), with a mark
saying whether the hunk is kept.

Keys: Up/Down choose the file (in the list) or the hunk (in the diff); Space keeps or leaves
out the file or the hunk; Right or Enter goes to the file's hunks, Left back to the list;
``a`` keeps all, ``n`` none. The mouse: a click on a file shows it, on its mark toggles it; a
click on a hunk's header toggles the hunk. A file whose hunks are all left out is left out.
Each change posts :class:`ChangeReview.Changed` (``control`` is the review).

A file marked ``conflict`` starts left out: the person keeps it deliberately. File names and
diff lines are text from outside: drawn inert (:mod:`acp_tui.text.safety`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.services.hunks import FileChange, Hunk
from acp_tui.text.safety import escaped_line
from acp_tui.ui.widgets.diff_view import DiffView

__all__ = ["ChangeReview", "ReviewFile"]

#: What each action is called in the list (the mark column is separate).
_ACTIONS = {
    "restore": "M",
    "modified": "M",
    "create": "A",
    "created": "A",
    "delete": "D",
    "deleted": "D",
    "write": "M",
    "new": "A",
}


@dataclass(frozen=True, slots=True)
class ReviewFile:
    """One file to review: its path as shown, what happens to it (``restore``, ``create``,
    ``delete``...), its change (None: not text, taken or left whole), and whether it is a
    conflict (with ``note`` saying why)."""

    display: str
    action: str
    change: FileChange | None
    conflict: bool = False
    note: str = ""


class HunkHeader(Static):
    """A hunk's first row: its mark and its place; a click keeps or leaves it out."""

    def __init__(self, file_index: int, hunk_index: int) -> None:
        super().__init__(classes="hunk-header")
        self.file_index = file_index
        self.hunk_index = hunk_index

    def on_click(self, event: events.Click) -> None:
        event.stop()
        review = next(a for a in self.ancestors if isinstance(a, ChangeReview))
        review.toggle_hunk(self.file_index, self.hunk_index)


class HunkPane(VerticalScroll, can_focus=True):
    """The highlighted file's hunks (focusable: Up/Down/Space act on its current hunk)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous hunk", show=False, id="review-previous-hunk"),
        Binding("down", "move(1)", "Next hunk", show=False, id="review-next-hunk"),
        Binding("left", "back", "Files", show=False, id="review-files"),
    ]

    def action_move(self, step: int) -> None:
        review = next(a for a in self.ancestors if isinstance(a, ChangeReview))
        review.move_hunk(step)

    def action_back(self) -> None:
        review = next(a for a in self.ancestors if isinstance(a, ChangeReview))
        review.query_one("#review-files", OptionList).focus()


class ChangeReview(Widget):
    """Files and their hunks, each kept or left out (see the module docstring)."""

    DEFAULT_CSS = """
    ChangeReview { height: 1fr; }
    ChangeReview > Horizontal { height: 1fr; }
    /* One row a file, however narrow the list (the diff's title has the whole name). */
    ChangeReview #review-files {
        width: 36; max-width: 40%; height: 1fr; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ChangeReview #review-diff { width: 1fr; height: 1fr; padding: 0 1; }
    ChangeReview #review-diff:focus { background: $boost; }
    ChangeReview .file-title { text-style: bold; }
    ChangeReview .file-note { color: $text-warning; }
    ChangeReview .hunk-header { color: $text-accent; margin: 1 0 0 0; }
    ChangeReview .hunk-header.-left-out { color: $text-muted; text-style: strike; }
    ChangeReview .hunk-header.-current { background: $accent 30%; }
    ChangeReview DiffView.-left-out { opacity: 50%; }
    ChangeReview .binary { color: $text-muted; text-style: italic; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "keep", "Keep / leave out", id="review-toggle"),
        Binding("a", "all(True)", "All", id="review-all"),
        Binding("n", "all(False)", "None", id="review-none"),
        Binding("right,enter", "hunks", "Hunks", show=False, id="review-hunks"),
    ]

    class Changed(Message):
        """What is kept changed."""

        def __init__(self, review: ChangeReview) -> None:
            super().__init__()
            self.review = review

        @property
        def control(self) -> ChangeReview:
            return self.review

    def __init__(
        self,
        files: list[ReviewFile],
        *,
        kept: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.files = list(files)
        #: Per file: the hunks kept (a file without hunks: {0} kept, set() left out). All
        #: start kept (``kept``; a conflict never), or none.
        self._kept: list[set[int]] = [
            set(range(max(1, _hunk_count(f)))) if kept and not f.conflict else set()
            for f in self.files
        ]
        self._file = 0
        self._hunk = 0
        #: The shown file's hunk views, in order (the pane's old ones may still be going).
        self._views: list[DiffView] = []

    # ------------------------------------------------------------------ what is chosen

    def choices(self) -> list[frozenset[int] | bool | None]:
        """Per file: None (kept whole), the hunks kept, or False (left out)."""
        result: list[frozenset[int] | bool | None] = []
        for index, item in enumerate(self.files):
            kept = self._kept[index]
            count = _hunk_count(item)
            if not kept:
                result.append(False)
            elif count == 0 or len(kept) == count:
                result.append(None)
            else:
                result.append(frozenset(kept))
        return result

    def kept_count(self) -> int:
        return sum(1 for choice in self.choices() if choice is not False)

    # ------------------------------------------------------------------ drawing

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield OptionList(*self._options(), id="review-files")
            with Vertical(id="review-side"):
                yield HunkPane(id="review-diff")

    def on_mount(self) -> None:
        if self.files:
            self.query_one("#review-files", OptionList).highlighted = 0
            self._show_file(0)

    def _options(self) -> list[Option]:
        return [Option(self._row(i), id=f"file-{i}") for i in range(len(self.files))]

    def _row(self, index: int) -> Text:
        item = self.files[index]
        kept = self.choices()[index]
        mark = "□" if kept is False else "■" if kept is None else "◩"
        row = Text(f"{mark} ", end="")
        row.append(_ACTIONS.get(item.action, "?") + " ", style="bold")
        if item.conflict:
            row.append("▲ ", style="bold")
        row.append(escaped_line(item.display, 200))
        if item.change is not None and item.change.hunks:
            row.append(f"  +{item.change.added} -{item.change.removed}", style="dim")
        return row

    def _refresh_rows(self) -> None:
        files = self.query_one("#review-files", OptionList)
        for index in range(len(self.files)):
            files.replace_option_prompt_at_index(index, self._row(index))

    def _show_file(self, index: int) -> None:
        self._file = index
        self._hunk = 0
        pane = self.query_one("#review-diff", HunkPane)
        pane.remove_children()
        item = self.files[index]
        words = {
            "restore": "restored",
            "create": "made again",
            "delete": "deleted",
            "created": "made by the turn",
            "deleted": "deleted by the turn",
            "modified": "changed by the turn",
            "write": "the agent's write, not made yet",
            "new": "a new file the agent wants to write",
        }.get(item.action, item.action)
        title = Text(escaped_line(item.display, 400), style="bold")
        title.append(f"  ({words})", style="dim")
        widgets: list[Widget] = [Static(title, classes="file-title")]
        if item.note:
            widgets.append(Static(Text(item.note), classes="file-note"))
        self._views = []
        if item.change is None:
            widgets.append(Static("Not text: taken or left whole.", classes="binary"))
        elif not item.change.hunks:
            widgets.append(Static("(empty file)", classes="binary"))
        else:
            for number, hunk in enumerate(item.change.hunks):
                widgets.append(HunkHeader(index, number))
                self._views.append(_hunk_view(item.display, hunk))
                widgets.append(self._views[-1])
        pane.mount_all(widgets)
        self.call_after_refresh(self._mark_hunks)

    def _mark_hunks(self) -> None:
        kept = self._kept[self._file]
        for header in self.query(HunkHeader):
            if header.file_index != self._file:
                continue  # the file shown before, on its way out
            on = header.hunk_index in kept
            hunk = self.files[self._file].change.hunks[header.hunk_index]  # type: ignore[union-attr]
            label = Text("■ kept  " if on else "□ left out  ", style="bold")
            label.append(hunk.header())
            header.update(label)
            header.set_class(not on, "-left-out")
            header.set_class(header.hunk_index == self._hunk, "-current")
        for number, view in enumerate(self._views):
            view.set_class(number not in kept, "-left-out")

    # ------------------------------------------------------------------ acting

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != self._file:
            self._show_file(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_hunks()

    def action_hunks(self) -> None:
        item = self.files[self._file] if self.files else None
        if item is not None and item.change is not None and item.change.hunks:
            self.query_one("#review-diff", HunkPane).focus()

    def action_keep(self) -> None:
        if not self.files:
            return
        if self.query_one("#review-diff", HunkPane).has_focus:
            self.toggle_hunk(self._file, self._hunk)
        else:
            self.toggle_file(self._file)

    def action_all(self, keep: bool) -> None:
        for index, item in enumerate(self.files):
            self._kept[index] = set(range(max(1, _hunk_count(item)))) if keep else set()
        self._changed()

    def toggle_file(self, index: int) -> None:
        item = self.files[index]
        self._kept[index] = set() if self._kept[index] else set(range(max(1, _hunk_count(item))))
        self._changed()

    def toggle_hunk(self, file_index: int, hunk_index: int) -> None:
        kept = self._kept[file_index]
        kept.symmetric_difference_update({hunk_index})
        if file_index == self._file:
            self._hunk = hunk_index
        self._changed()

    def move_hunk(self, step: int) -> None:
        item = self.files[self._file]
        count = _hunk_count(item)
        if not count:
            return
        self._hunk = max(0, min(count - 1, self._hunk + step))
        self._mark_hunks()
        headers = [
            h
            for h in self.query(HunkHeader)
            if h.file_index == self._file and h.hunk_index == self._hunk
        ]
        if headers:
            headers[0].scroll_visible()

    def _changed(self) -> None:
        self._refresh_rows()
        self._mark_hunks()
        self.post_message(self.Changed(self))


def _hunk_count(item: ReviewFile) -> int:
    return len(item.change.hunks) if item.change is not None else 0


def _hunk_view(path: str, hunk: Hunk) -> DiffView:
    old = "".join(hunk.old_lines())
    new = "".join(hunk.new_lines())
    # A relative path: the view numbers nothing (the header says where the hunk is).
    view = DiffView(
        path if not path.startswith("/") else path.lstrip("/"),
        old if hunk.old_lines() else None,
        new,
        context=10_000,
        show_header=False,
        max_lines=2000,
    )
    # The hunk's own header row is the review's (with its mark): not drawn twice.
    view.rows = [row for row in view.rows if row.kind != "hunk"]
    return view
