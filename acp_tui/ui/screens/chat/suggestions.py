"""The agent's prompt suggestions for the session on screen (unstable
``prompt_suggestions_update``): offered as chips under the prompt while it is empty (or holds
one just taken), taken into the prompt by Tab or a click, and never sent unless the person
sends it. Typing anything else hides them; emptying the prompt shows them again.

:class:`ChatSuggestions` is a plain object the drawing owns: it reads the session's list
(:attr:`~acp_tui.store.session.SessionState.suggestions`), hands it to the prompt (which
takes one on Tab and sends a taken one as the agent wrote it) and shows the chips.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from acp_tui.store.session import SessionState

if TYPE_CHECKING:
    from acp_tui.ui.widgets.prompt import PromptEditor
    from acp_tui.ui.widgets.suggestion_chips import SuggestionChips


class _Widgets(Protocol):
    prompt: PromptEditor
    suggestions: SuggestionChips


__all__ = ["ChatSuggestions"]


class ChatSuggestions:
    """The suggestions of the session on screen, between the store, the prompt and the chips."""

    def __init__(self, widgets: _Widgets) -> None:
        #: The screen's widgets (made in its ``compose``, after this object).
        self.widgets = widgets

    @property
    def prompt(self) -> PromptEditor:
        return self.widgets.prompt

    @property
    def chips(self) -> SuggestionChips:
        return self.widgets.suggestions

    def draw(self, state: SessionState | None) -> None:
        """The session on screen, or its list, changed."""
        self.prompt.suggestions = state.suggestions if state is not None else ()
        self.refresh()

    def refresh(self) -> None:
        """Chips while the prompt is empty or holds a suggestion as taken; else none."""
        prompt = self.prompt
        offered = not prompt.text or prompt.taken_suggestion is not None
        self.chips.show([s.label for s in prompt.suggestions] if offered else [])

    def chosen(self, index: int) -> None:
        """A chip was clicked: its suggestion goes into the prompt (nothing is sent)."""
        if self.prompt.take_suggestion(index):
            self.prompt.focus()
        self.refresh()
