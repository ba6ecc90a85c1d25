"""A session of many entries shows its last ones at once, and the rest of the window is
mounted above them after the first frame while the person follows the bottom
(acp_tui/ui/widgets/transcript.py: FIRST_SHOWN, FILL_STEP, WINDOW)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.store.entries import AgentMessage, Entry, UserMessage
from acp_tui.ui.widgets.transcript import FIRST_SHOWN, WINDOW, EntryView, Transcript
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
