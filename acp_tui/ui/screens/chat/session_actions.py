"""The chat screen's branch, rename and archive commands (palette and sidebar keys).

A mixin of :class:`~acp_tui.ui.screens.chat.ChatScreen`: the sidebar's
:class:`~acp_tui.ui.widgets.sidebar.SessionsSidebar.Branch`, ``Rename`` and ``Archive``
messages land here by name, and the palette lists :meth:`session_palette_commands`. The work
itself is :mod:`acp_tui.session.ops` (no Textual there).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from textual.app import SystemCommand

from acp_tui.session import ops as session_ops
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.widgets.sidebar import SessionsSidebar

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.screen import ChatScreen

__all__ = ["SessionActions"]

STORED_BY_AGENT = "Enter saves, Escape leaves it. The agent stores the title (session/set_title)."
STORED_HERE = (
    "Enter saves, Escape leaves it. This agent cannot store titles: acp-tui keeps this one, "
    "on this computer, and shows it instead of the agent's."
)


class SessionActions:
    """Branch (``session/fork``), rename (``session/set_title`` or a local title) and
    archive (``session/archive`` / ``session/unarchive``)."""

    def session_palette_commands(self) -> Iterable[SystemCommand]:
        screen = cast("ChatScreen", self)
        state = screen.store.get(screen.session_id) if screen.session_id else None
        if state is None or state.draft:
            return
        agent = screen.link.agent if screen.link else None
        if agent is not None and agent.can_fork and screen.agent_alive:
            yield SystemCommand(
                "Branch this conversation",
                "A new session that starts with this one's messages (session/fork)",
                screen.action_branch_session,
            )
        yield SystemCommand(
            "Rename session", "Give this session a title", screen.action_rename_session
        )

    def apply_local_titles(self) -> None:
        """The titles given here to sessions of agents that cannot store them."""
        screen = cast("ChatScreen", self)
        for session_id, title in screen.index.local_titles().items():
            screen.store.pin_title(session_id, title)

    def _title_of(self, session_id: str) -> str:
        screen = cast("ChatScreen", self)
        state = screen.store.get(session_id)
        return line_of(state.display_title if state else session_id, 80)

    # -- branch ------------------------------------------------------------------------------

    def action_branch_session(self, session_id: str | None = None) -> None:
        screen = cast("ChatScreen", self)
        link = screen.link
        source = session_id or screen.session_id
        if source is None:
            screen.notify("A new session has nothing to branch yet.", severity="warning")
            return
        if link is None or link.agent is None or not screen.agent_alive:
            screen.notify(
                "The agent is not running: press Ctrl+R to restart it.", severity="warning"
            )
            return
        if not link.agent.can_fork:
            screen.notify(
                f"{line_of(link.agent.display_name, 80)} cannot branch sessions "
                "(it does not advertise session/fork).",
                severity="warning",
            )
            return
        screen.model.focus_prompt_on_open = True
        title = screen._title_of(source)

        async def branch() -> None:
            await session_ops.fork(link, source, index=screen.index)
            screen.notify(f"Branched “{title}”: this is the branch.")

        link.spawn(branch, "branch session")

    def on_sessions_sidebar_branch(self, event: SessionsSidebar.Branch) -> None:
        screen = cast("ChatScreen", self)
        event.stop()
        screen.action_branch_session(event.session_id)

    # -- rename ------------------------------------------------------------------------------

    def action_rename_session(self, session_id: str | None = None) -> None:
        screen = cast("ChatScreen", self)
        from acp_tui.ui.screens.rename import RenameScreen
        from acp_tui.ui.widgets.safe_input import field_text

        target = session_id or screen.session_id
        if target is None:
            screen.notify("A new session gets its title once it has a message.", severity="warning")
            return
        state = screen.store.get(target)
        link = screen.link
        agent = link.agent if link is not None else None
        by_agent = agent is not None and agent.can_set_title and screen.agent_alive
        # What its row and header show: its title, else its first prompt's first line (an
        # untitled session's box opened empty from the palette, OpenHands' tester).
        current = ""
        if state is not None and (state.title or state.first_prompt):
            current = state.display_title

        def chosen(title: str | None) -> None:
            # The field shows the title as text (its escapes gone): unchanged is unchanged.
            if not title or title in (current, field_text(current, one_line=True)):
                return
            if not by_agent or link is None:
                shown = session_ops.rename_locally(screen.store, target, title, index=screen.index)
                screen.notify(f"Renamed: “{line_of(shown, 80)}”.")
                return

            async def rename() -> None:
                shown, _stored = await session_ops.rename(
                    screen.store, link, target, title, index=screen.index
                )
                screen.notify(f"Renamed: “{line_of(shown, 80)}”.")

            link.spawn(rename, "rename session")

        screen.app.push_screen(
            RenameScreen(current, STORED_BY_AGENT if by_agent else STORED_HERE), chosen
        )

    def on_sessions_sidebar_rename(self, event: SessionsSidebar.Rename) -> None:
        screen = cast("ChatScreen", self)
        event.stop()
        screen.action_rename_session(event.session_id)

    # -- archive -----------------------------------------------------------------------------

    def on_sessions_sidebar_archive(self, event: SessionsSidebar.Archive) -> None:
        screen = cast("ChatScreen", self)
        event.stop()
        link, session_id, archived = screen.link, event.session_id, event.archived
        if link is None or link.agent is None or not screen.agent_alive:
            screen.notify(
                "The agent is not running: press Ctrl+R to restart it.", severity="warning"
            )
            return
        if not link.agent.can_archive:
            screen.notify(
                f"{line_of(link.agent.display_name, 80)} cannot archive sessions.",
                severity="warning",
            )
            return
        title = screen._title_of(session_id)

        async def run() -> None:
            await session_ops.set_archived(link, session_id, archived)
            # The index offers the sessions it remembers: not an archived one.
            state = screen.store.get(session_id)
            if archived:
                screen.index.forget(session_id, keep_title=True)
            elif state is not None and (state.title or state.first_prompt):
                screen.index.remember(
                    session_id, cwd=state.cwd, title=state.title, first_prompt=state.first_prompt
                )
            if archived and session_id == screen.session_id:
                # The agent closed it: the next message goes to a new session.
                screen.model.show(None)
            if archived:
                screen.notify(f"Archived “{title}” (X in the sidebar shows archived sessions).")
            else:
                screen.notify(f"“{title}” is back from the archive.")

        link.spawn(run, "archive session" if archived else "unarchive session")
