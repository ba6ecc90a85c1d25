"""The controls of one session option: a select, or a toggle for a boolean option.

Both carry the option's key (:attr:`SessionOption.key`) and post :class:`OptionChosen` when the
person changes them; drawing the agent's value (:meth:`show`) posts nothing. Every string is the
agent's, shown literally on one line.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.css.scalar import Unit
from textual.message import Message
from textual.widgets import Checkbox, Select
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay

from acp_tui.store.options import SessionOption
from acp_tui.ui.agent_text import line_of

__all__ = [
    "ClosedSelect",
    "OptionChosen",
    "OptionSelect",
    "OptionToggle",
    "control_for",
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


class ClosedSelect(SelectCurrent):
    """The closed select, one widget that draws its line itself: the label, then the arrow.

    Textual's is a row of three widgets (the label and two arrows) under the select, with the
    list of choices beside them from the start. A chat bar of five selects was 30 widgets, and
    styling and laying them out was a third of the CPU of an app's start on the 2-core
    development machine: an option select is now this widget alone until it is opened (the
    list is mounted then; see :class:`OptionSelect`).
    """

    COMPONENT_CLASSES = {"closed-select--arrow"}

    DEFAULT_CSS = """
    ClosedSelect {
        height: 1;
        color: $foreground 50%;
        &.-has-value { color: $foreground; }
        & > .closed-select--arrow { color: $foreground 50%; }
    }
    """

    def compose(self) -> ComposeResult:
        return iter(())

    def update(self, label: Any) -> None:
        self.label = label
        self.has_value = label is not Select.NULL
        self.refresh()

    def render(self) -> Text:
        label = self.placeholder if isinstance(self.label, NoSelection) else self.label
        line = label.copy() if isinstance(label, Text) else Text(str(label))
        line.no_wrap = True
        line.overflow = "ellipsis"
        expanded = isinstance(self.parent, Select) and self.parent.expanded
        room = max(0, self.content_size.width - 2)  # the arrow, one cell from the label
        line.truncate(room, overflow="ellipsis", pad=True)
        line.append(" ")
        line.append("▲" if expanded else "▼", self.get_component_rich_style("closed-select--arrow"))
        return line


class OptionSelect(Select[str]):
    """A select of one option. The current value reads "Name: Value" (just "Value" for the
    mode and the model), so a row of them says what each one is.

    Closed, it is two widgets (itself and a :class:`ClosedSelect`); the list of choices is
    mounted when the person first opens it, and Select's own code runs from then on.
    """

    def __init__(self, option: SessionOption, *, id: str | None = None, bare: bool = False) -> None:
        self.option = option
        #: Just the value (a row that names the option already).
        self.bare = bare
        self._choices_list: SelectOverlay | None = None
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

    @property
    def choices_list(self) -> SelectOverlay | None:
        """The list of choices, once the select has been opened (None before)."""
        return self._choices_list

    def compose(self) -> ComposeResult:
        yield ClosedSelect(self.prompt)

    def _setup_options_renderables(self) -> None:
        if self._choices_list is not None:
            super()._setup_options_renderables()  # the list is filled when it is mounted

    def _watch_value(self, value: Any) -> None:
        if self._choices_list is not None:
            super()._watch_value(value)  # Select's own: it highlights the value in the list
            return
        self._value = value
        try:
            self.query_one(ClosedSelect)
        except NoMatches:
            return  # not composed yet: Select reports a value once it can show it
        # The closed line is drawn by watch_value, which Textual calls right after this.
        self.post_message(self.Changed(self, value))

    def _watch_expanded(self, expanded: bool) -> None:
        if expanded and self._choices_list is None:
            self._choices_list = SelectOverlay(type_to_search=self._type_to_search).data_bind(
                compact=Select.compact
            )
            self.mount(self._choices_list)  # in the DOM at once: Select's code finds it
            super()._setup_options_renderables()
        if expanded and self.opens_upward and self._choices_list is not None:
            # The list is laid out on the row under the select: up by its height and one, it
            # ends on the row above, and the select stays in view. A compact list has no
            # border: a row per entry, up to its max-height.
            rows = len(self._options)
            max_height = self._choices_list.styles.max_height
            if max_height is not None and max_height.unit == Unit.CELLS:
                rows = min(rows, int(max_height.value))
            # Where there is no room above (a bar at the top), it opens downward as usual.
            self._choices_list.styles.offset = (0, -(rows + 1) if self.region.y >= rows else 0)
        super()._watch_expanded(expanded)
        with contextlib.suppress(NoMatches):
            self.query_one(ClosedSelect).refresh()  # its arrow

    def _watch_prompt(self, prompt: str) -> None:
        with contextlib.suppress(NoMatches):  # the list's first entry, if there is a list
            super()._watch_prompt(prompt)

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
        name = line_of(self.option.value_name(value), NAME_CELLS)
        if self.bare or self.option.category in BARE_CATEGORIES:
            return name
        return f"{line_of(self.option.name, NAME_CELLS)}: {name}"

    def widest(self) -> int:
        """Cells of the longest label the closed select can show."""
        labels = [self.label_text(c.value) for c in self.option.choices] or [self.option.name]
        return max(len(label) for label in labels)

    def watch_value(self, value: Any) -> None:
        # After Select's own watcher: the closed select says which option it is (its name
        # alone while the agent reports no value).
        label = line_of(self.option.name, NAME_CELLS) if value is Select.NULL else None
        try:
            self.query_one(ClosedSelect).update(Text(label or self.label_text(value)))
        except NoMatches:
            pass  # not composed yet: on_mount draws it

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
            elif self._allow_blank:
                self.clear()

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
        return len(line_of(self.option.name, NAME_CELLS)) + 4

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


def control_for(
    option: SessionOption, *, taken: set[str | None] | None = None, bare: bool = False
) -> OptionSelect | OptionToggle:
    """The control of ``option``; ``bare``: without the option's name (a row names it)."""
    control_id = widget_id(option, taken)
    if option.kind == "boolean":
        return OptionToggle(option, id=control_id, bare=bare)
    return OptionSelect(option, id=control_id, bare=bare)
