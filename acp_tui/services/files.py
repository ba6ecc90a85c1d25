"""``fs/read_text_file`` and ``fs/write_text_file``: the files the agent asks the client to touch.

One :class:`FileService` per session: it owns the session's :class:`PathGuard` (its cwd and
additional directories); call :meth:`FileService.set_roots` when they change. The same guard can
be handed to the :class:`~acp_tui.services.terminals.TerminalManager` for terminal cwds.

The file on disk is the truth: there are no unsaved buffers to consult.

Reads
    ``path`` must be absolute and inside the roots (or allowed by the person). ``line`` (1-based)
    and ``limit`` select lines; line endings are kept byte for byte (lines end at ``\\n``, so a
    ``\\r\\n`` file keeps its ``\\r``). Bytes that are not UTF-8 become U+FFFD. Only regular files
    are read (a FIFO or device would block or never end). A whole-file read larger than
    ``max_read_bytes`` is refused with INVALID_PARAMS, asking for ``line``/``limit``.

Writes
    ``path`` must be absolute and inside the roots. Missing parent directories are made (with
    the usual ``0o777 & ~umask``), as an agent's own write tool does when it runs without a
    client: one that writes ``src/new/module.py`` through the client has no other way to make
    the folder. A parent that is a file is INVALID_PARAMS. The content goes to a
    temporary file in the same directory, is fsynced, given the old file's permission bits (a new
    file gets the usual ``0o666 & ~umask``), and renamed over the target with ``os.replace``, so
    readers see the old or the new content, never a mix. A symlink inside the roots is written
    through (its target is replaced, the link stays). A read-only file (no write bit, or not
    writable by this user) is refused with PERMISSION_DENIED, since the rename would bypass it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio.to_thread

from acp_tui.services.errors import (
    ServiceError,
    internal_error,
    invalid_params,
    not_found,
    permission_denied,
)
from acp_tui.services.paths import ApproveOutside, PathGuard

DEFAULT_MAX_READ_BYTES = 50 * 1024 * 1024


class FileService:
    """The fs methods of one session. Methods take the decoded ``params`` and return results."""

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        approve_outside: ApproveOutside | None = None,
        *,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> None:
        self.guard = PathGuard(roots, approve_outside)
        self.max_read_bytes = max_read_bytes

    @property
    def roots(self) -> tuple[Path, ...]:
        return self.guard.roots

    def set_roots(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        self.guard.set_roots(roots)

    async def read_text_file(self, params: dict[str, Any]) -> dict[str, Any]:
        """``fs/read_text_file`` -> ``{"content": str}``."""
        params = _require_object(params)
        line = _optional_count(params, "line", minimum=1)
        limit = _optional_count(params, "limit", minimum=0)
        real = await self.guard.check("read", params.get("path"))
        content = await anyio.to_thread.run_sync(self._read, real, line, limit)
        return {"content": content}

    async def write_text_file(self, params: dict[str, Any]) -> dict[str, Any]:
        """``fs/write_text_file`` -> ``{}`` (``WriteTextFileResponse`` has only ``_meta``)."""
        params = _require_object(params)
        content = params.get("content")
        if not isinstance(content, str):
            raise invalid_params("'content' must be a string")
        real = await self.guard.check("write", params.get("path"))
        # A lone surrogate (possible in JSON) cannot be written as UTF-8: it becomes "?".
        data = content.encode("utf-8", errors="replace")
        await anyio.to_thread.run_sync(_atomic_write, real, data)
        return {}

    def _read(self, real: Path, line: int | None, limit: int | None) -> str:
        try:
            # O_NOFOLLOW: the checked path is already resolved, so a symlink appearing
            # there since the check is an attack, not a file to follow.
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            raise not_found(f"no such file: {real}", {"path": str(real)}) from None
        except OSError as exc:
            raise _os_error("read", real, exc) from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise invalid_params(f"not a file but a directory: {real}", {"path": str(real)})
            if not stat.S_ISREG(info.st_mode):
                raise invalid_params(f"not a regular file: {real}", {"path": str(real)})
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, "rb") as file:
            try:
                if line is None and limit is None:
                    if info.st_size > self.max_read_bytes:
                        raise invalid_params(
                            f"file too large to read at once ({info.st_size} bytes): "
                            "use 'line' and 'limit'",
                            {"path": str(real), "size": info.st_size},
                        )
                    raw = file.read(self.max_read_bytes + 1)
                    if len(raw) > self.max_read_bytes:
                        raise invalid_params(
                            "file too large to read at once: use 'line' and 'limit'",
                            {"path": str(real)},
                        )
                else:
                    raw = _slice_lines(file, line or 1, limit, self.max_read_bytes)
            except OSError as exc:
                raise _os_error("read", real, exc) from None
        return raw.decode("utf-8", errors="replace")


def _slice_lines(file: Any, line: int, limit: int | None, max_bytes: int) -> bytes:
    """Lines ``line .. line+limit-1`` (1-based) of a binary file, endings kept.

    Reads in bounded pieces, so one enormous line costs no more memory than ``max_bytes``.
    """
    if limit == 0:
        return b""
    parts: list[bytes] = []
    size = 0
    number = 1
    taken = 0
    piece_size = 1024 * 1024
    while True:
        piece = file.readline(piece_size)
        if not piece:
            break
        ends_line = piece.endswith(b"\n")
        if number >= line:
            parts.append(piece)
            size += len(piece)
            if size > max_bytes:
                raise invalid_params(
                    f"selected lines exceed {max_bytes} bytes: use a smaller 'limit'",
                    {"line": line, "limit": limit},
                )
        if ends_line:
            number += 1
            if number > line:
                taken += 1
                if limit is not None and taken >= limit:
                    break
    return b"".join(parts)


def _atomic_write(real: Path, data: bytes) -> None:
    parent = real.parent
    try:
        parent_info = os.stat(parent)
    except (FileNotFoundError, NotADirectoryError):
        parent_info = _make_directories(parent, real)
    except OSError as exc:
        raise _os_error("write", real, exc) from None
    if not stat.S_ISDIR(parent_info.st_mode):
        raise invalid_params(f"not a directory: {parent}", {"path": str(real)})

    mode: int | None = None
    try:
        info = os.stat(real)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise _os_error("write", real, exc) from None
    else:
        if stat.S_ISDIR(info.st_mode):
            raise invalid_params(f"not a file but a directory: {real}", {"path": str(real)})
        if not stat.S_ISREG(info.st_mode):
            raise invalid_params(f"not a regular file: {real}", {"path": str(real)})
        mode = stat.S_IMODE(info.st_mode)
        if not mode & 0o222 or not os.access(real, os.W_OK):
            # The rename would bypass the file's own permissions: honour them instead.
            raise permission_denied(
                f"refused to write {real}: the file is read-only", {"path": str(real)}
            )

    temp = parent / f".{real.name}.{os.urandom(6).hex()}.tmp"
    try:
        # 0o666 is filtered by the umask, as for any new file.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise _os_error("write", real, exc) from None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise _os_error("write", real, exc) from None
        raise
    _fsync_dir(parent)


def _make_directories(directory: Path, real: Path) -> os.stat_result:
    """Make ``directory`` and its missing parents for a write to ``real``; its stat."""
    try:
        os.makedirs(directory, exist_ok=True)
        return os.stat(directory)
    except (FileExistsError, NotADirectoryError):
        raise invalid_params(
            f"cannot make the directory {directory}: a file is in the way", {"path": str(real)}
        ) from None
    except OSError as exc:
        raise _os_error("write", real, exc) from None


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _os_error(op: str, path: Path, exc: OSError) -> ServiceError:
    if isinstance(exc, PermissionError):
        message = f"cannot {op} {path}: permission denied by the operating system"
    elif isinstance(exc, IsADirectoryError):
        return invalid_params(f"not a file but a directory: {path}", {"path": str(path)})
    else:
        message = f"cannot {op} {path}: {exc.strerror or exc}"
    return internal_error(message, {"path": str(path), "errno": exc.errno})


def _require_object(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise invalid_params("params must be an object")
    return params


def _optional_count(params: dict[str, Any], field: str, *, minimum: int) -> int | None:
    value = params.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise invalid_params(f"'{field}' must be an integer >= {minimum}", {field: value})
    return value
