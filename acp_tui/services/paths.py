"""Containment of the paths an agent asks the client to touch.

A :class:`PathGuard` holds the roots of one session (its cwd first, then its additional
directories), all resolved with symlinks followed. A requested path is resolved the same way,
by :func:`acp_tui.services.path_gate.resolve_path` (a path that does not exist yet is resolved
through its existing ancestors, and a dangling symlink through its target), and it is *inside*
when the resolved path is one of the roots or below one. So ``root/link -> /etc`` makes
``root/link/passwd`` outside, and ``root/../x`` is judged by where it really lands.

Outside paths are refused with ``PERMISSION_DENIED`` unless an ``approve_outside(request)``
callback is given and returns True (the UI asks the person). The :class:`OutsideRequest` says
what is asked: ``operation`` is ``"read"``, ``"write"`` or ``"terminal"``; ``path`` is the
resolved path, which is what would really be touched (a terminal's working directory); for a
terminal it also carries the command and the environment it sets (a terminal is confirmed for
its environment too, see :mod:`acp_tui.services.terminals`).

Guards are cheap: make one per session, and call :meth:`PathGuard.set_roots` when the session's
directories change.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from acp_tui.services.errors import invalid_params, permission_denied
from acp_tui.services.path_gate import ResolvedPath, resolve_path

Operation = Literal["read", "write", "terminal"]


@dataclass(frozen=True, slots=True)
class OutsideRequest:
    """Something the agent asks that needs the person's yes, with everything to show them.
    Every string in it is the agent's: show it with
    :func:`acp_tui.text.safety.escaped_line`."""

    operation: Operation
    #: The resolved file, or the terminal's working directory: what is really touched.
    path: Path
    #: The path as the agent wrote it (it may resolve elsewhere, through a symlink).
    requested: str
    #: The session's directories.
    roots: tuple[Path, ...]
    #: Whether ``path`` is outside ``roots`` (a terminal may be asked for its env alone).
    outside: bool = True
    #: A terminal's command and arguments, as the agent sent them.
    command: str = ""
    args: tuple[str, ...] = ()
    #: Every variable a terminal sets, in the agent's order.
    env: tuple[tuple[str, str], ...] = ()
    #: The names among ``env`` that change which code runs (PATH, LD_PRELOAD...).
    risky_env: tuple[str, ...] = ()
    #: The session asking (None: not known), so the question can name it.
    session_id: str | None = None


ApproveOutside = Callable[[OutsideRequest], Awaitable[bool]]


def require_absolute(raw: Any, field: str = "path") -> Path:
    """Validate a wire path: a non-empty absolute string without NUL bytes."""
    if not isinstance(raw, str) or not raw:
        raise invalid_params(f"'{field}' must be a non-empty string", {field: raw})
    if "\0" in raw:
        raise invalid_params(f"'{field}' must not contain NUL bytes", {field: raw})
    path = Path(raw)
    if not path.is_absolute():
        raise invalid_params(f"'{field}' must be an absolute path: {raw}", {field: raw})
    return path


def resolve_real(path: Path) -> Path:
    """Resolve symlinks and ``..`` without requiring the path to exist."""
    return resolve_path(path).real


class PathGuard:
    """The roots of one session and the rule that keeps the agent inside them."""

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]],
        approve_outside: ApproveOutside | None = None,
    ) -> None:
        self.approve_outside = approve_outside
        self._roots: tuple[Path, ...] = ()
        self.set_roots(roots)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The resolved roots, the session's cwd first."""
        return self._roots

    @property
    def cwd(self) -> Path | None:
        """The session's cwd (the first root), the default working directory of terminals."""
        return self._roots[0] if self._roots else None

    def set_roots(self, roots: Iterable[str | os.PathLike[str]]) -> None:
        resolved: list[Path] = []
        for root in roots:
            real = resolve_real(Path(root))
            if real not in resolved:
                resolved.append(real)
        self._roots = tuple(resolved)

    def is_inside(self, real: Path) -> bool:
        """Whether an already resolved path is one of the roots or below one."""
        return any(real == root or real.is_relative_to(root) for root in self._roots)

    async def check(self, op: Operation, raw: Any, field: str = "path") -> Path:
        """Validate, resolve and contain a wire path; return the resolved path to use.

        Raises ``INVALID_PARAMS`` for a malformed path and ``PERMISSION_DENIED`` for an outside
        path the person did not allow.
        """
        return (await self.admit(op, raw, field)).real

    async def admit(self, op: Operation, raw: Any, field: str = "path") -> ResolvedPath:
        """:meth:`check`, answering the resolved path itself (for the path gate's openers)."""
        requested = require_absolute(raw, field)
        resolved = resolve_path(requested, roots=self._roots)
        real = resolved.real
        if self.is_inside(real):
            return resolved
        if await self.ask(OutsideRequest(op, real, str(raw), self._roots)):
            return resolved
        raise permission_denied(
            f"refused to {_VERBS[op]} {requested}: "
            + (f"it resolves to {real}, " if real != requested else "")
            + "which is outside the session's directories"
            + (" and was not allowed" if self.approve_outside is not None else ""),
            {
                "path": str(requested),
                "resolvedPath": str(real),
                "roots": [str(root) for root in self._roots],
            },
        )

    async def ask(self, request: OutsideRequest) -> bool:
        """Whether the person allows ``request`` (no callback: never)."""
        return self.approve_outside is not None and bool(await self.approve_outside(request))


_VERBS: dict[str, str] = {
    "read": "read",
    "write": "write",
    "terminal": "run a command in",
}


def roots_of(
    cwd: str | os.PathLike[str], additional: Sequence[str | os.PathLike[str]] = ()
) -> list[Path]:
    """The roots of a session: its cwd, then its additional directories."""
    return [Path(cwd), *(Path(extra) for extra in additional)]
