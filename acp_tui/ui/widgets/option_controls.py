"""The controls of one session option: a select, or a toggle for a boolean option.

Both carry the option's key (:attr:`SessionOption.key`) and post :class:`OptionChosen` when the
person changes them; drawing the agent's value (:meth:`show`) posts nothing. Every string is the
agent's, shown literally on one line.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.css.scalar import Unit
from textual.message import Message
from textual.widgets import Checkbox, Select

from acp_tui.store.options import SessionOption
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.textual_patches.select import LazySelect

__all__ = [
    "BARE_CATEGORIES",
    "OptionChosen",
    "OptionSelect",
    "OptionToggle",
    "control_for",
    "select_label",
    "widest_label",
    "widget_id",
]

#: Option names and value names longer than this are cut.
NAME_CELLS = 40
#: Categories whose value speaks for itself ("Code", "Demo Swift"): no "Name:" before it.
BARE_CATEGORIES = frozenset({"mode", "model"})


class OptionChosen(Message):
    """The person chose ``value`` for the option ``key``."""

    def __init__(self, key: str, value: str | bool) -> None:
        super().__init__()
        self.key = key
        self.value = value


def widget_id(option: SessionOption, taken: set[str | None] | None = None) -> str:
    """A widget id for ``option``, not among ``taken``: ``mode-select`` / ``model-select`` for
    the first mode and model selects, else ``option-<id>`` (cut to what widget ids allow)."""
    taken = taken or set()
    if option.kind == "select" and option.category in BARE_CATEGORIES:
        candidate = f"{option.category}-select"
        if candidate not in taken:
            return candidate
    base = "option-" + re.sub(r"[^A-Za-z0-9_-]", "_", option.id or option.key)[:40]
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _choice_label(option: SessionOption, name: str) -> Text:
    return Text(line_of(name, NAME_CELLS))


class OptionSelect(LazySelect[str]):
    """A select of one option. The current value reads "Name: Value" (just "Value" for the
    mode and the model), so a row of them says what each one is. Closed, it is one line (a
    Textual patch: :class:`~acp_tui.ui.textual_patches.select.LazySelect`).
    """

    def __init__(self, option: SessionOption, *, id: str | None = None, bare: bool = False) -> None:
        self.option = option
        #: Just the value (a row that names the option already).
        self.bare = bare
        super().__init__(
            self._choices(option),
            # Fixed: Select shows its prompt as markup; the option's name is drawn below.
            prompt="…",
            value=option.current
            if isinstance(option.current, str) and option.choice(option.current)
            else Select.NULL,
            # A blank entry only while the agent reports no value: never one to choose.
            allow_blank=not (isinstance(option.current, str) and option.choice(option.current)),
            compact=True,
            id=id,
        )
        self.tooltip = self._described(option)
        #: Its list opens upward, ending on the row above it, where there is room (set by a
        #: bar at the screen's foot: a list opened downward covered the footer's keys, their
        #: words run into its own).
        self.opens_upward = False
        #: Until the select has drawn itself once, Select cannot take new choices or a value
        #: (its parts are not composed yet): the latest state waits here.
        self._drawn = False
        self._waiting: SessionOption | None = None

    @property
    def key(self) -> str:
        return self.option.key

    def watch_expanded(self, expanded: bool) -> None:
        choices = self.choices_list
        if expanded and self.opens_upward and choices is not None:
            # The list is laid out on the row under the select: up by its height and one, it
            # ends on the row above, and the select stays in view. A compact list has no
            # border: a row per entry, up to its max-height.
            rows = self.choice_count
            max_height = choices.styles.max_height
            if max_height is not None and max_height.unit == Unit.CELLS:
                rows = min(rows, int(max_height.value))
            # Where there is no room above (a bar at the top), it opens downward as usual.
            choices.styles.offset = (0, -(rows + 1) if self.region.y >= rows else 0)

    @staticmethod
    def _choices(option: SessionOption) -> list[tuple[Text, str]]:
        return [(_choice_label(option, c.name), c.value) for c in option.choices]

    @staticmethod
    def _described(option: SessionOption) -> Text:
        lines = [line_of(option.name, 80)]
        if option.description:
            lines.append(line_of(option.description, 200))
        return Text("\n".join(lines))

    def label_text(self, value: Any) -> str:
        """What the closed select reads for ``value``."""
        return select_label(self.option, value, bare=self.bare)

    def widest(self) -> int:
        """Cells of the longest label the closed select can show."""
        return widest_label(self.option, bare=self.bare)

    def watch_value(self, value: Any) -> None:
        # After Select's own watcher: the closed select says which option it is (its name
        # alone while the agent reports no value).
        label = line_of(self.option.name, NAME_CELLS) if value is Select.NULL else None
        self.show_label(Text(label or self.label_text(value)))  # before it is composed: none

    def on_mount(self) -> None:
        # After Select's own mount, which draws the bare value.
        self.call_after_refresh(self._first_drawn)

    def _first_drawn(self) -> None:
        self._drawn = True
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self.show(waiting)
        self.watch_value(self.value)

    def show(self, option: SessionOption) -> None:
        """Draw the agent's state of the option (no :class:`OptionChosen`)."""
        if not self._drawn:
            # Shown again before it drew itself (a session switch draws twice in a row).
            self._waiting = option
            return
        with self.prevent(Select.Changed):
            if option.choices != self.option.choices:
                self.option = option
                self.set_options(self._choices(option))
            self.option = option
            self.tooltip = self._described(option)
            if option.choice(option.current):
                self.value = option.current  # type: ignore[assignment]
            elif self.blank_allowed:
                self.clear()
        # The names may have changed with the value the same (no watcher runs then).
        self.watch_value(self.value)

    def _on_select_changed(self, event: Select.Changed) -> None:
        # Only a change from the agent's value is a choice (Select also reports its value
        # when it mounts).
        if event.select is self and isinstance(event.value, str):
            if event.value != self.option.current:
                self.post_message(OptionChosen(self.key, event.value))


