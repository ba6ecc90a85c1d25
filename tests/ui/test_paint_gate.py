"""The chat screen paints a changed prompt alone, and holds the rest of the screen while the
person types (acp_tui/ui/textual_patches/paint_gate.py), against the installed Textual's own
frame machinery: each step drives one tick of the screen's update timer by hand and looks at
what the compositor was asked to draw."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from textual import events
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from acp_tui.pace.input_first import input_first
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.chat.pacing import TYPING_FRAME_GAP, TYPING_FRAME_LIMIT
from acp_tui.ui.textual_patches.paint_gate import PaintGate, gate_of
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.transcript import Transcript
from tests.ui.chat_helpers import fixture_app, wait_for, wait_for_session

pytestmark = [pytest.mark.anyio, pytest.mark.textual_patch("paint-gate")]

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
        self.pacer = screen.pacer
        gate = gate_of(screen)
        assert gate is not None
        self.gate: PaintGate = gate
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


def needs_layout(screen: ChatScreen) -> None:
    """The next frame lays out (as Textual's layout message sets it, at once instead of a
    turn of the loop later)."""
    screen._layout_required = True


async def test_a_frame_with_a_layout_is_laid_out_now_and_drawn_after_a_key_echo(
    tmp_path: Path,
) -> None:
    """While the person types, a whole frame that needs a layout is split: the layout now,
    the drawing of what moved on the next turn of the loop. A key whose echo comes in
    between is drawn alone first; the drawing owed then follows, nothing dropped."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, prompt, transcript = frames.screen, frames.prompt, frames.transcript
        clock, pacer = frames.clock, frames.pacer
        compositor = screen._compositor
        drawn_regions: list[set[Region]] = []
        render_update = compositor.render_update

        def spy_render(*args: object, **kwargs: object) -> object:
            drawn_regions.append(set(compositor._dirty_regions))
            return render_update(*args, **kwargs)  # type: ignore[arg-type]

        compositor.render_update = spy_render  # type: ignore[method-assign]

        clock.now += TYPING_FRAME_LIMIT  # what is held is due: the next frame is whole
        pacer.typed()
        needs_layout(screen)
        frames.tick()
        assert not screen._layout_required, "laid out now"
        assert frames.gate.drawing_owed and drawn_regions == [], "not drawn yet"
        # What the layout moved (a row of the transcript, say) waits in the compositor.
        moved = Region(40, 5, 60, 1)
        compositor._dirty_regions.add(moved)
        # A key lands before the drawing, and the transcript changes meanwhile: the echo is
        # drawn alone.
        pacer.typed()
        prompt.refresh()
        frames.tick(prompt, transcript)
        assert len(drawn_regions) == 1 and drawn_regions[0], "the echo was drawn"
        assert moved not in drawn_regions[0], "alone"
        assert frames.gate.drawing_owed and moved in compositor._dirty_regions, "the rest waits"
        await asyncio.sleep(0)  # the next turn of the loop
        assert len(drawn_regions) == 2 and moved in drawn_regions[1], "drawn right after"
        assert not frames.gate.drawing_owed and not compositor._dirty_regions
        assert transcript in screen._dirty_widgets, "what changed since is held, not dropped"


async def test_a_split_frame_is_drawn_on_the_next_turn_without_a_key(tmp_path: Path) -> None:
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, clock, pacer = frames.screen, frames.clock, frames.pacer
        clock.now += TYPING_FRAME_LIMIT
        pacer.typed()
        needs_layout(screen)
        frames.tick()
        assert frames.gate.drawing_owed
        await asyncio.sleep(0)
        assert not frames.gate.drawing_owed and not screen._compositor._dirty_regions
        # Not typing: frames are whole, never split.
        clock.now += 5
        needs_layout(screen)
        frames.tick()
        assert not frames.gate.drawing_owed and not screen._layout_required
        assert not screen._compositor._dirty_regions, "drawn in the same frame"


async def test_a_changed_prompt_is_painted_at_once_not_at_the_next_timer_tick(
    tmp_path: Path,
) -> None:
    """Textual paints at its update timer's next tick, up to a frame period later; with a key
    on its way (or the person typing) the prompt's change is painted as the screen goes
    idle."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, prompt, pacer = frames.screen, frames.prompt, frames.pacer
        screen._update_timer.pause()  # the timer's tick never comes in this test
        pacer.key_arrived()
        screen._dirty_widgets.add(prompt)
        frames.drawn.clear()
        await screen._on_idle(events.Idle())
        assert frames.since() == {prompt}
        assert prompt not in screen._dirty_widgets
        # Nobody typing: Textual's own timer paints it (nothing is drawn here).
        clock = frames.clock
        clock.now += 5
        screen._dirty_widgets.add(prompt)
        frames.drawn.clear()
        await screen._on_idle(events.Idle())
        assert frames.since() == set()
        assert prompt in screen._dirty_widgets


@pytest.mark.textual_patch("input-thread")
async def test_a_key_read_by_the_input_thread_holds_frames_before_the_loop_has_it(
    tmp_path: Path,
) -> None:
    """The terminal's input thread tells the chat screen of a key for the prompt as it reads
    it: from then no whole frame starts and background work gives way, before the app's
    queue hands the key on. A key that is not for the prompt (a binding) holds nothing."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        frames = await frames_of(pilot)
        screen, pacer = frames.screen, frames.pacer
        pacer.clock = time.perf_counter  # the thread stamps the real time
        pacer.key_arrived_at = 0.0
        driver = app._driver
        assert driver is not None

        def in_thread(key: events.Key) -> None:
            thread = threading.Thread(target=driver.process_message, args=(key,))
            thread.start()
            thread.join()

        in_thread(events.Key("ctrl+t", None))
        assert screen.pacer.key_in_flight() == 0.0, "not for the prompt"
        in_thread(events.Key("x", "x"))
        assert screen.pacer.key_in_flight() > 0, "stamped by the thread, before the loop ran"
        assert input_first.pending() > 0
        await wait_for(pilot, lambda: frames.prompt.text.endswith("x"), "the key in the prompt")
        await wait_for(pilot, lambda: screen.pacer.key_in_flight() == 0.0, "its echo painted")
