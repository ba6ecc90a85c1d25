"""Search the prompts you have sent (Ctrl+R, as shells do): incremental, this project's
prompts first, then those sent anywhere else, each group newest first.

A small panel over the prompt: the words typed narrow the list at each key; Up/Down (or
Ctrl+R again, to go back in time as a shell does) move through the matches; Enter puts the
highlighted prompt in the prompt (it sends nothing), Escape leaves the prompt as it was.
Prompts are shown on one line each, escaped (they are data: a prompt may hold anything that
was pasted into it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from acp_tui.config.history import Found, InputHistory
from acp_tui.text.safety import one_line
from acp_tui.ui.keymap import effective_keys, key_words
from acp_tui.ui.widgets.safe_input import SafeInput

__all__ = ["HistorySearchScreen", "search_history"]

#: The longest prompt shown in the list (characters; the row cuts it to its width).
SHOWN = 300


class _Matches(OptionList, can_focus=False):
    """The matches: never focused (the field keeps the keys), clickable."""


class HistorySearchScreen(ModalScreen[str | None]):
    """Dismisses with the prompt chosen (Enter), or None (Escape)."""

    DEFAULT_CSS = """
    HistorySearchScreen { align: center bottom; background: $background 40%; }
    HistorySearchScreen > Vertical {
        width: 100%; height: auto; max-height: 80%; padding: 0 1;
        background: $panel; border-top: tall $primary;
    }
    HistorySearchScreen #history-title { text-style: bold; }
    HistorySearchScreen _Matches {
        height: auto; max-height: 12; border: none; padding: 0;
        background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
    }
    HistorySearchScreen #history-hint { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="close-dialog"),
        Binding("enter", "choose", "Use it", id="history-choose", priority=True),
        Binding("up", "move(-1)", "Newer", show=False, id="history-newer", priority=True),
        Binding("down,ctrl+r", "move(1)", "Older", id="history-older", priority=True),
    ]
    AUTO_FOCUS = "#history-query"

    def __init__(self, history: InputHistory, cwd: str | Path | None, query: str = "") -> None:
        super().__init__()
        self._history = history
        self._cwd = None if cwd is None else str(cwd)
        self._query = query
        self._found: list[Found] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Search your prompts (this project first)"), id="history-title")
            yield SafeInput(self._query, placeholder="words of a prompt", id="history-query")
            yield _Matches()
            yield Label(Text(""), id="history-hint")

    def on_mount(self) -> None:
        self._refresh(self._query)

    @on(Input.Changed, "#history-query")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._refresh(event.value)

    @on(Input.Submitted, "#history-query")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option_index)

    def _refresh(self, query: str) -> None:
        found = self._history.search(query, self._cwd)
        if self._found and found == self._found:
            # The same matches (a key that did not change them, or a change that reached
            # the list after Ctrl+R moved through it): the one highlighted stays.
            self._hint(query)
            return
        self._found = found
        matches = self.query_one(_Matches)
        matches.set_options([self._option(found) for found in self._found])
        matches.highlighted = 0 if self._found else None
        self._hint(query)

    @staticmethod
    def _option(found: Found) -> Option:
        text = one_line(found.text, SHOWN)
        if found.here or found.cwd is None:
            return Option(Content(text))
        where = one_line(Path(found.cwd).name or found.cwd, 40)
        return Option(Content.assemble(text, ("  · " + where, "$text-muted")))

    def _hint(self, query: str) -> None:
        here = sum(1 for found in self._found if found.here)
        if not self._found:
            words = "no prompt holds these words" if query else "no prompt sent yet"
        else:
            words = f"{len(self._found)} found, {here} here"
        older = " or ".join(key_words(key) for key in effective_keys(self, "history-older"))
        self.query_one("#history-hint", Label).update(
            Text(f"{words} · Enter use it · {older} older · Esc leave")
        )

    def action_move(self, step: int) -> None:
        matches = self.query_one(_Matches)
        if not self._found:
            return
        current = matches.highlighted or 0
        matches.highlighted = max(0, min(len(self._found) - 1, current + step))

    def action_choose(self) -> None:
        highlighted = self.query_one(_Matches).highlighted
        if highlighted is None:
            self.dismiss(None)
            return
        self._choose(highlighted)

    def _choose(self, index: int) -> None:
        if 0 <= index < len(self._found):
            self.dismiss(self._found[index].text)


def search_history(
    app: App[Any],
    history: InputHistory,
    cwd: str | Path | None,
    typed: str,
    replace: Callable[[str], None],
    done: Callable[[], None],
) -> None:
    """Ctrl+R: search the prompts sent; the one chosen goes to ``replace`` (``typed``, the
    prompt's text, starts the search when it is one line); ``done`` runs either way."""
    query = typed.strip() if "\n" not in typed.strip() else ""

    def chosen(text: str | None) -> None:
        if text is not None:
            replace(text)
        done()

    app.push_screen(HistorySearchScreen(history, cwd, query), chosen)
