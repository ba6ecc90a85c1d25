"""The chat screen's branch, rename, archive, close and delete commands (palette and sidebar
keys).

:class:`SessionActions` is a plain object the screen owns: the sidebar's
:class:`~acp_tui.ui.widgets.sidebar.SessionsSidebar.Branch`, ``Rename`` and ``Archive``
messages come to it through the screen's handlers, and the palette lists
:meth:`SessionActions.palette_commands`. The work itself is :mod:`acp_tui.session.agent.ops` (no
Textual there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual.app import SystemCommand
from textual.screen import Screen

from acp_tui.session.agent import ops as session_ops
from acp_tui.session.agent.controller import SessionController
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.models.sidebar_placement import neighbour
from acp_tui.ui.screens.armed import DialogOrigin

__all__ = ["SessionActions"]

STORED_BY_AGENT = "Enter saves, Escape leaves it. The agent stores the title (session/set_title)."
STORED_HERE = (
    "Enter saves, Escape leaves it. This agent cannot store titles: acp-tui keeps this one, "
    "on this computer, and shows it instead of the agent's."
)


class SessionActions:
    """Branch (``session/fork``), rename (``session/set_title`` or a local title), archive
    (``session/archive`` / ``session/unarchive``), close and delete the view's sessions.
    ``push`` shows a dialog and calls back with its answer; ``confirm_delete`` asks before a
    session is deleted, then deletes it."""

    def __init__(
        self,
        model: ChatModel,
        *,
        push: Callable[[Screen[Any], Callable[[Any], None]], object],
        confirm_delete: Callable[[SessionController, str], None],
        origin: Callable[[str | None], DialogOrigin],
        listed: Callable[[], list[str]] = list,
    ) -> None:
        self.model = model
        #: The sessions the sidebar lists, in its order (an archived one's neighbour opens).
        self.listed = listed
        self.push = push
        self.confirm_delete = confirm_delete
        #: Who a dialog about a session is from (the rename names the session and agent).
        self.origin = origin

    def palette_commands(self) -> Iterable[SystemCommand]:
        model = self.model
        state = model.state()
        if state is None or state.draft:
            return
        controller = model.controller
        agent = controller.agent if controller else None
        if agent is not None and agent.can_fork and model.agent_alive:
            yield SystemCommand(
                "Branch this conversation",
                "A new session that starts with this one's messages (session/fork)",
                self.branch,
            )
        yield SystemCommand("Rename session", "Give this session a title", self.rename)

    def _title_of(self, session_id: str) -> str:
        state = self.model.store.get(session_id)
        return line_of(state.display_title if state else session_id, 80)

    def _not_running(self) -> None:
        self.model.notify(
            "The agent is not running: press Ctrl+R to restart it.", severity="warning"
        )

    # -- branch ------------------------------------------------------------------------------

    def branch(self, session_id: str | None = None) -> None:
        """Branch ``session_id`` (default: the one on screen); the branch is shown."""
        model = self.model
        controller = model.controller
        source = session_id or model.session_id
        if source is None:
            model.notify("A new session has nothing to branch yet.", severity="warning")
            return
        if controller is None or controller.agent is None or not model.agent_alive:
            self._not_running()
            return
        if not controller.agent.can_fork:
            model.notify(
                f"{line_of(controller.agent.display_name, 80)} cannot branch sessions "
                "(it does not advertise session/fork).",
                severity="warning",
            )
            return
        model.focus_prompt_on_open = True
        title = self._title_of(source)

        async def branch() -> None:
            await session_ops.fork(controller, source, index=model.index)
            model.notify(f"Branched “{title}”: this is the branch.")

        controller.spawn(branch, "branch session")

    # -- rename ------------------------------------------------------------------------------

    def rename(self, session_id: str | None = None, title: str | None = None) -> None:
        """Ask for a title for ``session_id`` (default: the one on screen), then give it;
        ``title`` (``/rename TITLE``) is given without asking."""
        from acp_tui.ui.screens.rename import RenameScreen
        from acp_tui.ui.widgets.safe_input import field_text

        model = self.model
        target = session_id or model.session_id
        if target is None:
            model.notify("A new session gets its title once it has a message.", severity="warning")
            return
        state = model.store.get(target)
        controller = model.controller
        agent = controller.agent if controller is not None else None
        by_agent = agent is not None and agent.can_set_title and model.agent_alive
        # What its row and header show: its title, else its first prompt's first line (an
        # untitled session's box opened empty from the palette, OpenHands' tester).
        current = ""
        if state is not None and (state.title or state.first_prompt):
            current = state.display_title

        def chosen(title: str | None) -> None:
            # The field shows the title as text (its escapes gone): unchanged is unchanged.
            if not title or title in (current, field_text(current, one_line=True)):
                return
            if not by_agent or controller is None:
                shown = session_ops.rename_locally(model.store, target, title, index=model.index)
                model.notify(f"Renamed: “{line_of(shown, 80)}”.")
                return

            async def rename() -> None:
                shown, _stored = await session_ops.rename(
                    model.store, controller, target, title, index=model.index
                )
                model.notify(f"Renamed: “{line_of(shown, 80)}”.")

            controller.spawn(rename, "rename session")

        if title is not None:
            chosen(title)
            return
        self.push(
            RenameScreen(
                current, STORED_BY_AGENT if by_agent else STORED_HERE, origin=self.origin(target)
            ),
            chosen,
        )

    # -- archive -----------------------------------------------------------------------------

    def archive(self, session_id: str, archived: bool) -> None:
        """Archive ``session_id`` (``archived``) or bring it back from the archive."""
        model = self.model
        controller = model.controller
        if controller is None or controller.agent is None or not model.agent_alive:
            self._not_running()
            return
        if not controller.agent.can_archive:
            model.notify(
                f"{line_of(controller.agent.display_name, 80)} cannot archive sessions.",
                severity="warning",
            )
            return
        title = self._title_of(session_id)
        # Archiving the session on screen goes on to the one after it in the list (else the
        # one before): the person is done with this one, and an empty "New session" left
        # them nowhere. Chosen now, as the list is seen.
        after = neighbour(self.listed(), session_id) if session_id == model.session_id else None

        async def run() -> None:
            await session_ops.set_archived(controller, session_id, archived)
            # The index offers the sessions it remembers: not an archived one.
            state = model.store.get(session_id)
            index = model.index
            if index is not None and archived:
                index.forget(session_id, keep_title=True)
            elif index is not None and state is not None and (state.title or state.first_prompt):
                index.remember(
                    session_id, cwd=state.cwd, title=state.title, first_prompt=state.first_prompt
                )
            moved = ""
            if archived and session_id == model.session_id:
                # The agent closed it: the next one in the list, else a new session.
                if after is not None and model.agent_alive:
                    model.open(after)
                    model.focus_prompt_on_open = False  # the focus stays where it was
                    moved = f" This is “{self._title_of(after)}”, the next in the list."
                else:
                    model.show(None)
                    moved = " This is a new session."
            if archived:
                model.notify(
                    f"Archived “{title}” (X in the sidebar shows archived sessions).{moved}"
                )
            else:
                model.notify(f"“{title}” is back from the archive.")

        controller.spawn(run, "archive session" if archived else "unarchive session")

    # -- close and delete --------------------------------------------------------------------

    def close(self, session_id: str | None) -> None:
        controller = self.model.controller
        if controller is None or session_id is None:
            return
        controller.spawn(lambda: controller.close_session(session_id), "close session")
        self.model.notify("Asked the agent to close the session.")

    def delete(self, session_id: str | None) -> None:
        controller = self.model.controller
        if controller is None or session_id is None:
            return
        self.confirm_delete(controller, session_id)
