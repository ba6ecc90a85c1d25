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
    #: The timer that brings a held paint back if no key or change does first.
    _look_again: Timer | None = None

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
        if not pacer.typing() or pacer.overdue():
            self._paint_whole()
            return
        if prompt in self._dirty_widgets and not self._lays_out(prompt):
            # A key's echo never waits for the rest of the screen.
            self._paint_alone(prompt)
            return
        if pacer.paint_due():
            self._paint_whole()
            return
        # Held: the rest stays dirty. The update timer comes back at the next idle (a key,
        # a change), or when the typing pauses (the typing may have stopped for good).
        self._update_timer.pause()
        if self._look_again is None:
            self._look_again = self.set_timer(pacer.hold_delay(), self._looked_again)

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
        self.check_idle()  # the held rest: the next tick decides (see FramePacer.paint_due)
