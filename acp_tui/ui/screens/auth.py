"""Choosing how to authenticate, when the agent says it needs it.

https://agentclientprotocol.com/protocol/initialization#authentication: the agent lists its
methods in the initialize response. Each row says what choosing it does (the agent signs you
in, a sign-in runs in this terminal, or a variable to set): the link completes the chosen one
by its type.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.session.auth.methods import AuthMethod
from acp_tui.ui.agent_text import agent_line, agent_lines


class AuthScreen(ModalScreen[str | None]):
    """Lists the agent's auth methods; dismisses with the chosen id, or None."""

    DEFAULT_CSS = """
    AuthScreen { align: center middle; }
    AuthScreen > Vertical {
        width: 80; max-width: 95%; height: auto; max-height: 80%; padding: 1 2;
        background: $panel; border: thick $accent;
    }
    AuthScreen .title { text-style: bold; }
    AuthScreen .reason { color: $text-muted; margin: 0 0 1 0; }
    AuthScreen OptionList { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="close-dialog")]

    def __init__(self, agent_name: str, methods: list[AuthMethod], reason: str) -> None:
        super().__init__()
        self.agent_name = agent_name
        self.methods = methods
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                Text.assemble(agent_line(self.agent_name, 80), " needs you to sign in"),
                classes="title",
            )
            yield Static(agent_lines(self.reason, 500), classes="reason")
            options = []
            for method in self.methods:
                prompt = agent_line(method.label, 120, style="bold")
                if method.description:
                    prompt.append("\n")
                    prompt.append_text(agent_lines(method.description, 400, style="dim"))
                prompt.append("\n")
                prompt.append_text(agent_line(method.how(), 200, style="italic"))
                options.append(Option(prompt, id=method.id))
            yield OptionList(*options)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
