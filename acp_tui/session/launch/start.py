"""Which session the chat opens when the agent is ready, and what to say when it cannot.

A launch that sends nothing leaves nothing behind in the agent's list or ours: the new session
is opened at start only where the agent can close or delete it (the chat model's
``open_early``; the workspace discards it unused as the agent stops), else it is made by the
first message (or by Ctrl+N).

- plain start: nothing is reopened (the new session, see above).
- ``--continue``: the most recent session of this directory that has a conversation, opened
  without asking.
- ``--resume``: the sessions of this directory are listed and the person picks one (the most
  recent is highlighted); ``--resume ID`` opens that one.
- after a restart (Ctrl+R): the session that was on screen, unless it never had a prompt.

When a session cannot be opened, the person is told why and the screen stays usable: the next
message starts a new session. A session the agent says it does not have is reported as
``gone``, so the caller can drop it from the local index (it would fail again).

Pure Python over :class:`~acp_tui.session.agent.controller.SessionController`; the screen acts on the
:class:`StartOutcome`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.errors import AgentGone, AgentRefused, SessionError
from acp_tui.store.session import SessionState, parse_iso
from acp_tui.text.safety import one_line

#: How many of the most recent sessions ``--continue`` tries when the agent no longer has them.
CONTINUE_CANDIDATES = 5
#: How many pages of ``session/list`` ``--continue`` and ``--resume`` read at most to find the
#: most recent session, when the agent lists the oldest first (:func:`_list_to_the_newest`).
CONTINUE_PAGES = 50

__all__ = [
    "NewSessionChoices",
    "StartOutcome",
    "open_at_start",
    "reopen_after_restart",
    "session_is_gone",
]


@dataclass(slots=True)
class StartOutcome:
    """What happened; every field is optional."""

    #: The session now open (shown by the controller's ``on_session_opened``).
    opened: str | None = None
    #: Show the sessions for the person to choose from (``--resume`` without an id).
    choose: bool = False
    #: A sentence for the person (why nothing was opened).
    message: str | None = None
    #: Sessions the agent does not have (any more): forget them.
    gone: list[str] = field(default_factory=list)


def session_is_gone(error: BaseException) -> bool:
    """Whether an error opening a session says the agent has no such session."""
    if isinstance(error, AgentRefused) and error.not_found:
        return True
    return "not found" in str(error).lower()


async def open_at_start(
    controller: SessionController, *, cwd: str, resume: str | None, continue_latest: bool
) -> StartOutcome:
    """The start-up choice (see the module docstring). ``resume``: ``None`` for a plain start,
    ``""`` for the most recent session, else a session id."""
    if resume is None:
        return StartOutcome()
    if resume:
        return await _open(controller, resume, cwd)
    agent = controller.agent
    if agent is not None and agent.can_list:
        try:
            await _list_to_the_newest(controller, cwd)
        except AgentGone:
            raise
        except SessionError as error:
            return StartOutcome(message=f"Could not list the sessions of this folder: {error}")
    candidates = controller.store.catalog(cwd)
    if not candidates:
        return StartOutcome(
            message="No earlier session in this folder: your first message starts a new one."
        )
    if not continue_latest:
        return StartOutcome(choose=True)
    # The most recent one the agent still has: one it says it does not have is skipped.
    gone: list[str] = []
    for candidate in candidates[:CONTINUE_CANDIDATES]:
        outcome = await _open(controller, candidate.id, cwd)
        gone += outcome.gone
        if not outcome.gone:
            break
    outcome.gone = gone
    return outcome


async def _list_to_the_newest(controller: SessionController, cwd: str) -> None:
    """List the folder's sessions far enough to know its most recent one.

    The spec leaves ``session/list``'s order to the agent. Most list the newest first, so one
    page is enough; an agent that lists the oldest first would have ``--continue`` open the
    newest of its first page. So pages are read on while the list runs towards newer sessions
    (:func:`_runs_towards_newer`), up to :data:`CONTINUE_PAGES`, and never from a cursor
    already followed (an agent that hands the same cursor back would loop). A later page that
    fails ends the reading: the pages read so far are what there is to choose from."""
    pages: list[Any] = []
    cursor = await controller.list_sessions(cwd, None, pages=pages)
    followed: set[str] = set()
    while (
        cursor is not None
        and cursor not in followed
        and len(pages) < CONTINUE_PAGES
        and _runs_towards_newer(pages)
    ):
        followed.add(cursor)
        try:
            cursor = await controller.list_sessions(cwd, cursor, pages=pages)
        except AgentGone:
            raise
        except SessionError:
            return


def _runs_towards_newer(pages: list[Any]) -> bool:
    """Whether the rows listed so far, in the agent's order, end newer than they began (or
    there is one dated row yet: a page of one says nothing of the order)."""
    stamps = [
        stamp
        for page in pages
        if isinstance(page, dict) and isinstance(page.get("sessions"), list)
        for row in page["sessions"]
        if isinstance(row, dict) and (stamp := parse_iso(row.get("updatedAt"))) is not None
    ]
    return len(stamps) == 1 or (len(stamps) >= 2 and stamps[-1] > stamps[0])


async def reopen_after_restart(controller: SessionController, session_id: str) -> StartOutcome:
    """Reopen the session that was on screen when the agent went away."""
    state = controller.store.get(session_id)
    return await _open(controller, session_id, state.cwd if state and state.cwd else None)


async def _open(controller: SessionController, session_id: str, cwd: str | None) -> StartOutcome:
    try:
        await controller.open_session(session_id, cwd, adopt=True)
    except AgentGone:
        raise
    except SessionError as error:
        state = controller.store.get(session_id)
        name = one_line(state.display_title if state else session_id, 80)
        gone = session_is_gone(error) and not (state is not None and state.listed)
        return StartOutcome(
            message=f"Could not reopen “{name}”: {error}. Your next message starts a new session.",
            gone=[session_id] if gone else [],
        )
    return StartOutcome(opened=session_id)


@dataclass(slots=True)
class NewSessionChoices:
    """The mode and options of the new session before it exists.

    ``defaults`` is what the agent's last new session offered (remembered across runs:
    ``modes`` and ``configOptions`` as in the session/new answer, and ``commands``); the
    person's choices (``mode``, ``config``: option id -> value) are applied right after
    ``session/new``, before the first prompt goes out."""

    defaults: dict[str, Any] = field(default_factory=dict)
    mode: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    #: The model of an agent with the legacy ``models`` state (no model config option).
    model: str | None = None
    #: The last preview, and what it was made from (the keys ask for it at every redraw of
    #: the footer, and an agent may offer a thousand options).
    _preview: SessionState | None = field(default=None, repr=False, compare=False)
    _preview_of: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    def preview(self) -> SessionState:
        """A stand-in session with the remembered modes, options and commands, the choices
        applied, for the selectors and the ``/`` completion to read (not to change)."""
        made_of = (self.defaults, self.mode, tuple(self.config.items()), self.model)
        cached = self._preview_of
        if (
            self._preview is None
            or len(cached) != len(made_of)
            or cached[0] is not made_of[0]
            or cached[1:] != made_of[1:]
        ):
            self._preview = SessionState.preview(
                self.defaults, mode=self.mode, config=self.config, model=self.model
            )
            self._preview_of = made_of
        return self._preview

    def take(self) -> tuple[str | None, dict[str, Any], str | None]:
        """The choices (mode, config options, legacy model), for ``session/new``; they apply
        to that one session only."""
        chosen = self.mode, dict(self.config), self.model
        self.mode, self.config, self.model = None, {}, None
        return chosen
