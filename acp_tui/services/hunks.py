"""A file's change as hunks, each kept or rejected on its own (no Textual).

One model for every place that shows a change and lets the person take part of it: the
review of a turn's changes (rewind, "Changes of this turn") and the review of a write before
it lands. Texts are compared by lines; a line keeps its ending (``\\n``, or none for a last
line without one), so what is put back is the text byte for byte.

API::

    change = FileChange.compute(old, new, context=3)   # old or new None: created / deleted
    change.hunks                                       # tuple[Hunk, ...], in file order
    change.apply(keep={0, 2})                          # old text with hunks 0 and 2 taken
    change.apply(change.all_hunks())                   # == new;  apply(()) == old
    change.unified("notes.md")                         # the unified diff text (git's format)
    FileChange.parse(unified_text, old)                # back from a unified diff of ``old``

    partial = change.apply(keep)                       # any subset: consistent, and
    FileChange.compute(old, partial)                   # its own diff holds exactly those hunks

A hunk is a group of changed lines with up to ``context`` unchanged lines around it (as
``git diff`` groups them): hunks never overlap, so any subset applies cleanly. Above
:data:`MAX_MATCH_LINES` lines on a side, no matching is tried: one hunk replaces the whole
text. :func:`decode_text` says whether bytes are text this model can split (UTF-8 without a
NUL byte); other files change whole.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MAX_MATCH_LINES",
    "NO_NEWLINE",
    "FileChange",
    "Hunk",
    "HunkLine",
    "decode_text",
    "split_keepends",
]

#: Above this many lines on either side, the whole text is one hunk (matching is quadratic).
MAX_MATCH_LINES = 20_000
#: The marker a unified diff puts after a line that has no line ending.
NO_NEWLINE = "\\ No newline at end of file"

LineKind = Literal["context", "removed", "added"]

_KINDS: dict[str, LineKind] = {" ": "context", "-": "removed", "+": "added"}
_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def split_keepends(text: str | None) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (the last one may have none). Split on
    ``\\n`` only: ``\\r``, form feeds and U+2028 stay inside their line, as a file counts."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def decode_text(data: bytes) -> str | None:
    """``data`` as text, or None when it is not text this model splits (a NUL byte, or not
    UTF-8): such a file is shown and restored whole."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass(frozen=True, slots=True)
class HunkLine:
    """One row of a hunk: its kind and its text, line ending included."""

    kind: LineKind
    text: str


