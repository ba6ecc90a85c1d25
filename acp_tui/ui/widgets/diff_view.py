"""A readable unified diff of a tool call's ``{"type": "diff", path, oldText, newText}`` item.

Usage::

    DiffView(path, old_text, new_text)          # old_text None: a new file, all additions
    DiffView.from_diff(tool_call.diffs[0])     # a store entry's typed diff

The diff is computed once (``difflib``) into :class:`DiffLine` rows by :func:`diff_lines`
(pure, testable without a terminal), and rendered as a grid with old/new line numbers, so a
wrapped long line keeps its gutter. Styles come from component classes whose defaults use theme
variables (``$success``/``$error`` backgrounds), so the diff follows the theme. A big diff is cut
after ``max_lines`` rows with a "… N more lines" row; a very long line is cut at
``MAX_LINE_CHARS``. All text is shown literally (terminal control characters stripped).

Line numbers are the file's: an agent often sends only the part of the file it changes (Claude's
edits: the edited lines), so numbers counted from that part's first line read as file lines
and are wrong. :func:`first_line_in_file` finds where the part starts in the file on disk (the
old text before the edit is applied, the new text after); where it cannot be found once, at
the start of a line, no numbers are shown rather than wrong ones.
"""

from __future__ import annotations

import difflib
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from acp_tui.services.path_gate import PathRefused, open_to_read, resolve_path
from acp_tui.store.tool_content import FileDiff
from acp_tui.text.lines import split_lines
from acp_tui.text.safety import one_line, sanitize_terminal_text, truncate

LineKind = Literal["context", "added", "removed", "hunk"]

#: Longest line shown in full; longer ones are cut with an ellipsis.
MAX_LINE_CHARS = 2_000
#: Above this many lines on either side, no line matching is tried: the whole file is replaced.
MAX_MATCH_LINES = 20_000
TAB_SIZE = 4
#: Larger files are not read to find where a diff's text is (its lines go unnumbered).
MAX_LOCATE_BYTES = 4_000_000


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: LineKind
    text: str
    old_no: int | None = None
    new_no: int | None = None


#: Characters that end a line for Unicode but not for the file: shown, so the row stays one row.
_INLINE_BREAKS = str.maketrans({"\u2028": "\u2424", "\u2029": "\u2424", "\x85": "\u2424"})


def _clean_line(line: str) -> str:
    line = line.expandtabs(TAB_SIZE).translate(_INLINE_BREAKS)
    return truncate(sanitize_terminal_text(line), MAX_LINE_CHARS)


def _line_start_once(content: str, snippet: str) -> int | None:
    """The 1-based line at which ``snippet`` starts in ``content``, if it occurs there exactly
    once starting a line."""
    if not snippet:
        return None
    found: int | None = None
    index = content.find(snippet)
    while index >= 0:
        if index == 0 or content[index - 1] == "\n":
            if found is not None:
                return None  # twice: no telling which
            found = index
        index = content.find(snippet, index + 1)
    return None if found is None else content.count("\n", 0, found) + 1


#: Where each diff was found (see :func:`first_line_in_file`), by its path and its texts'
#: hashes (not the texts: a diff may be megabytes), the most recent last.
_located: OrderedDict[tuple[str, int, int], int | None] = OrderedDict()
#: Diffs whose place is kept.
KEEP_LOCATED = 256


def first_line_in_file(path: str | None, old_text: str | None, new_text: str | None) -> int | None:
    """The line of the file at ``path`` where the diff's text starts, read from the file as it
    is now (before the edit: it holds ``old_text``; after: ``new_text``). A new file starts at
    line 1. None when that cannot be told (no such file, a relative path, text not found once).

    Found once per diff: a tool call's card is drawn again at each of its updates, and the
    permission dialog shows the same diff; the file is not read again for it (the edit does
    not move the text: before it the old text starts where after it the new one does)."""
    if not old_text:
        return 1
    if not path or not os.path.isabs(path):
        return None
    key = (path, hash(old_text), hash(new_text))
    if key in _located:
        _located.move_to_end(key)
        return _located[key]
    found = _locate(path, old_text, new_text)
    _located[key] = found
    if len(_located) > KEEP_LOCATED:
        _located.popitem(last=False)
    return found


def _locate(path: str, old_text: str, new_text: str | None) -> int | None:
    try:
        # Through the path gate: a pipe or a device named by the agent is never opened (it
        # would block the screen or never end). Only a line number comes of it, shown to the
        # person: no root is asked.
        with open_to_read(resolve_path(path)) as file:
            raw = file.read(MAX_LOCATE_BYTES + 1)
    except (OSError, ValueError, PathRefused):
        return None
    if len(raw) > MAX_LOCATE_BYTES:
        return None
    content = raw.decode("utf-8", errors="replace")
    # Both may be there: an edit that adds lines around the old ones leaves the old text
    # inside the new, and a deletion finds the new text inside the old. The longer one found
    # is the one the file holds.
    found = [
        (len(snippet), start)
        for snippet in (old_text, new_text)
        if snippet and (start := _line_start_once(content, snippet)) is not None
    ]
    return max(found)[1] if found else None


