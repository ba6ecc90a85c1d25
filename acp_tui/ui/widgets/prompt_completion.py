"""The prompt's completion list: what is offered for the word at the cursor (a ``/command``
at the start of the prompt, an ``@path`` anywhere), drawn as an option list above the text
area that is never focused (the text area keeps the keys; the editor moves in the list and
applies a choice). It scans the files for ``@`` in a worker of its own
(:mod:`~acp_tui.ui.widgets.prompt_sources`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from textual.content import Content
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from acp_tui.text.safety import escaped_line, one_line
from acp_tui.ui.models.commands import SlashCommand, enter_sends, match_commands
from acp_tui.ui.widgets.prompt_sources import (
    FILE_INDEXES,
    FileIndex,
    bracketed,
    path_completion,
    scan_files,
)

__all__ = ["PATH_LIMIT", "Completion", "CompletionList"]

#: The longest file path shown in the ``@`` list (characters, escapes counted).
PATH_LIMIT = 300
#: The mark of acp-tui's own commands in the ``/`` list.
CLIENT_TAG = "acp-tui"


@dataclass(slots=True)
class Completion:
    """The completion list currently offered."""

    kind: Literal["command", "path"]
    query: str
    row: int
    start: int  # column of the "/" or "@"
    replacements: list[str]
    exact_submit: list[bool]  # Enter on this item sends instead of completing


class CompletionList(OptionList, can_focus=False):
    """The completions: never focused (the text area keeps the keys), clickable. What is
    offered now is :attr:`offered` (None: the list is closed)."""

    def __init__(
        self,
        text_area: TextArea,
        commands: Callable[[], Sequence[SlashCommand]],
        cwd: Callable[[], Path],
    ) -> None:
        super().__init__()
        self._text_area = text_area
        #: The ``/`` list's rows (the agent's commands and acp-tui's) and the directory ``@`` completes in, as the editor has them.
        self._commands_of = commands
        self._cwd_of = cwd
        self.offered: Completion | None = None
        self._scan_worker: Worker[list[str]] | None = None
        self._scan_root: Path | None = None

    def trigger(self) -> tuple[Literal["command", "path"], str, int, int] | None:
        """(kind, query, row, start column) when the cursor ends a ``/command`` at the start
        of the prompt or an ``@path`` word."""
        area = self._text_area
        if not area.selection.is_empty:
            return None
        row, column = area.cursor_location
        before = area.document[row][:column]
        if row == 0 and before.startswith("/"):
            query = before[1:]
            if not any(char.isspace() for char in query) or self._a_name_goes_on(query):
                return "command", query, 0, 0
            return None
        at = before.rfind("@")
        if at < 0 or at == len(before) - 1:
            return None
        if at > 0 and not before[at - 1].isspace():
            return None
        query = before[at + 1 :]
        if query.startswith('"') or any(char.isspace() for char in query):
            return None
        return "path", query, row, at

    def _a_name_goes_on(self, query: str) -> bool:
        """Whether a command's name goes on past ``query`` (Gemini CLI's ``memory show``: the
        completion closed at the space, and ``/memory sh`` could not narrow the list)."""
        needle = query.lower()
        return any(
            len(name) > len(needle) and name.startswith(needle)
            for name in (row.name.lower() for row in self._commands_of())
        )

    def update_for_cursor(self, *, may_open: bool, force: bool = False) -> None:
        trigger = self.trigger()
        if trigger is None:
            self.close_list()
            return
        current = self.offered
        if current is None and not may_open:
            return
        kind, query, row, start = trigger
        if (
            not force
            and current is not None
            and (current.kind, current.query, current.row, current.start)
            == (kind, query, row, start)
        ):
            return
        if kind == "command":
            rows = match_commands(query, self._commands_of())
            replacements = [f"/{row.name} " for row in rows]
            sent = enter_sends(query, rows)
            exact = [row is sent for row in rows]
            options = [Option(self.command_prompt(row)) for row in rows]
        else:
            index = self._file_index()
            if index is None:
                self.close_list()
                return
            paths = index.match(query)
            replacements = [path_completion(path) for path in paths]
            exact = [False] * len(paths)
            # A file's name is anyone's (a repository's): shown exactly, every character
            # that is not printable as its escape, never passed to the terminal.
            options = [Option(Content(escaped_line(path, PATH_LIMIT))) for path in paths]
        if not options:
            self.close_list()
            return
        self.offered = Completion(kind, query, row, start, replacements, exact)
        self.set_options(options)
        # What Enter would send is highlighted (an exact name further down the list too).
        self.highlighted = exact.index(True) if True in exact else 0
        self.add_class("-open")

    @staticmethod
    def command_prompt(row: SlashCommand) -> Content:
        """A row of the list: the name, its hint, acp-tui's mark on its own commands (before
        the description, so that a cut row keeps it), the description."""
        parts: list[str | tuple[str, str]] = [(f"/{one_line(row.name, 40)}", "bold")]
        if row.hint:
            parts.extend([" ", (bracketed(one_line(row.hint, 40)), "italic $text-accent")])
        if row.client:
            parts.extend(["  ", (CLIENT_TAG, "bold $text-secondary")])
        if row.description.strip():
            parts.extend(["  ", (one_line(row.description, 200), "$foreground-muted")])
        return Content.assemble(*parts)

    def close_list(self) -> None:
        if self.offered is None:
            return
        self.offered = None
        self.remove_class("-open")
        self.clear_options()

    def apply(self, index: int) -> None:
        completion = self.offered
        if completion is None or not 0 <= index < len(completion.replacements):
            return
        area = self._text_area
        row = completion.row
        line = area.document[row]
        column = area.cursor_location[1] if area.cursor_location[0] == row else len(line)
        # Replace the whole word under the cursor, including what follows the cursor.
        match = re.match(r"\S*", line[column:])
        end = column + (match.end() if match else 0)
        replacement = completion.replacements[index]
        if line[end : end + 1] == " " and replacement.endswith(" "):
            end += 1  # don't leave two spaces
        self.close_list()
        area.replace(
            replacement, (row, completion.start), (row, end), maintain_selection_offset=False
        )

    def _file_index(self) -> FileIndex | None:
        """The cached file list for ``cwd`` (starting a background scan when there is none or
        it is stale). None until the first scan has finished."""
        try:
            root = self._cwd_of().resolve()
        except OSError:
            return None
        index = FILE_INDEXES.get(root)
        if index is None or index.stale:
            self._start_scan(root)
        return index

    def _start_scan(self, root: Path) -> None:
        if self._scan_worker is not None and self._scan_worker.is_running:
            return
        self._scan_root = root
        self._scan_worker = self.run_worker(
            partial(scan_files, root),
            name="prompt-file-scan",
            group="prompt-file-scan",
            thread=True,
            exit_on_error=False,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._scan_worker:
            return
        event.stop()  # our own business: the screen need not hear about it
        if event.state == WorkerState.SUCCESS and self._scan_root is not None:
            result = event.worker.result
            FILE_INDEXES[self._scan_root] = FileIndex(self._scan_root, list(result or []))
            if self.offered is None or self.offered.kind == "path":
                self.update_for_cursor(may_open=True, force=True)
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._scan_worker = None
