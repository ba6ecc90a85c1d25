"""anyio byte streams over this process's own stdin and stdout (fd 0 and fd 1).

An ACP agent speaks on its stdio (https://agentclientprotocol.com/protocol/transports); this
is how the built-in demo agent gets a :class:`~acp_tui.protocol.jsonrpc.Connection` onto it.

Pipes, sockets and character devices are switched to non-blocking mode and driven with
``anyio.wait_readable`` / ``anyio.wait_writable``: no thread hop per read or write, so a
burst of tens of thousands of small lines costs one ``os.write`` each and never blocks the
event loop. Anything else (a regular file redirected onto stdin or stdout, or Windows) falls
back to blocking calls in a worker thread. The original blocking mode is restored on close,
so a terminal shared with a parent shell is left as it was found.

End of input raises :class:`anyio.EndOfStream`; a closed reader on the other end of stdout
(EPIPE) raises :class:`anyio.BrokenResourceError`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

__all__ = ["FdReceiveStream", "FdSendStream", "stdio_streams"]

_POLLABLE = (stat.S_ISFIFO, stat.S_ISSOCK, stat.S_ISCHR)
_MAX_WRITE = 1024 * 1024


def _pollable(fd: int) -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return any(check(mode) for check in _POLLABLE)


class _FdStream:
    def __init__(self, fd: int, *, close_fd: bool = False) -> None:
        self._fd = fd
        self._close_fd = close_fd
        self._closed = False
        self._nonblocking = _pollable(fd)
        self._restore_blocking = False
        if self._nonblocking:
            try:
                if os.get_blocking(fd):
                    os.set_blocking(fd, False)
                    self._restore_blocking = True
            except OSError:
                self._nonblocking = False

    @property
    def fd(self) -> int:
        return self._fd

    def _release(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._restore_blocking:
            with contextlib.suppress(OSError):
                os.set_blocking(self._fd, True)
        if self._close_fd:
            with contextlib.suppress(OSError):
                os.close(self._fd)


class FdReceiveStream(_FdStream, ByteReceiveStream):
    """Bytes from a file descriptor; :class:`anyio.EndOfStream` at end of input."""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._closed:
            raise anyio.ClosedResourceError
        if not self._nonblocking:
            data = await anyio.to_thread.run_sync(
                os.read, self._fd, max_bytes, abandon_on_cancel=True
            )
        else:
            while True:
                try:
                    data = os.read(self._fd, max_bytes)
                    break
                except BlockingIOError:
                    await anyio.wait_readable(self._fd)
                except OSError as error:
                    if self._closed:
                        raise anyio.ClosedResourceError from error
                    raise anyio.BrokenResourceError(str(error)) from error
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        self._release()


class FdSendStream(_FdStream, ByteSendStream):
    """Bytes to a file descriptor, written whole before :meth:`send` returns."""

    async def send(self, item: bytes) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        view = memoryview(item)
        try:
            if not self._nonblocking:
                await anyio.to_thread.run_sync(self._write_all_blocking, view)
                return
            while view:
                try:
                    written = os.write(self._fd, view[:_MAX_WRITE])
                except BlockingIOError:
                    await anyio.wait_writable(self._fd)
                    continue
                view = view[written:]
        except OSError as error:
            if error.errno in (errno.EPIPE, errno.ECONNRESET, errno.EBADF):
                raise anyio.BrokenResourceError(str(error)) from error
            raise

    def _write_all_blocking(self, view: memoryview) -> None:
        while view:
            written = os.write(self._fd, view[:_MAX_WRITE])
            view = view[written:]

    async def aclose(self) -> None:
        self._release()


def stdio_streams() -> tuple[ByteReceiveStream, ByteSendStream]:
    """Streams over fd 0 and fd 1. Nothing else may write to fd 1 while they are in use:
    log to stderr, and call :func:`protect_stdout` so a stray ``print`` cannot either."""
    return FdReceiveStream(0), FdSendStream(1)


def protect_stdout() -> int:
    """Point ``sys.stdout`` (and so any stray ``print``) at stderr, so that only protocol
    lines reach fd 1. Returns fd 1 for convenience."""
    sys.stdout = sys.stderr
    return 1
