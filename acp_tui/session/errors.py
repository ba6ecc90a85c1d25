"""What the session layer says went wrong, in its own words: every face (the TUI, ``ask``,
``sessions``) catches these, never the wire's errors.

The controller translates at its boundary (:func:`translated`): the agent is gone
(:class:`AgentGone`), it does not do what was asked (:class:`NotSupported`), it needs a
sign-in that did not happen (:class:`AuthRequired`), or it refused with an error of its own
(:class:`AgentRefused`, with its code and message). Anything else the client could not make
sense of is a plain :class:`SessionError`. Each message is fit for a person, as the wire's
was.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from acp_tui.protocol.errors import AcpError, AgentExitedError, NotSupportedError
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RESOURCE_NOT_FOUND, RpcError
from acp_tui.session.auth.signin import AuthNotDone

__all__ = [
    "AgentGone",
    "AgentRefused",
    "AuthRequired",
    "NotSupported",
    "SessionError",
    "session_error",
    "translated",
    "translating",
    "translating_now",
]

P = ParamSpec("P")
R = TypeVar("R")


class SessionError(Exception):
    """A call to the agent did not do what was asked; the message says why."""


class AgentGone(SessionError):
    """The agent is not running: it exited (while the call waited, or before it)."""


class NotSupported(SessionError):
    """The agent does not do what was asked (it did not advertise it)."""


class AuthRequired(SessionError):
    """The agent needs a sign-in, and none happened."""


class AgentRefused(SessionError):
    """The agent answered the call with an error: its ``code``, ``message`` and ``data`` as
    sent, and ``reason`` (the message with what ``data`` says of why, for a person)."""

    def __init__(self, code: int, message: str, data: Any = None, reason: str = "") -> None:
        self.code = code
        self.message = message
        self.data = data
        self.reason = reason or message
        super().__init__(f"{self.reason} (code {code})")

    @property
    def not_found(self) -> bool:
        """The agent does not know what was named (a session it no longer has)."""
        return self.code == RESOURCE_NOT_FOUND


def session_error(error: BaseException) -> SessionError | None:
    """``error`` in the session layer's words, or None when it is none of the wire's."""
    if isinstance(error, SessionError):
        return error
    if isinstance(error, AgentExitedError):
        return AgentGone(str(error))
    if isinstance(error, NotSupportedError):
        return NotSupported(str(error))
    if isinstance(error, AuthNotDone):
        return AuthRequired(str(error))
    if isinstance(error, RpcError):
        if error.code == AUTH_REQUIRED:
            return AuthRequired(error.reason)
        return AgentRefused(error.code, error.message, error.data, error.reason)
    if isinstance(error, AcpError):
        return SessionError(str(error))
    return None


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Raise the wire's errors as the session layer's (the original is the cause)."""
    try:
        yield
    except (AcpError, RpcError) as error:
        translation = session_error(error)
        assert translation is not None
        raise translation from error


def translating(call: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``call`` with its errors :func:`translated`: what the controller hands a face."""

    @functools.wraps(call)
    async def translate(*args: P.args, **kwargs: P.kwargs) -> R:
        with translated():
            return await call(*args, **kwargs)

    return translate


def translating_now(call: Callable[P, R]) -> Callable[P, R]:
    """:func:`translating` for a call that is not a coroutine."""

    @functools.wraps(call)
    def translate(*args: P.args, **kwargs: P.kwargs) -> R:
        with translated():
            return call(*args, **kwargs)

    return translate
