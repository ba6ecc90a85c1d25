"""A screen that paints a typed key at once, and the rest of the screen around the typing.

Textual paints a screen in one frame: everything that changed since the last one is laid out
and drawn together. During a flood that is the transcript (its layout, and every row under it
composited again: 15-50 ms of CPU here), so a key typed then waited for the transcript's frame
before its own echo could show, and its own frame drew the transcript too.

While the person types (the screen's pacer says so: ``acp_tui.ui.screens.chat.pacing``), a
gated screen's frames are split:

- a frame where the prompt changed paints **the prompt alone** (its place on screen does not
  depend on the rest, so no layout is needed): a few milliseconds;
- everything else that changed (transcript, sidebar, status, footer) is painted at most every
  ``TYPING_FRAME_GAP`` seconds, on the frame right after an echo: the next key is then as far
  away as it gets;
- when the typing pauses, or the prompt needs a layout (it grew a row), frames are whole again.

A whole frame that needs a layout is itself split in two while the person types: the layout
(Textual's reflow: the transcript's new blocks measured) in one turn of the event loop, the
drawing of what moved in the next. Each half is 15-40 ms during a flood here, the whole 50-90
ms: a key that lands meanwhile waits for the half in progress only, and a key that arrives
before the drawing has its echo painted first (the drawing waits for it, as a whole frame
does).

Nothing is dropped: what is held stays dirty and is painted by a later frame. This drives
Textual's private frame machinery (``Screen._on_timer_update``, ``_on_idle``,
``_compositor_refresh``, ``_dirty_widgets``, the compositor's dirty regions): the gate takes
the screen's timer tick and its compositor refresh (as attributes of the screen, set before it
is mounted) and its idle handler (Textual's, wrapped once: screens without a gate keep it as
it is). Switch: ``paint-gate``; tested against the installed Textual in
tests/ui/test_paint_gate.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol
from weakref import WeakKeyDictionary, ref

from textual import events
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

__all__ = ["Pacer", "PaintGate", "gate_of", "install"]


class Pacer(Protocol):
    """What the gate asks of the screen's pacer (``acp_tui.ui.screens.chat.pacing``)."""

    clock: Callable[[], float]

    def keys_coming(self) -> bool: ...
    def key_in_flight(self) -> float: ...
    def typing(self) -> bool: ...
    def overdue(self) -> bool: ...
    def paint_due(self) -> bool: ...
    def hold_delay(self) -> float: ...
    def echoed(self) -> None: ...
    def painted_whole(self) -> None: ...


#: The gate of each gated screen, held weakly: the screen holds its gate (its update tick and
#: compositor refresh are the gate's), and the gate its screen, which a strong value here would
#: keep forever.
_gates: WeakKeyDictionary[Screen[Any], ref[PaintGate]] = WeakKeyDictionary()


def gate_of(screen: Screen[Any]) -> PaintGate | None:
    held = _gates.get(screen)
    return held() if held is not None else None


def install(
    screen: Screen[Any], pacer: Pacer, typing_target: Callable[[], Widget | None]
) -> PaintGate:
    """Gate ``screen``'s frames (call before it is mounted: from its ``__init__``).
    ``typing_target`` gives the widget the person types into (None: there is none now)."""
    _wrap_idle()
    gate = PaintGate(screen, pacer, typing_target)
    _gates[screen] = ref(gate)
    screen._on_timer_update = gate.on_timer_update  # type: ignore[method-assign]
    screen._compositor_refresh = gate.compositor_refresh  # type: ignore[method-assign]
    return gate


_IdleHandler = Callable[[Screen[Any], events.Idle], Awaitable[None]]


def _wrap_idle() -> None:
    """Textual finds a screen's idle handler on its class (``Screen._on_idle``): wrapped once,
    it asks the screen's gate first; a screen without one is as Textual made it."""
    textuals: _IdleHandler = Screen._on_idle
    if getattr(textuals, "_gated", False):
        return

    async def _on_idle(self: Screen[Any], event: events.Idle) -> None:
        gate = gate_of(self)
        if gate is not None:
            gate.on_idle()
        await textuals(self, event)

    _on_idle._gated = True  # type: ignore[attr-defined]
    Screen._on_idle = _on_idle  # type: ignore[method-assign]


