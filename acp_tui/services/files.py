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
    readers see the old or the new content, never a mix (the path gate's
    :func:`~acp_tui.services.path_gate.replace_file`). A symlink inside the roots is written
    through (its target is replaced, the link stays); a hard link to the file keeps the old
    content. A read-only file (no write bit, or not writable by this user) is refused with
    PERMISSION_DENIED, since the rename would bypass it.
"""

from __future__ import annotations

import os
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
from acp_tui.services.path_gate import PathRefused, ResolvedPath, open_to_read, replace_file
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
        path = await self.guard.admit("read", params.get("path"))
        content = await anyio.to_thread.run_sync(self._read, path, line, limit)
        return {"content": content}

    async def write_text_file(self, params: dict[str, Any]) -> dict[str, Any]:
        """``fs/write_text_file`` -> ``{}`` (``WriteTextFileResponse`` has only ``_meta``)."""
        params = _require_object(params)
        content = params.get("content")
        if not isinstance(content, str):
            raise invalid_params("'content' must be a string")
        path = await self.guard.admit("write", params.get("path"))
        # A lone surrogate (possible in JSON) cannot be written as UTF-8: it becomes "?".
        data = content.encode("utf-8", errors="replace")
        await anyio.to_thread.run_sync(_write, path, data)
        return {}

    def _read(self, path: ResolvedPath, line: int | None, limit: int | None) -> str:
        real = path.real
        try:
            # Judged by the guard already (inside, or allowed by the person): here only what
            # is there counts. A link appearing since the check is refused, not followed.
            file = open_to_read(path, inside=False)
        except PathRefused as refused:
            raise _refusal(refused, real) from None
        except OSError as exc:
            raise _os_error("read", real, exc) from None
        with file:
            try:
                if line is None and limit is None:
                    size = os.fstat(file.fileno()).st_size
                    if size > self.max_read_bytes:
                        raise invalid_params(
                            f"file too large to read at once ({size} bytes): "
                            "use 'line' and 'limit'",
                            {"path": str(real), "size": size},
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


def _write(path: ResolvedPath, data: bytes) -> None:
    try:
        replace_file(path, data)
    except PathRefused as refused:
        raise _refusal(refused, path.real) from None
    except OSError as exc:
        raise _os_error("write", path.real, exc) from None


def _refusal(refused: PathRefused, real: Path) -> ServiceError:
    """The agent's error for what the path gate refused (the path judged inside already)."""
    data = {"path": str(real)}
    if refused.reason == "missing":
        return not_found(f"no such file: {real}", data)
    if refused.reason == "read-only":
        # The rename would bypass the file's own permissions: they are honoured instead.
        return permission_denied(f"refused to write {real}: the file is read-only", data)
    return invalid_params(refused.message, data)


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
