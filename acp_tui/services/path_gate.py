"""The path gate: the one way acp-tui touches a file on anyone's behalf.

Every path the client reads or writes for the person or the agent (an ``@`` mention and the
completion that offers it, ``fs/*`` requests, a diff's file, exports, recordings, the
inspector's save, a replay's input) is resolved by :func:`resolve_path`, and the file is then
opened by one of the functions here, which take only its answer. What holds:

- **Judged by the target.** Symlinks are resolved; a path written inside the roots that leads
  outside them through a link *escapes* (:attr:`ResolvedPath.escapes`). Callers refuse it, or,
  for the agent's requests, ask the person (:class:`acp_tui.services.paths.PathGuard`).
- **Regular files only.** A FIFO, socket or device is refused with a message before it is
  opened; every open is non-blocking until ``fstat`` says it is a regular file, so nothing
  here can hang on a pipe, a terminal or ``/dev/zero``.
- **No link is followed once resolved.** Opening walks the resolved path one directory at a
  time with ``O_NOFOLLOW``: a link put in place after the resolution (a race) makes the open
  fail, it never redirects it.
- **Creating never follows.** A file made for the person (export, recording) is created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW``, mode 0600, in a directory kept at 0700: a file or link
  planted at its name is never written through. An existing file the person names to be
  overwritten (``--record PATH``) must be a regular file with no other hard link.

Nothing here imports Textual. Errors are :class:`PathRefused` (a sentence for the person) or
:class:`OSError` from the system.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

__all__ = [
    "PathRefused",
    "ResolvedPath",
    "create_new",
    "open_for_overwrite",
    "open_to_read",
    "private_directory",
    "read_bytes",
    "remove_file",
    "replace_file",
    "resolve_path",
]

Kind = Literal[
    "file",
    "directory",
    "missing",
    "fifo",
    "socket",
    "character device",
    "block device",
    "link",
    "unknown",
]

Reason = Literal["escapes", "not a file", "missing", "link", "changed", "in the way", "read-only"]

#: What each kind that is not a file is called in a refusal.
_KIND_WORDS: dict[str, str] = {
    "file": "a file",
    "directory": "a directory",
    "fifo": "a named pipe (FIFO)",
    "socket": "a socket",
    "character device": "a device",
    "block device": "a block device",
    "link": "a symbolic link that leads nowhere (a loop, or a folder it cannot enter)",
    "unknown": "not a file it can look at (permission denied)",
    "missing": "not there",
}

_O_PATH = getattr(os, "O_PATH", os.O_RDONLY)
_DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | _O_PATH
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_WRITE_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class PathRefused(Exception):
    """A path the gate will not touch; ``str()`` is the sentence for the person."""

    def __init__(
        self,
        reason: Reason,
        path: Path,
        message: str,
        *,
        what: str = "",
        target: Path | None = None,
    ) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.path = path
        self.message = message
        #: The message without the path: "is a named pipe (FIFO), not a file".
        self.what = what or message
        #: Where the path really leads.
        self.target = target or path


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """Where a path really leads, and how it stands against the roots it was asked for."""

    #: The path as written, made absolute (not normalised: ``..`` and links still in it).
    given: Path
    #: The real path: every symlink resolved, ``..`` applied where it really lands.
    real: Path
    #: The roots it is judged against, resolved (empty: no containment asked).
    roots: tuple[Path, ...]
    #: What is at :attr:`real` (looked at without following anything).
    kind: Kind
    #: The last name of :attr:`given` is itself a symbolic link.
    is_link: bool

    @property
    def inside(self) -> bool:
        """The real path is one of the roots or below one (always, without roots)."""
        return not self.roots or _below(self.real, self.roots)

    @property
    def written_inside(self) -> bool:
        """The path as written (``..`` applied to the letters) is inside the roots."""
        return not self.roots or _below(Path(os.path.normpath(self.given)), self.roots)

    @property
    def escapes(self) -> bool:
        """Written inside the roots, it leads outside them through a link."""
        return self.written_inside and not self.inside

    @property
    def via_link(self) -> bool:
        return self.real != Path(os.path.normpath(self.given))

    def leads(self) -> str:
        """``notes.md`` or ``notes.md (a link to /etc/passwd)``: the path for a message."""
        return f"{self.given} (a link to {self.real})" if self.via_link else str(self.given)

    def refuse(self, reason: Reason, what: str) -> PathRefused:
        return PathRefused(
            reason, self.given, f"{self.leads()} {what}", what=what, target=self.real
        )

    def require_file(self, *, inside: bool = True) -> ResolvedPath:
        """This path, when it is a regular file (and, with ``inside``, does not escape the
        roots through a link); else :class:`PathRefused` saying why."""
        if inside and self.escapes:
            raise self.refuse("escapes", "leads outside the session's directories")
        if self.kind == "missing":
            raise self.refuse("missing", "does not exist")
        if self.kind != "file":
            raise self.refuse("not a file", f"is {_KIND_WORDS[self.kind]}, not a file")
        return self


def resolve_path(
    raw: str | os.PathLike[str],
    *,
    base: str | os.PathLike[str] | None = None,
    roots: Iterable[str | os.PathLike[str]] = (),
) -> ResolvedPath:
    """Resolve ``raw`` (``~`` expanded; relative to ``base``, else the current directory)
    and judge it against ``roots``. Never raises for what is at the path: its
    :attr:`~ResolvedPath.kind` says (``missing`` included); a NUL byte is ``ValueError``."""
    text = os.fspath(raw)
    if "\0" in text:
        raise ValueError("a path cannot hold a NUL byte")
    given = Path(os.path.expanduser(text))
    if not given.is_absolute():
        given = Path(base if base is not None else os.getcwd()) / given
    real = Path(os.path.realpath(given))
    resolved_roots: list[Path] = []
    for root in roots:
        real_root = Path(os.path.realpath(root))
        if real_root not in resolved_roots:
            resolved_roots.append(real_root)
    try:
        is_link = stat.S_ISLNK(os.lstat(given).st_mode)
    except (OSError, ValueError):
        is_link = False
    return ResolvedPath(given, real, tuple(resolved_roots), _kind(real), is_link)


def _below(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _kind(real: Path) -> Kind:
    try:
        mode = os.lstat(real).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError:
        return "unknown"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISLNK(mode):
        return "link"
    return "unknown"


# -------------------------------------------------------------------------------- walking


def _open_directory(
    directory: Path, *, make: bool = False, mode: int = 0o777, flags: int = _DIR_FLAGS
) -> int:
    """A descriptor of the resolved ``directory``, reached one name at a time from ``/``
    without following a link (``make``: missing ones are made, the last with ``mode``, those
    on the way with the usual ``0o777 & ~umask``). The last one is opened with ``flags``. A link or a file met on the way is :class:`PathRefused`."""
    fd = os.open("/", _DIR_FLAGS)
    names = directory.parts[1:]
    try:
        for index, name in enumerate(names):
            last = index == len(names) - 1
            step = (flags if last else _DIR_FLAGS) | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
            try:
                opened = os.open(name, step, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, mode if last else 0o777, dir_fd=fd)
                opened = os.open(name, step, dir_fd=fd)
            except (NotADirectoryError, OSError) as error:
                raise _why_not_a_directory(fd, name, directory, error) from None
            os.close(fd)
            fd = opened
    except BaseException:
        os.close(fd)
        raise
    return fd


def _why_not_a_directory(parent: int, name: str, directory: Path, error: OSError) -> OSError:
    """The refusal for a name on the way that could not be entered: a link (put there after
    the resolution) or a file in the way; other errors are returned as they are."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return error
    if stat.S_ISLNK(mode):
        raise PathRefused(
            "changed", directory, f"{directory} changed while it was opened (a link appeared)"
        )
    if not stat.S_ISDIR(mode):
        raise PathRefused(
            "in the way", directory, f"cannot make the directory {directory}: a file is in the way"
        )
    return error


