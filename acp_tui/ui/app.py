"""The Textual application. Kept small: screens do the work; :func:`make_app` builds it for
the command line and for tests alike.

With an agent command line the app opens the chat screen; with none it opens the launcher,
and switches to the chat screen for the agent picked there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from acp_tui.config import locations
from acp_tui.config.budgets import budgets_of
from acp_tui.config.recent import RecentAgents
from acp_tui.pace.input_first import input_first
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.search_writer import SearchWriter
from acp_tui.store.spend_writer import SpendWriter
from acp_tui.text.safety import one_line, sanitize_terminal_text, truncate
from acp_tui.ui import textual_patches
from acp_tui.ui.agent_views import AgentViews
from acp_tui.ui.collector import IdleCollector
from acp_tui.ui.keymap import key_label
from acp_tui.ui.palette import literal_command
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.search_sessions import SessionSearch
from acp_tui.ui.spend import SpendFace
from acp_tui.ui.termination import SIGNALS, TerminationWatch
from acp_tui.ui.textual_patches import css_cache, key_order
from acp_tui.ui.textual_patches.driver import terminal_answers, write_nothing_more
from acp_tui.ui.themes import register_themes
from acp_tui.ui.toasts import PROBLEMS_ENTRY, problems_toast
from acp_tui.ui.warm_up import WARM_UP_AFTER, warm_up_in_background
from acp_tui.ui.widgets.status_line import BudgetWarning

if TYPE_CHECKING:
    from acp_tui.config.load import Config

    # The launcher screen is imported when shown: not on the way to the chat screen.
    from acp_tui.ui.screens.launcher import LaunchChoice, LauncherScreen

log = logging.getLogger(__name__)

#: The interpreter's thread switch interval while the app runs (Python's default is 5 ms).
#: A key reaches the app through Textual's input thread and its echo leaves through the
#: output thread; each time one of them gives up the GIL (to wait in ``select``, to read,
#: to wake the event loop, to write), it waits up to a whole interval to get it back from an
#: event loop busy with a flood. Measured black-box during a 5 MB reply (bench keys, under
#: ``chrt``): key -> screen p95 85-111 ms at 5 ms, 38-63 ms at 1 ms. The cost is a switch
#: more often only while another thread waits for the GIL, which the idle input and output
#: threads rarely do.
SWITCH_INTERVAL = 0.001

#: How long the toast of the configuration's problems stays.
PROBLEMS_TOAST_SECONDS = 8

#: The longest toast message, and title.
NOTIFY_LIMIT = 2_000
NOTIFY_TITLE_LIMIT = 120


#: Keys that edit the prompt's text besides printable ones.
_EDITING_KEYS = frozenset({"backspace", "delete"})


def _for_the_prompt(event: events.Key) -> bool:
    """Whether ``event`` is a key that, with the prompt focused, changes its text."""
    return event.is_printable or event.key in _EDITING_KEYS


class AcpTuiApp(AgentViews, App[int]):
    """acp-tui: chat with any ACP agent, or several at once (one view each: see
    :mod:`acp_tui.ui.agent_views`)."""

    TITLE = "acp-tui"
    # Toasts under the header, on the right, on every screen: never over the prompt, the gauge
    # or the footer they may be about.
    CSS = """
    ToastRack { dock: top; align: right top; margin: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
        # Declared here (Textual adds its own otherwise) to give it an id: configurable.
        Binding(
            "ctrl+p",
            "command_palette",
            "palette",
            show=False,
            priority=True,
            tooltip="Open the command palette",
            id="command-palette",
        ),
        Binding("ctrl+g", "next_agent", "Next agent", show=False, priority=True, id="next-agent"),
        Binding("ctrl+f", "search_sessions", "Search", show=False, id="search-sessions"),
        Binding("f1", "keys_help", "Keys", show=False, id="keys-help"),
    ]

    def __init__(
        self,
        settings: AppSettings,
        *,
        ui: UiSettings | None = None,
        choices: Sequence[LaunchChoice] | None = None,
        problems: Sequence[str] = (),
        recent: RecentAgents | None = None,
        remember_theme: bool = False,
        config_location: str = "",
        workspace: Workspace | None = None,
        more_agents: Sequence[AppSettings] = (),
        config: Config | None = None,
    ) -> None:
        super().__init__()
        #: The Textual patches on for this app (acp_tui.ui.textual_patches).
        self.patches = textual_patches.install(self, key_read=self._key_read)
        self._init_agent_views()
        self.settings = settings
        #: The look, the notices and the keys (every agent's view reads them).
        self.ui_settings = ui or UiSettings()
        #: Agents started beside the first one (``--agent A --agent B``), in order.
        self.more_agents = list(more_agents)
        #: The config file's agents, offered by "Start agent…".
        self.config = config
        #: The running agents, one controller each: the screens show them.
        self.workspace = (
            workspace
            if workspace is not None
            else Workspace(
                search=SearchWriter(locations.search_index_file(settings.data_dir)),
                spend=SpendWriter(locations.spend_ledger_file(settings.data_dir)),
                budgets=budgets_of(config) if config is not None else (),
            )
        )
        #: Search all sessions (Ctrl+F, the palette), and opening what is found.
        self.session_search = SessionSearch(self)
        #: The Spend view, the budgets' warnings and their question before a message.
        self.spending = SpendFace(self, self.workspace, lambda: self.agent_views.values())
        #: Shown as notifications once the app runs (config and theme file problems).
        self.problems: list[str] = [*problems, *self.patches.problems]
        self.choices = list(choices) if choices is not None else None
        self.recent = recent
        self.remember_theme = remember_theme
        self.config_location = config_location
        #: Set by the command line before the app runs: full garbage collections then wait
        #: for the person to stop typing while the app runs (see acp_tui.ui.collector).
        self.collector: IdleCollector | None = None
        #: Set by the command line: load what the first reply needs in the background soon
        #: after start-up (acp_tui.ui.warm_up).
        self.warm_up = False
        #: Set by the command line: SIGTERM and SIGHUP quit as Ctrl+Q does, and end the
        #: process if the app cannot (not in tests, which run apps inside pytest's own
        #: process); with the terminal's modes from before the app took it, to give back then.
        self.quit_on_termination = False
        self.terminal_modes: tuple[int, list[Any]] | None = None
        self._termination: TerminationWatch | None = None
        self._terminated = False
        #: When the person last pressed a key or pasted (``time.monotonic``).
        self._last_key_at = 0.0
        self._saved_switch_interval = sys.getswitchinterval()
        self.problems += register_themes(self)
        ui = self.ui_settings
        if ui.keymap:
            self.set_keymap(dict(ui.keymap))
            palette = ui.keymap.get("command-palette")
            if palette:
                # The footer finds the palette's key by this name.
                self.COMMAND_PALETTE_BINDING = palette.split(",")[0]  # type: ignore[misc]
        if ui.theme:
            if ui.theme in self.available_themes:
                self.theme = ui.theme
            else:
                self.problems.append(
                    f"theme {ui.theme!r} not found; pick one with "
                    f"{key_label(self, 'command-palette', 'the palette')} → Change theme"
                )

    @property
    def start_failure(self) -> str | None:
        """Set when the agent could not be started: printed after the app exits, exit code 1."""
        return self.workspace.start_failure

    def on_mount(self) -> None:
        self._saved_switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        input_first.install(self._key_pending)
        if self.collector is not None:
            self.collector.install()
            self.set_interval(1.0, self._collect_garbage)
        if self.warm_up:
            self.set_timer(WARM_UP_AFTER, warm_up_in_background)
        if self.quit_on_termination:
            self._quit_on_termination()
        self.spending.start()
        if self.settings.agent is not None:
            self.open_agent(self.settings)
            for settings in self.more_agents:
                self.open_agent(settings, show=False)
        else:
            from acp_tui.ui.screens.launcher import LauncherScreen

            self.push_screen(LauncherScreen(self._launcher_choices(), self.config_location))
        if self.problems:
            # One toast, however many: the palette lists them whole.
            self.notify(
                problems_toast(self.problems, key_label(self, "command-palette", "Ctrl+P")),
                title="configuration",
                severity="warning",
                timeout=PROBLEMS_TOAST_SECONDS,
                markup=False,
            )
        # A mistake in the permission rules is said as soon as it is read: now for the
        # person's own file, when a session of its project asks for a project's.
        self.workspace.rules.on_problem = self._rules_problem
        self.workspace.rules.user()
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)

    def _rules_problem(self, problem: str) -> None:
        self.notify(
            sanitize_terminal_text(problem),
            title="permission rules",
            severity="error",
            timeout=30,
            markup=False,
        )

    def _quit_on_termination(self) -> None:
        """Python's default for SIGTERM ends the process where it stands: the terminal was
        left in the alternate screen with mouse reporting on (the shell's prompt drawn over
        the last frame, the mouse typing escape codes into it), and the agents were not
        stopped. A signal now quits as Ctrl+Q does; a second one, or an app too busy to quit
        within a grace, ends the process with its agents (acp_tui.ui.termination)."""
        loop = asyncio.get_running_loop()
        watch = TerminationWatch(lambda number: self._on_termination(), modes=self.terminal_modes)
        if watch.install(loop):
            self._termination = watch
            return
        for signal_number in SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signal_number, self._on_termination)

    def _on_termination(self) -> None:
        if self.patches("dead-terminal") and not terminal_answers(self):
            # Textual's writer would block the quit for good (textual_patches.driver).
            write_nothing_more(self)
        if self._terminated:
            self.exit()
            return
        self._terminated = True
        self.call_next(self.action_quit)

    async def on_unmount(self) -> None:
        # Every agent of the workspace stops with the app (those started in the background
        # to list their sessions too), all at once, each within its grace.
        await self.workspace.stop_all()
        self.session_search.close()
        self.workspace.close_search()
        self.spending.stop()
        self.workspace.close_spend()
        # What this run parsed anew, for the next launch (the command line's apps only).
        css_cache.save_to_disk()
        if self.collector is not None:
            self.collector.uninstall()
        sys.setswitchinterval(self._saved_switch_interval)
        input_first.uninstall(self._key_pending)
        if self._termination is not None:
            self._termination.finished()
        elif self.quit_on_termination:
            loop = asyncio.get_running_loop()
            for signal_number in SIGNALS:
                loop.remove_signal_handler(signal_number)

    def _key_read(self, key: events.Key) -> None:
        """Runs in the terminal's input thread, for each key it reads (the ``input-thread``
        patch): a key for the prompt is stamped on the chat screen's pacer then, not turns of
        the loop later when the app's queue hands it on, so that meanwhile no whole frame
        starts and the agents' readers give way (they ran 15-60 ms of steps ahead of a key
        during three floods at once). Only a time is stamped: what the key does is decided on
        the loop (ChatScreen.key_on_its_way)."""
        if not _for_the_prompt(key):
            return
        try:
            screen = self.screen
        except Exception:  # no screen yet, or the app is closing
            return
        if isinstance(screen, ChatScreen):
            screen.pacer.key_arrived()

    def _key_pending(self) -> float:
        """Seconds the agents' readers and the transcript's steps should still give way to a
        key on its way to the prompt (acp_tui.pace.input_first)."""
        screen = self.screen
        return screen.pacer.key_in_flight() if isinstance(screen, ChatScreen) else 0.0

    async def on_event(self, event: events.Event) -> None:
        # Every key and paste, whatever screen or dialog takes it: the collector waits for a
        # pause in them.
        if isinstance(event, events.Key | events.Paste):
            self._last_key_at = time.monotonic()
            if isinstance(event, events.Key) and _for_the_prompt(event):
                screen = self.screen
                if isinstance(screen, ChatScreen):
                    # Seen here, a hop or more before the prompt has it: the chat screen
                    # starts no whole frame in its way meanwhile.
                    screen.key_on_its_way()
            order = key_order.of(self)
            if isinstance(event, events.Key) and not event.is_forwarded and order is not None:
                # Textual hands it to this node unless a priority binding takes it first.
                await order.handing(event, super().on_event)
                return
        await super().on_event(event)

    async def on_key(self, event: events.Key) -> None:
        """A key back from the widget it was handed to, not taken there: where a key read
        after it was acted on first, it may act where it was typed (the ``key-order`` patch);
        otherwise Textual's own look-up follows (App._on_key, called after this one)."""
        order = key_order.of(self)
        if order is not None:
            await order.came_back(event)

    def _collect_garbage(self) -> None:
        assert self.collector is not None
        self.collector.tick(time.monotonic() - self._last_key_at)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast whose text is always shown literally. Messages carry the agent's words (its
        name, errors, session titles) and Textual would read them as markup, where "[/]"
        raises and "[@click=app.quit]" is a live action: so here a message is never markup
        (``markup`` is ignored; it stays for Textual's callers), and it is made inert and cut
        (the title to one line)."""
        super().notify(
            truncate(sanitize_terminal_text(str(message)), NOTIFY_LIMIT),
            title=one_line(str(title), NOTIFY_TITLE_LIMIT),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def action_help_quit(self) -> None:
        """Ctrl+C outside the prompt: say how to quit (Textual's own text is markup, and
        notifications here are literal)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    def _launcher_choices(self) -> list[LaunchChoice]:
        if self.choices is not None:
            return self.choices
        from acp_tui.config.known_agents import detect_agents
        from acp_tui.config.load import Config
        from acp_tui.demo_agent import demo_agent_argv
        from acp_tui.ui.screens.launcher import build_choices

        keys = self.recent.keys() if self.recent is not None else []
        config = self.config if self.config is not None else Config()
        return build_choices(config, detect_agents(), demo_agent_argv(), keys)

    def on_launcher_screen_chosen(self, event: LauncherScreen.Chosen) -> None:
        choice = event.choice
        if self.recent is not None:
            # Key, label and command line only: never the agent's env.
            self.recent.record(choice.key, choice.label, list(choice.argv))
        self.start_chosen_agent(event)

    def _on_theme_changed(self, theme: Theme) -> None:
        """Remember a theme picked in the palette (only for the real app, not in tests)."""
        if not self.remember_theme:
            return
        from acp_tui.config.load import save_theme

        problem = save_theme(theme.name)
        if problem:
            log.warning("%s", problem)
            self.notify(sanitize_terminal_text(problem), severity="warning", markup=False)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            # Textual's "Keys" panel lists thirty editing keys before the app's: ours instead.
            if command.title != "Keys":
                yield command
        yield SystemCommand(
            "Keys and commands",
            f"acp-tui's key sheet, by place, and the / commands ({key_label(self, 'keys-help')})",
            self.action_keys_help,
        )
        if self.problems:
            yield SystemCommand(PROBLEMS_ENTRY, "Every problem of the config file", self._problems)
        if isinstance(screen, ChatScreen):
            # Ours are plain text: Textual would read a "[" in them as markup.
            yield from map(literal_command, screen.palette_commands())
            yield from map(literal_command, self.session_search.commands())
            yield from map(literal_command, self.spending.commands())
            yield from map(literal_command, self.agent_system_commands())

    @on(BudgetWarning.Pressed)
    def _budget_warning_pressed(self, event: BudgetWarning.Pressed) -> None:
        event.stop()
        self.spending.open()

    def action_search_sessions(self) -> None:
        """Search every session, from an agent's view (over a dialog it does nothing)."""
        if isinstance(self.screen, ChatScreen):
            self.session_search.open()

    def _problems(self) -> None:
        from acp_tui.ui.screens.inspector import TextLogScreen

        self.push_screen(TextLogScreen(PROBLEMS_ENTRY, list(self.problems)))

    def action_keys_help(self, typed: str = "") -> None:
        """The key sheet (F1); with the chat screen's ``/`` commands when it is in front. Over
        the sheet, F1 closes it."""
        from acp_tui.ui.screens.help import HelpScreen

        screen = self.screen
        if isinstance(screen, HelpScreen):
            screen.dismiss(None)
            return
        if isinstance(screen, ChatScreen):
            screen.commands.show_help(typed)
            return
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        """Quit. Stopping the agents can take seconds (a turn's end, a grace before TERM),
        and from the exit on Textual paints nothing: the chat says it is quitting first, and
        the exit comes once that is on screen."""
        chats = [screen for screen in self.screen_stack if isinstance(screen, ChatScreen)]
        for chat in chats:
            chat.show_quitting()
        if chats and self.workspace.running():
            self.call_after_refresh(self.exit)
        else:
            self.exit()

    async def on_exit_app(self) -> None:
        """Quitting stops every agent, all at once (before the views go, which would stop
        them one after the other: a hung agent each taking its grace)."""
        await self.workspace.stop_all()


def make_app(
    settings: AppSettings,
    *,
    ui: UiSettings | None = None,
    choices: Sequence[LaunchChoice] | None = None,
    problems: Sequence[str] = (),
    recent: RecentAgents | None = None,
    remember_theme: bool = False,
    config_location: str = "",
    workspace: Workspace | None = None,
    more_agents: Sequence[AppSettings] = (),
    config: Config | None = None,
) -> AcpTuiApp:
    """The app. No ``settings.agent`` opens the launcher with ``choices`` (default: the
    detected agents and the demo agent); ``ui``: how it looks (default: Textual's theme, quiet). The app owns ``workspace`` (default: a new one),
    where the chat screen finds its agent's controller. ``more_agents`` run beside the first
    one, each in its own view; ``config`` lists its agents in "Start agent…"."""
    return AcpTuiApp(
        settings,
        ui=ui,
        choices=choices,
        problems=problems,
        recent=recent,
        remember_theme=remember_theme,
        config_location=config_location,
        workspace=workspace,
        more_agents=more_agents,
        config=config,
    )
