"""A shell-mode block in the transcript (``!cmd``): the command, its output as a terminal drew
it (colours kept), and how it ended; while it runs, how to stop it; once it has output, a
button that attaches it to the next message.

:func:`terminal_text` turns an emulated terminal (:mod:`acp_tui.text.terminal_screen`) into
Rich text; the agent's terminals in tool calls are drawn by it too.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Button, Static

from acp_tui.store.entries import ShellRun
from acp_tui.text.terminal_screen import Run, TerminalScreen, exit_words
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.widgets.entry_view import EntryView

__all__ = ["ShellRunView", "terminal_text"]

#: The most lines of output a block draws (the last ones; the screen keeps more).
SHOWN_LINES = 400


def _style(run: Run) -> Style | None:
    if run == Run(run.text):
        return None
    return Style(
        color=run.fg,
        bgcolor=run.bg,
        bold=run.bold or None,
        italic=run.italic or None,
        underline=run.underline or None,
        reverse=run.reverse or None,
    )


def terminal_text(screen: TerminalScreen, limit: int = SHOWN_LINES) -> Text:
    """The screen's lines (the last ``limit``) as Rich text, in the program's colours."""
    lines = screen.lines()
    text = Text()
    if screen.truncated or len(lines) > limit:
        text.append("… (earlier lines left out)\n", style="dim")
    for number, line in enumerate(lines[-limit:]):
        if number:
            text.append("\n")
        for run in line:
            text.append(run.text, _style(run))
    return text


class ShellRunView(EntryView):
    """One shell-mode command (see the module docstring)."""

    DEFAULT_CSS = """
    ShellRunView { margin: 1 0 0 0; padding: 0 1; border-left: outer $secondary; height: auto; }
    ShellRunView > .shell-command { text-style: bold; }
    ShellRunView > .shell-status { color: $text-muted; }
    ShellRunView.-failed > .shell-status { color: $text-error; }
    ShellRunView > Button { min-width: 0; height: 1; border: none; margin: 0; display: none; }
    ShellRunView.-ended > Button { display: block; }
    """

    class AttachRequested(Message):
        """The person asked for this command's output to go with the next message."""

        def __init__(self, view: ShellRunView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> ShellRunView:
            return self.view

    def compose(self) -> ComposeResult:
        yield Static(classes="shell-command")
        yield Static(classes="shell-output")
        yield Static(classes="shell-status")
        yield Button("attach to the next message", compact=True, classes="shell-attach")

    async def redraw(self) -> None:
        entry = self.entry
        assert isinstance(entry, ShellRun)
        self.query_one(".shell-command", Static).update(Text(f"$ {line_of(entry.command, 2000)}"))
        output = self.query_one(".shell-output", Static)
        text = terminal_text(entry.screen)
        output.display = bool(text.plain)
        output.update(text)
        ended = entry.exit_code is not None
        self.set_class(ended, "-ended")
        self.set_class(ended and entry.exit_code != 0, "-failed")
        if not ended:
            status = "running… (Esc stops it)"
        elif entry.attached:
            status = f"{exit_words(entry.exit_code)} · attached to the next message"
        else:
            status = exit_words(entry.exit_code)
        self.query_one(".shell-status", Static).update(Text(status))
        button = self.query_one(Button)
        button.display = ended and not entry.attached

    @on(Button.Pressed, ".shell-attach")
    def _attach_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.AttachRequested(self))
