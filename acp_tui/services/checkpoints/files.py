"""Reading and putting back the files a rewind touches, through the path gate only.

Every file is resolved against the session's roots (:func:`acp_tui.services.path_gate.
resolve_path`) and refused when it is outside them, reached through a symbolic link (a
rewind never writes or deletes through one: a link put in the project since is left as it
is, and said), or not a regular file (a FIFO, a device). Writes replace the file atomically
(:func:`~acp_tui.services.path_gate.replace_file`); deletions never follow a link
(:func:`~acp_tui.services.path_gate.remove_file`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.services.path_gate import (
    PathRefused,
    ResolvedPath,
    open_to_read,
    remove_file,
    replace_file,
    resolve_path,
)

__all__ = ["FileTarget", "Refused", "put_back", "read_current"]

#: Larger files are not read to be compared or shown (they are not snapshotted either).
MAX_READ = 256 * 1024 * 1024


class Refused(Exception):
    """A file a rewind will not touch; ``str()`` says why, for the person."""


@dataclass(frozen=True, slots=True)
class FileTarget:
    """What a file is to be: ``content``, or no file (None: it is deleted)."""

    path: Path
    content: bytes | None


def _judge(path: Path, roots: Sequence[Path]) -> ResolvedPath:
    resolved = resolve_path(path, roots=roots)
    if resolved.is_link or resolved.via_link:
        raise Refused(f"{path} is reached through a symbolic link: left as it is")
    if not resolved.inside:
        raise Refused(f"{path} is outside the session's directories: left as it is")
    if resolved.kind not in ("file", "missing"):
        raise Refused(f"{path} is not a regular file now: left as it is")
    return resolved


def read_current(path: Path, roots: Sequence[Path]) -> bytes | None:
    """The file's bytes now, or None when there is no file. :class:`Refused` for a path a
    rewind will not touch."""
    resolved = _judge(path, roots)
    if resolved.kind == "missing":
        return None
    try:
        with open_to_read(resolved) as file:
            data = file.read(MAX_READ + 1)
    except PathRefused as refused:
        raise Refused(str(refused)) from None
    except OSError as error:
        raise Refused(f"{path} cannot be read: {error.strerror or error}") from None
    if len(data) > MAX_READ:
        raise Refused(f"{path} is too large to compare: left as it is")
    return data


def put_back(target: FileTarget, roots: Sequence[Path]) -> None:
    """Make the file what ``target`` says (write it, or delete it). :class:`Refused` when
    the path gate refuses it or the system fails."""
    resolved = _judge(target.path, roots)
    try:
        if target.content is None:
            remove_file(resolved)
        else:
            replace_file(resolved, target.content)
    except PathRefused as refused:
        raise Refused(str(refused)) from None
    except OSError as error:
        raise Refused(f"{target.path}: {error.strerror or error}") from None
