"""The session store's façade: the one object callers feed and read.

It holds no logic of its own: each mutation goes to the part of the store whose job it is, and
every part reports what it changed to one :class:`~acp_tui.store.changes.ChangeTracker`, so
every mutation is seen by the subscribers. Callers never write store state themselves (the
tests check it): they call a method here.

- :mod:`acp_tui.store.reducer` (+ :mod:`~acp_tui.store.transcript_updates`): ``session/update``.
- :mod:`acp_tui.store.turns`: sessions opened and replayed, prompts sent and finished, notices,
  the client's edits of a session.
- :mod:`acp_tui.store.catalog`: ``session/list`` pages, the local index, order and search, the
  agent's session capabilities, titles and archive marks.
- :mod:`acp_tui.store.registry`: the sessions by id and what the parts share.

See the package docstring (:mod:`acp_tui.store`) for the contract.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from acp_tui.store.agent_terminals import AgentTerminal
from acp_tui.store.background import BackgroundWork, background_work
from acp_tui.store.catalog import MAX_STALE_PAGES, Catalog, ListState
from acp_tui.store.changes import (
    PART_RESET,
    PART_STATE,
    PART_TRANSCRIPT,
    Changes,
    ChangeTracker,
)
from acp_tui.store.entries import Entry, Notice, ShellRun, UnknownUpdate, UserMessage
from acp_tui.store.reducer import Reducer
from acp_tui.store.registry import SessionRegistry
from acp_tui.store.session import SessionState
from acp_tui.store.turns import Turns
from acp_tui.text.terminal_screen import TerminalScreen
from acp_tui.wire.updates import JsonObject

__all__ = ["MAX_STALE_PAGES", "ListState", "SessionStore"]

Wake = Callable[[], None]


class SessionStore:
    """Every session the client has heard of, fed by raw JSON. Pure Python, never raises on
    agent input. See :mod:`acp_tui.store` for the full contract."""

    def __init__(
        self,
        *,
        protocol_version: int = 1,
        max_held_per_session: int = 100_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._tracker = ChangeTracker()
        self._shell_records: Callable[[str], Sequence[Mapping[str, Any]]] | None = None
        self._registry = SessionRegistry(
            self._tracker, protocol_version=protocol_version, clock=clock
        )
        self._reducer = Reducer(self._registry, max_held_per_session=max_held_per_session)
        self._turns = Turns(self._registry, self._reducer)
        self._catalog = Catalog(self._registry, self._reducer)
        # The hot path (a stream of chunks) reaches the reducer with no hop through here: the
        # instance attribute shadows the method below, which says what it does.
        self.apply = self._reducer.apply  # type: ignore[method-assign]

    # -- settings -----------------------------------------------------------------------------
    @property
    def protocol_version(self) -> int:
        """The ACP version agreed with the agent: 2 reads updates and turns the v2 way."""
        return self._registry.protocol_version

    @protocol_version.setter
    def protocol_version(self, version: int) -> None:
        self._registry.protocol_version = version

    @property
    def max_held_per_session(self) -> int:
        return self._reducer.max_held_per_session

    @max_held_per_session.setter
    def max_held_per_session(self, limit: int) -> None:
        self._reducer.max_held_per_session = limit

    @property
    def max_held_sessions(self) -> int:
        """At most this many distinct unregistered session ids are held (the rest are dropped
        and counted in ``held_dropped``), so a misbehaving agent cannot exhaust memory."""
        return self._reducer.max_held_sessions

    @max_held_sessions.setter
    def max_held_sessions(self, limit: int) -> None:
        self._reducer.max_held_sessions = limit

    @property
    def update_kinds(self) -> frozenset[str]:
        """The ``sessionUpdate`` kinds this store understands (others become unknown entries)."""
        return self._reducer.update_kinds

    # -- change notification ----------------------------------------------------------------------
    def subscribe(self, wake: Wake) -> Callable[[], None]:
        """Call ``wake()`` each time the store goes from clean to dirty. Returns an unsubscribe
        function. ``wake`` runs synchronously inside the mutating call: keep it cheap (schedule a
        refresh); exceptions from it are swallowed."""
        return self._tracker.subscribe(wake)

    @property
    def dirty(self) -> bool:
        return self._tracker.dirty

    @property
    def version(self) -> int:
        """Grows with every change of a session or of the catalog (for readers that do not
        take the changes: see :mod:`acp_tui.session.workspace.directory`)."""
        return self._tracker.version

    def take_changes(self) -> Changes:
        """Return everything changed since the last call and mark the store clean."""
        return self._tracker.take()

    # -- reading ------------------------------------------------------------------------------------
    @property
    def sessions(self) -> Mapping[str, SessionState]:
        return self._registry.sessions

    def get(self, session_id: str) -> SessionState | None:
        return self._registry.sessions.get(session_id)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._registry.sessions

    def held_count(self, session_id: str | None = None) -> int:
        """Number of updates held for unregistered sessions (one session or all)."""
        return self._reducer.held_count(session_id)

    @property
    def held_dropped(self) -> int:
        """Updates for unregistered sessions dropped over the limits."""
        return self._reducer.held_dropped

    @property
    def left_out(self) -> Sequence[str]:
        """What was left out of the agent's arrays (items that are no objects) while the
        rest of their update or answer was taken, one message per update, newest last (each
        also said in the log)."""
        return self._registry.left_out.said

    @property
    def unrouted(self) -> deque[UnknownUpdate]:
        """Updates that could not be routed to a session (bad params), newest last."""
        return self._reducer.unrouted

    def agent_terminal(self, terminal_id: str) -> AgentTerminal | None:
        """An agent-owned terminal (v2) by id, for the tool call that shows it."""
        return self._reducer.agent_terminals.get(terminal_id)

    def background_work(self) -> list[BackgroundWork]:
        """What still runs in this store's sessions (subagents, v2 background terminals and
        tool calls, tool calls left running after a turn), longest running first."""
        return background_work(
            self._registry.sessions.values(),
            self._reducer.agent_terminals,
            self._registry.protocol_version,
        )

    def children(self, session_id: str) -> list[SessionState]:
        """The subagents a session started, in the order announced."""
        s = self._registry.sessions.get(session_id)
        sessions = self._registry.sessions
        return [sessions[c] for c in s.children if c in sessions] if s is not None else []

    @property
    def can_load(self) -> bool:
        return self._registry.can_load

    @property
    def can_resume(self) -> bool:
        return self._registry.can_resume

    @property
    def can_list(self) -> bool:
        return self._registry.can_list

    @property
    def can_fork(self) -> bool:
        return self._registry.can_fork

    @property
    def can_set_title(self) -> bool:
        return self._registry.can_set_title

    @property
    def can_archive(self) -> bool:
        return self._registry.can_archive

    @property
    def capabilities_known(self) -> bool:
        """False until the agent answered ``initialize``: until then ``can_list`` and the
        others mean "not known yet", not "no"."""
        return self._registry.capabilities_known

    def open_method(self, session_id: str) -> str | None:
        """How the client should open a session: ``"live"`` (already open), ``"resume"``,
        ``"load"``, or ``None`` (the agent supports neither)."""
        return self._catalog.open_method(session_id)

    def list_state(self, cwd: str | None = None, *, archived: bool = False) -> ListState:
        """Pagination state of ``session/list`` for a scope (``cwd`` or ``None`` = all), of
        the archived sessions with ``archived``."""
        return self._catalog.list_state(cwd, archived=archived)

    def catalog(self, cwd: str | None = None, *, archived: bool = False) -> list[SessionState]:
        """All known sessions (live, listed, indexed) but drafts, newest ``updatedAt`` first,
        those without one last (ties: first heard of first). ``cwd`` filters to one
        directory; ``archived`` gives the archived sessions instead of the others."""
        return self._catalog.catalog(cwd, archived=archived)

    def search(
        self, text: str, cwd: str | None = None, *, archived: bool = False
    ) -> list[SessionState]:
        """Case-insensitive substring filter over what a row shows (its title, else its first
        prompt), its cwd and id, in catalog order."""
        return self._catalog.search(text, cwd, archived=archived)

    def snapshot(self) -> dict[str, Any]:
        """Plain-data view of the whole store, for equality checks (``==``) and debugging."""
        return {
            "sessions": {sid: s.snapshot() for sid, s in self._registry.sessions.items()},
            "viewing": self._registry.viewing,
            "held": self._reducer.held_snapshot(),
            "catalog": [s.id for s in self.catalog()],
            "unrouted": [u.to_dict() for u in self._reducer.unrouted],
        }

    # -- session/update ---------------------------------------------------------------------------
    def apply(self, params: Any) -> None:
        """Apply the ``params`` of one ``session/update`` notification (raw decoded JSON:
        ``{"sessionId": ..., "update": {"sessionUpdate": ..., ...}}``). Never raises."""
        self._reducer.apply(params)

    def apply_update(self, session_id: str, update: Any) -> None:
        """Same as :meth:`apply` with the two fields passed separately."""
        self.apply({"sessionId": session_id, "update": update})

    def apply_many(self, params_list: Iterable[Any]) -> None:
        apply = self.apply
        for params in params_list:
            apply(params)

    # -- sessions and turns (see acp_tui.store.turns) ------------------------------------------------
    def register_session(
        self,
        session_id: str,
        *,
        cwd: str | None = None,
        response: Any = None,
        title: str | None = None,
        new: bool = False,
    ) -> SessionState:
        """``session/new`` (``new=True``) or ``session/resume`` answered: the session is live,
        its held updates applied. See :meth:`Turns.register_session`."""
        return self._turns.register_session(
            session_id, cwd=cwd, response=response, title=title, new=new
        )

    def register_fork(
        self,
        session_id: str,
        source_id: str,
        *,
        cwd: str | None = None,
        response: Any = None,
        before_entry: int | None = None,
    ) -> SessionState:
        """``session/fork`` answered: the branch is live with a copy of the source's
        transcript (up to the entry ``before_entry``, for a fork at a message)."""
        return self._turns.register_fork(
            session_id, source_id, cwd=cwd, response=response, before_entry=before_entry
        )

    def begin_replay(
        self, session_id: str, *, cwd: str | None = None, keep: bool = False
    ) -> SessionState:
        """Just before ``session/load``: the replayed updates rebuild the transcript (``keep``:
        built apart and taken only if it holds all that was shown)."""
        return self._turns.begin_replay(session_id, cwd=cwd, keep=keep)

    def end_replay(
        self, session_id: str, response: Any = None, *, resumed: bool = False
    ) -> SessionState:
        """The ``session/load`` response arrived (or failed: pass ``response=None``).
        ``resumed``: it was a ``session/resume``, which may rightly replay nothing."""
        s = self._turns.end_replay(session_id, response, resumed=resumed)
        if response is not None and self._shell_records is not None:
            self._restore_shell_runs(s, self._shell_records(session_id))
        return s

    @property
    def shell_records(self) -> Callable[[str], Sequence[Mapping[str, Any]]] | None:
        """The kept shell-mode commands of a session (the face that runs them gives it): put
        back in its transcript each time the agent has replayed it."""
        return self._shell_records

    @shell_records.setter
    def shell_records(self, records: Callable[[str], Sequence[Mapping[str, Any]]] | None) -> None:
        self._shell_records = records

    def _restore_shell_runs(self, s: SessionState, records: Sequence[Mapping[str, Any]]) -> None:
        """Put the session's kept shell-mode commands back where they were in its
        conversation (no agent replays them): after as many of the person's messages."""
        if not records:
            return
        others = [e for e in s.transcript if not isinstance(e, ShellRun) or e.exit_code is None]
        restored: list[ShellRun] = []
        for record in records:
            columns = record.get("columns")
            screen = TerminalScreen(columns if isinstance(columns, int) and columns < 500 else 100)
            screen.feed(str(record.get("output", "")).encode("utf-8", "replace"))
            entry = ShellRun(
                self._registry.next_id(), str(record["command"]), str(record.get("cwd")), screen
            )
            code, after = record.get("exit_code"), record.get("after")
            entry.exit_code = code if isinstance(code, int) else -1
            entry.after = after if isinstance(after, int) else 0
            restored.append(entry)
        transcript: list[Entry] = []
        users = 0
        for kept in others:
            if isinstance(kept, UserMessage):
                transcript += [run for run in restored if run.after == users]
                users += 1
            transcript.append(kept)
        transcript += [run for run in restored if run.after >= users]
        s.transcript = transcript
        self._tracker.reset_entries(s.id)
        for part in (PART_RESET, PART_TRANSCRIPT):
            self._tracker.touch(s, part)

    def prompt_sent(self, session_id: str, prompt: list[JsonObject] | str | None = None) -> int:
        """The client sent ``session/prompt``: records the user message, activity running.
        Returns the turn number."""
        return self._turns.prompt_sent(session_id, prompt)

    def message_injected(
        self, session_id: str, prompt: list[JsonObject], message_id: str | None
    ) -> None:
        """A message the agent took into its running turn (``session/inject``): shown, the
        turn goes on. See :meth:`Turns.message_injected`."""
        self._turns.message_injected(session_id, prompt, message_id)

    def prompt_finished(
        self,
        session_id: str,
        response: Any = None,
        *,
        error: str | None = None,
        turn: int | None = None,
    ) -> None:
        """The ``session/prompt`` request completed (v1: the turn is over; v2: accepted) or
        failed (``error``). See :meth:`Turns.prompt_finished`."""
        self._turns.prompt_finished(session_id, response, error=error, turn=turn)

    def withdraw_prompt(self, session_id: str, turn: int | None = None) -> bool:
        """The agent refused a prompt unsent: its user message leaves the transcript and the
        turn is over. Returns whether a message was removed."""
        return self._turns.withdraw_prompt(session_id, turn)

    def set_activity(self, session_id: str, activity: str) -> None:
        """Client-side override (e.g. ``requires_action`` while a permission dialog is open)."""
        self._turns.set_activity(session_id, activity)

    @property
    def viewing(self) -> str | None:
        """The session on screen, as last told by :meth:`set_viewing`."""
        return self._registry.viewing

    def set_viewing(self, session_id: str | None) -> None:
        """The person now sees ``session_id`` (None: no session): what it had unread is read,
        and a turn that ends there from now on is read as it ends."""
        sessions = self._registry.sessions
        left, self._registry.viewing = self._registry.viewing, session_id
        if left == session_id:
            return
        # Both rows change (which one is on screen), and what the shown one had unread is read.
        for sid in (left, session_id):
            s = sessions.get(sid) if sid is not None else None
            if s is not None:
                if sid == session_id:
                    s.unread = False
                self._tracker.touch(s, PART_STATE)

    def add_notice(
        self,
        session_id: str,
        title: str,
        *,
        severity: str = "info",
        description: str | None = None,
    ) -> Notice:
        """Record a client notice in the transcript ("Allowed once: Write src/app.py",
        "Cancelled", an error...)."""
        return self._turns.add_notice(session_id, title, severity=severity, description=description)

    def add_shell_run(
        self, session_id: str, command: str, cwd: str, screen: TerminalScreen
    ) -> ShellRun:
        """Record a shell-mode command in the transcript (the person's own, not the agent's),
        placed after the person's messages so far."""
        s = self._registry.ensure(session_id)
        entry = ShellRun(self._registry.next_id(), command, cwd, screen)
        entry.after = sum(isinstance(e, UserMessage) for e in s.transcript)
        s.transcript.append(entry)
        self._tracker.touch_entry(s, entry)
        return entry

    def shell_output(
        self,
        session_id: str,
        entry: ShellRun,
        data: bytes = b"",
        *,
        exit_code: int | None = None,
        attached: bool | None = None,
    ) -> None:
        """A shell-mode command printed ``data``, ended (``exit_code``) or was attached."""
        entry.screen.feed(data)
        if exit_code is not None:
            entry.exit_code = exit_code
        if attached is not None:
            entry.attached = attached
        s = self._registry.sessions.get(session_id)
        if s is not None:
            entry.version += 1
            self._tracker.last_marked = None
            self._tracker.touch_entry(s, entry)

    def end_unfinished_tool_calls(
        self, session_id: str, status: str, *, only_pending: bool = False
    ) -> int:
        """Mark the last turn's unfinished tool calls ``status`` (``cancelled``,
        ``interrupted``, ``not_run``). See :meth:`Turns.end_unfinished_tool_calls`."""
        return self._turns.end_unfinished_tool_calls(session_id, status, only_pending=only_pending)

    def end_tool_call(
        self, session_id: str, tool_call_id: str, status: str, *, only_pending: bool = False
    ) -> bool:
        """Mark one unfinished tool call ``status``. See :meth:`Turns.end_tool_call`."""
        return self._turns.end_tool_call(
            session_id, tool_call_id, status, only_pending=only_pending
        )

    def set_current_mode(self, session_id: str, mode_id: str | None) -> None:
        """The client changed the mode (``session/set_mode`` succeeded); ``None``: not known
        until the agent says."""
        self._turns.set_current_mode(session_id, mode_id)

    def set_config_options(self, session_id: str, options: list[JsonObject]) -> None:
        """``session/set_config_option`` returned the full option list."""
        self._turns.set_config_options(session_id, options)

    def set_current_model(self, session_id: str, model_id: str) -> None:
        """The model of the legacy ``models`` state changed (``session/set_model``)."""
        self._turns.set_current_model(session_id, model_id)

    def set_additional_dirs(self, session_id: str, dirs: list[str]) -> None:
        """The additional directories a session was opened with (or the agent reported)."""
        self._turns.set_additional_dirs(session_id, dirs)

    # -- the catalog (see acp_tui.store.catalog) -----------------------------------------------------
    def set_agent_capabilities(self, agent_capabilities: Any) -> None:
        """From the ``initialize`` response's ``agentCapabilities``: load / resume / list."""
        self._catalog.set_agent_capabilities(agent_capabilities)

    def pin_title(self, session_id: str, title: str) -> None:
        """The person named the session: ``title`` wins over every title the agent reports
        (listed or live) from now on, also for a session only heard of later."""
        self._catalog.pin_title(session_id, title)

    def set_archived(self, session_id: str, archived: bool) -> None:
        """The session was archived (or unarchived) here."""
        self._catalog.set_archived(session_id, archived)

    def apply_list_page(
        self,
        result: Any,
        *,
        cwd: str | None = None,
        cursor: str | None = None,
        archived: bool = False,
    ) -> list[str]:
        """Merge one ``session/list`` result page (``cursor``: the one sent, ``None`` for the
        first page). Returns warnings about skipped items; never raises."""
        return self._catalog.apply_list_page(result, cwd=cwd, cursor=cursor, archived=archived)

    def apply_index_records(self, records: Iterable[Any]) -> None:
        """Merge sessions remembered by the local index (:class:`LocalIndex` rows): they fill
        gaps only."""
        self._catalog.apply_index_records(records)

    def forget(self, session_id: str) -> None:
        """Drop a session entirely (it was deleted): from the catalog and any held updates."""
        self._catalog.forget(session_id)
