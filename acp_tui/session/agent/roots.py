"""Each session's directories, for file containment and for the session calls.

A session works in its cwd and its additional directories
(https://agentclientprotocol.com/protocol/v1/session-setup: ``additionalDirectories`` on
``session/new``, ``session/load``, ``session/resume`` and ``session/fork``, when the agent
advertises ``sessionCapabilities.additionalDirectories``). Reads, writes and terminals the agent
asks for inside any of them go ahead; outside, the person is asked (see
:mod:`acp_tui.services.paths`). A request names its session, so each session is judged by its
own directories: one opened from another folder is not confined to the first one's.

:func:`dirs_to_send` says which directories a session call carries: those the session already
had (remembered in the local index, or listed by the agent), then those given for this run
(``--add-dir``, the agent's ``additional_directories`` in the config), each once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp_tui.services.files import FileService
from acp_tui.services.paths import ApproveOutside, OutsideRequest, PathGuard, roots_of

__all__ = ["SessionRoots", "dirs_to_send", "resolve_dirs"]


def dirs_to_send(session_dirs: Iterable[str] | None, run_dirs: Iterable[str]) -> list[str]:
    """The session's own directories first, then this run's, without repeats."""
    result: list[str] = []
    for path in [*(session_dirs or ()), *run_dirs]:
        if isinstance(path, str) and path and path not in result:
            result.append(path)
    return result


def resolve_dirs(raw: Sequence[str], base: str) -> tuple[list[str], list[str]]:
    """``raw`` paths made absolute (``~`` expanded, relative ones against ``base``), and a
    sentence for each that is not a directory. Only existing directories are kept."""
    good: list[str] = []
    problems: list[str] = []
    for item in raw:
        path = os.path.abspath(os.path.join(base, os.path.expanduser(item)))
        if os.path.isdir(path):
            if path not in good:
                good.append(path)
        elif os.path.exists(path):
            problems.append(f"{path}: not a directory")
        else:
            problems.append(f"{path}: no such directory")
    return good, problems


class SessionRoots:
    """The fs services (and terminal guards) of the sessions of one agent process. A request
    for a session this run did not open is judged by ``default_cwd`` alone."""

    def __init__(self, default_cwd: str, approve_outside: ApproveOutside | None = None) -> None:
        self.approve_outside = approve_outside
        self.default = FileService([default_cwd], approve_outside)
        self._sessions: dict[str, FileService] = {}

    def set(self, session_id: str, cwd: str, additional: Sequence[str] = ()) -> None:
        roots = roots_of(cwd, list(additional))
        service = self._sessions.get(session_id)
        if service is None:
            self._sessions[session_id] = FileService(roots, self._asking_for(session_id))
        else:
            service.set_roots(roots)

    def _asking_for(self, session_id: str) -> ApproveOutside | None:
        """The question of a session's requests names the session (the dialog says which)."""
        approve = self.approve_outside
        if approve is None:
            return None

        async def ask(request: OutsideRequest) -> bool:
            return await approve(replace(request, session_id=session_id))

        return ask

    def roots(self, session_id: str | None) -> tuple[Path, ...]:
        return self._service(session_id).roots

    def _service(self, session_id: Any) -> FileService:
        if isinstance(session_id, str):
            return self._sessions.get(session_id, self.default)
        return self.default

    def _for(self, params: Any) -> FileService:
        return self._service(params.get("sessionId") if isinstance(params, dict) else None)

    def guard_for(self, params: Any) -> PathGuard:
        return self._for(params).guard

    async def read_text_file(self, params: Any) -> dict[str, Any]:
        return await self._for(params).read_text_file(params)

    async def write_text_file(self, params: Any) -> dict[str, Any]:
        return await self._for(params).write_text_file(params)
