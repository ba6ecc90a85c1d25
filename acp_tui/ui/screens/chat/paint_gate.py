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

Nothing is dropped: what is held stays dirty and is painted by a later frame. This reads and
drives Textual's private frame machinery (``Screen._on_timer_update``, ``_dirty_widgets``,
``_compositor``) and is tested against the installed Textual (tests/ui/test_paint_gate.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

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
        pacer = self._pacer
        in_flight = pacer.key_in_flight()
        if (
            (pacer.typing() or in_flight)
            and prompt in self._dirty_widgets
            and not self._lays_out(prompt)
        ):
            # A key's echo never waits for the rest of the screen.
            self._paint_alone(prompt)
            return
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

    def _typing_elsewhere(self) -> bool:
        """Whether typed keys go somewhere else than the prompt now (the screen says)."""
        raise NotImplementedError

    def key_on_its_way(self) -> None:
        """The app received a key that edits text: if it goes to the prompt, a whole frame
        waits for its echo (briefly: see
        :data:`~acp_tui.ui.screens.chat.pacing.KEY_IN_FLIGHT`)."""
        if self.is_current and not self._typing_elsewhere():
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
            or self._scroll_required
            or self._repaint_required
            or self._recompose_required
            or any(widget is not besides for widget in self._dirty_widgets)
        )

    def _paint_whole(self) -> None:
        painting = self._frame_wanted()
        super()._on_timer_update()  # type: ignore[misc]
        if painting:
            self._pacer.painted_whole()

    def _paint_alone(self, prompt: Widget) -> None:
        """Paint ``prompt``'s own rows now; everything else stays dirty for a later frame."""
        self._update_timer.pause()
        held = self._dirty_widgets - {prompt}
        self._dirty_widgets.clear()
        self._dirty_widgets.add(prompt)
        self._compositor.update_widgets(self._dirty_widgets)
        self._compositor_refresh()  # draws the compositor's dirty regions: the prompt's
        self._dirty_widgets.update(held)
        self._pacer.echoed()
        if self._callbacks:
            self.call_next(self._invoke_and_clear_callbacks)
        if self._frame_wanted() and self._pacer.paint_due():
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
