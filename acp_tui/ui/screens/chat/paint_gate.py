"""The chat screen paints a typed key at once, and the rest of the screen around the typing.

Textual paints a screen in one frame: everything that changed since the last one is laid out
and drawn together. During a flood that is the transcript (its layout, and every row under it
composited again: 15-50 ms of CPU here), so a key typed then waited for the transcript's frame
before its own echo could show, and its own frame drew the transcript too.

While the person types (see :class:`~acp_tui.ui.screens.chat.pacing.FramePacer`), this screen's
frames are split:

- a frame where the prompt changed paints **the prompt alone** (its place on screen does not
  depend on the rest, so no layout is needed): a few milliseconds;
- everything else that changed (transcript, sidebar, status, footer) is painted at most every
  :data:`~acp_tui.ui.screens.chat.pacing.TYPING_FRAME_GAP` seconds, on the frame right after
  an echo: the next key is then as far away as it gets;
- when the typing pauses, or the prompt needs a layout (it grew a row), frames are whole again.

A whole frame that needs a layout is itself split in two while the person types: the layout
(Textual's reflow: the transcript's new blocks measured) in one turn of the event loop, the
drawing of what moved in the next. Each half is 15-40 ms during a flood here, the whole 50-90
ms: a key that lands meanwhile waits for the half in progress only, and a key that arrives
before the drawing has its echo painted first (the drawing waits for it, as a whole frame
does).

Nothing is dropped: what is held stays dirty and is painted by a later frame. This reads and
drives Textual's private frame machinery (``Screen._on_timer_update``, ``_dirty_widgets``,
``_compositor``) and is tested against the installed Textual (tests/ui/test_paint_gate.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import events
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.ui.screens.chat.pacing import FramePacer

if TYPE_CHECKING:
    _Base = Screen[Any]
else:
    _Base = object


class PromptFirstPainting(_Base):
    """Mixin for the chat screen: see the module docstring."""

    _pacer: FramePacer
    #: The timer that brings a held paint back if no key or change does first, and when.
    _look_again: Timer | None = None
    _look_again_at: float = 0.0
    #: Laid out, not drawn yet: the drawing of a split frame (see the module docstring).
    _drawing_owed: bool = False
    #: While a split frame lays out: Textual's call to draw is turned into a debt.
    _laying_out_only: bool = False

    def _typing_target(self) -> Widget | None:
        """The widget the person types into (the screen says which)."""
        raise NotImplementedError

    def _on_timer_update(self) -> None:
        prompt = self._typing_target()
        if prompt is None or not self.is_current or self.app._batch_count:
            self._paint_whole()
            return
        if not self._frame_wanted(besides=prompt):
            self._paint_whole()  # the prompt alone changed: the usual frame is just that
            return
        if self._echo_ready(prompt):
            # A key's echo never waits for the rest of the screen.
            self._paint_alone(prompt)
            return
        pacer = self._pacer
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

    async def _on_idle(self, event: events.Idle) -> None:
        # Textual paints at the update timer's next tick, up to a frame period away from the
        # last one (17 ms at 60 frames a second, and up to twice that was seen in a flood). A
        # key's echo does not wait for it: the prompt is painted as soon as it has changed.
        prompt = self._typing_target()
        if (
            prompt is not None
            and self.is_current
            and not self.app._batch_count
            and self._echo_ready(prompt)
        ):
            self._on_timer_update()
        await super()._on_idle(event)

    def _echo_ready(self, prompt: Widget) -> bool:
        """Whether ``prompt`` changed while keys are coming, and can be painted alone (it
        asked for no layout)."""
        return (
            self._pacer.keys_coming()
            and prompt in self._dirty_widgets
            and not self._lays_out(prompt)
        )

    def _typing_elsewhere(self) -> bool:
        """Whether typed keys go somewhere else than the prompt now (the screen says)."""
        raise NotImplementedError

    def key_on_its_way(self) -> None:
        """The app received a key that edits text: if it goes to the prompt, a whole frame
        waits for its echo (briefly: see
        :data:`~acp_tui.ui.screens.chat.pacing.KEY_IN_FLIGHT`)."""
        if self.is_current and not self._typing_elsewhere():
            self._pacer.key_arrived()
        else:
            self._pacer.key_not_for_the_prompt()  # heard early (key_heard), going elsewhere

    def key_heard(self) -> None:
        """The terminal's input thread read a key that may be for the prompt (called from
        that thread: only a time is stamped; :meth:`key_on_its_way` decides on the loop)."""
        self._pacer.key_arrived()

    def key_pending(self) -> float:
        """Seconds a key seen by the app may still be on its way to its echo (0: none is)."""
        return self._pacer.key_in_flight()

    def _hold(self, delay: float) -> None:
        """Leave what changed dirty, and look again in ``delay`` seconds at the latest."""
        self._update_timer.pause()
        due = self._pacer.clock() + delay
        if self._look_again is not None:
            if self._look_again_at <= due:
                return
            self._look_again.stop()
        self._look_again_at = due
        self._look_again = self.set_timer(max(0.005, delay), self._looked_again)

    def _looked_again(self) -> None:
        self._look_again = None
        self.check_idle()

    def _lays_out(self, widget: Widget) -> bool:
        """Whether ``widget`` asked for a layout (then it cannot be painted alone)."""
        return any(
            widget is ancestor or widget in asked
            for ancestor, asked in self._layout_widgets.items()
        )

    def _frame_wanted(self, besides: Widget | None = None) -> bool:
        """Whether anything but ``besides`` waits to be laid out or painted."""
        return bool(
            self._layout_required
            or self._drawing_owed
            or self._scroll_required
            or self._repaint_required
            or self._recompose_required
            or any(widget is not besides for widget in self._dirty_widgets)
        )

    def _paint_whole(self) -> None:
        painting = self._frame_wanted()
        if (
            painting
            and self._layout_required
            and self._pacer.keys_coming()
            and self.is_current
            and not self.app._batch_count
        ):
            self._lay_out_now_draw_next()
            return
        super()._on_timer_update()
        if self._drawing_owed:
            self._draw_what_moved()  # an earlier split frame's drawing, if this one had none
        if painting:
            self._pacer.painted_whole()

    def _lay_out_now_draw_next(self) -> None:
        """The layout of a whole frame now; its drawing on the next turn of the loop."""
        self._laying_out_only = True
        try:
            super()._on_timer_update()
        finally:
            self._laying_out_only = False
        if self._drawing_owed:
            asyncio.get_running_loop().call_soon(self._draw_owed)
        else:
            self._pacer.painted_whole()

    def _compositor_refresh(self) -> None:
        if self._laying_out_only:
            # What the layout moved stays in the compositor's dirty regions for _draw_owed.
            self._drawing_owed = True
            return
        super()._compositor_refresh()
        self._drawing_owed = False

    def _draw_owed(self) -> None:
        """Draw what a split frame laid out, unless a key is on its way to the prompt: its
        echo goes first (it calls this again once painted), for at most the key's time."""
        if not self._drawing_owed or not self.is_attached:
            return
        in_flight = self._pacer.key_in_flight()
        if in_flight and self.is_current:
            asyncio.get_running_loop().call_later(in_flight, self._draw_owed)
            return
        self._draw_what_moved()
        self._pacer.painted_whole()

    def _draw_what_moved(self) -> None:
        """Draw the compositor's dirty regions (a split frame's layout) only. Textual forgets
        the dirty widgets once it has drawn: those that changed since the layout (held while
        the person types) stay dirty for the next frame."""
        held = set(self._dirty_widgets)
        self._compositor_refresh()
        if held:
            self._dirty_widgets.update(held)
            self.check_idle()

    def _paint_alone(self, prompt: Widget) -> None:
        """Paint ``prompt``'s own rows now; everything else stays dirty for a later frame."""
        self._update_timer.pause()
        held = self._dirty_widgets - {prompt}
        self._dirty_widgets.clear()
        self._dirty_widgets.add(prompt)
        compositor = self._compositor
        owed = self._drawing_owed
        # A split frame's drawing waits: only the prompt's rows are drawn now.
        moved = set(compositor._dirty_regions) if owed else set()
        if owed:
            compositor._dirty_regions.clear()
        compositor.update_widgets(self._dirty_widgets)
        self._compositor_refresh()  # draws the compositor's dirty regions: the prompt's
        if owed:
            compositor._dirty_regions.update(moved)
            self._drawing_owed = True
        self._dirty_widgets.update(held)
        self._pacer.echoed()
        if self._callbacks:
            self.call_next(self._invoke_and_clear_callbacks)
        if owed:
            asyncio.get_running_loop().call_soon(self._draw_owed)
        elif self._frame_wanted() and self._pacer.paint_due():
            # Right after the echo is when the next key is furthest away: the rest of the
            # screen goes now (the next loop turn, once the echo is on its way out), not at
            # the update timer's next tick up to 17 ms later, when a fast typist's next key
            # may be close.
            asyncio.get_running_loop().call_soon(self._after_echo)
        else:
            self.check_idle()  # the held rest: the next tick decides (see FramePacer.paint_due)

    def _after_echo(self) -> None:
        if self.is_attached and self.is_current and self._frame_wanted():
            self._on_timer_update()
