"""The demo agent's session list and what changes a row of it: ``session/list`` (paged,
by folder, archived or not), ``session/set_title``, ``session/archive`` and
``session/unarchive``."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Protocol

from acp_tui.demo_agent.params import str_param
from acp_tui.demo_agent.sessions import CursorError, SessionRecord, SessionStore
from acp_tui.demo_agent.turn import LiveSession
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RpcError

ARCHIVE_FILTERS = ("exclude", "include", "only")


class Host(Protocol):
    """What of the agent these methods use (:class:`~acp_tui.demo_agent.agent.DemoAgent`)."""

    store: SessionStore

    @property
    def sessions(self) -> MutableMapping[str, LiveSession]: ...

    def session_record(self, session_id: str) -> tuple[LiveSession | None, SessionRecord]: ...

    def save(self, session: LiveSession) -> None: ...

    async def send_info(self, session: LiveSession, *, full: bool) -> None: ...

    async def stop_work(self, session: LiveSession) -> None: ...


class LibraryMethods:
    """The session-list methods of one :class:`~acp_tui.demo_agent.agent.DemoAgent`."""

    def __init__(self, agent: Host) -> None:
        self.agent = agent

    async def list_sessions(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = params.get("cwd")
        cursor = params.get("cursor")
        archived = params.get("archived")
        if cwd is not None and not isinstance(cwd, str):
            raise RpcError(INVALID_PARAMS, "`cwd` must be a string")
        if cursor is not None and not isinstance(cursor, str):
            raise RpcError(INVALID_PARAMS, "`cursor` must be a string")
        if archived is not None and archived not in ARCHIVE_FILTERS:
            raise RpcError(INVALID_PARAMS, f"unsupported archived filter: {archived!r}")
        try:
            return self.agent.store.list_page(cwd, cursor, archived or "exclude")
        except CursorError as error:
            raise RpcError(INVALID_PARAMS, str(error)) from None

    async def set_title(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str_param(params, "sessionId")
        title = params.get("title")
        if not isinstance(title, str):
            raise RpcError(INVALID_PARAMS, "`title` must be a string")
        title = " ".join(title.split())[:100]
        if not title:
            raise RpcError(INVALID_PARAMS, "the title is empty")
        live, record = self.agent.session_record(session_id)
        record.title = title
        record.title_locked = True
        if live is None:
            self.agent.store.save(record)
        else:
            self.agent.save(live)
            await self.agent.send_info(live, full=False)
        return {"title": title}

    async def archive_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str_param(params, "sessionId")
        live, record = self.agent.session_record(session_id)
        if live is not None:
            # Archiving an open session closes it first, as session/close would.
            await self.agent.stop_work(live)
            self.agent.sessions.pop(session_id, None)
            if not record.history:
                return {}  # never saved: there is nothing to keep
        record.archived = True
        self.agent.store.save(record)
        return {}

    async def unarchive_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str_param(params, "sessionId")
        _live, record = self.agent.session_record(session_id)
        if record.archived:
            record.archived = False
            self.agent.store.save(record)
        return {}
