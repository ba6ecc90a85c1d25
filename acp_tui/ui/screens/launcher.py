"""The launcher: ``acp-tui`` with no agent. Lists the agents from the config file, the
well-known agents found on PATH and the built-in demo agent, recently used first; Enter
starts one (the app then switches to the chat screen). Under them, the well-known agents
not found, each with the command that installs it: Enter (or a click) copies it.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.config.known_agents import KNOWN_AGENTS, KnownAgent
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSource
from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.keymap import key_label
from acp_tui.ui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from acp_tui.config.load import Config

__all__ = [
    "LaunchChoice",
    "LauncherScreen",
    "build_choices",
    "not_installed",
    "settings_for_choice",
]

ChoiceKind = Literal["config", "detected", "demo"]

DEMO_KEY = "demo"
KIND_LABELS: dict[str, str] = {
    "config": "config file",
    "detected": "found on PATH",
    "demo": "built-in",
}


@dataclass(frozen=True, slots=True)
class LaunchChoice:
    """One agent the launcher offers, and which agent it is for the resolver."""

    key: str
    """Stable identity: ``config:NAME``, ``known:ID`` or ``demo`` (the recent list's key)."""
    label: str
    argv: tuple[str, ...]
    kind: ChoiceKind
    detail: str
    """What the second line shows: the command line (the demo agent: a description)."""
    source: AgentSource
    recent: bool = False
    #: Running already in this app ("Start agent…"): picking it shows it.
    running: bool = False


def build_choices(
    config: Config,
    detected: Iterable[KnownAgent],
    demo_argv: Sequence[str],
    recent_keys: Sequence[str] = (),
) -> list[LaunchChoice]:
    """Configured agents, then detected ones (unless configured with the same command line),
    then the demo agent; the recently used ones (``recent_keys``, most recent first) move to
    the top."""
    choices: list[LaunchChoice] = []
    configured_argvs: set[tuple[str, ...]] = set()
    for name, agent in config.agents.items():
        argv = tuple(agent.argv)
        configured_argvs.add(argv)
        choices.append(
            LaunchChoice(
                key=f"config:{name}",
                label=agent.label or name,
                argv=argv,
                kind="config",
                detail=shlex.join(argv),
                source=AgentSource.configured(name),
            )
        )
    for known in detected:
        argv = tuple(known.argv)
        if argv in configured_argvs:
            continue
        choices.append(
            LaunchChoice(
                key=f"known:{known.id}",
                label=known.name,
                argv=argv,
                kind="detected",
                detail=known.command_line,
                source=AgentSource.command(argv, known.name),
            )
        )
    choices.append(
        LaunchChoice(
            key=DEMO_KEY,
            label="Demo agent",
            argv=tuple(demo_argv),
            kind="demo",
            detail="streams canned replies, tool calls, plans: no network, no model",
            source=AgentSource.demo(demo_argv),
        )
    )
    by_key = {choice.key: choice for choice in choices}
    first: list[LaunchChoice] = []
    for key in recent_keys:
        choice = by_key.pop(key, None)
        if choice is not None:
            first.append(dataclasses.replace(choice, recent=True))
    return first + [choice for choice in choices if choice.key in by_key]


def not_installed(choices: Sequence[LaunchChoice]) -> list[KnownAgent]:
    """The well-known agents none of ``choices`` runs (not found on PATH, not configured with
    their command line): the ones to offer an install command for."""
    offered = {choice.argv for choice in choices}
    keys = {choice.key for choice in choices}
    return [
        known
        for known in KNOWN_AGENTS
        if known.install and f"known:{known.id}" not in keys and tuple(known.argv) not in offered
    ]


def _install_prompt(known: KnownAgent) -> Text:
    text = agent_line(known.name, 60, style="bold")
    text.append("\n  ")
    text.append_text(agent_line(known.install, 200, style="dim"))
    return text


def settings_for_choice(
    base: AppSettings, choice: LaunchChoice, config: Config | None = None
) -> tuple[AppSettings, tuple[str, ...]]:
    """The chat screen's settings for ``choice``, resolved as the command line's agents are
    (the command line's ``--cwd``, ``--add-dir`` and ``--protocol`` over the agent's own),
    over ``base`` (policy, resume flags); and what in its settings could not be used."""
    resolved = resolve_agent(choice.source, config, base.options)
    return dataclasses.replace(base, agent=resolved.spec), resolved.problems


def _prompt(choice: LaunchChoice) -> Text:
    text = agent_line(choice.label, 60, style="bold")
    if choice.running:
        text.append("  · running", style="italic")
    elif choice.recent:
        text.append("  · recent", style="italic")
    text.append("\n  ")
    text.append_text(agent_line(choice.detail, 200, style="dim"))
    text.append(f"  ({KIND_LABELS[choice.kind]})", style="dim italic")
    return text


class LauncherScreen(Screen[None]):
    """Pick an agent; posts :class:`LauncherScreen.Chosen`, which the app acts on."""

    CSS_PATH = "launcher.tcss"
    BINDINGS = [
        Binding("enter", "start", "Start", priority=True, id="launcher-start"),
        Binding("escape", "back", "Back", id="launcher-back"),
    ]

    class Chosen(Message):
        """The person picked an agent."""

        def __init__(self, choice: LaunchChoice) -> None:
            super().__init__()
            self.choice = choice

    def __init__(
        self, choices: Sequence[LaunchChoice], config_location: str = "", *, closable: bool = False
    ) -> None:
        super().__init__()
        self.choices = list(choices)
        self.config_location = config_location
        #: Opened over a running agent's view ("Start agent…"): Escape goes back to it.
        self.closable = closable
        #: The well-known agents not found, each offered with its install command.
        self.installable = not_installed(self.choices)
        #: The last install command copied (for tests).
        self.copied: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="launcher-header"):
            yield Label("acp-tui", id="app-name")
            yield Label("choose an agent", id="subtitle")
        with Vertical(id="launcher-body"):
            yield Static("Start a session with", id="launcher-title")
            yield OptionList(
                *(Option(_prompt(choice), id=choice.key) for choice in self.choices),
                id="agents",
            )
            hint = Text(f"{key_label(self, 'launcher-start')} starts the highlighted agent. ")
            if self.config_location:
                hint.append("Add your own as [agents.NAME] in ")
                hint.append_text(agent_line(self.config_location, 500, style="bold"))
                hint.append(".")
            yield Static(hint, id="launcher-hint")
            if self.installable:
                found = any(choice.kind != "demo" for choice in self.choices)
                yield Static(
                    ("Not installed" if found else "No agent found on your PATH. Install one")
                    + f" (Tab here; {key_label(self, 'launcher-start')} or a click copies the "
                    "command, to run in a terminal; then start acp-tui again):",
                    id="install-title",
                )
                yield OptionList(
                    *(Option(_install_prompt(known), id=known.id) for known in self.installable),
                    id="install",
                )
        yield KeyFooter()

    def on_mount(self) -> None:
        agents = self.query_one("#agents", OptionList)
        agents.highlighted = 0 if self.choices else None
        agents.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self.closable
        return True

    def action_back(self) -> None:
        self.dismiss()

    def choice(self, key: str) -> LaunchChoice | None:
        return next((choice for choice in self.choices if choice.key == key), None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "install":
            self._copy_install(event.option.id or "")
            return
        chosen = self.choice(event.option.id or "")
        if chosen is not None:
            self.post_message(self.Chosen(chosen))

    def _copy_install(self, agent_id: str) -> None:
        known = next((known for known in self.installable if known.id == agent_id), None)
        if known is None:
            return
        self.copied = known.install
        self.app.copy_to_clipboard(known.install)
        self.notify(
            f"Copied: {known.install}\nRun it in a terminal, then start acp-tui again.",
            title=f"Install {known.name}",
            markup=False,
        )

    def action_start(self) -> None:
        install = self.query("#install").first(OptionList) if self.installable else None
        if install is not None and install.has_focus:
            if install.highlighted is not None:
                option = install.get_option_at_index(install.highlighted)
                self._copy_install(option.id or "")
            return
        agents = self.query_one("#agents", OptionList)
        if agents.highlighted is None:
            return
        chosen = self.choice(agents.get_option_at_index(agents.highlighted).id or "")
        if chosen is not None:
            self.post_message(self.Chosen(chosen))