def _open_parent(real: Path) -> tuple[int, str]:
    """A descriptor of ``real``'s directory (see :func:`_open_directory`) and its last name."""
    if real.name in ("", ".", ".."):
        raise PathRefused("not a file", real, f"{real} is a directory, not a file")
    return _open_directory(real.parent), real.name


# -------------------------------------------------------------------------------- reading


def open_to_read(path: ResolvedPath, *, inside: bool = True) -> BinaryIO:
    """The regular file at ``path``, open for reading (see :meth:`ResolvedPath.require_file`).
    A link or a non-file found there now (the path changed since it was resolved) is
    :class:`PathRefused`; nothing blocks."""
    path.require_file(inside=inside)
    parent, name = _open_parent(path.real)
    try:
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=parent)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise path.refuse(
                    "changed", "changed while it was opened (a link appeared)"
                ) from None
            raise
    finally:
        os.close(parent)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise path.refuse("changed", "is no longer a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_bytes(path: ResolvedPath, limit: int, *, inside: bool = True) -> bytes | None:
    """The file's bytes, or None when it holds more than ``limit``."""
    with open_to_read(path, inside=inside) as file:
        data = file.read(limit + 1)
    return None if len(data) > limit else data


# -------------------------------------------------------------------------------- writing


def private_directory(directory: str | os.PathLike[str]) -> ResolvedPath:
    """acp-tui's own folder for files it makes for the person (exports, recordings): made
    if missing, mode 0700 (tightened if it was looser). Returns it resolved."""
    resolved = resolve_path(directory)
    if resolved.kind not in ("directory", "missing"):
        raise resolved.refuse("not a file", f"is {_KIND_WORDS[resolved.kind]}, not a folder")
    fd = _open_directory(resolved.real, make=True, mode=0o700, flags=os.O_RDONLY)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise resolved.refuse("not a file", "belongs to another user")
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
    return resolve_path(resolved.real)


def create_new(
    directory: ResolvedPath, name: str, *, mode: int = 0o600, buffered: bool = True
) -> tuple[Path, BinaryIO]:
    """A new file named ``name`` in ``directory`` (``name-2.ext``, ``-3``... when that one
    exists, whatever it is: a file, a link, a pipe), created exclusively with ``mode``,
    open for writing (``buffered``, else each write goes straight to the file and may be
    partial). Returns its path and the file."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a file name: {name!r}")
    parent = _open_directory(directory.real)
    try:
        stem, dot, suffix = name.partition(".")
        for attempt in range(1, 1000):
            candidate = name if attempt == 1 else f"{stem}-{attempt}{dot}{suffix}"
            try:
                fd = os.open(candidate, _CREATE_FLAGS, mode, dir_fd=parent)
            except FileExistsError:
                continue
            except OSError as error:
                if error.errno == errno.ELOOP:
                    continue
                raise
            os.fchmod(fd, mode)
            return directory.real / candidate, os.fdopen(fd, "wb", buffering=-1 if buffered else 0)
    finally:
        os.close(parent)
    raise FileExistsError(f"no free name for {name} in {directory.real}")


def open_for_overwrite(path: ResolvedPath) -> BinaryIO:
    """``path``, a file the person named, emptied (or made) and open for writing,
    unbuffered, mode 0600. Refused: a name that is itself a link (never followed when
    writing), a path that escapes the roots through a linked folder, anything but a regular
    file, and a file with other hard links (writing it would change them too)."""
    if path.is_link:
        raise path.refuse("link", "is a symbolic link: acp-tui does not write through one")
    if path.escapes:
        raise path.refuse("escapes", "leads outside the working directory through a link")
    if path.kind not in ("file", "missing"):
        raise path.refuse("not a file", f"is {_KIND_WORDS[path.kind]}, not a file")
    parent, name = _open_parent(path.real)
    try:
        if path.kind == "missing":
            try:
                fd = os.open(name, _CREATE_FLAGS, 0o600, dir_fd=parent)
            except (FileExistsError, OSError) as error:
                if isinstance(error, FileExistsError) or error.errno == errno.ELOOP:
                    raise path.refuse("changed", "appeared while it was being made") from None
                raise
        else:
            try:
                fd = os.open(name, _WRITE_FLAGS, dir_fd=parent)
            except OSError as error:
                if error.errno == errno.ELOOP:
                    raise path.refuse("changed", "changed while it was opened") from None
                raise
    finally:
        os.close(parent)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise path.refuse("changed", "is no longer a regular file")
        if info.st_nlink > 1:
            raise path.refuse(
                "not a file", "has other names (hard links): writing it would change them too"
            )
        os.ftruncate(fd, 0)
        os.fchmod(fd, 0o600)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "wb", buffering=0)


def replace_file(path: ResolvedPath, data: bytes) -> None:
    """Write ``data`` to the file at ``path``'s real path by replacing it: a temporary file in
    the same directory, fsynced, given the old file's permission bits (a new file: ``0o666 &
    ~umask``), renamed over it. Readers see the old or the new content, never a mix, and a
    hard link to the old file keeps the old content. Missing directories are made. The caller
    has judged ``path`` against its roots; a link or non-file met now, or a read-only file,
    is :class:`PathRefused`."""
    if path.kind not in ("file", "missing"):
        raise path.refuse("not a file", f"is {_KIND_WORDS[path.kind]}, not a file")
    if path.real.name in ("", ".", ".."):
        raise path.refuse("not a file", "is a directory, not a file")
    parent = _open_directory(path.real.parent, make=True)
    name = path.real.name
    try:
        mode: int | None = None
        try:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISDIR(info.st_mode):
                raise path.refuse("not a file", "is a directory, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise path.refuse("changed", "is no longer a regular file")
            mode = stat.S_IMODE(info.st_mode)
            if not mode & 0o222 or not os.access(name, os.W_OK, dir_fd=parent):
                # The rename would bypass the file's own permissions: honour them instead.
                raise path.refuse("read-only", "is read-only")
        temp = f".{name}.{os.urandom(6).hex()}.tmp"
        # 0o666 is filtered by the umask, as for any new file.
        fd = os.open(temp, _CREATE_FLAGS, 0o666, dir_fd=parent)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if mode is not None:
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=parent)
            raise
    finally:
        os.close(parent)
    _fsync_directory(path.real.parent)


def remove_file(path: ResolvedPath) -> bool:
    """Delete the regular file at ``path`` (a rewind takes back a file the agent made): its
    directory reached without following a link, the name itself never followed (a link put
    there is refused, not removed through). Refused: a path that escapes the roots, a link,
    anything but a regular file. Returns False when nothing was there."""
    if path.is_link or path.via_link:
        raise path.refuse(
            "link", "is reached through a symbolic link: acp-tui does not delete through one"
        )
    if path.escapes or not path.inside:
        raise path.refuse("escapes", "is outside the session's directories")
    if path.kind == "missing":
        return False
    if path.kind != "file":
        raise path.refuse("not a file", f"is {_KIND_WORDS[path.kind]}, not a file")
    parent, name = _open_parent(path.real)
    try:
        try:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(info.st_mode):
            raise path.refuse("changed", "is no longer a regular file")
        os.unlink(name, dir_fd=parent)
    finally:
        os.close(parent)
    _fsync_directory(path.real.parent)
    return True


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError, PathRefused):
        fd = _open_directory(directory, flags=os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
