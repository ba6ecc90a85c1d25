"""What the prompt completes from (Textual-free): the files under a directory for ``@``
(:func:`scan_files`, breadth first and bounded, kept per directory in :data:`FILE_INDEXES` as
a :class:`FileIndex` that matches by name, path and fuzzily); the ``/`` list's commands are
:mod:`acp_tui.ui.models.commands`."""

from __future__ import annotations

import os
import re
import time
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from acp_tui.services.path_gate import resolve_path
from acp_tui.session.prompts.attachments import mention_for

__all__ = [
    "FILE_INDEXES",
    "FileIndex",
    "bracketed",
    "path_completion",
    "scan_files",
]

MAX_SCAN_FILES = 20_000
"""At most this many files are listed for ``@`` completion."""
SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})
"""Directories never entered (as are all hidden directories)."""
FILE_INDEX_TTL = 30.0
"""Seconds after which a cached file list is refreshed (in the background) on the next ``@``."""
MAX_COMPLETIONS = 50


def scan_files(root: Path, limit: int = MAX_SCAN_FILES) -> list[str]:
    """Relative paths (with ``/``) of up to ``limit`` files under ``root``, breadth first (so
    shallow files come first and one deep tree cannot use up the budget), sorted by name within
    a directory. Hidden directories and :data:`SKIPPED_DIRS` are not entered; symlinked
    directories are not followed. Unreadable directories are skipped. A symlink is offered
    only when the path gate would send what it leads to: a regular file under ``root``
    (never one leading outside, to a pipe or a device)."""
    found: list[str] = []
    queue: deque[tuple[str, str]] = deque([(str(root), "")])
    while queue and len(found) < limit:
        directory, prefix = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                        continue
                    queue.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.is_file(follow_symlinks=False) or (
                    entry.is_symlink() and _link_to_a_file_under(entry.path, root)
                ):
                    found.append(prefix + entry.name)
                    if len(found) >= limit:
                        break
            except OSError:
                continue
    return found


def _link_to_a_file_under(link: str, root: Path) -> bool:
    try:
        target = resolve_path(link, roots=(root,))
    except ValueError:
        return False
    return target.kind == "file" and target.inside


@dataclass(slots=True)
class FileIndex:
    """The files under one directory, with lower-cased copies for matching."""

    root: Path
    paths: list[str]
    scanned_at: float = field(default_factory=time.monotonic)
    _lower: list[str] = field(init=False, repr=False)
    _base_start: list[int] = field(init=False, repr=False)
    _joined: str = field(init=False, repr=False)
    _line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._lower = [path.lower().replace("\n", " ") for path in self.paths]
        self._base_start = [path.rfind("/") + 1 for path in self.paths]
        # One string, one path a line: the fuzzy search runs in the regex engine, not in a
        # Python loop over every path.
        self._joined = "\n".join(self._lower)
        starts: list[int] = []
        offset = 0
        for path in self._lower:
            starts.append(offset)
            offset += len(path) + 1
        self._line_starts = starts

    @property
    def stale(self) -> bool:
        return time.monotonic() - self.scanned_at > FILE_INDEX_TTL

    def match(self, query: str, limit: int = MAX_COMPLETIONS) -> list[str]:
        """Paths matching ``query``: a file name starting with it first, then a file name
        containing it, then a path containing it, then paths containing its characters in
        order (fuzzy). Shorter paths first within each group. Case-insensitive."""
        if not query:
            return self.paths[:limit]
        needle = query.lower()
        tiers: tuple[list[int], list[int], list[int]] = ([], [], [])
        lower, base_start = self._lower, self._base_start
        for index, path in enumerate(lower):
            position = path.find(needle)
            if position < 0:
                continue
            base = base_start[index]
            if position == base:
                tier = tiers[0]
            elif position > base:
                tier = tiers[1]
            else:
                tier = tiers[2]
            if len(tier) < limit:
                tier.append(index)
        ranked: list[int] = []
        for tier in tiers:
            ranked.extend(sorted(tier, key=lambda i: (len(lower[i]), lower[i])))
        if len(ranked) < limit:
            ranked.extend(self._fuzzy(needle, set(ranked), limit - len(ranked)))
        return [self.paths[index] for index in ranked[:limit]]

    def _fuzzy(self, needle: str, exclude: set[int], limit: int) -> list[int]:
        """Indexes of paths holding the characters of ``needle`` in order, shortest first."""
        pattern = re.compile("[^\n]*".join(re.escape(char) for char in needle))
        starts, lower = self._line_starts, self._lower
        found: list[int] = []
        last = -1
        for match in pattern.finditer(self._joined):
            index = bisect_right(starts, match.start()) - 1
            if index != last and index not in exclude:
                found.append(index)
                if len(found) >= 20 * limit:  # enough to pick the shortest from
                    break
            last = index
        found.sort(key=lambda i: (len(lower[i]), lower[i]))
        return found[:limit]


FILE_INDEXES: dict[Path, FileIndex] = {}
"""Scanned file lists, shared by every editor in the process (keyed by resolved root)."""


def bracketed(hint: str) -> str:
    """The hint in angle brackets, unless the agent bracketed it itself (fast-agent sends
    ``[summary|<tool-name>]``): brackets twice read as part of the syntax."""
    return hint if hint.startswith(("<", "[", "(", "{")) else f"<{hint}>"


def path_completion(path: str) -> str:
    """What choosing ``path`` in the ``@`` list writes: its mention (visible text whatever
    the name holds) and a space."""
    return mention_for(path) + " "
