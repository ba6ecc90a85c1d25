"""The demo agent's ACP methods, on this project's own JSON-RPC :class:`Connection`.

Protocol v1 (https://agentclientprotocol.com/protocol/v1): initialize, authenticate, logout,
session/new, session/load (full replay), session/list, session/resume, session/close,
session/delete, session/prompt, session/inject (steer), session/set_mode, session/set_config_option, the unstable
session/fork, session/set_title, session/archive, session/unarchive, auth/status,
session/status and session/options (see :mod:`.status`), and the session/cancel notification. Agent -> client calls: session/request_permission,
elicitation/create (+ elicitation/complete), fs/* and terminal/*, each only when the client
advertised it.

Protocol v2 (the draft), when the client initializes with version 2: auth/login and
auth/logout instead of authenticate/logout, no session/load (session/resume replays with
``replayFrom``), session/prompt answers once the prompt is inserted and the turn reports
``state_update`` until ``idle``, whole-message upserts, agent-owned files and terminals
(``terminal/cancel``).

Turns on one session run one at a time (a second prompt waits for the first).
"""

from __future__ import annotations

import copy
import logging
import math
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import anyio.lowlevel

from acp_tui import __version__
from acp_tui.demo_agent import auth, config, texts, wire
from acp_tui.demo_agent.caps import V1, V2, ClientCaps
from acp_tui.demo_agent.commands.basic import CONTEXT_SIZE
from acp_tui.demo_agent.library import LibraryMethods
from acp_tui.demo_agent.params import (
    dirs_param,
    fork_history,
    not_found,
    params_object,
    str_param,
    system_prompt_param,
    users,
)
from acp_tui.demo_agent.prompting import PromptTurns
from acp_tui.demo_agent.sessions import (
    SessionRecord,
    SessionStore,
    new_session_id,
    valid_session_id,
)
from acp_tui.demo_agent.status import StatusMethods
from acp_tui.demo_agent.turn import LiveSession, Turn
from acp_tui.protocol.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Connection,
    RpcError,
    after_response,
)

log = logging.getLogger(__name__)

CLOSE_WAIT = 5.0
#: The exit code of a replay cut short (``--cut-replays``).
CUT_REPLAY_EXIT_CODE = 5

Method = Callable[[dict[str, Any]], Awaitable[Any]]