class PaintGate:
    """The frames of one screen: see the module docstring."""

    def __init__(
        self, screen: Screen[Any], pacer: Pacer, typing_target: Callable[[], Widget | None]
    ) -> None:
        self.screen = screen
        self.pacer = pacer
        self.typing_target = typing_target
        # Textual's own, bound to the screen before the gate takes their place.
        self._textual_timer_update = screen._on_timer_update
        self._textual_compositor_refresh = screen._compositor_refresh
        #: The timer that brings a held paint back if no key or change does first, and when.
        self._look_again: Timer | None = None
        self._look_again_at = 0.0
        #: Laid out, not drawn yet: the drawing of a split frame (see the module docstring).
        self.drawing_owed = False
        #: While a split frame lays out: Textual's call to draw is turned into a debt.
        self._laying_out_only = False

    def _batching(self) -> bool:
        return bool(self.screen.app._batch_count)

    def on_timer_update(self) -> None:
        """The screen's update timer ticked: paint what may be painted now."""
        screen = self.screen
        prompt = self.typing_target()
        if prompt is None or not screen.is_current or self._batching():
            self._paint_whole()
            return
        if not self._frame_wanted(besides=prompt):
            self._paint_whole()  # the prompt alone changed: the usual frame is just that
            return
        if self._echo_ready(prompt):
            # A key's echo never waits for the rest of the screen.
            self._paint_alone(prompt)
            return
        pacer = self.pacer
        in_flight = pacer.key_in_flight()
        if in_flight:
            # A key is on its way to the prompt: its echo first, then the rest (see
            # _paint_alone), rather than a whole frame in its way.
            self._hold(in_flight)
            return
        if not pacer.typing() or pacer.overdue() or pacer.paint_due():
            self._paint_whole()
            return
        # Held: the rest stays dirty. The update timer comes back at the next idle (a key,
        # a change), or when the typing pauses (the typing may have stopped for good).
        self._hold(pacer.hold_delay())

    def on_idle(self) -> None:
        """The screen went idle. Textual paints at the update timer's next tick, up to a frame
        period away from the last one (17 ms at 60 frames a second, and up to twice that was
        seen in a flood). A key's echo does not wait for it: the prompt is painted as soon as
        it has changed."""
        prompt = self.typing_target()
        if (
            prompt is not None
            and self.screen.is_current
            and not self._batching()
            and self._echo_ready(prompt)
        ):
            self.on_timer_update()

    def _echo_ready(self, prompt: Widget) -> bool:
        """Whether ``prompt`` changed while keys are coming, and can be painted alone (it
        asked for no layout)."""
        return (
            self.pacer.keys_coming()
            and prompt in self.screen._dirty_widgets
            and not self._lays_out(prompt)
        )

    def _hold(self, delay: float) -> None:
        """Leave what changed dirty, and look again in ``delay`` seconds at the latest."""
        self.screen._update_timer.pause()
        due = self.pacer.clock() + delay
        if self._look_again is not None:
            if self._look_again_at <= due:
                return
            self._look_again.stop()
        self._look_again_at = due
        self._look_again = self.screen.set_timer(max(0.005, delay), self._looked_again)

    def _looked_again(self) -> None:
        self._look_again = None
        self.screen.check_idle()

    def _lays_out(self, widget: Widget) -> bool:
        """Whether ``widget`` asked for a layout (then it cannot be painted alone)."""
        return any(
            widget is ancestor or widget in asked
            for ancestor, asked in self.screen._layout_widgets.items()
        )

    def _frame_wanted(self, besides: Widget | None = None) -> bool:
        """Whether anything but ``besides`` waits to be laid out or painted."""
        screen = self.screen
        return bool(
            screen._layout_required
            or self.drawing_owed
            or screen._scroll_required
            or screen._repaint_required
            or screen._recompose_required
            or any(widget is not besides for widget in screen._dirty_widgets)
        )

    def _paint_whole(self) -> None:
        painting = self._frame_wanted()
        if (
            painting
            and self.screen._layout_required
            and self.pacer.keys_coming()
            and self.screen.is_current
            and not self._batching()
        ):
            self._lay_out_now_draw_next()
            return
        self._textual_timer_update()
        if self.drawing_owed:
            self._draw_what_moved()  # an earlier split frame's drawing, if this one had none
        if painting:
            self.pacer.painted_whole()

    def _lay_out_now_draw_next(self) -> None:
        """The layout of a whole frame now; its drawing on the next turn of the loop."""
        self._laying_out_only = True
        try:
            self._textual_timer_update()
        finally:
            self._laying_out_only = False
        if self.drawing_owed:
            asyncio.get_running_loop().call_soon(self._draw_owed)
        else:
            self.pacer.painted_whole()

    def compositor_refresh(self) -> None:
        """Textual's refresh of the screen from its compositor (what it draws), unless a split
        frame is only laying out: then the drawing is owed."""
        if self._laying_out_only:
            # What the layout moved stays in the compositor's dirty regions for _draw_owed.
            self.drawing_owed = True
            return
        self._textual_compositor_refresh()
        self.drawing_owed = False

    def _draw_owed(self) -> None:
        """Draw what a split frame laid out, unless a key is on its way to the prompt: its
        echo goes first (it calls this again once painted), for at most the key's time."""
        if not self.drawing_owed or not self.screen.is_attached:
            return
        in_flight = self.pacer.key_in_flight()
        if in_flight and self.screen.is_current:
            asyncio.get_running_loop().call_later(in_flight, self._draw_owed)
            return
        self._draw_what_moved()
        self.pacer.painted_whole()

    def _draw_what_moved(self) -> None:
        """Draw the compositor's dirty regions (a split frame's layout) only. Textual forgets
        the dirty widgets once it has drawn: those that changed since the layout (held while
        the person types) stay dirty for the next frame."""
        screen = self.screen
        held = set(screen._dirty_widgets)
        self.compositor_refresh()
        if held:
            screen._dirty_widgets.update(held)
            screen.check_idle()

    def _paint_alone(self, prompt: Widget) -> None:
        """Paint ``prompt``'s own rows now; everything else stays dirty for a later frame."""
        screen = self.screen
        screen._update_timer.pause()
        dirty = screen._dirty_widgets
        held = dirty - {prompt}
        dirty.clear()
        dirty.add(prompt)
        compositor = screen._compositor
        owed = self.drawing_owed
        # A split frame's drawing waits: only the prompt's rows are drawn now.
        moved = set(compositor._dirty_regions) if owed else set()
        if owed:
            compositor._dirty_regions.clear()
        compositor.update_widgets(dirty)
        self.compositor_refresh()  # draws the compositor's dirty regions: the prompt's
        if owed:
            compositor._dirty_regions.update(moved)
            self.drawing_owed = True
        dirty.update(held)
        self.pacer.echoed()
        if screen._callbacks:
            screen.call_next(screen._invoke_and_clear_callbacks)
        if owed:
            asyncio.get_running_loop().call_soon(self._draw_owed)
        elif self._frame_wanted() and self.pacer.paint_due():
            # Right after the echo is when the next key is furthest away: the rest of the
            # screen goes now (the next loop turn, once the echo is on its way out), not at
            # the update timer's next tick up to 17 ms later, when a fast typist's next key
            # may be close.
            asyncio.get_running_loop().call_soon(self._after_echo)
        else:
            screen.check_idle()  # the held rest: the next tick decides (the pacer's paint_due)

    def _after_echo(self) -> None:
        if self.screen.is_attached and self.screen.is_current and self._frame_wanted():
            self.on_timer_update()
