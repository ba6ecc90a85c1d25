"""A select that is one line until it is first opened.

Textual's closed select is a row of three widgets (the label and two arrows) under the select,
with the list of choices beside them from the start. A chat bar of five selects was 30
widgets, and styling and laying them out was a third of the CPU of an app's start on the
2-core development machine. A :class:`LazySelect` is two widgets until it is opened: itself and
a :class:`ClosedSelect`, which draws its line itself (the label, then the arrow); the list is
mounted when the person first opens it, and Select's own code runs from then on.

It overrides Select's private parts (``compose``'s children, ``_setup_options_renderables``,
``_watch_value``, ``_watch_expanded``, ``_watch_prompt``). Switch: ``lazy-select``; where it is
off (for the select's app) each of them is Textual's own, and the select is Textual's.
"""

from __future__ import annotations

import contextlib
from typing import Any, Generic

from rich.text import Text
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.widgets import Select
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay, SelectType

from acp_tui.ui.textual_patches.switches import from_environment

__all__ = ["ClosedSelect", "LazySelect"]


class ClosedSelect(SelectCurrent):
    """The closed select, one widget that draws its line itself: the label, then the arrow."""

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


class LazySelect(Select[SelectType], Generic[SelectType]):
    """A Select whose list of choices is mounted when first opened (see the module
    docstring), or Textual's own where the patch is off."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        #: The list of choices, once mounted (at once where the patch is off).
        self._choices_list: SelectOverlay | None = None
        super().__init__(*args, **kwargs)
        try:
            from acp_tui.ui.textual_patches import switches_of

            self.lazy = switches_of(self.app)("lazy-select")
        except Exception:  # made outside an app
            self.lazy = from_environment()("lazy-select")

    @property
    def choices_list(self) -> SelectOverlay | None:
        """The list of choices, once the select has been opened (None before)."""
        if not self.lazy:
            with contextlib.suppress(NoMatches):
                return self.query_one(SelectOverlay)
        return self._choices_list

    def compose(self) -> ComposeResult:
        if not self.lazy:
            yield from super().compose()
            return
        yield ClosedSelect(self.prompt)

    def _setup_options_renderables(self) -> None:
        if not self.lazy or self._choices_list is not None:
            # A select removed while it mounted (a bar keeps only the controls that fit) gets
            # its Mount with its parts already gone: nothing to fill then.
            with contextlib.suppress(NoMatches):
                super()._setup_options_renderables()  # lazy: filled when the list mounts

    def _watch_value(self, value: SelectType | NoSelection) -> None:
        if not self.lazy or self._choices_list is not None:
            with contextlib.suppress(NoMatches):  # its parts gone: removed as it mounted
                super()._watch_value(value)  # Select's own: it highlights the value in the list
            return
        self._value = value
        try:
            self.query_one(ClosedSelect)
        except NoMatches:
            return  # not composed yet: Select reports a value once it can show it
        # The closed line is drawn by the public watcher (watch_value), called right after.
        self.post_message(self.Changed(self, value))

    def _watch_expanded(self, expanded: bool) -> None:
        if self.lazy and expanded and self._choices_list is None:
            self._choices_list = SelectOverlay(type_to_search=self._type_to_search).data_bind(
                compact=Select.compact
            )
            self.mount(self._choices_list)  # in the DOM at once: Select's code finds it
            super()._setup_options_renderables()
        super()._watch_expanded(expanded)
        if self.lazy:
            with contextlib.suppress(NoMatches):
                self.query_one(ClosedSelect).refresh()  # its arrow

    def _watch_prompt(self, prompt: str) -> None:
        with contextlib.suppress(NoMatches):  # the list's first entry, if there is a list
            super()._watch_prompt(prompt)

    @property
    def choice_count(self) -> int:
        """Entries of the list of choices (a blank one included)."""
        return len(self._options)

    @property
    def blank_allowed(self) -> bool:
        """Whether the select may be left without a value (``allow_blank``)."""
        return self._allow_blank

    def show_label(self, label: Text) -> None:
        """Draw ``label`` on the closed select's line (Select draws the value's own prompt
        there; this one draws what the subclass says)."""
        with contextlib.suppress(NoMatches):
            self.query_one(SelectCurrent).update(label)