@dataclass(frozen=True, slots=True)
class Hunk:
    """Lines ``old_start:old_end`` of the old text (0-based, end excluded) become lines
    ``new_start:new_end`` of the new one; :attr:`lines` are the rows shown, context
    included (context lines are the same on both sides)."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int
    lines: tuple[HunkLine, ...]

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "added")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind == "removed")

    def old_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "added"]

    def new_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "removed"]

    def header(self) -> str:
        """``@@ -12,4 +12,6 @@`` (1-based, as a unified diff numbers; an empty side starts
        at the line before it)."""
        return (
            f"@@ -{_range(self.old_start, self.old_end)} +{_range(self.new_start, self.new_end)} @@"
        )


def _range(start: int, end: int) -> str:
    count = end - start
    first = start + 1 if count else start
    return str(first) if count == 1 else f"{first},{count}"


@dataclass(frozen=True, slots=True)
class FileChange:
    """The change of one file from :attr:`old` to :attr:`new` (None: the file does not exist
    on that side), as :attr:`hunks`."""

    old: str | None
    new: str | None
    hunks: tuple[Hunk, ...]

    @classmethod
    def compute(cls, old: str | None, new: str | None, *, context: int = 3) -> FileChange:
        """The hunks that turn ``old`` into ``new``, with ``context`` unchanged lines around
        each change (changes closer than twice that share a hunk)."""
        a = split_keepends(old)
        b = split_keepends(new)
        if a == b:
            return cls(old, new, ())
        if not a or not b or len(a) > MAX_MATCH_LINES or len(b) > MAX_MATCH_LINES:
            groups = [[("replace", 0, len(a), 0, len(b))]]
        else:
            matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
            groups = list(matcher.get_grouped_opcodes(max(0, context)))
        hunks: list[Hunk] = []
        for group in groups:
            rows: list[HunkLine] = []
            for tag, a1, a2, b1, b2 in group:
                if tag == "equal":
                    rows.extend(HunkLine("context", line) for line in a[a1:a2])
                    continue
                rows.extend(HunkLine("removed", line) for line in a[a1:a2])
                rows.extend(HunkLine("added", line) for line in b[b1:b2])
            first, last = group[0], group[-1]
            hunks.append(Hunk(first[1], last[2], first[3], last[4], tuple(rows)))
        return cls(old, new, tuple(hunks))

    @property
    def created(self) -> bool:
        return self.old is None and self.new is not None

    @property
    def deleted(self) -> bool:
        return self.old is not None and self.new is None

    @property
    def added(self) -> int:
        return sum(hunk.added for hunk in self.hunks)

    @property
    def removed(self) -> int:
        return sum(hunk.removed for hunk in self.hunks)

    def all_hunks(self) -> frozenset[int]:
        return frozenset(range(len(self.hunks)))

    def apply(self, keep: Iterable[int]) -> str | None:
        """The old text with the hunks numbered in ``keep`` taken from the new one, the
        others left as they were. All of them: :attr:`new`; none: :attr:`old`. None when the
        result is a file that does not exist (a created file none of whose hunks is kept, a
        deleted one all of whose are)."""
        chosen = set(keep)
        unknown = chosen - self.all_hunks()
        if unknown:
            raise IndexError(f"no hunk {min(unknown)}: there are {len(self.hunks)}")
        if not self.hunks:
            return self.old
        if chosen == self.all_hunks():
            return self.new
        if not chosen:
            return self.old
        old = split_keepends(self.old)
        out: list[str] = []
        position = 0
        for index, hunk in enumerate(self.hunks):
            out.extend(old[position : hunk.old_start])
            out.extend(hunk.new_lines() if index in chosen else hunk.old_lines())
            position = hunk.old_end
        out.extend(old[position:])
        return "".join(out)

    def unified(self, path: str, *, old_label: str = "a/", new_label: str = "b/") -> str:
        """The change as a unified diff (``--- a/path``, ``+++ b/path``, hunks; a created or
        deleted side is ``/dev/null``; a line without an ending is followed by
        :data:`NO_NEWLINE`). Empty when nothing changed."""
        if not self.hunks:
            return ""
        out = [
            "--- " + ("/dev/null" if self.old is None else old_label + path) + "\n",
            "+++ " + ("/dev/null" if self.new is None else new_label + path) + "\n",
        ]
        signs = {"context": " ", "removed": "-", "added": "+"}
        for hunk in self.hunks:
            out.append(hunk.header() + "\n")
            for line in hunk.lines:
                out.append(signs[line.kind] + line.text)
                if not line.text.endswith("\n"):
                    out.append("\n" + NO_NEWLINE + "\n")
        return "".join(out)

    @classmethod
    def parse(cls, diff: str, old: str | None) -> FileChange:
        """The change a unified diff of one file makes to ``old`` (the ``---``/``+++`` lines
        may be there or not; ``/dev/null`` on the new side: the file is deleted). Raises
        ValueError when the diff is malformed or does not fit ``old``."""
        rows = split_keepends(diff)
        deleted = any(row.rstrip("\n") == "+++ /dev/null" for row in rows[:3])
        old_lines = split_keepends(old)
        hunks: list[Hunk] = []
        index = 0
        while index < len(rows) and not rows[index].startswith("@@"):
            if not rows[index].startswith(("--- ", "+++ ", "diff ", "index ")):
                raise ValueError(f"line {index + 1}: not a unified diff: {rows[index]!r}")
            index += 1
        shift = 0
        while index < len(rows):
            match = _HEADER.match(rows[index])
            if match is None:
                raise ValueError(f"line {index + 1}: expected a hunk header, got {rows[index]!r}")
            old_count = int(match.group(2)) if match.group(2) is not None else 1
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            old_start = int(match.group(1)) - (1 if old_count else 0)
            new_start = int(match.group(3)) - (1 if new_count else 0)
            index += 1
            lines: list[HunkLine] = []
            while index < len(rows) and not rows[index].startswith("@@"):
                row = rows[index]
                if row.rstrip("\n") == NO_NEWLINE:
                    if not lines or not lines[-1].text.endswith("\n"):
                        raise ValueError(f"line {index + 1}: a stray {NO_NEWLINE!r}")
                    last = lines[-1]
                    lines[-1] = HunkLine(last.kind, last.text[:-1])
                elif row[:1] in (" ", "-", "+"):
                    lines.append(HunkLine(_KINDS[row[0]], row[1:]))
                elif row.strip() == "":
                    raise ValueError(f"line {index + 1}: an empty line inside a hunk")
                else:
                    raise ValueError(f"line {index + 1}: not a line of a hunk: {row!r}")
                index += 1
            hunk = Hunk(
                old_start, old_start + old_count, new_start, new_start + new_count, tuple(lines)
            )
            if len(hunk.old_lines()) != old_count or len(hunk.new_lines()) != new_count:
                raise ValueError(f"{hunk.header()}: its lines do not match its counts")
            if old_lines[hunk.old_start : hunk.old_end] != hunk.old_lines():
                raise ValueError(f"{hunk.header()}: does not fit the old text")
            if hunks and hunk.old_start < hunks[-1].old_end:
                raise ValueError(f"{hunk.header()}: overlaps the hunk before it")
            if hunk.new_start != hunk.old_start + shift:
                raise ValueError(f"{hunk.header()}: its new side is not where the old one is")
            hunks.append(hunk)
            shift += new_count - old_count
        change = cls(old, None, tuple(hunks))
        new = change._apply_all(old_lines)
        return cls(old, None if deleted else new, tuple(hunks))

    def _apply_all(self, old: Sequence[str]) -> str:
        out: list[str] = []
        position = 0
        for hunk in self.hunks:
            out.extend(old[position : hunk.old_start])
            out.extend(hunk.new_lines())
            position = hunk.old_end
        out.extend(old[position:])
        return "".join(out)