class DemoAgent:
    """One agent process's worth of state: the connection, the client's capabilities and
    the live sessions."""

    def __init__(
        self,
        store: SessionStore,
        *,
        chunk_delay: float = 0.015,
        v2_updates: bool = False,
        require_auth: bool = False,
        fork_at_message: bool = True,
        auth_status: bool = True,
        cut_replays: bool = False,
        closes: bool = True,
    ) -> None:
        self.store = store
        #: Advertise session/close and session/delete (``--no-close``: neither).
        self.closes = closes
        self.fork_at_message = fork_at_message
        #: Exit halfway through every replay (``--cut-replays``): a truncated one.
        self.cut_replays = cut_replays
        self.chunk_delay = max(0.0, chunk_delay)
        self.v2_updates = v2_updates
        self.auth = auth.AuthState(store.directory, require=require_auth)
        self.conn: Connection | None = None
        self.caps = ClientCaps()
        self.sessions: dict[str, LiveSession] = {}
        #: Sessions closed in this run: deleting one that was never saved (no prompt) is
        #: deleting nothing, not an unknown session.
        self.closed: set[str] = set()
        #: Subagents at work, by their session id: what session/cancel on them stops.
        self.children: dict[str, Turn] = {}
        #: Work that outlives a request (``/background``): the serving task group's.
        self.task_group: anyio.abc.TaskGroup | None = None
        self.turns = PromptTurns(self)
        #: The unstable status methods (auth/status, session/status, session/options).
        self.status = StatusMethods(self, tells_auth_status=auth_status)
        #: The session list and what changes a row of it (title, archive).
        self.library = LibraryMethods(self)
        common: dict[str, Method] = {
            "initialize": self.initialize,
            "session/new": self.new_session,
            "session/resume": self.resume_session,
            "session/list": self.library.list_sessions,
            "session/close": self.close_session,
            "session/delete": self.delete_session,
            "session/prompt": self.turns.prompt,
            "session/inject": self.turns.inject,
            "session/set_config_option": self.set_config_option,
            "session/fork": self.fork_session,
            "session/set_title": self.library.set_title,
            "session/archive": self.library.archive_session,
            "session/unarchive": self.library.unarchive_session,
            "session/status": self.status.session_status,
            "auth/status": self.status.auth_status,
        }
        self._methods: dict[int, dict[str, Method]] = {
            V1: {
                **common,
                "authenticate": self.authenticate,
                "logout": self.logout,
                "session/load": self.load_session,
                "session/set_mode": self.set_mode,
                "session/options": self.status.session_options,
            },
            V2: {
                **common,
                "auth/login": self.authenticate,
                "auth/logout": self.logout,
                "terminal/cancel": self.cancel_terminal,
                "tool_call/cancel": self.cancel_tool_call,
            },
        }

    # ------------------------------------------------------------------ wiring

    def attach(self, conn: Connection) -> None:
        self.conn = conn
        conn.request_handler = self.handle_request
        conn.notification_handler = self.handle_notification

    def methods(self) -> frozenset[str]:
        """The request methods this connection serves (they follow the version)."""
        return frozenset(self._methods[self.caps.version])

    async def handle_request(self, method: str, params: Any) -> Any:
        handler = self._methods[self.caps.version].get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        result = await handler(params_object(params if params is not None else {}))
        await self.status.after_request()  # a changed sign-in: pushed before the answer
        return result

    async def handle_notification(self, method: str, params: Any) -> None:
        if method != "session/cancel" or not isinstance(params, dict):
            return
        # Requests read before this notification run in tasks of their own: let them
        # start, so a prompt sent just before the cancel is held (and withdrawn) by now.
        await anyio.lowlevel.checkpoint()
        child = self.children.get(params.get("sessionId", ""))
        if child is not None:
            child.cancel()
            return
        session = self.sessions.get(params.get("sessionId", ""))
        if session is None:
            return
        if session.turn is not None:
            session.turn.cancel()
        for held in list(session.held):
            held.cancel()
        if not self.caps.v2:  # v1 cancels a session's work with nothing finer
            for (kind, _), scope in list(session.background.items()):
                if kind == "tool_call":
                    scope.cancel()

    # ------------------------------------------------------------------ outgoing

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.notify("session/update", {"sessionId": session_id, "update": update})

    async def update_shielded(self, session_id: str, update: dict[str, Any]) -> None:
        with anyio.CancelScope(shield=True):
            await self.update(session_id, update)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.conn is not None
        return await self.conn.request(method, params)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.notify(method, params)

    async def send_serialized(self, lines: list[str]) -> None:
        assert self.conn is not None
        await self.conn.send_serialized(lines)

    async def state(self, session: LiveSession, state: str, **fields: Any) -> None:
        """``state_update``: always on v2 (with the work that runs in the background, once
        there was some); on v1 only with ``--v2-updates``."""
        if self.caps.v2 or self.v2_updates:
            update = {"sessionUpdate": "state_update", "state": state, **fields}
            if self.caps.v2 and (session.background or session.background_reported):
                update["background"] = [wire.background_item(k, i) for k, i in session.background]
                session.background_reported = bool(session.background)
            await self.update(session.id, update)

    def spawn(self, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``job`` beyond the request that started it, until the connection ends."""
        if self.task_group is None:
            raise RuntimeError("the agent is not serving")
        self.task_group.start_soon(job)

    def plan_update(self, plan_id: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
        return wire.plan_update(plan_id, entries, self.caps)

    def plan_removed(self, plan_id: str) -> dict[str, Any]:
        return wire.plan_removed(plan_id, self.caps)

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, int) or isinstance(requested, bool):
            raise RpcError(INVALID_PARAMS, "`protocolVersion` must be an integer")
        version = V2 if requested >= V2 else V1
        self.caps = ClientCaps.from_initialize(params, version)
        self.status.initialized()
        info = {"name": "acp-tui-demo", "title": "acp-tui demo agent", "version": __version__}
        session_extras: dict[str, Any] = {
            "additionalDirectories": {},
            # Stable since 2026-11-06: both modes (echoed by /system).
            "systemPrompt": {"mode": {"override": {}}},
            "fork": {"atMessageId": True} if self.fork_at_message else {},
            "title": {},
            "archive": {},
            "status": {},
            "inject": {"modes": ["steer"]},  # the mid-turn input RFD (prompting.inject)
        }
        if version == V2:
            return {
                "protocolVersion": V2,
                "info": info,
                "capabilities": {
                    "session": {
                        "prompt": {"image": {}, "audio": {}, "embeddedContext": {}},
                        # Opt-in in v2 as http is (the demo runs no MCP server itself).
                        "mcp": {"stdio": {}},
                        **({"delete": {}} if self.closes else {}),
                        **session_extras,
                    },
                    "auth": self.status.auth_capability(),
                },
                "authMethods": auth.methods(self.caps),
            }
        return {
            "protocolVersion": V1,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True},
                "mcpCapabilities": {"http": False, "sse": False},
                "sessionCapabilities": {
                    "list": {},
                    "resume": {},
                    **({"close": {}, "delete": {}} if self.closes else {}),
                    # Unstable, schema v1.32.0: the options of a session before it exists.
                    "options": {},
                    **session_extras,
                },
                "auth": {"logout": {}, **self.status.auth_capability()},
            },
            "authMethods": auth.methods(self.caps),
            "agentInfo": info,
        }

    async def authenticate(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.authenticate(params.get("methodId"))
        return {}

    async def logout(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.sign_out()
        return {}

    # ------------------------------------------------------------------ sessions

    def _session_state(self, record: SessionRecord) -> dict[str, Any]:
        options = config.options_json(record, self.caps)
        if self.caps.v2:
            commands = [command.to_json(v2=True) for command in texts.COMMANDS]
            return {"configOptions": options, "availableCommands": commands}
        return {"modes": config.modes_state(record.mode), "configOptions": options}

    async def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.check(self.caps)
        cwd = str_param(params, "cwd")
        prompt = system_prompt_param(params)
        record = SessionRecord(
            session_id=new_session_id(), cwd=cwd, additional_dirs=dirs_param(params)
        )
        config.apply_initial(record, params.get("configOptions"), self.caps)
        session = LiveSession(record, system_prompt=prompt)
        self.sessions[record.session_id] = session

        async def announce() -> None:
            if not self.caps.v2:
                await self.send_commands(session)
            await self.send_usage(session)

        after_response(announce)
        return {"sessionId": record.session_id, **self._session_state(record)}

    def _open(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is not None and not live.deleted:
            return live
        record = self.store.load(session_id) if valid_session_id(session_id) else None
        if record is None:
            raise not_found(session_id)
        live = LiveSession(record)
        self.sessions[session_id] = live
        return live

    def live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None or live.deleted:
            if self.store.exists(session_id):
                raise not_found(
                    session_id,
                    f"session {session_id} is not open: call session/load or session/resume first",
                )
            raise not_found(session_id)
        return live

    def session_record(self, session_id: str) -> tuple[LiveSession | None, SessionRecord]:
        """A session whether open or only saved (set_title and archive need not open it)."""
        live = self.sessions.get(session_id)
        if live is not None and not live.deleted:
            return live, live.record
        record = self.store.load(session_id) if valid_session_id(session_id) else None
        if record is None:
            raise not_found(session_id)
        return None, record

    def _activate_dirs(self, session: LiveSession, dirs: list[str]) -> None:
        """Reopening activates exactly the directories sent (none when none are)."""
        if session.record.additional_dirs != dirs:
            session.record.additional_dirs = dirs
            self.save(session)

    async def _announce_reopened(self, session: LiveSession) -> None:
        if not self.caps.v2:
            await self.send_commands(session)
        await self.send_usage(session)
        await self.send_info(session, full=True)

    async def load_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.check(self.caps)
        prompt = system_prompt_param(params)
        session = self._open(str_param(params, "sessionId"))
        session.system_prompt = prompt
        self._activate_dirs(session, dirs_param(params))
        for update in wire.replay(session.record, self.caps):
            await self.update(session.id, update)
        after_response(lambda: self._announce_reopened(session))
        return self._session_state(session.record)

    async def resume_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.check(self.caps)
        session_id = str_param(params, "sessionId")
        replay_from = params.get("replayFrom") if self.caps.v2 else None
        if replay_from is not None and (
            not isinstance(replay_from, dict) or replay_from.get("type") != "start"
        ):
            raise RpcError(INVALID_PARAMS, f"unsupported replayFrom: {replay_from!r}")
        prompt = system_prompt_param(params)
        session = self._open(session_id)
        session.system_prompt = prompt
        self._activate_dirs(session, dirs_param(params))
        if replay_from is not None:
            updates = list(wire.replay(session.record, self.caps))
            for index, update in enumerate(updates):
                if self.cut_replays and index == len(updates) // 2:
                    log.error("--cut-replays: exiting halfway through the replay")
                    os._exit(CUT_REPLAY_EXIT_CODE)
                await self.update(session.id, update)
            # The end of the history (v2 preview): what follows is live.
            await self.update(session.id, {"sessionUpdate": "replay_complete"})
        if self.caps.v2:
            # v2: the current state, after any replay and before the response.
            await self.state(session, "running" if session.turn is not None else "idle")
        after_response(lambda: self._announce_reopened(session))
        return self._session_state(session.record)

    async def fork_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self.auth.check(self.caps)
        source_id = str_param(params, "sessionId")
        cwd = str_param(params, "cwd")
        dirs = dirs_param(params)
        prompt = system_prompt_param(params)
        _live, source = self.session_record(source_id)
        # At a message (when asked): the branch's history stops there.
        history = fork_history(source.history, params, at_message=self.fork_at_message)
        # The branch keeps the conversation and the options, not the source's title (the
        # client names it) nor its standing permissions.
        record = SessionRecord(
            session_id=new_session_id(),
            cwd=cwd,
            mode=source.mode,
            model=source.model,
            options=dict(source.options),
            additional_dirs=dirs,
            fill_tokens=source.fill_tokens,
            compacted_chars=source.compacted_chars,
            turns=source.turns - users(source.history) + users(history),
            history=copy.deepcopy(history),
        )
        session = LiveSession(record, system_prompt=prompt)
        self.sessions[record.session_id] = session
        self.save(session)
        after_response(lambda: self._announce_reopened(session))
        return {"sessionId": record.session_id, **self._session_state(record)}

    async def stop_work(self, session: LiveSession) -> None:
        """Cancel the session's work and wait until its turn has said its last word."""
        for held in list(session.held):
            held.cancel()
        turn = session.turn
        if turn is not None:
            turn.cancel()
            with anyio.move_on_after(CLOSE_WAIT):
                await turn.done.wait()

    async def close_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str_param(params, "sessionId")
        session = self.sessions.get(session_id)
        if session is None:
            if not self.store.exists(session_id) and not self.caps.v2:
                raise not_found(session_id)
            return {}
        await self.stop_work(session)
        self.sessions.pop(session_id, None)
        self.closed.add(session_id)
        return {}

    async def delete_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str_param(params, "sessionId")
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.deleted = True
            await self.stop_work(session)
        removed = self.store.delete(session_id) if valid_session_id(session_id) else False
        if session is None and not removed and session_id not in self.closed:
            raise not_found(session_id)
        return {}

    # ------------------------------------------------------------------ settings

    async def set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self.live(str_param(params, "sessionId"))
        mode = str_param(params, "modeId")
        modes = [value for value, _name, _description in config.MODES]
        if mode not in modes:
            raise RpcError(INVALID_PARAMS, f"unknown mode: {mode}", {"modes": modes})
        await self._set_option(session, config.MODE, mode)
        return {}

    async def set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self.live(str_param(params, "sessionId"))
        option_id, new = config.parse_set(params, self.caps)
        options = await self._set_option(session, option_id, new)
        return {"configOptions": options}

    async def _set_option(self, session: LiveSession, option_id: str, new: Any) -> list[Any]:
        config.set_value(session.record, option_id, new)
        self.save(session)
        if option_id == config.MODE and not self.caps.v2:
            await self.update(
                session.id, {"sessionUpdate": "current_mode_update", "currentModeId": new}
            )
        options = config.options_json(session.record, self.caps)
        await self.update(
            session.id, {"sessionUpdate": "config_option_update", "configOptions": options}
        )
        return options

    async def cancel_tool_call(self, params: dict[str, Any]) -> dict[str, Any]:
        """v2 ``tool_call/cancel``: accepted now; the tool call's own update says it ended."""
        session = self.live(str_param(params, "sessionId"))
        tool_call_id = str_param(params, "toolCallId")
        scope = session.background.get(("tool_call", tool_call_id))
        if scope is None:
            raise RpcError(INVALID_PARAMS, f"no cancellable tool call {tool_call_id}")
        scope.cancel()
        return {}

    async def cancel_terminal(self, params: dict[str, Any]) -> dict[str, Any]:
        session = self.live(str_param(params, "sessionId"))
        terminal_id = str_param(params, "terminalId")
        scope = session.terminals.get(terminal_id)
        if scope is None:
            raise RpcError(INVALID_PARAMS, f"no running terminal {terminal_id}")
        scope.cancel()
        return {}

    # ------------------------------------------------------------------ updates

    def used_tokens(self, record: SessionRecord) -> int:
        live_chars = max(0, record.history_chars - record.compacted_chars)
        return math.ceil(live_chars / 4) + record.fill_tokens

    async def send_usage(self, session: LiveSession) -> None:
        record = session.record
        await self.update(
            session.id,
            {
                "sessionUpdate": "usage_update",
                "used": self.used_tokens(record),
                "size": CONTEXT_SIZE,
                "cost": {"amount": round(record.cost, 6), "currency": config.currency()},
            },
        )

    async def send_info(self, session: LiveSession, *, full: bool) -> None:
        record = session.record
        update: dict[str, Any] = {
            "sessionUpdate": "session_info_update",
            "updatedAt": record.updated_at,
            "_meta": {"messageCount": record.message_count},
        }
        if full or record.title is not None:
            update["title"] = record.title
        await self.update(session.id, update)

    async def send_commands(self, session: LiveSession) -> None:
        await self.update(
            session.id,
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [c.to_json(self.caps.v2) for c in texts.COMMANDS],
            },
        )

    def save(self, session: LiveSession) -> None:
        if session.deleted or not session.record.history:
            return
        try:
            self.store.save(session.record)
        except OSError as error:
            log.error("cannot save session %s: %s", session.id, error)
