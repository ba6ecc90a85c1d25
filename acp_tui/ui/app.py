"""The Textual application. Kept small: screens do the work; :func:`make_app` builds it for
the command line and for tests alike."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.settings import AppSettings


class AcpTuiApp(App[int]):
    """acp-tui: chat with any ACP agent."""

    TITLE = "acp-tui"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, settings: AppSettings) -> None:
        super().__init__()
        self.settings = settings
        #: Set when the agent could not be started: printed after the app exits, exit code 1.
        self.start_failure: str | None = None
        if settings.theme:
            self.theme = settings.theme

    def on_mount(self) -> None:
        self.push_screen(ChatScreen(self.settings))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, ChatScreen):
            yield from screen.palette_commands()


def make_app(settings: AppSettings) -> AcpTuiApp:
    return AcpTuiApp(settings)
