"""The chat screen paints a changed prompt alone, and holds the rest of the screen while the
person types (acp_tui/ui/screens/chat/paint_gate.py), against the installed Textual's own
frame machinery: each step drives one tick of the screen's update timer by hand and looks at
what the compositor was asked to draw."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from acp_tui.protocol.input_first import input_first
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.chat.pacing import TYPING_FRAME_GAP, TYPING_FRAME_LIMIT
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.transcript import Transcript
from tests.ui.chat_helpers import fixture_app, wait_for_session

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Frames:
    """The chat screen's frames driven by hand: its pacer on a held clock, and what each
    tick of its update timer drew."""

    def __init__(self, screen: ChatScreen) -> None:
        self.screen = screen
        self.prompt = screen.query_one(PromptEditor).text_area
        self.transcript = screen.query_one(Transcript)
        self.clock = Clock()
        self.pacer = screen._pacer
        self.pacer.clock = self.clock
        self.pacer.whole_at = self.pacer.echoed_at = self.pacer.typing_until = 0.0
        self.drawn: list[set[Widget]] = []
        update_widgets = screen._compositor.update_widgets

        def spy(widgets: set[Widget]) -> None:
            self.drawn.append(set(widgets))
            update_widgets(widgets)

        screen._compositor.update_widgets = spy  # type: ignore[method-assign]

    def tick(self, *dirty: Widget) -> set[Widget]:
        """One frame with ``dirty`` changed: what it drew (empty: nothing)."""
        self.screen._dirty_widgets.update(dirty)
        self.drawn.clear()
        self.screen._on_timer_update()
        return self.since()

    def since(self) -> set[Widget]:
        """What was drawn since the last tick."""
        return set().union(*self.drawn)


async def frames_of(pilot: Pilot[None]) -> Frames:
    screen = await wait_for_session(pilot)
    assert isinstance(screen, ChatScreen)
    await pilot.pause()
    return Frames(screen)


async def test_a_key_is_painted_alone_and_the_rest_waits_for_the_typing(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, prompt, transcript = frames.screen, frames.prompt, frames.transcript
        clock, pacer, tick = frames.clock, frames.pacer, frames.tick

        # The whole screen was just painted; the person types while the transcript changes:
        # the echo goes alone, the transcript waits.
        pacer.painted_whole()
        pacer.typed()
        assert tick(prompt, transcript) == {prompt}
        assert transcript in screen._dirty_widgets, "held, not dropped"
        assert tick() == set(), "painted a moment ago: the transcript waits"
        # Right after an echo, once its gap has passed, it goes.
        clock.now += TYPING_FRAME_GAP
        pacer.typed()
        assert tick(prompt) == {prompt}
        assert transcript in tick()
        assert transcript not in screen._dirty_widgets
        # Held again; at the limit it goes whatever the keys do.
        clock.now += 0.05
        pacer.typed()
        assert tick(prompt, transcript) == {prompt}
        clock.now += TYPING_FRAME_LIMIT
        pacer.typed()
        assert tick() >= {transcript}
        # When the person stops typing, nothing is held and nothing is split.
        clock.now += 5
        assert tick(prompt, transcript) >= {prompt, transcript}


async def test_a_key_on_its_way_holds_the_rest_which_goes_right_after_its_echo(
    tmp_path: Path,
) -> None:
    """The app has seen a key for the prompt: no whole frame starts in its way. Its echo is
    painted alone, and the rest of the screen right after it (the next turn of the loop), not
    at a later tick when the next key may be close. A key typed elsewhere (the sidebar's
    filter) holds nothing."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, prompt, transcript = frames.screen, frames.prompt, frames.transcript
        clock, pacer, drawn, tick = frames.clock, frames.pacer, frames.drawn, frames.tick

        pacer.painted_whole()
        clock.now += TYPING_FRAME_GAP  # the transcript may go at the next echo
        screen.key_on_its_way()
        # The agents' readers and the transcript's steps give way to it meanwhile.
        assert input_first.pending() > 0
        assert tick(transcript) == set(), "a key is on its way: the transcript waits for it"
        assert transcript in screen._dirty_widgets
        pacer.typed()
        drawn.clear()
        assert tick(prompt) == {prompt}, "the echo alone"
        drawn.clear()
        await asyncio.sleep(0)  # the next turn of the loop
        assert transcript in set().union(*drawn), "the rest right after the echo"
        assert transcript not in screen._dirty_widgets
        # Typing into the sidebar's filter: the chat's frames wait for nothing.
        screen.query_one(SessionsSidebar).query_one(Input).focus()
        await pilot.pause()
        screen.key_on_its_way()
        assert pacer.key_in_flight() == 0.0
        assert input_first.pending() == 0.0
    assert input_first.pending() == 0.0 and input_first._pending is None, "the app's exit"
