"""The controller's checkpoints: taken around each turn, and the rewinds the faces ask for.

A part of :class:`~acp_tui.session.agent.controller.SessionController` over its state (see
:mod:`acp_tui.session.agent.state`), holding the agent's
:class:`~acp_tui.session.checkpoints.book.Checkpoints` (None: checkpoints are off for this
agent, or it is a replay). What blocks (git, the disk) runs in a worker thread:

- :meth:`TurnCheckpoints.warm`: the first snapshot of a project, in the background, as the
  agent is ready and as a session opens;
- :meth:`TurnCheckpoints.before_prompt`: the snapshot, awaited before ``session/prompt``
  goes out (the delay it adds is measured in bench/). A warm-up or the last turn's end
  snapshot still running holds it for at most :data:`WARM_WAIT`: then the turn goes
  without a checkpoint, and says so;
- :meth:`TurnCheckpoints.turn_ended`: the end-of-turn snapshot, in the background (the next
  turn's snapshot waits for it);
- :meth:`TurnCheckpoints.write_text_file`: ``fs/write_text_file`` served, with the file's
  content before it and the tool call it belongs to recorded;
- for the faces: :meth:`TurnCheckpoints.turns`, :meth:`TurnCheckpoints.plan_rewind`,
  :meth:`TurnCheckpoints.plan_tool_call_revert`,
  :meth:`TurnCheckpoints.plan_turn_revert`, :meth:`TurnCheckpoints.apply`, and
  :meth:`TurnCheckpoints.turn_of_entry` (which turn a user message of the transcript began).

What the book says for the person (a notice: no git, files over the size cap) goes to the
session's transcript, on the event loop.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from acp_tui.services.checkpoints.files import Refused, read_current
from acp_tui.services.checkpoints.journal import TurnRecord
from acp_tui.session.agent.state import ControllerState
from acp_tui.session.checkpoints.book import Checkpoints, Roots, TurnRef
from acp_tui.session.checkpoints.rewind import (
    RewindError,
    RewindPlan,
    RewindResult,
    apply_rewind,
    plan_rewind,
    plan_tool_call_revert,
    plan_turn_revert,
)
from acp_tui.store.entries import ToolCall, UserMessage

__all__ = ["TurnCheckpoints"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds the prompts wait, in all, for the first snapshot of a project still being taken
#: (the warm-up) before they go out without a checkpoint.
WARM_WAIT = 1.0


def _prompt_text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(
        block["text"]
        for block in blocks
        if block.get("type") == "text" and isinstance(block.get("text"), str)
    )


class TurnCheckpoints:
    """Checkpoints around the turns of one agent's sessions (see the module docstring)."""

    def __init__(self, state: ControllerState, book: Checkpoints | None) -> None:
        self.state = state
        self.book = book if state.machine_access else None
        if self.book is not None:
            self.book.notify = self._heard
        self._said: list[tuple[str, str, str, str]] = []
        #: The turn running in each session (its journal number).
        self._running: dict[str, TurnRef] = {}
        #: Set when a session's end-of-turn snapshot is done (the next turn waits for it).
        self._ending: dict[str, anyio.Event] = {}
        #: A user message's entry id -> (session, turn number): rewind from the transcript.
        self._entries: dict[int, tuple[str, int]] = {}
        #: Each warm-up (the agent's: "", a session's: its id), set when it is done.
        self._warming: dict[str, anyio.Event] = {}
        #: When the prompts stop waiting for warm-ups (set by the first that waits).
        self._warm_deadline: float | None = None

    @property
    def enabled(self) -> bool:
        return self.book is not None

    def roots(self, session_id: str) -> Roots:
        paths = self.state.roots.roots(session_id)
        return Roots(str(paths[0]) if paths else self.state.cwd, tuple(str(p) for p in paths[1:]))

    async def _in_thread(self, call: Callable[[], T]) -> T:
        try:
            return await anyio.to_thread.run_sync(call)
        finally:
            self._tell()

    def _heard(self, session_id: str, title: str, description: str, severity: str) -> None:
        # Called in the worker thread: said on the loop, by _tell.
        self._said.append((session_id, title, description, severity))

    def _tell(self) -> None:
        said, self._said = self._said, []
        for session_id, title, description, severity in said:
            self.state.store.add_notice(
                session_id, title, severity=severity, description=description
            )

    # ------------------------------------------------------------------ around turns

    def warm(self, session_id: str | None = None) -> None:
        """The agent is ready (``session_id`` None: its directories) or a session opened: a
        first snapshot is taken now, in the background, so that the first prompt waits only
        for what changed since (the shadow index keeps the files' stat data)."""
        book = self.book
        key = session_id or ""
        if book is None or key in self._warming or self.state.task_group is None:
            return
        done = self._warming[key] = anyio.Event()
        if session_id is None:
            roots = Roots(self.state.cwd, tuple(self.state.additional_dirs)).all()
        else:
            roots = self.roots(session_id).all()

        async def warm() -> None:
            try:
                await self._in_thread(functools.partial(book.warm, roots, session_id))
            except Exception as error:  # never a traceback for a warm-up
                log.info("checkpoint warm-up failed: %s", error)
            finally:
                done.set()
            if session_id is None:
                with contextlib.suppress(Exception):
                    await anyio.to_thread.run_sync(book.prune_and_collect)

        try:
            self.state.task_group.start_soon(warm)
        except RuntimeError:
            done.set()

    async def _warmed(self, session_id: str) -> bool:
        """Wait (at most :data:`WARM_WAIT`) for the warm-ups this session's snapshot would
        queue behind; False when one is still running."""
        waits = [self._warming.get(key) for key in ("", session_id)]
        if all(event is None or event.is_set() for event in waits):
            return True
        if self._warm_deadline is None:
            self._warm_deadline = anyio.current_time() + WARM_WAIT
        with anyio.move_on_after(self._warm_deadline - anyio.current_time()):
            for event in waits:
                if event is not None:
                    await event.wait()
        return all(event is None or event.is_set() for event in waits)

    async def before_prompt(
        self, session_id: str, blocks: list[dict[str, Any]], entry_id: int | None
    ) -> None:
        """The snapshot this turn can be rewound to, taken before its prompt goes out."""
        book = self.book
        if book is None:
            return
        ending = self._ending.get(session_id)
        if ending is not None:
            with anyio.move_on_after(WARM_WAIT):
                await ending.wait()
        if ending is not None and not ending.is_set():
            why = "The last turn's checkpoint is still being taken (many files changed)"
        elif not await self._warmed(session_id):
            why = "The project's first snapshot is still being taken"
        else:
            why = ""
        if why:
            self.state.store.add_notice(
                session_id,
                "No checkpoint for this turn",
                severity="info",
                description=f"{why}, in the background: this turn cannot be rewound, the "
                "next ones can.",
            )
            return
        state = self.state.store.get(session_id)
        title = state.title if state is not None else None
        ref = await self._in_thread(
            functools.partial(
                book.begin_turn,
                session_id,
                self.roots(session_id),
                _prompt_text(blocks),
                title=title,
            )
        )
        if ref is None:
            return
        self._running[session_id] = ref
        if entry_id is not None:
            self._entries[entry_id] = (session_id, ref.number)

    def turn_ended(self, session_id: str) -> None:
        """The turn is over: its end snapshot, in the background."""
        book = self.book
        ref = self._running.pop(session_id, None)
        if book is None or ref is None or self.state.task_group is None:
            return
        done = self._ending[session_id] = anyio.Event()
        roots = self.roots(session_id)

        async def end() -> None:
            try:
                await self._in_thread(functools.partial(book.end_turn, ref, roots))
            except Exception as error:  # the turn is over whatever happens here
                log.warning("end-of-turn checkpoint failed: %s", error)
            finally:
                done.set()

        try:
            self.state.task_group.start_soon(end)
        except RuntimeError:
            done.set()

    async def write_text_file(self, params: Any) -> dict[str, Any]:
        """``fs/write_text_file``, with what the file held before recorded for the turn."""
        book = self.book
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if book is None or not isinstance(session_id, str) or session_id not in self._running:
            return await self.state.roots.write_text_file(params)
        raw = params.get("path")
        content = params.get("content")
        path = Path(raw) if isinstance(raw, str) and raw.startswith("/") else None
        before: bytes | None = None
        readable = False
        if path is not None and isinstance(content, str):
            roots = self.roots(session_id).all()
            try:
                before = await anyio.to_thread.run_sync(read_current, path, roots)
                readable = True
            except (Refused, ValueError):
                readable = False  # outside the roots, or not a file: not rewound by acp-tui
        result = await self.state.roots.write_text_file(params)
        if readable and path is not None and isinstance(content, str):
            after = content.encode("utf-8", errors="replace")
            call = self._tool_call_of(session_id, str(path))
            await self._in_thread(
                functools.partial(book.record_write, session_id, path, before, after, call)
            )
        return result

    def _tool_call_of(self, session_id: str, path: str) -> str | None:
        """The tool call a write belongs to: the latest unfinished one that names the path
        (in its diff or locations), else the latest unfinished one."""
        state = self.state.store.get(session_id)
        if state is None:
            return None
        fallback: str | None = None
        for entry in reversed(state.transcript):
            if isinstance(entry, UserMessage):
                break
            if not isinstance(entry, ToolCall) or entry.status not in ("pending", "in_progress"):
                continue
            names = {loc.get("path") for loc in entry.locations} | {
                item.get("path") for item in entry.content if item.get("type") == "diff"
            }
            if path in names:
                return entry.tool_call_id
            fallback = fallback or entry.tool_call_id
        return fallback

    # ------------------------------------------------------------------ for the faces

    def turn_of_entry(self, entry_id: int) -> tuple[str, int] | None:
        """(session, turn number) of the turn a user message began, when it was
        checkpointed in this run."""
        return self._entries.get(entry_id)

    def entry_of_turn(self, session_id: str, number: int) -> int | None:
        """The user message that began a turn checkpointed in this run, else the session's
        user message with the turn's text (the last such), else None."""
        for entry_id, (session, turn) in self._entries.items():
            if session == session_id and turn == number:
                return entry_id
        book = self.book
        journal = book.journal(session_id) if book is not None else None
        record = journal.turn(number) if journal is not None else None
        state = self.state.store.get(session_id)
        if record is None or state is None:
            return None
        found: int | None = None
        for entry in state.transcript:
            if isinstance(entry, UserMessage) and entry.text.strip() == record.prompt.strip():
                found = entry.id
        return found

    async def turns(self, session_id: str) -> list[TurnRecord]:
        """The session's checkpointed turns (and rewinds), oldest first."""
        book = self.book
        if book is None:
            return []
        journal = await self._in_thread(functools.partial(book.journal, session_id))
        return list(journal.turns) if journal is not None else []

    async def plan_rewind(self, session_id: str, number: int) -> RewindPlan:
        book = self._require()
        return await self._in_thread(
            functools.partial(plan_rewind, book, session_id, number, self.roots(session_id))
        )

    async def plan_turn_revert(self, session_id: str, number: int) -> RewindPlan:
        book = self._require()
        return await self._in_thread(
            functools.partial(plan_turn_revert, book, session_id, number, self.roots(session_id))
        )

    async def plan_tool_call_revert(self, session_id: str, tool_call_id: str) -> RewindPlan:
        book = self._require()
        return await self._in_thread(
            functools.partial(
                plan_tool_call_revert, book, session_id, tool_call_id, self.roots(session_id)
            )
        )

    def tool_calls_with_writes(self, session_id: str) -> list[tuple[int, str, list[str]]]:
        """The tool calls of this session whose writes through the client were recorded,
        newest first: (turn number, tool call id, the files written)."""
        journal = self.book.journal(session_id) if self.book is not None else None
        found: list[tuple[int, str, list[str]]] = []
        for record in reversed(journal.turns if journal is not None else []):
            files: dict[str, list[str]] = {}
            for write in record.writes:
                if write.tool_call_id:
                    names = files.setdefault(write.tool_call_id, [])
                    if write.path not in names:
                        names.append(write.path)
            found += [(record.number, call, names) for call, names in reversed(files.items())]
        return found

    async def apply(
        self, plan: RewindPlan, choices: Mapping[Path, frozenset[int] | None]
    ) -> RewindResult:
        book = self._require()
        return await self._in_thread(
            functools.partial(
                apply_rewind, book, plan, dict(choices), roots=self.roots(plan.session_id)
            )
        )

    def _require(self) -> Checkpoints:
        if self.book is None:
            raise RewindError("checkpoints are off for this agent")
        return self.book
