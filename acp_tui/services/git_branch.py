"""The git branch of a folder, read from the repository's ``HEAD`` file: no git process, no
lock, nothing of the repository touched (a status line asks every second).

A worktree's ``.git`` is a file (``gitdir: PATH``); its ``HEAD`` is in that folder. A detached
``HEAD`` is its commit, shortened. Pure Python: no Textual.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["GitBranch", "head_file", "read_branch"]

#: The most of a ``HEAD`` (or ``.git`` file) read: a real one is a line.
MAX_BYTES = 4096
#: How many characters of a detached ``HEAD``'s commit are shown.
SHORT_SHA = 7


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace").strip()


def head_file(folder: str | os.PathLike[str]) -> Path | None:
    """The ``HEAD`` file of the repository ``folder`` is in (walking up), or None."""
    here = Path(folder)
    for candidate in (here, *here.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            head = dot_git / "HEAD"
            return head if head.is_file() else None
        if dot_git.is_file():
            text = _read(dot_git) or ""
            if not text.startswith("gitdir:"):
                return None
            gitdir = Path(text.removeprefix("gitdir:").strip())
            if not gitdir.is_absolute():
                gitdir = candidate / gitdir
            head = gitdir / "HEAD"
            return head if head.is_file() else None
    return None


def read_branch(head: Path) -> str | None:
    """What ``head`` says: the branch's name, a detached commit shortened, or None."""
    text = _read(head)
    if not text:
        return None
    if text.startswith("ref:"):
        ref = text.removeprefix("ref:").strip()
        return ref.removeprefix("refs/heads/") or None
    return text[:SHORT_SHA] if all(c in "0123456789abcdef" for c in text) else None


class GitBranch:
    """The branch of one folder, its ``HEAD`` found once (looked for again while there is
    none: a ``git init`` later) and re-read only when it changes (its modification time and
    size), so asking every second costs one ``stat``."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._head: Path | None = None
        self._stamp: tuple[int, int] | None = None
        self._branch: str | None = None

    def current(self) -> str | None:
        if self._head is None:
            self._head = head_file(self.folder)
        head = self._head
        if head is None:
            return None
        try:
            info = head.stat()
        except OSError:
            self._head, self._stamp, self._branch = None, None, None
            return None
        stamp = (info.st_mtime_ns, info.st_size)
        if stamp != self._stamp:
            self._stamp = stamp
            self._branch = read_branch(head)
        return self._branch