def diff_lines(
    old_text: str | None, new_text: str | None, context: int = 3, first_line: int | None = 1
) -> list[DiffLine]:
    """The rows of a unified diff: hunk headers, context, removed and added lines, with the
    line numbers of each side counted from ``first_line`` (the file's line where the texts
    start; None: unknown, no numbers). ``old_text`` ``None`` (a new file) gives only additions."""
    old = split_lines(old_text)
    new = split_lines(new_text)
    rows: list[DiffLine] = []

    def number(index: int) -> int | None:
        return None if first_line is None else first_line + index

    if not old:
        return [DiffLine("added", _clean_line(t), None, number(i)) for i, t in enumerate(new)]
    if not new:
        return [DiffLine("removed", _clean_line(t), number(i), None) for i, t in enumerate(old)]
    if len(old) > MAX_MATCH_LINES or len(new) > MAX_MATCH_LINES:
        opcode_groups = [[("replace", 0, len(old), 0, len(new))]]
    else:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        opcode_groups = list(matcher.get_grouped_opcodes(context))
    for group in opcode_groups:
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        if first_line is None:
            header = f"@@ -{i2 - i1} +{j2 - j1} lines @@"
        else:
            header = f"@@ -{number(i1)},{i2 - i1} +{number(j1)},{j2 - j1} @@"
        rows.append(DiffLine("hunk", header))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for offset in range(a2 - a1):
                    rows.append(
                        DiffLine(
                            "context",
                            _clean_line(old[a1 + offset]),
                            number(a1 + offset),
                            number(b1 + offset),
                        )
                    )
                continue
            if tag in ("replace", "delete"):
                for a in range(a1, a2):
                    rows.append(DiffLine("removed", _clean_line(old[a]), number(a), None))
            if tag in ("replace", "insert"):
                for b in range(b1, b2):
                    rows.append(DiffLine("added", _clean_line(new[b]), None, number(b)))
    return rows


def diff_stats(rows: list[DiffLine]) -> tuple[int, int]:
    """``(added, removed)`` line counts."""
    added = sum(1 for r in rows if r.kind == "added")
    removed = sum(1 for r in rows if r.kind == "removed")
    return added, removed


_SIGNS: dict[str, str] = {"context": " ", "added": "+", "removed": "-", "hunk": ""}


class DiffView(Widget):
    """A unified diff with a path header, line numbers and theme-coloured additions/removals."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--header",
        "diff-view--stats-added",
        "diff-view--stats-removed",
        "diff-view--hunk",
        "diff-view--lineno",
        "diff-view--context",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--more",
    }

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        width: 1fr;
        & > .diff-view--header { text-style: bold; color: $text; }
        & > .diff-view--stats-added { color: $text-success; }
        & > .diff-view--stats-removed { color: $text-error; }
        & > .diff-view--hunk { color: $text-accent; }
        & > .diff-view--lineno { color: $text-muted; }
        & > .diff-view--context { color: $text; }
        & > .diff-view--added { background: $success 20%; color: $text; }
        & > .diff-view--removed { background: $error 20%; color: $text; }
        & > .diff-view--more { color: $text-muted; text-style: italic; }
    }
    """

    def __init__(
        self,
        path: str,
        old_text: str | None,
        new_text: str | None,
        *,
        context: int = 3,
        max_lines: int = 400,
        show_header: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.path = path
        self.old_text = old_text
        self.new_text = new_text
        self.max_lines = max(1, max_lines)
        self.show_header = show_header
        self.first_line = first_line_in_file(path, old_text, new_text)
        self.rows = diff_lines(old_text, new_text, context, self.first_line)

    @classmethod
    def from_diff(cls, diff: FileDiff, **kwargs: Any) -> DiffView:
        """Build from a tool call's diff (:attr:`acp_tui.store.ToolCall.diffs`)."""
        return cls(diff.path or "(unknown file)", diff.old_text, diff.new_text, **kwargs)

    @property
    def is_new_file(self) -> bool:
        return self.old_text is None

    def header_text(self) -> Text:
        header = Text(no_wrap=False, overflow="fold")
        header.append(
            one_line(self.path, MAX_LINE_CHARS), self.get_component_rich_style("diff-view--header")
        )
        added, removed = diff_stats(self.rows)
        header.append("  ")
        if self.is_new_file:
            header.append("new file ", self.get_component_rich_style("diff-view--lineno"))
        header.append(f"+{added}", self.get_component_rich_style("diff-view--stats-added"))
        header.append(" ")
        header.append(f"-{removed}", self.get_component_rich_style("diff-view--stats-removed"))
        return header

    def render(self) -> RenderableType:
        style = self.get_component_rich_style
        lineno = style("diff-view--lineno")
        kinds = {
            "context": style("diff-view--context"),
            "added": style("diff-view--added"),
            "removed": style("diff-view--removed"),
            "hunk": style("diff-view--hunk"),
        }
        shown = self.rows[: self.max_lines]
        width = max(
            (len(str(n)) for r in shown for n in (r.old_no, r.new_no) if n is not None),
            default=1,
        )
        table = Table.grid(expand=True, padding=(0, 0))
        table.add_column(justify="right", width=width, no_wrap=True)
        table.add_column(width=1, no_wrap=True)
        table.add_column(justify="right", width=width, no_wrap=True)
        table.add_column(width=3, no_wrap=True)
        table.add_column(ratio=1, overflow="fold")
        if self.show_header:
            table.add_row("", "", "", "", self.header_text())
        if not self.rows:
            table.add_row("", "", "", "", Text("(no changes)", style=style("diff-view--more")))
        for row in shown:
            row_style = kinds[row.kind]
            if row.kind == "hunk":
                table.add_row("", "", "", "", Text(row.text, style=row_style))
                continue
            table.add_row(
                Text("" if row.old_no is None else str(row.old_no), style=lineno),
                "",
                Text("" if row.new_no is None else str(row.new_no), style=lineno),
                Text(f" {_SIGNS[row.kind]} "),
                Text(row.text, overflow="fold"),
                style=row_style,
            )
        hidden = len(self.rows) - len(shown)
        if hidden > 0:
            more = f"… {hidden} more line{'s' if hidden != 1 else ''}"
            table.add_row("", "", "", "", Text(more, style=style("diff-view--more")))
        return table
