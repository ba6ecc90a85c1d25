"""The context gauge: one line for a footer or status bar.

Reads like ``▰▱▱▱▱▱▱▱ 31.4K / 200K · 16%`` and, past 75%, ends with the level in words
(``▰▰▰▰▰▰▰▱ 184K / 200K · 92% high``) so it reads on a monochrome terminal and in a screen
reader. The level is also a CSS class (``-normal``, ``-filling``, ``-high``, ``-critical``,
``-unknown``) that picks a theme colour. Hover shows the exact numbers as a tooltip; a click, or
Enter while it has the focus, posts ``ContextGauge.DetailsRequested`` (the chat screen opens a
panel with ``details_text()``).

The screen sets the reactive attributes from the store (``set_usage`` sets several at once);
the gauge posts ``ContextGauge.LevelCrossed`` once per rise into a higher level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from acp_tui.text.usage import (
    NO_USAGE_TEXT,
    ContextLevel,
    LevelTracker,
    bar_cells,
    context_level,
    format_cost,
    gauge_text,
    usage_details_text,
)

__all__ = ["ContextGauge"]

_FILLED = "▰"
_EMPTY = "▱"
_LEVEL_CLASSES: tuple[str, ...] = tuple(level.css_class for level in ContextLevel)


class ContextGauge(Widget, can_focus=True):
    """Context window usage, cost and last-turn tokens of the current session.

    Reactive attributes (set them from the store; None means "not reported"):

    - ``used``: tokens currently in context (``usage_update.used``).
    - ``context_size``: the window size (``usage_update.size``). Not ``size``: that name is
      Textual's own ``Widget.size``.
    - ``cost_amount`` / ``cost_currency``: cumulative cost (``usage_update.cost``).
    - ``turn_usage``: the last ``PromptResponse.usage`` dict (camelCase keys). Assign a new
      dict; mutating the old one in place is not seen.
    """

    DEFAULT_CSS = """
    ContextGauge {
        width: auto;
        height: 1;
        padding: 0 1;
        color: $foreground;

        &.-unknown {
            color: $text-muted;
        }
        &.-filling {
            color: $warning-lighten-2;
        }
        &.-high {
            color: $warning-darken-1;
            text-style: bold;
        }
        &.-critical {
            color: $error;
            text-style: bold;
        }
        &:focus {
            text-style: reverse;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_details", "Context details", show=False, id="gauge-details"),
    ]

    used: reactive[int | None] = reactive(None)
    context_size: reactive[int | None] = reactive(None)
    cost_amount: reactive[float | None] = reactive(None)
    cost_currency: reactive[str | None] = reactive(None)
    turn_usage: reactive[Mapping[str, Any] | None] = reactive(None)

    class DetailsRequested(Message):
        """The person asked for the exact numbers (a click, or Enter on the gauge)."""

        def __init__(self, gauge: ContextGauge) -> None:
            super().__init__()
            self.gauge = gauge

        @property
        def control(self) -> ContextGauge:
            return self.gauge

    class LevelCrossed(Message):
        """Usage rose into a higher level (posted once per crossing, never for NORMAL)."""

        def __init__(self, gauge: ContextGauge, level: ContextLevel) -> None:
            super().__init__()
            self.gauge = gauge
            self.level = level
            """The level just entered: FILLING, HIGH or CRITICAL."""

        @property
        def control(self) -> ContextGauge:
            return self.gauge

        @property
        def advice(self) -> str:
            """The RFD's advice for the level, ready for a notification."""
            return self.level.advice

    def __init__(
        self,
        *,
        bar_width: int = 8,
        show_cost: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """
        Args:
            bar_width: Cells in the bar (0 for no bar).
            show_cost: Append the cumulative cost to the line when the agent reports one.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.bar_width = max(0, bar_width)
        self.show_cost = show_cost
        self._tracker = LevelTracker()
        self._crossing_check_pending = False
        self._sync()

    # -- public API ---------------------------------------------------------------------------

    @property
    def level(self) -> ContextLevel:
        """The current level, from ``used`` and ``context_size``."""
        return context_level(self.used, self.context_size)

    def set_usage(
        self,
        used: int | None,
        context_size: int | None,
        cost_amount: float | None = None,
        cost_currency: str | None = None,
    ) -> None:
        """Set a whole ``usage_update`` at once (cost None: not reported)."""
        self.set_reactive(ContextGauge.used, used)
        self.set_reactive(ContextGauge.context_size, context_size)
        self.set_reactive(ContextGauge.cost_amount, cost_amount)
        self.set_reactive(ContextGauge.cost_currency, cost_currency)
        self._changed()

    def clear(self) -> None:
        """Forget everything (e.g. switching to another session): back to ``context: -``.

        The crossing history is reset too, so the next session's level is notified afresh.
        """
        self.set_reactive(ContextGauge.turn_usage, None)
        self.set_usage(None, None)
        self._tracker.reset()

    def details_text(self) -> str:
        """The exact numbers, cost, advice and last turn's tokens (the tooltip's text)."""
        return usage_details_text(
            self.used, self.context_size, self.cost_amount, self.cost_currency, self.turn_usage
        )

    def gauge_line(self) -> str:
        """The text the gauge shows, as plain text."""
        return self._content().plain

    def width_for(self, bar_width: int) -> int:
        """Cells the gauge takes (padding included) with a bar of ``bar_width`` cells: the
        row it sits in decides from this whether the bar graphic fits."""
        return self._content(bar_width).cell_length + self.styles.gutter.width

    # -- reactivity ---------------------------------------------------------------------------

    def watch_used(self) -> None:
        self._changed()

    def watch_context_size(self) -> None:
        self._changed()

    def watch_cost_amount(self) -> None:
        self._changed()

    def watch_cost_currency(self) -> None:
        self._changed()

    def watch_turn_usage(self) -> None:
        self._changed()

    def on_mount(self) -> None:
        self._schedule_crossing_check()

    def action_show_details(self) -> None:
        self.post_message(self.DetailsRequested(self))

    def on_click(self) -> None:
        self.action_show_details()

    def _changed(self) -> None:
        self._sync()
        self.refresh(layout=True)
        self._schedule_crossing_check()

    def _sync(self) -> None:
        """Bring the level class and the tooltip up to date (cheap, idempotent)."""
        level_class = self.level.css_class
        self.remove_class(*(c for c in _LEVEL_CLASSES if c != level_class))
        self.add_class(level_class)
        self.tooltip = Content(self.details_text())

    def _schedule_crossing_check(self) -> None:
        # Deferred, so that setting ``used`` and ``context_size`` one after the other in one
        # handler is judged on the final pair, not on a half-updated one.
        if self._crossing_check_pending or not self.is_mounted:
            return
        self._crossing_check_pending = True
        self.call_later(self._check_crossing)

    def _check_crossing(self) -> None:
        self._crossing_check_pending = False
        crossed = self._tracker.feed(self.used, self.context_size)
        if crossed is not None:
            self.post_message(self.LevelCrossed(self, crossed))

    # -- rendering ----------------------------------------------------------------------------

    def _content(self, bar_width: int | None = None) -> Content:
        bar_width = self.bar_width if bar_width is None else bar_width
        used, size = self.used, self.context_size
        level = self.level
        parts: list[str | tuple[str, str]] = []
        if used is None or size is None:
            parts.append(NO_USAGE_TEXT)
        else:
            cells = bar_cells(used, size, bar_width) if bar_width else None
            if cells is not None:
                parts.append(_FILLED * cells)
                parts.append((_EMPTY * (bar_width - cells), "dim"))
                parts.append(" ")
            parts.append(gauge_text(used, size))
            if level not in (ContextLevel.NORMAL, ContextLevel.UNKNOWN):
                parts.append(" ")
                parts.append((level.label, "bold"))
        if self.show_cost and (self.cost_amount is not None or self.cost_currency):
            parts.append(" · ")
            parts.append(format_cost(self.cost_amount, self.cost_currency))
        return Content.assemble(*parts)

    def render(self) -> Content:
        return self._content()
