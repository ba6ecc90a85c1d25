"""Walking the prompts sent before from the prompt (Up and Down), as readline does: the draft
being typed is put aside and comes back after the newest entry, and an edit made to a
recalled prompt is kept until the next send, so nothing typed is lost by moving through the
history. Plain Python over :class:`~acp_tui.config.history.InputHistory`."""

from __future__ import annotations

from acp_tui.config.history import InputHistory

__all__ = ["HistoryWalk"]


class HistoryWalk:
    """Where the prompt is in ``history``: an entry's index, or None (the draft)."""

    def __init__(self, history: InputHistory) -> None:
        self.history = history
        self.index: int | None = None
        self._draft = ""
        self._edits: dict[int, str] = {}

    def reset(self) -> None:
        """Back to the draft, forgetting what was put aside (a send, a text set anew)."""
        self.index = None
        self._draft = ""
        self._edits.clear()

    def draft(self, shown: str) -> str:
        """What is being typed when the prompt shows ``shown``: the draft put aside while an
        unedited earlier prompt is shown, else ``shown``."""
        index = self.index
        if index is not None and index < len(self.history) and shown == self.history[index]:
            return self._draft
        return shown

    def back(self, shown: str) -> str | None:
        """The text of the entry before (Up), or None at the oldest."""
        if len(self.history) == 0 or self.index == 0:
            return None
        self._put_aside(shown)
        return self._show(len(self.history) - 1 if self.index is None else self.index - 1)

    def forward(self, shown: str) -> str | None:
        """The text of the entry after (Down), the draft past the newest; None when not
        walking."""
        if self.index is None:
            return None
        self._put_aside(shown)
        index = self.index + 1
        if index < len(self.history):
            return self._show(index)
        draft = self._draft
        self.reset()
        return draft

    def _put_aside(self, shown: str) -> None:
        """Remember what the prompt shows before it shows another entry."""
        index = self.index
        if index is None:
            self._draft = shown
        elif index < len(self.history) and shown != self.history[index]:
            self._edits[index] = shown
        else:
            self._edits.pop(index, None)

    def _show(self, index: int) -> str:
        self.index = index
        return self._edits.get(index, self.history[index])
