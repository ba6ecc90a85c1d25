"""Every option of the session on screen, one row each: the chat bar's "☰ N more" button and the
palette's "Session options" open it. A change goes to the agent at once; the rows follow what
the agent reports (a refused change shows the agent's value again). Escape closes it."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from acp_tui.store.options import SessionOption
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.keymap import key_label
from acp_tui.ui.widgets.option_controls import OptionChosen, OptionSelect, OptionToggle, control_for

__all__ = ["OptionsScreen"]


class OptionsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    OptionsScreen { align: center middle; }
    OptionsScreen > #options-box {
        width: 72; max-width: 100%; height: auto; max-height: 90%;
        background: $surface; border: round $accent; padding: 0 1;
    }
    OptionsScreen .options-row { height: 1; }
    OptionsScreen #options-help { margin: 1 0 0 0; }
    OptionsScreen .options-name { width: 24; padding: 0 1 0 0; color: $text-muted; }
    OptionsScreen .options-row > OptionSelect { width: 1fr; }
    OptionsScreen .options-row > OptionToggle { width: 1fr; }
    OptionsScreen #options-help { color: $text-muted; height: auto; }
    """

    BINDINGS = [Binding("escape", "dismiss", "Close", id="close-dialog")]

    def __init__(
        self,
        options: list[SessionOption],
        choose: Callable[[str, str | bool], None],
        *,
        mode_key: str | None = None,
        thinking_key: str | None = None,
    ) -> None:
        super().__init__()
        self.options = options
        self.choose = choose
        # The chat screen's keys for these, as configured, named by the opener; None where the
        # session has no option for the key to cycle.
        self.mode_key = mode_key
        self.thinking_key = thinking_key
        self.controls: dict[str, OptionSelect | OptionToggle] = {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="options-box", can_focus=False) as box:
            box.border_title = "Session options"
            if not self.options:
                yield Static("This agent offers no options for this session.")
            taken: set[str | None] = set()
            for option in self.options:
                control = control_for(option, taken=taken, bare=True)
                taken.add(control.id)
                self.controls[option.key] = control
                with Horizontal(classes="options-row"):
                    yield Label(Text(self._row_name(option)), classes="options-name")
                    yield control
            yield Static(self._help(), id="options-help")

    def _help(self) -> str:
        close = key_label(self, "close-dialog")
        # Only the keys that have something to cycle in this session.
        keys = [
            (key, what)
            for key, what in (
                (self.mode_key, "the mode"),
                (self.thinking_key, "the thinking level"),
            )
            if key is not None
        ]
        cycling = ""
        if keys:
            (first_key, first_what), *others = keys
            said = f"{first_key} cycles {first_what}"
            said += "".join(f" and {key} {what}" for key, what in others)
            cycling = f" From the prompt, {said}."
        return f"Changes go to the agent at once.{cycling} {close} closes."

    @staticmethod
    def _row_name(option: SessionOption) -> str:
        return line_of(option.name, 22)

    def on_mount(self) -> None:
        first = next(iter(self.controls.values()), None)
        if first is not None:
            first.focus()

    def show_options(self, options: list[SessionOption]) -> None:
        """Follow the agent: values change in place (an option that came or went reopens)."""
        if [o.key for o in options] != [o.key for o in self.options]:
            self.options = options
            self.controls.clear()
            self.refresh(recompose=True)
            return
        self.options = options
        for option in options:
            control = self.controls.get(option.key)
            if control is not None:
                control.show(option)

    @on(OptionChosen)
    def _chosen(self, event: OptionChosen) -> None:
        event.stop()
        self.choose(event.key, event.value)
