"""The row under the prompt: the session's options, and the context gauge.

Every option the agent offers has a control here (a select, or a toggle for a boolean option),
in category order: mode, model, thinking, model settings, then the rest (see
:mod:`acp_tui.store.options`). The row is one line and never cut: when the terminal is too
narrow for everything, things give way in this order, until what is left fits:

1. the gauge's bar graphic (the numbers and the level colour stay),
2. the controls, from the last one back: a "☰ N more" button takes their place and opens them
   all in a popup (so does the palette, Ctrl+P → "Session options"; the mode and the thinking
   level also have keys that cycle them).

A control is never narrower than what it says ("Thinking: Medium"): a cut label would not say
which option it is.

The gauge's numbers always stay: they are why the row exists.

Only the controls on the row exist: the row is planned from the options' labels
(:func:`~acp_tui.ui.widgets.option_controls.widest_label`), measuring them only until it is
full, and a control is made for each option that fits. An agent that offers a thousand
options costs a row's worth of widgets (they were all made, hidden: seconds at every change
of one, and at the next launch, which shows what the agent offered last).
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from acp_tui.store.options import SessionOption
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.option_controls import (
    OptionChosen,
    OptionSelect,
    OptionToggle,
    control_for,
    widest_label,
    widget_id,
)

__all__ = ["ChatBar", "OptionChosen"]

#: The widest a select gets (an agent's long value names are cut with an ellipsis).
SELECT_MAX = 30
SELECT_MIN = 10
#: Cells a select needs beyond its label: its padding and the arrow.
SELECT_CHROME = 4
SELECT_MARGIN = 1
GAUGE_BAR_CELLS = 8

Control = OptionSelect | OptionToggle


class ChatBar(Horizontal):
    """Option controls, the "more" button, a spacer and the gauge. The screen hands in the
    session's options (:meth:`show_options`) and calls :meth:`fit` when the gauge's text
    changed; the bar fits itself again when its width changes."""

    DEFAULT_CSS = f"""
    ChatBar {{
        height: 1;
        background: $panel;
        padding: 0 1;
        & > OptionSelect {{ margin: 0 {SELECT_MARGIN} 0 0; }}
        & > OptionToggle {{ margin: 0 {SELECT_MARGIN} 0 0; width: auto; }}
        & > #more-options {{ min-width: 4; width: auto; height: 1; margin: 0 {SELECT_MARGIN} 0 0; }}
        & > #bar-spacer {{ width: 1fr; }}
        & > ContextGauge {{ width: auto; }}
    }}
    """

    class OptionsRequested(Message):
        """The person asked for every option (the "more" button)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.gauge = ContextGauge(id="gauge", bar_width=GAUGE_BAR_CELLS)
        self.more = Button("☰", id="more-options", compact=True)
        self.more.tooltip = "Every option of this session"
        self.spacer = Static("", id="bar-spacer")
        #: The session's options, in order.
        self.options: list[SessionOption] = []
        #: The controls on the row, in order, by option key: one for each option that fits.
        self.controls: dict[str, Control] = {}
        #: Keys of the options that do not fit (in the popup only).
        self.hidden: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.more
        yield self.spacer
        yield self.gauge

    def on_mount(self) -> None:
        self.fit()

    def control(self, key: str) -> Control | None:
        return self.controls.get(key)

    def show_options(self, options: list[SessionOption]) -> None:
        """Show ``options`` (in that order): the row is planned again, and its controls are
        kept, updated, added or removed."""
        self.options = list(options)
        self.fit()

    def on_resize(self, event: events.Resize) -> None:
        self.fit()

    @staticmethod
    def width_of(control: Control | SessionOption) -> int:
        """Cells the control of an option needs (without its margin)."""
        option = control if isinstance(control, SessionOption) else control.option
        if option.kind == "boolean":
            return widest_label(option)
        return max(SELECT_MIN, min(SELECT_MAX, widest_label(option) + SELECT_CHROME))

    def fit(self) -> None:
        """Give way (see the module docstring) until the row fits its width."""
        room = self.size.width  # the content area: padding already off
        if room <= 0:
            return
        gauge = self.gauge
        options = self.options
        # The options' widths, measured only while they could all still fit.
        widths: list[int] = []
        used = 0
        for option in options:
            width = self.width_of(option) + SELECT_MARGIN
            if used + width > room:
                break
            widths.append(width)
            used += width
        shown = len(widths)
        bar_cells = GAUGE_BAR_CELLS
        if shown < len(options) or used + gauge.width_for(bar_cells) > room:
            bar_cells = 0
        more_needed = shown < len(options) or used + gauge.width_for(0) > room

        def more_cells(count: int) -> int:
            return len(self._more_label(count)) + 2 + SELECT_MARGIN

        if more_needed:
            while (
                shown
                and sum(widths[:shown]) + gauge.width_for(0) + more_cells(len(options) - shown)
                > room
            ):
                shown -= 1
        if gauge.bar_width != bar_cells:
            gauge.bar_width = bar_cells
            gauge.refresh(layout=True)
        self._place(options[:shown])
        for control in self.controls.values():
            control.styles.width = self.width_of(control)
        self.hidden = [option.key for option in options[shown:]]
        fits = sum(widths[:shown]) + gauge.width_for(0) + more_cells(len(self.hidden)) <= room
        more = bool(self.hidden) and fits
        self.more.display = more
        if more:
            self.more.label = self._more_label(len(self.hidden))

    def _place(self, options: list[SessionOption]) -> None:
        """Controls for ``options`` on the row, in order: kept, updated, added or removed."""
        keys = [option.key for option in options]
        leaving = {key: c for key, c in self.controls.items() if key not in keys}
        # Every id in the DOM stays taken until its control has gone (removal is not at once).
        taken: set[str | None] = {c.id for c in self.controls.values()}
        fresh: set[str] = set()
        for option in options:
            control = self.controls.get(option.key)
            if control is not None and _same_kind(control, option):
                control.show(option)
                continue
            if control is not None:
                control.remove()
            # A control leaving with the id this option would take (the mode moving from
            # ``modes`` to a config option) goes on as this option's.
            wanted = widget_id(option)
            reused = next(
                (k for k, c in leaving.items() if c.id == wanted and _same_kind(c, option)),
                None,
            )
            if reused is not None:
                control = leaving.pop(reused)
                control.show(option)
                self.controls[option.key] = control
                continue
            control = control_for(option, taken=taken)
            if isinstance(control, OptionSelect):
                control.opens_upward = True  # the footer is below the bar
            taken.add(control.id)
            self.controls[option.key] = control
            fresh.add(option.key)
        for control in leaving.values():
            control.remove()
        self.controls = {key: self.controls[key] for key in keys}
        # Each new control goes before the next one already there, so the row keeps the order.
        for index, key in enumerate(keys):
            if key in fresh:
                after = next((k for k in keys[index + 1 :] if k not in fresh), None)
                self.mount(self.controls[key], before=self.controls[after] if after else self.more)

    @staticmethod
    def _more_label(count: int) -> str:
        return f"☰ {count} more"

    @on(Button.Pressed, "#more-options")
    def _more_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.OptionsRequested())


def _same_kind(control: Control, option: SessionOption) -> bool:
    return isinstance(control, OptionToggle) == (option.kind == "boolean")