class OptionToggle(Checkbox):
    """A boolean option: on or off."""

    DEFAULT_CSS = """
    OptionToggle { border: none; padding: 0 1; height: 1; background: transparent; }
    OptionToggle:focus { border: none; }
    """

    def __init__(self, option: SessionOption, *, id: str | None = None, bare: bool = False) -> None:
        self.option = option
        #: Labelled "on" / "off" (a row that names the option already).
        self.bare = bare
        super().__init__(
            self._caption(option.current),
            value=bool(option.current),
            compact=True,
            id=id,
            tooltip=Text(line_of(option.description or option.name, 200)),
        )

    @property
    def key(self) -> str:
        return self.option.key

    def _caption(self, value: Any) -> Text:
        if self.bare:
            return Text("on" if value else "off")
        return Text(line_of(self.option.name, NAME_CELLS))

    def widest(self) -> int:
        return widest_label(self.option, bare=self.bare)

    def show(self, option: SessionOption) -> None:
        self.option = option
        with self.prevent(Checkbox.Changed):
            self.value = bool(option.current)
        self.label = self._caption(self.value)

    def _on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox is self:
            self.label = self._caption(event.value)
            if event.value != self.option.current:
                self.post_message(OptionChosen(self.key, event.value))


def select_label(option: SessionOption, value: Any, *, bare: bool = False) -> str:
    """What the closed select of ``option`` reads for ``value``: "Name: Value" (just "Value"
    for a mode, a model, or ``bare``)."""
    name = line_of(option.value_name(value), NAME_CELLS)
    if bare or option.category in BARE_CATEGORIES:
        return name
    return f"{line_of(option.name, NAME_CELLS)}: {name}"


def widest_label(option: SessionOption, *, bare: bool = False) -> int:
    """Cells of the longest label the control of ``option`` can show (no widget needed: a
    row of controls is planned before any is made)."""
    if option.kind == "boolean":
        return len(line_of(option.name, NAME_CELLS)) + 4
    labels = [select_label(option, c.value, bare=bare) for c in option.choices]
    return max((len(label) for label in labels), default=len(option.name))


def control_for(
    option: SessionOption, *, taken: set[str | None] | None = None, bare: bool = False
) -> OptionSelect | OptionToggle:
    """The control of ``option``; ``bare``: without the option's name (a row names it)."""
    control_id = widget_id(option, taken)
    if option.kind == "boolean":
        return OptionToggle(option, id=control_id, bare=bare)
    return OptionSelect(option, id=control_id, bare=bare)
