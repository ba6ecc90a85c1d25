"""A session of many entries shows its last ones at once, and the rest of the window is
mounted above them after the first frame while the person follows the bottom
(acp_tui/ui/widgets/transcript.py: FIRST_SHOWN, FILL_STEP, WINDOW)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.store.entries import AgentMessage, Entry, ToolCall, UserMessage
from acp_tui.ui.widgets.entry_view import EntryView
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import FIRST_SHOWN, WINDOW, Transcript
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def history(count: int, prefix: str = "", first_id: int = 0) -> list[Entry]:
    entries: list[Entry] = []
    for n in range(count):
        entry = UserMessage(first_id + n) if n % 2 == 0 else AgentMessage(first_id + n)
        entry.append_text(f"{prefix}entry {n}: " + "words " * 20)
        entries.append(entry)
    return entries


def shown_ids(transcript: Transcript) -> list[int]:
    return [view.entry.id for view in transcript.query(EntryView)]


def rows(app: App[None]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_the_last_entries_show_first_and_the_window_fills_in_above() -> None:
    entries = history(300)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        assert shown_ids(transcript) == [entry.id for entry in entries[-FIRST_SHOWN:]]
        assert transcript.filling
        await wait_for(pilot, lambda: not transcript.filling, "the window to fill in")
        assert shown_ids(transcript) == [entry.id for entry in entries[-WINDOW:]]
        assert transcript.following
        await wait_for(pilot, lambda: any("entry 299:" in row for row in rows(app)), "the last")
        assert f"{300 - WINDOW:,} earlier entries" in str(transcript._earlier.render())


async def test_a_short_session_is_shown_whole_at_once() -> None:
    entries = history(FIRST_SHOWN - 2)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)):
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        assert shown_ids(transcript) == [entry.id for entry in entries]
        assert not transcript.filling


async def test_reading_further_up_stops_the_fill_and_earlier_entries_stay_a_press_away() -> None:
    entries = history(300)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        transcript.release_anchor()  # the person scrolled up before the fill came
        await wait_for(pilot, lambda: not transcript.filling, "the fill to stop")
        assert shown_ids(transcript) == [entry.id for entry in entries[-FIRST_SHOWN:]]
        await transcript.show_earlier(20)
        assert len(shown_ids(transcript)) == FIRST_SHOWN + 20


async def test_another_session_shown_meanwhile_stops_the_first_ones_fill() -> None:
    first, second = history(300, "first "), history(300, "second ", first_id=1000)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("a", first)
        await transcript.show_session("b", second)
        await wait_for(pilot, lambda: not transcript.filling, "the window to fill in")
        assert shown_ids(transcript) == [entry.id for entry in second[-WINDOW:]]


def tool_call(entry_id: int, title: str) -> ToolCall:
    entry = ToolCall(entry_id, f"call-{entry_id}")
    entry.title = title
    entry.tool_kind = "execute"
    entry.status = "completed"
    entry.raw_output = {"output": title}
    return entry


async def test_ctrl_o_takes_the_latest_tool_call_after_the_window_filled_in_above() -> None:
    """The views mounted above the first ones were taken for the latest: after a session was
    loaded or switched to, Ctrl+O (and Ctrl+T) opened its first tool call (OpenHands)."""
    entries: list[Entry] = [tool_call(0, "the first call")]
    entries += history(WINDOW - 2, first_id=1)
    entries.append(tool_call(WINDOW - 1, "the latest call"))
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        await wait_for(pilot, lambda: not transcript.filling, "the window to fill in")
        assert shown_ids(transcript)[0] == 0
        assert transcript.toggle_latest(ToolCallView) is True
        expanded = [view.entry.id for view in transcript.query(ToolCallView) if view.expanded]
        assert expanded == [WINDOW - 1]


def on_screen(transcript: Transcript, entry_id: int) -> bool:
    view = next(v for v in transcript.query(EntryView) if v.entry.id == entry_id)
    region = transcript.content_region
    return view.region.height > 0 and region.y <= view.region.y < region.bottom


async def test_an_entry_revealed_near_the_end_stays_while_more_comes() -> None:
    """A search result in the last screenful: the scroll lands on the end, where Textual
    follows the output again; the entry asked for must not scroll away under what comes."""
    entries = history(40)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        assert await transcript.reveal(38)
        await wait_for(pilot, lambda: on_screen(transcript, 38), "the entry revealed")
        assert not transcript.following
        more = entries + history(10, "later ", first_id=40)
        await transcript.sync_entries(more, None)
        await pilot.pause()
        await pilot.pause()
        assert on_screen(transcript, 38) and not transcript.following
        assert transcript.behind  # the new output below is marked


@pytest.mark.parametrize("reading_up", [True, False], ids=["reading up", "at the end"])
async def test_the_same_session_shown_afresh_keeps_the_readers_place(reading_up: bool) -> None:
    """Its replay or a reload shows a session afresh: someone reading further up (or a search
    result shown) keeps the place; someone at the end stays at the end; another session
    starts at its end."""
    entries = history(40)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        if reading_up:
            assert await transcript.reveal(12)
            await wait_for(pilot, lambda: on_screen(transcript, 12), "the entry revealed")
        await transcript.show_session("s", entries)
        await pilot.pause()
        await pilot.pause()
        if reading_up:
            await wait_for(pilot, lambda: on_screen(transcript, 12), "the place kept")
            assert not transcript.following
        else:
            assert transcript.following and on_screen(transcript, 39)
        await transcript.show_session("other", history(40, "other ", first_id=100))
        await wait_for(pilot, lambda: on_screen(transcript, 139), "the other one's end")
        assert transcript.following


def reply_at_top(transcript: Transcript) -> MarkdownLines:
    """The reply's lines that begin nearest above the top of the view (the one at the top)."""
    top = transcript.content_region.y
    above = [lines for lines in transcript.query(MarkdownLines) if lines.region.y < top]
    return max(above, key=lambda lines: lines.region.y)


async def test_a_shift_measured_before_a_reveal_does_not_move_the_entry_revealed() -> None:
    """A reply above the view, drawn exactly, asks the transcript to move by the rows it
    gained, to keep what is on screen still. Measured while the view was at the end and
    handled once a search result was revealed elsewhere, it moved the result off the top
    (a row or a screenful); a shift of something that is no longer above the view is not
    applied."""
    entries = history(40)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        await wait_for(pilot, lambda: on_screen(transcript, 39), "the end")
        straddling = reply_at_top(transcript)
        assert await transcript.reveal(12)
        transcript.post_message(MarkdownLines.Shifted(straddling, 5))
        await wait_for(pilot, lambda: on_screen(transcript, 12), "the entry revealed")
        for _ in range(3):
            await pilot.pause()
        assert on_screen(transcript, 12) and not transcript.following


async def test_a_reply_above_the_view_that_grows_as_it_is_drawn_keeps_the_view_still() -> None:
    """The other side: a reply that begins above the view and gained rows as it was drawn
    moves the view by as many, so what the person reads stays where it was."""
    entries = history(40)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_session("s", entries)
        await wait_for(pilot, lambda: on_screen(transcript, 39), "the end")
        transcript.page(-1)  # reading further up
        for _ in range(3):
            await pilot.pause()
        before = transcript.scroll_y
        transcript.post_message(MarkdownLines.Shifted(reply_at_top(transcript), 3))
        await wait_for(pilot, lambda: transcript.scroll_y == before + 3, "the view moved by 3")
