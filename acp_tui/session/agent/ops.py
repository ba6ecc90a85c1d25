"""Branch, rename and archive sessions (the unstable ``session/fork``, ``session/set_title``,
``session/archive`` and ``session/unarchive``), on an :class:`~acp_tui.session.agent.controller.SessionController`.

A branch gets the source's MCP servers, working directory and additional directories, the
transcript this client has of it, and the title "<title> (branch)". A rename goes to the agent
when it advertises ``sessionCapabilities.title``; otherwise it is a local title, kept in the
local index, that wins over the agent's titles in this client. Either way the person's title
wins over any title the agent reports later. No Textual here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.session.errors import AgentGone, SessionError, translating
from acp_tui.text.safety import one_line

if TYPE_CHECKING:
    from acp_tui.session.agent.controller import SessionController
    from acp_tui.store import SessionStore
    from acp_tui.store.local_index import LocalIndex
    from acp_tui.store.session import SessionState

__all__ = [
    "BRANCH_SUFFIX",
    "TITLE_LIMIT",
    "branch_title",
    "clean_title",
    "fork",
    "rename",
    "rename_locally",
    "set_archived",
]

BRANCH_SUFFIX = " (branch)"
#: Titles the person types are cut to this many characters.
TITLE_LIMIT = 200


def clean_title(title: str) -> str:
    """A title as typed, on one line, without surrounding blanks, cut to :data:`TITLE_LIMIT`."""
    return one_line(" ".join(title.split()), TITLE_LIMIT)


def branch_title(source: SessionState | None) -> str:
    """The title of a branch of ``source``: its title (or first line) and " (branch)"."""
    base = ""
    if source is not None:
        base = source.title or (source.first_prompt or "").strip().split("\n", 1)[0]
    base = clean_title(base) or "Untitled"
    return one_line(base, TITLE_LIMIT - len(BRANCH_SUFFIX)) + BRANCH_SUFFIX


def additional_directories(state: SessionState | None) -> list[str]:
    """The session's additional workspace roots, when its record has any."""
    dirs: Any = getattr(state, "additional_dirs", None)
    return [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list | tuple) else []


@translating
async def fork(
    controller: SessionController,
    source_id: str,
    *,
    index: LocalIndex | None = None,
    at: tuple[str, int] | None = None,
    title: str | None = None,
) -> str:
    """``session/fork`` of ``source_id``; the branch opens (is shown) and is named (``title``,
    else "<title> (branch)"). Returns its id.

    ``at``: fork at a message (the agent's ``messageId``, and the transcript entry the
    branch's copy stops before), for an agent that forks at a message."""
    client, agent = controller.client, controller.agent
    if client is None or agent is None:
        raise AgentGone("the agent is not running")
    source = controller.store.get(source_id)
    cwd = source.cwd if source is not None and source.cwd else controller.cwd
    # The source's directories (and this run's), when the agent takes them.
    dirs = controller.session_dirs(source_id)
    controller.events.on_status("branching the session")
    result = await controller.calls.with_auth(
        lambda: client.fork_session(
            source_id, cwd, controller.mcp_servers, dirs, message_id=at[0] if at else None
        )
    )
    branch_id = result.get("sessionId")
    if not isinstance(branch_id, str) or not branch_id:
        raise SessionError("the agent answered session/fork without a sessionId")
    if branch_id == source_id or controller.store.get(branch_id) is not None:
        # Taken for the branch, that session would get the source's copy and its title.
        which = "the session's own id" if branch_id == source_id else "an existing session's id"
        raise SessionError(f"the agent answered session/fork with {which}: no branch was made")
    controller.set_session_dirs(branch_id, cwd, dirs)
    branch = controller.store.register_fork(
        branch_id, source_id, cwd=cwd, response=result, before_entry=at[1] if at else None
    )
    if not branch.transcript:
        controller.store.add_notice(
            branch_id,
            "Branched from a session not opened here: its earlier messages are with the "
            "agent, not shown (open the original to read them).",
        )
    title = title or branch_title(source)
    try:
        await rename(controller.store, controller, branch_id, title, index=index)
    except SessionError as error:  # the branch exists: a title it could not get is no failure
        controller.store.pin_title(branch_id, title)
        controller.events.on_error(f"naming the branch: {error}")
    controller.adopt_session(branch_id)
    return branch_id


@translating
async def rename(
    store: SessionStore,
    controller: SessionController | None,
    session_id: str,
    title: str,
    *,
    index: LocalIndex | None = None,
) -> tuple[str, bool]:
    """Name a session (through ``controller`` when its agent can store titles). Returns the title
    shown and whether the agent stored it (else it is a local title, kept in ``index``)."""
    title = clean_title(title)
    if not title:
        raise ValueError("a title cannot be empty")
    agent = controller.agent if controller is not None else None
    client = controller.client if controller is not None else None
    if controller is not None and agent is not None and client is not None and agent.can_set_title:
        stored = clean_title(await client.set_session_title(session_id, title) or "") or title
        store.pin_title(session_id, stored)
        return stored, True
    return rename_locally(store, session_id, title, index=index), False


def rename_locally(
    store: SessionStore, session_id: str, title: str, *, index: LocalIndex | None = None
) -> str:
    """A title kept by this client (the agent cannot store one): it wins over the agent's
    titles here, and ``index`` keeps it across restarts. Returns the title shown."""
    title = clean_title(title)
    if not title:
        raise ValueError("a title cannot be empty")
    store.pin_title(session_id, title)
    if index is not None:
        index.set_local_title(session_id, title)
    return title


@translating
async def set_archived(controller: SessionController, session_id: str, archived: bool) -> None:
    """``session/archive`` or ``session/unarchive``. Archiving closes the session on the
    agent's side: it is reopened before it is used again."""
    client = controller.client
    if client is None or controller.agent is None:
        raise AgentGone("the agent is not running")
    if archived:
        await client.archive_session(session_id)
        controller.drop_session(session_id)
    else:
        await client.unarchive_session(session_id)
    controller.store.set_archived(session_id, archived)
