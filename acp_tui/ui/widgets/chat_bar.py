"""The row under the prompt: the mode and model selectors, and the context gauge.

The row is one line and never cut: when the terminal is too narrow for everything, things give
way in this order, until what is left fits:

1. the selectors' width (the current value stays readable),
2. the gauge's bar graphic (the numbers and the level colour stay),
3. the mode selector, then the model selector (both are also in the palette, Ctrl+P).

The gauge's numbers always stay: they are why the row exists.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Select, Static

from acp_tui.ui.widgets.gauge import ContextGauge

__all__ = ["ChatBar"]

#: Cells of a selector (and its right margin) when there is room, and when there is not.
SELECT_WIDE = 24
SELECT_NARROW = 16
SELECT_MARGIN = 1
GAUGE_BAR_CELLS = 8


class ChatBar(Horizontal):
    """Mode select, model select, a spacer and the gauge. The screen says which selectors it
    wants (:meth:`want`) and calls :meth:`fit` when the gauge's text changed; the bar fits
    itself again when its width changes."""

    DEFAULT_CSS = f"""
    ChatBar {{
        height: 1;
        background: $panel;
        padding: 0 1;
        & > Select {{ width: {SELECT_WIDE}; margin: 0 {SELECT_MARGIN} 0 0; }}
        & > Select.-narrow {{ width: {SELECT_NARROW}; }}
        & > #bar-spacer {{ width: 1fr; }}
        & > ContextGauge {{ width: auto; }}
    }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.mode_select: Select[str] = Select(
            [], prompt="mode", id="mode-select", compact=True, allow_blank=True
        )
        self.model_select: Select[str] = Select(
            [], prompt="model", id="model-select", compact=True, allow_blank=True
        )
        self.gauge = ContextGauge(id="gauge", bar_width=GAUGE_BAR_CELLS)
        #: The selectors that have something to offer (the screen decides).
        self._wanted: dict[Select[str], bool] = {self.mode_select: False, self.model_select: False}

    def compose(self) -> ComposeResult:
        yield self.mode_select
        yield self.model_select
        yield Static("", id="bar-spacer")
        yield self.gauge

    def on_mount(self) -> None:
        self.fit()

    def want(self, select: Select[str], wanted: bool) -> None:
        """Show ``select`` when there is room (``wanted``: it has options)."""
        if self._wanted.get(select) != wanted:
            self._wanted[select] = wanted
            self.fit()

    def on_resize(self, event: events.Resize) -> None:
        self.fit()

    def fit(self) -> None:
        """Give way (see the module docstring) until the row fits its width."""
        room = self.size.width  # the content area: padding already off
        if room <= 0:
            return
        gauge = self.gauge
        wanted = [
            select for select in (self.mode_select, self.model_select) if self._wanted[select]
        ]
        # Candidate layouts, best first: (gauge bar cells, selector width, selectors shown).
        layouts: list[tuple[int, int, list[Select[str]]]] = [
            (GAUGE_BAR_CELLS, SELECT_WIDE, wanted),
            (GAUGE_BAR_CELLS, SELECT_NARROW, wanted),
            (0, SELECT_NARROW, wanted),
        ]
        if len(wanted) == 2:
            layouts.append((0, SELECT_NARROW, [self.model_select]))
        layouts.append((0, SELECT_NARROW, []))
        for bar_cells, select_width, shown in layouts:
            need = gauge.width_for(bar_cells) + len(shown) * (select_width + SELECT_MARGIN)
            if need <= room:
                break
        if gauge.bar_width != bar_cells:
            gauge.bar_width = bar_cells
            gauge.refresh(layout=True)
        for select in (self.mode_select, self.model_select):
            select.display = select in shown
            select.set_class(select_width == SELECT_NARROW, "-narrow")
