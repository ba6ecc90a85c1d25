"""A transcript view asked to draw when it has nothing to draw into: before its children are
composed (its mount skipped: the transcript is being removed), or after they are gone (removed
while a redraw awaited). Once this raised ``NoMatches`` out of ``UserMessageView.redraw``
during real use; every kind of view is checked here, through the transcript's own paths."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Compaction,
    Entry,
    Notice,
    PlanSnapshot,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.ui.widgets.entry_view import EntryView
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import view_for

pytestmark = pytest.mark.anyio


def one_of_each() -> list[Entry]:
    user = UserMessage(1)
    user.append_text("hello")
    reply = AgentMessage(2)
    reply.append_text("**hi** there")
    thought = AgentThought(3)
    thought.append_text("thinking")
    tool = ToolCall(4, "call-1")
    plan = PlanSnapshot(5, [{"content": "step", "status": "pending", "priority": "low"}])
    notice = Notice(6, "a notice", description="more")
    compaction = Compaction(7, "c-1")
    unknown = UnknownUpdate(8, {"sessionUpdate": "mystery"})
    return [user, reply, thought, tool, plan, notice, compaction, unknown]


KINDS = [type(entry).__name__ for entry in one_of_each()]


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


async def test_sync_into_a_transcript_being_removed_raises_nothing() -> None:
    """The screen's change loop syncs the transcript while the screen goes away (an agent
    view closed, the app quitting): the mounts are skipped, and nothing may raise."""
    async with Host().run_test() as pilot:
        transcript = pilot.app.query_one(Transcript)
        await transcript.show_session("s", one_of_each()[:1])
        removal = transcript.remove()
        entries = one_of_each()
        for entry in entries:
            entry.version += 1
        await transcript.sync_entries(entries, None)  # raised NoMatches before the fix
        await removal
        await pilot.pause()


@pytest.mark.parametrize("index", range(len(KINDS)), ids=KINDS)
async def test_a_view_synced_before_it_composed_draws_once_mounted(index: int) -> None:
    entry = one_of_each()[index]
    async with Host().run_test() as pilot:
        transcript = pilot.app.query_one(Transcript)
        view = view_for(entry)
        await view.sync(entry)  # not mounted: nothing to draw into yet
        await transcript.mount(view)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        for _ in range(5):
            if view.drawn_version == entry.version:
                break
            await pilot.pause()
        assert view.drawn_version == entry.version or isinstance(entry, UnknownUpdate)


@pytest.mark.parametrize("index", range(len(KINDS)), ids=KINDS)
async def test_a_view_removed_while_drawing_raises_nothing(index: int) -> None:
    """Removed between its awaits: the rest of its redraw finds its children gone."""
    entry = one_of_each()[index]
    async with Host().run_test() as pilot:
        transcript = pilot.app.query_one(Transcript)
        view = view_for(entry)
        await transcript.mount(view)
        await view.sync(entry)
        await view.remove()
        entry.version += 1
        await view.sync(entry)  # raised NoMatches before the fix
        assert not view.is_attached


async def test_expanding_views_that_are_still_mounting_raises_nothing() -> None:
    """Ctrl+T (expand thoughts) while the transcript awaits new views' mounts."""
    async with Host().run_test() as pilot:
        transcript = pilot.app.query_one(Transcript)
        views: list[EntryView] = [view_for(entry) for entry in one_of_each()]
        for view in views:
            if hasattr(view, "set_expanded"):
                view.set_expanded(True)  # type: ignore[attr-defined]
                assert isinstance(view.expanded, bool)  # type: ignore[attr-defined]
        await transcript.mount_all(views)
        await pilot.pause()
