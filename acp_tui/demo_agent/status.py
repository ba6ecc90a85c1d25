"""The demo agent's unstable status methods: its sign-in state (``auth/status``, pushed as
``auth/status_update`` when it changes, and only then), whether it has a session in memory
(``session/status``) and what a session would start with (``session/options``).

"In memory" is any demo agent process's on this machine: each one marks the sessions it has
open in the state directory (``open/<session id>.<pid>``), so two clients on the same session
(two acp-tui windows) see it ``open`` from the second one, as an agent serving several
connections would say. A mark of a process that is gone counts for nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from acp_tui.demo_agent import config
from acp_tui.demo_agent.auth import AuthState
from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.demo_agent.params import not_found, str_param
from acp_tui.demo_agent.sessions import SessionRecord, SessionStore, valid_session_id
from acp_tui.protocol.jsonrpc import METHOD_NOT_FOUND, RpcError

OPEN_DIR = "open"


class Host(Protocol):
    """What of the agent these methods read (:class:`~acp_tui.demo_agent.agent.DemoAgent`)."""

    auth: AuthState
    caps: ClientCaps
    store: SessionStore

    @property
    def sessions(self) -> Mapping[str, Any]: ...

    @property
    def conn(self) -> object | None: ...

    async def notify(self, method: str, params: dict[str, Any]) -> None: ...

    def session_record(self, session_id: str) -> tuple[Any, SessionRecord]: ...


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class StatusMethods:
    """The status methods of one :class:`~acp_tui.demo_agent.agent.DemoAgent`."""

    def __init__(self, agent: Host, *, tells_auth_status: bool) -> None:
        self.agent = agent
        #: Whether it tells its sign-in state at all (``--no-auth-status``: no).
        self.tells_auth_status = tells_auth_status
        #: The sign-in state last told the client (answered or pushed).
        self.auth_told: dict[str, Any] | None = None
        self._marks = Path(agent.store.directory) / OPEN_DIR
        self._held: set[str] = set()

    # ------------------------------------------------------------------ sign-in

    def auth_capability(self) -> dict[str, Any]:
        """What goes in the agent's ``auth`` capability for these methods."""
        return {"status": {}} if self.tells_auth_status else {}

    def initialized(self) -> None:
        self.auth_told = self.agent.auth.status_json()

    async def auth_status(self, params: dict[str, Any]) -> dict[str, Any]:
        """Never refused for want of a sign-in: a client asks it to learn whether it must."""
        if not self.tells_auth_status:
            raise RpcError(METHOD_NOT_FOUND, "method not found: auth/status")
        self.auth_told = self.agent.auth.status_json()
        return dict(self.auth_told)

    async def auth_changed(self) -> None:
        """``auth/status_update`` when the sign-in state is not what the client was told."""
        now = self.agent.auth.status_json()
        if self.agent.conn is None or not self.tells_auth_status or now == self.auth_told:
            return
        self.auth_told = now
        await self.agent.notify("auth/status_update", dict(now))

    # ------------------------------------------------------------------ sessions

    async def after_request(self) -> None:
        """After each request: the sign-in pushed if it changed, the marks of the sessions
        in memory brought up to date."""
        await self.auth_changed()
        self.mark({sid for sid, live in self.agent.sessions.items() if not live.deleted and sid})

    def mark(self, held: set[str]) -> None:
        """This process has exactly ``held`` in memory now (empty: it ends)."""
        with contextlib.suppress(OSError):
            for gone in self._held - held:
                (self._marks / f"{gone}.{os.getpid()}").unlink(missing_ok=True)
            if held - self._held:
                self._marks.mkdir(parents=True, exist_ok=True)
            for new in held - self._held:
                (self._marks / f"{new}.{os.getpid()}").touch()
            self._held = set(held)
        if not held:  # the last one out leaves no trace (another's marks keep it)
            with contextlib.suppress(OSError):
                self._marks.rmdir()

    def _held_elsewhere(self, session_id: str) -> bool:
        try:
            marks = list(self._marks.glob(f"{session_id}.*"))
        except OSError:
            return False
        for mark in marks:
            pid = mark.suffix[1:]
            if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
                return True
        return False

    async def session_status(self, params: dict[str, Any]) -> dict[str, Any]:
        """``open`` while a demo agent has the session in memory, ``saved`` when it is only
        stored, -32002 when unknown; nothing is opened or changed."""
        session_id = str_param(params, "sessionId")
        live = self.agent.sessions.get(session_id)
        if (live is not None and not live.deleted) or (
            valid_session_id(session_id) and self._held_elsewhere(session_id)
        ):
            return {"status": "open"}
        if not (valid_session_id(session_id) and self.agent.store.exists(session_id)):
            raise not_found(session_id)
        return {"status": "saved"}

    async def session_options(self, params: dict[str, Any]) -> dict[str, Any]:
        """What a new session in ``cwd`` would start with (or a stored one, with
        ``sessionId``), creating nothing."""
        cwd = str_param(params, "cwd")
        session_id = params.get("sessionId")
        if isinstance(session_id, str):
            _, record = self.agent.session_record(session_id)
        else:
            record = SessionRecord(session_id="", cwd=cwd)
        return {"configOptions": config.options_json(record, self.agent.caps)}
