"""The chat screen: transcript, prompt, status, queue, mode/model selectors and the gauge.

Attributes down, messages up: the screen owns the store and the agent link; widgets read
what the screen gives them and post messages. The store wakes the screen at most once per
frame (:meth:`ChatScreen._schedule_refresh`), however many updates arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import QueryType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Label, Select, Static, TextArea

from acp_tui.config import locations
from acp_tui.config.history import InputHistory
from acp_tui.protocol.client import AcpError, AgentExitedError, AgentInfo
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.attachments import PromptCapabilities
from acp_tui.session.auth_methods import AuthMethod, TerminalLogin
from acp_tui.session.controller import (
    AgentExit,
    LinkEvents,
    NotResponding,
    QueuedPrompt,
    SessionController,
)
from acp_tui.session.elicitation_queue import ElicitationQueue, PendingElicitation
from acp_tui.session.permissions import PendingPermission, PermissionBroker
from acp_tui.session.queue import PromptQueue
from acp_tui.session.settings import AppSettings
from acp_tui.session.start import (
    NewSessionChoices,
    StartOutcome,
    open_at_start,
    reopen_after_restart,
    session_is_gone,
)
from acp_tui.store import SessionStore
from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_MODES,
    PART_RESET,
    PART_STATE,
    PART_TITLE,
    PART_USAGE,
)
from acp_tui.store.entries import AgentMessage, ToolCall
from acp_tui.store.local_index import LocalIndex
from acp_tui.store.session import SessionState
from acp_tui.text.safety import encodable, one_line, sanitize_terminal_text
from acp_tui.text.usage import format_percent
from acp_tui.ui.agent_text import agent_line, line_of
from acp_tui.ui.auth_actions import auth_palette_commands
from acp_tui.ui.export import transcript_markdown, write_export
from acp_tui.ui.keymap import effective_keys, key_label, key_words
from acp_tui.ui.palette import AgentCommand, AgentCommands
from acp_tui.ui.screens.chat_options import SessionOptionsMixin
from acp_tui.ui.session_actions import SessionActions
from acp_tui.ui.toasts import toast_text
from acp_tui.ui.typing_focus import TypingRouter
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar
from acp_tui.ui.widgets.status_line import NewOutputMarker, StatusLine, elapsed_text
from acp_tui.ui.widgets.transcript import ThoughtView, ToolCallView, Transcript

log = logging.getLogger(__name__)

FRAME_SECONDS = 1 / 30
#: The pause after a frame, as a multiple of what the frame cost (see _schedule_refresh).
PACING = 3.0
#: The longest pause between frames however slow they get: the transcript still moves.
MAX_FRAME_GAP = 0.25
#: How long after a change in the prompt the transcript holds its next frame.
TYPING_HOLD = 0.1
#: While the person types, the transcript still moves at least this often.
TYPING_FRAME_GAP = 0.25
#: Changes worth writing to the local session index (never per streamed chunk).
SIDEBAR_MIN_WIDTH = 100
REMEMBERED_PARTS = frozenset({"title", "info", "modes", "config", "state"})
TITLE_DISPLAY_LIMIT = 500
RESTART_BACKOFF = (0.0, 2.0, 5.0, 15.0, 30.0)
FOOTER_COMPACT_WIDTH = 110
#: The agent's last stderr lines shown in the banner, each cut to one row.
STDERR_BANNER_LINES = 8
STDERR_LINE_CHARS = 300


def display_title(text: str | None, limit: int = TITLE_DISPLAY_LIMIT) -> str:
    return one_line(text or "", limit)


def additional_dirs_label(dirs: list[str]) -> str:
    """``+ lib, docs``: the names of a session's additional directories, for the header."""
    names = [os.path.basename(path.rstrip(os.sep)) or path for path in dirs]
    return ("+ " + ", ".join(one_line(name, 40) for name in names)) if names else ""


class ChatHeader(Horizontal):
    """Agent name and version, the session title, and the permission policy badge."""

    DEFAULT_CSS = """
    ChatHeader { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    ChatHeader > #agent { width: auto; text-style: bold; color: $accent; }
    ChatHeader > #title { width: 1fr; padding: 0 2; text-overflow: ellipsis; text-wrap: nowrap; }
    ChatHeader > #dirs { width: auto; max-width: 40; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    ChatHeader > #badge { width: auto; }
    ChatHeader > #badge.-yolo { background: $error; color: $text; text-style: bold; padding: 0 1; }
    ChatHeader > #badge.-deny { background: $warning; color: $text; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Label("starting…", id="agent")
        yield Label("", id="title")
        yield Label("", id="dirs")
        yield Label("", id="badge")

    def set_agent(self, text: str) -> None:
        self.query_one("#agent", Label).update(Text(text))

    def set_title(self, text: str) -> None:
        self.query_one("#title", Label).update(Text(text))

    def set_dirs(self, dirs: list[str]) -> None:
        """The session's additional directories: their names here, the paths in the tooltip."""
        label = self.query_one("#dirs", Label)
        label.update(Text(additional_dirs_label(dirs)))
        label.tooltip = Text("\n".join(["Also works in:", *dirs])) if dirs else None

    def set_policy(self, policy: str) -> None:
        badge = self.query_one("#badge", Label)
        badge.set_class(policy == "yolo", "-yolo")
        badge.set_class(policy == "deny", "-deny")
        labels = {"yolo": "YOLO: auto-allow", "deny": "auto-deny", "ask": ""}
        badge.update(labels.get(policy, ""))


class QueuedItem(Horizontal):
    """One queued message: its text, and buttons to edit or remove it."""

    DEFAULT_CSS = """
    QueuedItem { height: auto; }
    QueuedItem > Static { width: 1fr; color: $text-muted; }
    QueuedItem > Button { min-width: 8; height: 1; border: none; margin: 0 0 0 1; }
    """

    def __init__(self, item: QueuedPrompt) -> None:
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        text = sanitize_terminal_text(self.item.text).replace("\n", " ⏎ ")
        if self.item.editing:
            # Held back until the edit is saved or abandoned: say so where it shows.
            save = key_label(self, "prompt-send", owner=PromptEditor)
            keep = key_label(self, "cancel-turn")
            yield Static(Text(f"✎ editing ({save} saves, {keep} keeps it as it was): {text[:300]}"))
        else:
            yield Static(Text(f"⏳ {text[:300]}"))
            yield Button("edit", id=f"edit-{self.item.queue_id}", classes="edit", compact=True)
        yield Button("remove", id=f"remove-{self.item.queue_id}", classes="remove", compact=True)


class AgentBanner(Static):
    """Shown when the agent is gone: why, its last stderr lines, and how to restart."""

    DEFAULT_CSS = """
    AgentBanner {
        display: none; height: auto; max-height: 14; padding: 0 1;
        background: $error 20%; border-left: thick $error;
    }
    AgentBanner.-visible { display: block; }
    """


class ChatScreen(SessionOptionsMixin, SessionActions, Screen[None]):
    """Talk to one agent process; several sessions can be live on it."""

    CSS_PATH = "chat.tcss"
    AUTO_FOCUS = "PromptTextArea"
    COMMANDS = {AgentCommands}

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel", show=True, id="cancel-turn"),
        # Priority: handled before the keys typed after it reach the prompt, so a message sent
        # right after Ctrl+N goes to the new session, not the one left.
        Binding("ctrl+n", "new_session", "New session", priority=True, id="new-session"),
        # Priority: resolved before the next key is handed out, so "/" typed right after it
        # already finds the sidebar focused (a binding resolved later would not).
        Binding("ctrl+b", "toggle_sidebar", "Sessions", priority=True, id="sessions-sidebar"),
        Binding("ctrl+t", "toggle_latest_thought", "Thought", id="latest-thought"),
        Binding("ctrl+o", "toggle_latest_tool", "Output", id="latest-output"),
        Binding("ctrl+r", "restart_agent", "Restart agent", show=False, id="restart-agent"),
        Binding("ctrl+y", "copy_last_reply", "Copy reply", show=False, id="copy-reply"),
        # Shift+Tab from the prompt, as in Claude Code (elsewhere it moves the focus back: the
        # last binding of the three). Priority: the prompt would type the "t" of Alt+T. Each
        # key has a twin not listed in the footer, which works where the footer has no room
        # for it (see chat_options.FOOTER_KEYS_WIDTH); the twin shares the id, so a remap
        # moves both.
        Binding(
            "shift+tab",
            "cycle_mode",
            "Mode",
            id="cycle-mode",
            priority=True,
        ),
        Binding("shift+tab", "cycle_mode('unlisted')", show=False, id="cycle-mode", priority=True),
        Binding(
            "shift+tab", "app.focus_previous", "Focus previous", show=False, id="focus-previous"
        ),
        Binding(
            "alt+t", "cycle_thought_level", "Thinking", id="cycle-thought-level", priority=True
        ),
        Binding(
            "alt+t",
            "cycle_thought_level('unlisted')",
            show=False,
            id="cycle-thought-level",
            priority=True,
        ),
        # The transcript from the prompt: before the prompt's own PgUp/PgDn (see check_action).
        Binding(
            "pageup", "scroll_transcript(-1)", "Scroll up", show=False, priority=True, id="page-up"
        ),
        Binding(
            "pagedown",
            "scroll_transcript(1)",
            "Scroll down",
            show=False,
            priority=True,
            id="page-down",
        ),
        Binding(
            "ctrl+home", "transcript_top", "Top", show=False, priority=True, id="transcript-top"
        ),
        Binding(
            "ctrl+end",
            "transcript_bottom",
            "Bottom",
            show=False,
            priority=True,
            id="transcript-bottom",
        ),
    ]

    busy: reactive[bool] = reactive(False)
    agent_alive: reactive[bool] = reactive(False)

    def __init__(self, settings: AppSettings) -> None:
        super().__init__()
        self.settings = settings
        self.store = SessionStore()
        self.broker = PermissionBroker(
            settings.permission_policy,
            on_answered=self._on_permission_answered,
            on_queue_changed=self._on_permission_queue_changed,
        )
        self.elicitations = ElicitationQueue(
            on_answered=self._on_permission_answered,
            on_queue_changed=self._on_elicitation_queue_changed,
        )
        self.link: SessionController | None = None
        #: The session on screen; None: the new session, not created until the first message.
        self.session_id: str | None = None
        #: Everything sent that has not gone out yet, per session (survives agent restarts).
        self.prompts = PromptQueue(on_change=self._on_queue_changed)
        #: A session/new for the new session is on its way.
        self._starting_new = False
        #: The mode and model shown (and chosen) for the new session before it exists.
        self.new_choices = NewSessionChoices()
        #: The session the person asked to open (sidebar): what they typed stays with the
        #: session they typed it in.
        self._explicit_open: str | None = None
        #: The agent has not answered initialize in time (Ctrl+R restarts it).
        self._unresponsive = False
        self._started_once = False
        #: The sessions are offered for ``--resume`` (the status line says how to choose).
        self._offering_sessions = False
        #: Sessions on screen that this agent run could not reopen: a message sent there
        #: starts a new session.
        self._unopenable: set[str] = set()
        self.thoughts_visible = True
        self._refresh_pending = False
        self._refreshing = False
        self._refresh_again = False
        self._refresh_tasks: set[asyncio.Task[None]] = set()
        #: Held while the transcript is synced or switched to another session: the sync runs
        #: in its own task and must never interleave with a switch.
        self._transcript_lock = asyncio.Lock()
        #: Seconds from the start of the last store -> screen sync to its paint.
        self._frame_cost = 0.0
        self._frame_painted_at = 0.0
        #: Until then the person is typing (see _note_typing).
        self._typing_until = 0.0
        self._drafts: dict[str | None, str] = {}
        self._restart_times: list[float] = []
        self._last_turn_notice: float = 0.0
        self._render_error_shown = False
        #: Set when the person opened a session (sidebar, Ctrl+N): the prompt takes the focus
        #: once it shows.
        self._focus_prompt_on_open = False
        #: Per session: (turn number, when the screen saw it start running).
        self._turn_started: dict[str, tuple[int, float]] = {}
        #: The clock of those times (a test can hold it still).
        self.clock: Callable[[], float] = time.monotonic
        self._typing = TypingRouter(
            self, lambda: self.query_one(PromptEditor).text_area, keeps_keys=(SessionsSidebar,)
        )

    # ------------------------------------------------------------------ typing and focus

    def on_key(self, event: events.Key) -> None:
        self._typing.route_key(event)

    def on_paste(self, event: events.Paste) -> None:
        self._typing.route_paste(event)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self._typing.after_click(event)

    def get_focusable_widget_at(self, x: int, y: int) -> Widget | None:
        """What a mouse press focuses: only a place that takes typing (an input, a selector,
        the sidebar). A press on a tool block, a thought, the gauge or a button leaves the focus
        on the prompt; it used to take it until the mouse-up gave it back, and keys typed right
        after the click went to that widget meanwhile and reached the prompt out of order."""
        widget = super().get_focusable_widget_at(x, y)
        if widget is None or self._typing.takes_typing(widget, clicked=True):
            return widget
        return None

    def focus_prompt(self) -> None:
        """The prompt takes the focus now (not on a later turn of the loop: a key typed right
        after must find it there)."""
        self.set_focus(self.query_one(PromptEditor).text_area)

    def _focus_after_open(self) -> None:
        """A session was shown: the prompt takes the focus when the person asked for it (from
        the sidebar, Ctrl+N) or nothing has it; a session that opens by itself (the first
        one) never pulls the focus away from where the person is typing."""
        asked, self._focus_prompt_on_open = self._focus_prompt_on_open, False
        if asked or self.focused is None:
            self.focus_prompt()

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        return self._typing.focus_step(lambda: super(ChatScreen, self).focus_next(selector))

    def focus_previous(self, selector: str | type[QueryType] = "*") -> Widget | None:
        return self._typing.focus_step(lambda: super(ChatScreen, self).focus_previous(selector))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast of one or two lines (see acp_tui.ui.toasts), never markup unless asked:
        what is shown here often quotes the agent."""
        super().notify(
            toast_text(message), title=title, severity=severity, timeout=timeout, markup=markup
        )

    def on_resize(self, event: events.Resize) -> None:
        # Under this width the footer's keys lose their padding, so that they all fit.
        self.query_one(Footer).compact = event.size.width < FOOTER_COMPACT_WIDTH
        self.refresh_bindings()  # the option keys are listed only when there is room

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ChatHeader()
        with Horizontal(id="body"):
            yield SessionsSidebar(self.store, self.settings.cwd, id="sidebar")
            with Vertical(id="main"):
                yield AgentBanner(id="banner")
                yield Transcript(id="transcript")
                yield StatusLine(id="status-line")
                yield Vertical(id="queue")
                yield PromptEditor(id="prompt", history=InputHistory(history_path(self.settings)))
        yield ChatBar(id="bar")
        yield Footer()

    def on_mount(self) -> None:
        # Subscribe before anything touches the store: the store wakes only on clean -> dirty.
        self.store.subscribe(self._schedule_refresh)
        self._open_index()
        self.query_one(ChatHeader).set_policy(self.settings.permission_policy)
        self.query_one(PromptEditor).cwd = self.settings.cwd
        show_sidebar = self.settings.show_sidebar
        if show_sidebar is None:
            show_sidebar = self.app.size.width >= SIDEBAR_MIN_WIDTH
        self.query_one(SessionsSidebar).display = show_sidebar
        self.broker.set_presenter(self._present_permission)
        self.elicitations.set_presenter(self._present_elicitation)
        ToolCallView.terminal_lookup = self._terminal_state
        self.set_interval(1.0, self._tick_elapsed)
        self._draw_new_session()
        self.start_agent()

    async def on_unmount(self) -> None:
        for task in list(self._refresh_tasks):
            task.cancel()
        await self.stop_agent()

    async def stop_agent(self, grace: float = 6.0) -> None:
        """Shut the agent down (EOF, TERM, KILL) and wait for it, so quitting never leaves
        a process or a terminal behind."""
        link = self.link
        if link is None:
            return
        link.request_stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(link.finished.wait(), grace)

    def _open_index(self) -> None:
        """The local session index: sessions started here, for agents that cannot list."""
        path = locations.local_index_file(data_dir(self.settings))
        self.index = LocalIndex(path, self.settings.agent_key)
        self.index.forget_unused()
        for warning in self.index.warnings:
            self.notify(sanitize_terminal_text(warning), severity="warning", timeout=10)
        self.index.warnings.clear()
        self.store.apply_index_records(self.index.sessions())
        self.apply_local_titles()
        self.new_choices.defaults = self.index.defaults()

    def _remember(self, state: SessionState) -> None:
        # A draft is remembered once it has a prompt: the agent may never keep it otherwise.
        # An archived one is not offered from the index (the agent lists it as archived).
        if state.draft or not state.live or not state.id or state.archived:
            return
        if self.index.remember_session(state) is False:
            log.warning("session index: %s", "; ".join(self.index.warnings))
            self.index.warnings.clear()

    # ------------------------------------------------------------------ agent

    def start_agent(self, reopen: str | None = None) -> None:
        events = LinkEvents(
            on_ready=self._on_agent_ready,
            on_status=self._on_agent_status,
            on_error=self._on_agent_error,
            on_session_opened=self._on_session_opened,
            on_session_created=self._on_session_created,
            on_turn_ended=self._on_turn_ended,
            on_exit=self._on_agent_exit,
            on_terminal_output=self._on_terminal_output,
            on_not_responding=self._on_not_responding,
        )
        replay = self.settings.replay
        self.link = SessionController(
            self.settings.agent_argv,
            cwd=self.settings.cwd,
            store=self.store,
            events=events,
            permission_handler=self.broker.request,
            approve_outside=self._approve_outside,
            choose_auth=self._choose_auth,
            run_terminal_login=self._run_terminal_login,
            mcp_servers=self.settings.mcp_servers,
            env=self.settings.env,
            log_dir=self.settings.log_dir,
            recorder=self.settings.recorder,
            process_factory=replay.process_for if replay else self.settings.process_factory,
            prompts=self.prompts,
            initialize_timeout=self.settings.initialize_timeout,
            additional_dirs=self.settings.additional_dirs,
            protocol_version=self.settings.protocol_version,
            # A browser has no terminal to hand over to an agent's sign-in.
            terminal_auth=not self.app.is_web,
            elicitations=self.elicitations,
        )
        if replay is not None:
            replay.bind(self.link, self._notify_replay, self.broker.cancel_session)
        self._unresponsive = False
        self.query_one(SessionsSidebar).connecting = True
        self.query_one(AgentBanner).remove_class("-visible")
        self._set_status("starting the agent…")
        self._run_link(self.link, reopen)

    @work(group="agent", exit_on_error=False)
    async def _run_link(self, link: SessionController, reopen: str | None) -> None:
        first_start = not self._started_once
        self._started_once = True

        async def opener(link: SessionController) -> None:
            if reopen is not None:
                outcome = await reopen_after_restart(link, reopen)
            elif first_start:
                outcome = await open_at_start(
                    link,
                    cwd=self.settings.cwd,
                    resume=self.settings.resume,
                    continue_latest=self.settings.continue_latest,
                )
            else:
                outcome = StartOutcome()
            self._after_start(link, outcome, reopen)

        await link.run(opener)

    def _after_start(
        self, link: SessionController, outcome: StartOutcome, reopen: str | None
    ) -> None:
        for gone in outcome.gone:
            self.index.forget(gone)
            self.store.forget(gone)
        if outcome.message:
            self._set_status("")
            self.notify(sanitize_terminal_text(outcome.message)[:500], severity="warning")
        if outcome.opened is None and reopen is not None:
            # Its transcript stays on screen; what waited for it, and the next message, go to
            # a new session.
            self._unopenable.add(reopen)
            self.prompts.rekey(reopen, None)
        if outcome.choose:
            self.call_later(self._offer_sessions)
        if outcome.opened is None and self.prompts.has(None):
            # Messages sent while the agent was starting: they start the new session.
            self._start_new_session(link)

    def _offer_sessions(self) -> None:
        """``--resume`` without an id: the sidebar, focused, the most recent session
        highlighted; Enter opens one, Escape goes to the prompt (a new session)."""
        sidebar = self.query_one(SessionsSidebar)
        if not sidebar.display:
            sidebar.display = True
        sidebar.session_list.focus()
        self._offering_sessions = True
        keys = " ".join(
            key_label(self, f"sidebar-{name}", owner=SessionList) for name in ("up", "down", "open")
        )
        leave = key_label(self, "sidebar-leave", owner=SessionList)
        self._set_status(f"Choose a session to resume ({keys}), or {leave} for a new one")

    def _start_new_session(self, link: SessionController | None = None) -> None:
        """Create the new session (the one shown as "New session") now."""
        link = link or self.link
        if link is None or self._starting_new or link.agent is None or link.finished.is_set():
            return
        self._starting_new = True
        mode, config, model = self.new_choices.take()

        async def start() -> None:
            try:
                await link.new_session(adopt=True, mode=mode, config=config, model=model)
            except BaseException:
                # Not made: the choices still stand for the next attempt.
                self.new_choices.mode = self.new_choices.mode or mode
                self.new_choices.model = self.new_choices.model or model
                self.new_choices.config = {**config, **self.new_choices.config}
                raise
            finally:
                self._starting_new = False

        link.spawn(start, "new session")

    def _on_agent_ready(self, agent: AgentInfo) -> None:
        self.agent_alive = True
        if self._unresponsive:
            # It answered after all: the "not responding" banner is out of date.
            self._unresponsive = False
            self.query_one(AgentBanner).remove_class("-visible")
        if self.session_id is None:
            self._draw_new_session()
        label = self.settings.agent_label or agent.display_name
        version = f" {agent.version}" if agent.version else ""
        self.query_one(ChatHeader).set_agent(display_title(f"{label}{version}", 80))
        self.query_one(PromptEditor).prompt_capabilities = PromptCapabilities.from_agent(
            agent.capabilities
        )
        self._set_status("")
        sidebar = self.query_one(SessionsSidebar)
        sidebar.set_loading(False)
        # A (re)started agent: list again from the first page.
        sidebar.reload()

    def _notify_replay(self, text: str) -> None:
        self.notify(sanitize_terminal_text(text)[:500], title="Replay", timeout=8, markup=False)

    def _on_agent_status(self, text: str) -> None:
        self._set_status(text + "…")

    def _on_agent_error(self, text: str) -> None:
        # The toast says what went wrong in a line or two; the whole text goes in the
        # transcript, where it stays to be read.
        self.notify(text, severity="error", timeout=10)
        whole = sanitize_terminal_text(text).strip()
        if self.session_id is not None and toast_text(whole) != whole:
            lines = whole.split("\n", 1)
            self.store.add_notice(
                self.session_id,
                lines[0][:TITLE_DISPLAY_LIMIT],
                severity="error",
                description=lines[1][:20_000] if len(lines) > 1 else None,
            )
        self._set_status("")

    def _on_session_created(self, session_id: str, response: Any) -> None:
        """Remember what a new session of this agent offers: the next "New session" shows its
        mode and model selectors before it exists."""
        if not isinstance(response, dict):
            return
        offered = {
            key: response[key]
            for key in ("modes", "configOptions", "models")
            if isinstance(response.get(key), dict | list)
        }
        if offered:
            self.index.remember_defaults(offered)
            self.new_choices.defaults = {**self.new_choices.defaults, **offered}

    def _on_session_opened(self, session_id: str) -> None:
        self._unopenable.discard(session_id)
        state = self.store.get(session_id)
        if state is not None:
            self._reapply_choices(state)
            self._remember(state)
        on_screen = self.session_id
        if (
            state is not None
            and state.draft
            and on_screen is not None
            and on_screen != session_id
            and on_screen not in self._unopenable
        ):
            # A new session made for "New session" while the person went to another one: it
            # takes what waited for it, and does not pull the person back.
            return
        # At once: a message sent from now on is this session's (drawn on the next turn).
        self._enter_view(session_id)
        self.call_later(self._draw_view)

    def _reapply_choices(self, state: SessionState) -> None:
        """Re-apply the options chosen earlier that the agent does not report."""
        self.reapply_options(state)

    def _on_queue_changed(self, session_id: str | None) -> None:
        if session_id == self._queue_key() and self.is_mounted:
            self.call_later(self._draw_queue)

    def _queue_key(self) -> str | None:
        """Where a message sent from this view waits: the session on screen, or ``None`` (the
        new session) when that one could not be reopened."""
        session_id = self.session_id
        return None if session_id in self._unopenable else session_id

    def _on_turn_ended(self, session_id: str, reason: str | None) -> None:
        if not self.app.app_focus and self.settings.notify_when_unfocused:
            self.app.bell()
        if reason == "cancelled" and session_id == self.session_id:
            self._set_status("cancelled")
        # A question still open for a turn that is over can only be answered in vain.
        self.elicitations.cancel_session(session_id)

    def _on_terminal_output(self, terminal_id: str) -> None:
        self._schedule_refresh()

    def _terminal_state(self, terminal_id: str) -> Any:
        link = self.link
        return link.terminal_state(terminal_id) if link is not None else None

    def _on_not_responding(self, report: NotResponding) -> None:
        """initialize took too long: say so, quote what the command printed if it was not ACP,
        and offer a restart or quit (the wait goes on: a late answer hides this again)."""
        self._unresponsive = True
        self.refresh_bindings()
        command = shlex.join(self.settings.agent_argv)
        text = Text(
            f"The agent is not responding (no answer to initialize after {report.seconds:g} s)\n",
            style="bold",
        )
        text.append("  command: ")
        text.append_text(agent_line(command, 2000))
        text.append("\n")
        if report.printed:
            more = report.printed_count - len(report.printed)
            text.append(
                "  It printed this on stdout, which is not ACP"
                + (f" ({report.printed_count} lines in all)" if more > 0 else "")
                + ":\n"
            )
            for line in report.printed:
                text.append("    ")
                text.append_text(agent_line(line, 200, style="dim"))
                text.append("\n")
        for line in report.stderr_tail[-6:]:
            text.append("  ")
            text.append_text(agent_line(line, STDERR_LINE_CHARS, style="dim"))
            text.append("\n")
        text.append(
            f"Is this an ACP agent? Press {self._restart_key()} to restart it or "
            f"{key_label(self, 'quit')} to quit; "
            "an answer that comes later is still taken."
        )
        banner = self.query_one(AgentBanner)
        banner.update(text)
        banner.add_class("-visible")
        self._set_status("the agent is not responding")

    def _on_agent_exit(self, info: AgentExit) -> None:
        self.agent_alive = False
        self._unresponsive = False
        self.query_one(SessionsSidebar).connecting = False
        self.broker.cancel_all()
        self.elicitations.cancel_all()
        self.busy = False
        self.refresh_bindings()
        if info.expected:
            return
        banner = self.query_one(AgentBanner)
        # Quoted as a shell would need it: an argument with a space stays one argument.
        command = shlex.join(self.settings.agent_argv)
        # What to do comes first and the agent's stderr after, each line cut to one row: however
        # long its lines, the way out stays on screen.
        if info.start_failed:
            if self.link is not None and self.link.agent is None:
                # The header said "starting…": name the command that did not start instead.
                name = self.settings.agent_label or os.path.basename(self.settings.agent_argv[0])
                self.query_one(ChatHeader).set_agent(display_title(name, 80))
            text = Text("The agent could not be started\n", style="bold")
            text.append(f"  command: {command}\n  reason: {info.description}\n")
            if info.printed:
                text.append("  It printed this on stdout, which is not ACP:\n")
                for line in info.printed:
                    text.append("    ")
                    text.append_text(agent_line(line, 200, style="dim"))
                    text.append("\n")
            text.append(
                f"Check the command, then press {self._restart_key()} to try again or "
                f"{key_label(self, 'quit')} to quit.",
                style="dim",
            )
            self.app.start_failure = f"acp-tui: cannot start `{command}`: {info.description}"  # type: ignore[attr-defined]
        else:
            text = Text(f"The agent exited ({info.description})\n", style="bold")
            text.append(
                "Your transcript and draft are kept. "
                f"Press {self._restart_key()} to restart the agent and reopen this session."
            )
            if info.log_path:
                text.append(f"\n  log: {info.log_path}", style="dim")
        main_width = self.query_one("#main").size.width or self.size.width
        row = max(20, main_width - banner.styles.gutter.width - 2)
        for line in info.stderr_tail[-STDERR_BANNER_LINES:]:
            cut = agent_line(line, STDERR_LINE_CHARS, style="dim")
            cut.truncate(row, overflow="ellipsis")
            text.append("\n  ")
            text.append_text(cut)
        banner.update(text)
        banner.add_class("-visible")
        self._set_status("")
        if not self.app.app_focus:
            self.app.bell()

    def _restart_key(self) -> str:
        return key_label(self, "restart-agent", "the palette's Restart agent")

    def action_restart_agent(self) -> None:
        link = self.link
        if self._unresponsive and link is not None:
            self.run_worker(self._restart_unresponsive(link), group="restart")
            return
        if self.agent_alive or (link is not None and not link.finished.is_set()):
            self.notify("The agent is running.")
            return
        now = time.monotonic()
        self._restart_times = [t for t in self._restart_times if now - t < 120]
        delay = RESTART_BACKOFF[min(len(self._restart_times), len(RESTART_BACKOFF) - 1)]
        self._restart_times.append(now)
        if delay:
            self.notify(f"The agent keeps exiting; restarting in {delay:.0f} s.")
        self.set_timer(delay or 0.01, lambda: self.start_agent(reopen=self._reopen_target()))

    async def _restart_unresponsive(self, link: SessionController) -> None:
        self._unresponsive = False
        self._set_status("stopping the agent…")
        await self.stop_agent()
        self.start_agent(reopen=self._reopen_target())

    def _reopen_target(self) -> str | None:
        """The session to reopen after a restart: the one on screen, unless it never had a
        prompt (the agent may not have kept it): then what waits for it goes to a new one."""
        session_id = self.session_id
        if session_id in self._unopenable:
            return None
        state = self.store.get(session_id) if session_id else None
        if session_id is not None and (state is None or state.draft):
            self.prompts.rekey(session_id, None)
            self._enter_view(None)
            self.call_later(self._draw_view)
            return None
        return session_id

    # ------------------------------------------------------------------ sessions

    async def show_session(self, session_id: str | None) -> None:
        """Show a session; ``None`` shows the new session (created by the first message)."""
        self._enter_view(session_id)
        await self._draw_view()

    def _enter_view(self, session_id: str | None) -> None:
        """Make ``session_id`` the one messages go to, at once (a message already on its way
        after the key that switched must not go to the session left), and swap drafts."""
        prompt = self.query_one(PromptEditor)
        previous = self.session_id
        typed = prompt.draft
        if session_id == previous:
            draft = typed
        else:
            # Leaving a view while editing one of its queued messages saves the edit.
            typed = self._finish_edit(self._queue_key(), typed)
            left = self.store.get(previous) if previous is not None else None
            explicit, self._explicit_open = self._explicit_open, None
            # What was typed for the new session goes with it: into the session that opened
            # for it (not one the person chose in the sidebar), also from a session that could
            # not be reopened, or back to "New session" from one that never had a prompt.
            if explicit != session_id and (
                previous is None
                or previous in self._unopenable
                or (session_id is None and left is not None and left.draft)
            ):
                draft = typed
                self._drafts.pop(session_id, None)
            else:
                self._drafts[previous] = typed
                draft = self._drafts.pop(session_id, "")
        self.session_id = session_id
        self.query_one(SessionsSidebar).current_session_id = session_id
        prompt.set_draft(draft)

    async def _draw_view(self) -> None:
        """Draw the session of :meth:`_enter_view`: transcript, header, bar, queue."""
        session_id = self.session_id
        transcript = self.query_one(Transcript)
        self.query_one(ContextGauge).clear()
        async with self._transcript_lock:
            state = self.store.get(session_id) if session_id else None
            await transcript.show_session(session_id, list(state.transcript) if state else [])
        if state is None:
            self._draw_new_session()
            self._set_status("starting a new session…" if self._starting_new else "")
        else:
            # The session's own activity set the status line (a turn may run already: what
            # waited for the session went out as it opened).
            self._draw_session_parts(
                state,
                {PART_TITLE, PART_STATE, PART_USAGE, PART_MODES, PART_CONFIG, PART_COMMANDS},
            )
        await self._draw_queue()
        self._focus_after_open()

    def _draw_new_session(self) -> None:
        """The header and bar of the new session, before it exists: the mode, model and
        commands its agent offered last time (a choice is applied once it is made)."""
        self.busy = False
        self.query_one(ChatHeader).set_title("New session")
        link = self.link
        self.query_one(ChatHeader).set_dirs(link.session_dirs(None) if link else [])
        preview = self.new_choices.preview()
        self._draw_options(preview)
        self.query_one(PromptEditor).commands = list(preview.commands or [])

    def _remember_commands(self, state: SessionState | None) -> None:
        commands = state.commands if state is not None else None
        if commands and commands != self.new_choices.defaults.get("commands"):
            self.index.remember_defaults({"commands": commands})
            self.new_choices.defaults = {**self.new_choices.defaults, "commands": commands}

    # ------------------------------------------------------------------ store -> screen

    def _schedule_refresh(self) -> None:
        if self._refresh_pending:
            return
        self._refresh_pending = True
        # Adaptive pacing: a frame that cost c seconds (sync, layout and paint) is followed
        # by at least PACING * c seconds off, so a flood can take at most about a quarter of
        # the loop and a keystroke never waits long behind the transcript.
        # Time already spent idle since that frame counts: after a pause the next frame
        # comes at the usual rate.
        owed = min(MAX_FRAME_GAP, PACING * self._frame_cost)
        idle = time.perf_counter() - self._frame_painted_at
        delay = max(FRAME_SECONDS, owed - idle)
        self.set_timer(delay, self._start_refresh)

    @on(TextArea.Changed)
    def _note_typing(self, event: TextArea.Changed) -> None:
        # Not stopped: the prompt editor has its own use for it.
        self._typing_until = time.perf_counter() + TYPING_HOLD

    def _start_refresh(self) -> None:
        now = time.perf_counter()
        if now < self._typing_until and now - self._frame_painted_at < TYPING_FRAME_GAP:
            # Input first: while the person types, the transcript waits (never more than
            # TYPING_FRAME_GAP between frames), so a keystroke's echo is painted on its own
            # rather than together with a transcript frame.
            self.set_timer(self._typing_until - now, self._start_refresh)
            return
        # Off the screen's own message queue: Textual paints a screen only when its queue
        # goes idle, so a sync awaited here would hold every paint (the prompt's echo too)
        # for as long as an agent keeps the transcript busy.
        task = asyncio.create_task(self._refresh(), name="chat-refresh")
        self._refresh_tasks.add(task)
        task.add_done_callback(self._refresh_tasks.discard)

    async def _refresh(self) -> None:
        self._refresh_pending = False
        if not self.is_attached or self.app._exit:
            return  # the screen is going away (quit): nothing left to draw on
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        started = time.perf_counter()
        try:
            async with self._transcript_lock:
                await self._apply_changes()
            self.call_after_refresh(self._frame_painted, started)
        except Exception:
            # A drawing bug must never take the conversation down with it: log it, tell the
            # person once, and keep going with the next frame.
            log.exception("refreshing the chat screen failed")
            self._report_render_error()
        finally:
            self._refreshing = False
        if self._refresh_again:
            self._refresh_again = False
            self._schedule_refresh()

    def _report_render_error(self) -> None:
        if not self._render_error_shown:
            self._render_error_shown = True
            self.notify(
                "A display error occurred (details in the log); the session goes on.",
                severity="error",
            )

    @contextlib.contextmanager
    def _step(self, what: str) -> Iterator[None]:
        """One step of applying the store's changes: the changes are taken once, so a step
        that fails (a title the index cannot store, a widget that cannot draw) is logged and
        the other steps still run; one bad string never freezes the transcript."""
        try:
            yield
        except Exception:
            log.exception("applying changes: %s failed", what)
            self._report_render_error()

    def _frame_painted(self, started: float) -> None:
        self._frame_painted_at = time.perf_counter()
        self._frame_cost = self._frame_painted_at - started

    async def _apply_changes(self) -> None:
        changes = self.store.take_changes()
        if SessionsSidebar.wants(changes):
            with self._step("sidebar"):
                self.query_one(SessionsSidebar).refresh_rows()
        for changed_id, changed_parts in changes.sessions.items():
            if changed_parts & REMEMBERED_PARTS:
                changed = self.store.get(changed_id)
                if changed is not None:
                    with self._step("session index"):
                        self._remember(changed)
                    self._note_turns(changed_id, changed)
            if PART_COMMANDS in changed_parts:
                with self._step("session index"):
                    self._remember_commands(self.store.get(changed_id))
        session_id = self.session_id
        transcript = self.query_one(Transcript)
        if session_id is None:
            return
        parts = changes.sessions.get(session_id, set())
        state = self.store.get(session_id)
        if state is None:
            return
        with self._step("transcript"):
            if PART_RESET in parts:
                await transcript.show_session(session_id, list(state.transcript))
            elif changes.entries.get(session_id):
                await transcript.sync_entries(state.transcript, changes.entries[session_id])
        with self._step("terminals"):
            transcript.refresh_terminals()
        self._draw_session_parts(state, parts)

    def _draw_session_parts(self, state: SessionState | None, parts: set[str]) -> None:
        if state is None:
            return
        if PART_TITLE in parts or "info" in parts:
            with self._step("title"):
                self.query_one(ChatHeader).set_dirs(state.additional_dirs or [])
                self.query_one(ChatHeader).set_title(
                    display_title(
                        state.display_title if state.title or state.first_prompt else "New session"
                    )
                )
        if PART_STATE in parts:
            with self._step("activity"):
                self._draw_activity(state)
        if PART_USAGE in parts:
            with self._step("gauge"):
                self._draw_gauge(state)
        if PART_MODES in parts or PART_CONFIG in parts:
            with self._step("options"):
                self._draw_options(state)
        if PART_COMMANDS in parts:
            with self._step("commands"):
                self.query_one(PromptEditor).commands = list(state.commands or [])
                self._remember_commands(state)

    def _draw_gauge(self, state: SessionState) -> None:
        gauge = self.query_one(ContextGauge)
        context = state.context
        if context is None:
            gauge.set_usage(None, None)
        else:
            # Checked at the store: each number is valid or None (unknown).
            gauge.set_usage(context.used, context.size, context.cost_amount, context.cost_currency)
        gauge.turn_usage = state.last_turn_usage.to_dict() if state.last_turn_usage else None
        self.query_one(ChatBar).fit()

    @on(ContextGauge.LevelCrossed)
    def on_level_crossed(self, event: ContextGauge.LevelCrossed) -> None:
        # One line: the gauge itself changed colour and reads the numbers; the details are a
        # click away.
        critical = event.level.name == "CRITICAL"
        gauge = self.query_one(ContextGauge)
        percent = format_percent(gauge.used, gauge.context_size)
        self.notify(
            f"{percent} used. {event.advice}",
            severity="error" if critical else "warning",
            timeout=6,
        )

    @on(ContextGauge.DetailsRequested)
    def on_context_details_requested(self, event: ContextGauge.DetailsRequested) -> None:
        event.stop()
        self.action_context_details()

    def _draw_activity(self, state: SessionState) -> None:
        running = state.activity in ("running", "requires_action")
        self.busy = running
        if state.replaying:
            self._set_status("loading the session…")
        elif state.activity == "requires_action":
            self._set_status("⏸ waiting for you")
        elif running and self.link is not None and self.link.is_cancelling(state.id):
            # Said until the turn ends: the agent may stream on (or never stop) after a cancel.
            self._set_status("cancelling…")
        elif running:
            now = self.clock()
            elapsed = elapsed_text(now - self._turn_started.get(state.id, (0, now))[1])
            self._set_status(f"● working… {elapsed} ({key_label(self, 'cancel-turn')} to cancel)")
        elif state.stop_reason == "cancelled":
            self._set_status("cancelled")
        elif state.stop_reason and state.stop_reason not in ("end_turn",):
            self._set_status(f"stopped: {display_title(state.stop_reason, 60)}")
        else:
            self._set_status("")

    def _set_status(self, text: str) -> None:
        self.query_one(StatusLine).set_text(text)

    def watch_busy(self, busy: bool) -> None:
        # On the status line only: a class on the screen would restyle every widget on it.
        self.query_one(StatusLine).set_busy(busy)
        self.refresh_bindings()

    def _note_turns(self, session_id: str, state: SessionState) -> None:
        """Remember when each session's running turn started (for ``working… 12 s``)."""
        if state.activity in ("running", "requires_action"):
            known = self._turn_started.get(session_id)
            if known is None or known[0] != state.turn:
                self._turn_started[session_id] = (state.turn, self.clock())
        else:
            self._turn_started.pop(session_id, None)

    def _tick_elapsed(self) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        if state is not None and state.activity == "running" and not state.replaying:
            self._draw_activity(state)

    # ------------------------------------------------------------------ intents

    @on(PromptEditor.Submitted)
    def on_prompt_submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        # What is sent, and what comes back, is at the bottom: go there.
        self.query_one(Transcript).to_bottom()
        self.send_text(event.text, event.blocks)

    def send_text(self, text: str, blocks: list[dict[str, Any]] | None = None) -> None:
        """Send, or queue: nothing sent is ever lost, whatever the agent is doing."""
        session_id = self._queue_key()
        editing = self.prompts.editing(session_id)
        if editing is not None:
            self.prompts.save_edit(session_id, editing.queue_id, text, blocks)
            if self.link is not None and session_id is not None:
                self.link.edit_saved(session_id)  # also retries what waited for a sign-in
            return
        link = self.link
        if link is not None and session_id is not None and self.agent_alive:
            if link.can_send(session_id):
                try:
                    link.send_prompt(session_id, text, blocks)
                except AcpError as error:
                    self.prompts.add(session_id, text, blocks)
                    self.notify(str(error), severity="error")
                return
        # No session open to take it yet: it waits in the queue, shown, and goes out when
        # the session opens (the new one is created now if the agent is ready).
        self.prompts.add(session_id, text, blocks)
        if session_id is None and self.agent_alive:
            self._start_new_session()
        elif not self.agent_alive and (link is None or link.finished.is_set()):
            self.notify(
                "The agent is not running: your message is queued and goes out once "
                f"{self._restart_key()} has restarted it.",
                severity="warning",
            )

    def _flush(self, session_id: str | None) -> None:
        if self.link is not None and session_id is not None:
            self.link.flush(session_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("scroll_transcript", "transcript_top", "transcript_bottom"):
            # The sidebar's list and an open selector page themselves.
            focused = self.focused
            return focused is None or not any(
                isinstance(node, SessionsSidebar | Select) for node in focused.ancestors_with_self
            )
        if action == "cancel_turn":
            return self.busy or self.prompts.editing(self._queue_key()) is not None
        if action == "restart_agent":
            return not self.agent_alive or self._unresponsive
        if action in ("cycle_mode", "cycle_thought_level"):
            return self.options_action_allowed(action, parameters)
        return True

    def action_cancel_turn(self) -> None:
        key = self._queue_key()
        editing = self.prompts.editing(key)
        if editing is not None:
            # Escape while editing a queued message: it stays as it was, and may go out.
            self.prompts.abandon_edit(key, editing.queue_id)
            self.query_one(PromptEditor).set_draft("")
            self._flush(key)
            return
        session_id = self.session_id
        link = self.link
        if link is None or session_id is None or not self.busy:
            return
        self.broker.cancel_session(session_id)
        link.begin_cancel(session_id)
        self._set_status("cancelling…")

        async def cancel() -> None:
            await link.cancel(session_id)
            # After session/cancel has gone out: the agent learns the turn is cancelled
            # before it reads "cancel" for its open questions.
            self.elicitations.cancel_session(session_id)

        link.spawn(cancel, "cancel")

    def action_new_session(self) -> None:
        """Show the new session and create it at once (the person asked for it: its modes,
        models and commands become available). Not listed until its first prompt."""
        link = self.link
        if link is None or not self.agent_alive:
            if link is not None and not link.finished.is_set() and self.session_id is not None:
                # Still starting (a restart): the new session is made by the first message.
                self._enter_view(None)
                self.call_later(self._draw_view)
                return
            self.notify("The agent is not running.", severity="warning")
            return
        current = self.store.get(self.session_id) if self.session_id else None
        if current is not None and current.draft:
            self.notify("This is a new session already.")
            self.focus_prompt()
            return
        self._focus_prompt_on_open = True
        unused = next(
            (s for s in self.store.sessions.values() if s.draft and s.live and link.is_open(s.id)),
            None,
        )
        if unused is not None:
            # One unused new session per agent run is enough: go back to it.
            self.open_session(unused.id)
            return
        if self.session_id is not None:
            self._enter_view(None)
            self.call_later(self._draw_view)
        self._start_new_session()

    def action_toggle_thoughts(self) -> None:
        self.thoughts_visible = not self.thoughts_visible
        self.query_one(Transcript).set_thoughts_visible(self.thoughts_visible)
        self.notify("Thoughts shown" if self.thoughts_visible else "Thoughts hidden")

    def action_toggle_latest_thought(self) -> None:
        if not self.thoughts_visible:
            self.action_toggle_thoughts()
        if self.query_one(Transcript).toggle_latest(ThoughtView) is None:
            self.notify("No thought in this session yet.")

    def action_toggle_latest_tool(self) -> None:
        if self.query_one(Transcript).toggle_latest(ToolCallView) is None:
            self.notify("No tool call in this session yet.")

    def action_scroll_transcript(self, pages: int) -> None:
        self.query_one(Transcript).page(pages)

    def action_transcript_top(self) -> None:
        self.query_one(Transcript).to_top()

    def action_transcript_bottom(self) -> None:
        self.query_one(Transcript).to_bottom()

    @on(Transcript.Behind)
    def on_transcript_behind(self, event: Transcript.Behind) -> None:
        event.stop()
        self.query_one(StatusLine).show_new_output(event.behind)

    @on(NewOutputMarker.Pressed)
    def on_new_output_pressed(self, event: NewOutputMarker.Pressed) -> None:
        event.stop()
        self.query_one(Transcript).to_bottom()

    def action_copy_last_reply(self) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        reply = next(
            (e.text for e in reversed(state.transcript) if isinstance(e, AgentMessage))
            if state
            else iter(()),
            None,
        )
        if not reply:
            self.notify("No reply to copy yet.")
            return
        self.app.copy_to_clipboard(encodable(reply))
        self.notify("Copied the last reply to the clipboard.")

    def action_export_transcript(self) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        if state is None:
            return
        try:
            path = write_export(Path(self.settings.cwd), state, transcript_markdown(state))
        except OSError as error:
            self.notify(f"Export failed: {error}", severity="error")
            return
        self.notify(f"Transcript exported to {path}")

    def action_show_stderr(self) -> None:
        from acp_tui.ui.screens.inspector import TextLogScreen

        process = self.link.process if self.link else None
        lines = list(process.stderr_tail) if process else []
        where = f" ({process.log_path})" if process and process.log_path else ""
        self.app.push_screen(TextLogScreen(f"Agent stderr{where}", lines))

    def action_show_inspector(self) -> None:
        from acp_tui.ui.screens.inspector import InspectorScreen

        client = self.link.client if self.link else None
        if client is None:
            self.notify("No connection yet.")
            return
        self.app.push_screen(
            InspectorScreen(
                client.connection,
                agent_argv=self.settings.agent_argv,
                cwd=self.settings.cwd,
                fallback_dir=data_dir(self.settings),
            )
        )

    def action_context_details(self) -> None:
        from acp_tui.ui.screens.context import ContextDetailsScreen

        self.app.push_screen(ContextDetailsScreen(self.query_one(ContextGauge)))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "New session",
            self._with_key("Start a new session with this agent", "new-session"),
            self.action_new_session,
        )
        yield SystemCommand(
            "Toggle thoughts", "Show or hide the agent's reasoning", self.action_toggle_thoughts
        )
        yield SystemCommand(
            "Copy last reply",
            self._with_key("Copy the agent's last message", "copy-reply"),
            self.action_copy_last_reply,
        )
        yield SystemCommand(
            "Export transcript",
            "Save this session as Markdown in the working directory",
            self.action_export_transcript,
        )
        yield SystemCommand(
            "Show agent log", "The agent's recent stderr lines", self.action_show_stderr
        )
        yield SystemCommand(
            "Protocol inspector",
            "The raw JSON-RPC traffic of this connection",
            self.action_show_inspector,
        )
        yield SystemCommand(
            "Context details", "Token usage, cost and the last turn", self.action_context_details
        )
        yield SystemCommand(
            "Toggle sessions sidebar",
            self._with_key("Show or hide past sessions", "sessions-sidebar"),
            self.action_toggle_sidebar,
        )
        yield from self.session_palette_commands()
        agent = self.link.agent if self.link else None
        if agent is not None and self._sidebar_target():
            if agent.can_close:
                yield SystemCommand(
                    "Close session",
                    "Close the highlighted session in the sidebar",
                    self.action_close_session,
                )
            if agent.can_delete:
                yield SystemCommand(
                    "Delete session",
                    "Delete the highlighted session (asks first)",
                    self.action_delete_session,
                )
        yield from auth_palette_commands(self)
        if not self.agent_alive:
            yield SystemCommand(
                "Restart agent",
                self._with_key("Start the agent again and reopen this session", "restart-agent"),
                self.action_restart_agent,
            )

    def _with_key(self, text: str, action_id: str) -> str:
        """A palette entry's help with the key that does the same (as configured)."""
        keys = effective_keys(self, action_id)
        return f"{text} ({key_words(keys[0])})" if keys else text

    def agent_commands(self) -> Iterable[AgentCommand]:
        """Palette entries named by the agent (its options): see :mod:`acp_tui.ui.palette`."""
        yield from self.option_commands()

    # ------------------------------------------------------------------ sidebar

    def action_toggle_sidebar(self) -> None:
        """Hidden: show it and go there. Shown but elsewhere: go there. In it: hide it."""
        sidebar = self.query_one(SessionsSidebar)
        focused = self.focused
        inside = focused is not None and sidebar in focused.ancestors_with_self
        if sidebar.display and inside:
            sidebar.display = False
            self.focus_prompt()
            return
        if not sidebar.display:
            sidebar.display = True
            sidebar.reload()
        self.set_focus(sidebar.session_list)

    @on(SessionsSidebar.LoadMore)
    def on_sidebar_load_more(self, event: SessionsSidebar.LoadMore) -> None:
        event.stop()
        link = self.link
        sidebar = self.query_one(SessionsSidebar)
        if link is None or link.agent is None or not self.agent_alive or not link.agent.can_list:
            # Not yet: asked again once the agent is ready (see _on_agent_ready).
            sidebar.set_loading(False)
            return
        cwd, cursor, archived = event.cwd, event.cursor, event.archived

        async def load() -> None:
            try:
                await link.list_sessions(cwd, cursor, archived=archived)
            except (AcpError, RpcError) as error:
                sidebar.set_loading(False, error=str(error))
                return
            sidebar.set_loading(False)
            sidebar.refresh_rows()

        link.spawn(load, "list sessions")

    @on(SessionsSidebar.Open)
    def on_sidebar_open(self, event: SessionsSidebar.Open) -> None:
        event.stop()
        self.open_session(event.session_id)

    @on(SessionsSidebar.Leave)
    def on_sidebar_leave(self, event: SessionsSidebar.Leave) -> None:
        event.stop()
        if self._offering_sessions:
            self._offering_sessions = False
            self._set_status("")
        self.focus_prompt()

    @on(SessionsSidebar.NewSession)
    def on_sidebar_new_session(self, event: SessionsSidebar.NewSession) -> None:
        event.stop()
        self.action_new_session()

    def open_session(self, session_id: str) -> None:
        """Switch to a live session at once, else resume / load it through the agent."""
        link = self.link
        if link is None or not self.agent_alive:
            self.notify(
                f"The agent is not running: press {self._restart_key()} to restart it.",
                severity="warning",
            )
            return
        self._focus_prompt_on_open = True
        if session_id == self.session_id:
            self.focus_prompt()
            return
        agent = link.agent
        state = self.store.get(session_id)
        if (
            not link.is_open(session_id)
            and agent is not None
            and not (agent.can_load or agent.can_resume)
        ):
            self.notify(
                f"{line_of(agent.display_name, 80)} cannot reopen past sessions (it supports neither "
                "session/resume nor session/load).",
                severity="warning",
                timeout=8,
            )
            return
        if state is not None and state.replaying:
            return
        self._explicit_open = session_id

        async def open_it() -> None:
            try:
                await link.open_session(session_id)
            except (AcpError, RpcError) as error:
                if isinstance(error, AgentExitedError):
                    raise
                known = self.store.get(session_id)
                if session_is_gone(error) and not (known is not None and known.listed):
                    # The agent does not have it: a row that can never open goes.
                    self.index.forget(session_id)
                    self.store.forget(session_id)
                raise

        link.spawn(open_it, "open session")

    def _sidebar_target(self) -> str | None:
        return self.query_one(SessionsSidebar).highlighted_session_id()

    def action_close_session(self) -> None:
        link, session_id = self.link, self._sidebar_target()
        if link is None or session_id is None:
            return
        link.spawn(lambda: link.close_session(session_id), "close session")
        self.notify("Asked the agent to close the session.")

    def action_delete_session(self) -> None:
        link, session_id = self.link, self._sidebar_target()
        if link is None or session_id is None:
            return
        from acp_tui.ui.screens.confirm import ConfirmScreen

        state = self.store.get(session_id)
        title = display_title(state.display_title if state else session_id, 120)

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return

            async def delete() -> None:
                await link.delete_session(session_id)
                self.index.forget(session_id)
                self.notify(f"Deleted “{title}”.")

            link.spawn(delete, "delete session")

        self.app.push_screen(
            ConfirmScreen(
                "Delete session", f"Delete “{title}”? The agent removes it for good.", "Delete"
            ),
            confirmed,
        )

    # ------------------------------------------------------------------ queue

    async def _draw_queue(self) -> None:
        container = self.query_one("#queue", Vertical)
        await container.remove_children()
        items = self.prompts.items(self._queue_key())
        container.set_class(bool(items), "-visible")
        if items:
            await container.mount_all([QueuedItem(item) for item in items])

    @on(Button.Pressed, "QueuedItem .remove")
    def on_queue_remove(self, event: Button.Pressed) -> None:
        item = event.button.parent
        if isinstance(item, QueuedItem):
            if item.item.editing:
                self.query_one(PromptEditor).set_draft("")
            key = self._queue_key()
            self.prompts.remove(key, item.item.queue_id)
            self._flush(key)

    @on(Button.Pressed, "QueuedItem .edit")
    def on_queue_edit(self, event: Button.Pressed) -> None:
        item = event.button.parent
        if isinstance(item, QueuedItem):
            prompt = self.query_one(PromptEditor)
            if prompt.draft.strip():
                self.notify("Send or clear what you are typing first.", severity="warning")
                return
            # Held back from sending until the edit is saved (Enter) or abandoned (Escape).
            if self.prompts.begin_edit(self._queue_key(), item.item.queue_id) is None:
                self.notify("That message has been sent already.")
                return
            prompt.set_draft(item.item.text)
            prompt.text_area.focus()

    def _finish_edit(self, session_id: str | None, typed: str) -> str:
        """Leaving a session while editing one of its queued messages: a non-blank edit is
        saved, a blank one abandoned. Returns what remains of the draft."""
        editing = self.prompts.editing(session_id)
        if editing is None:
            return typed
        if typed.strip():
            self.prompts.save_edit(session_id, editing.queue_id, typed)
        else:
            self.prompts.abandon_edit(session_id, editing.queue_id)
        self._flush(session_id)
        return ""

    # ------------------------------------------------------------------ permissions

    async def _present_permission(
        self, pending: PendingPermission, position: int, total: int
    ) -> str | None:
        from acp_tui.ui.screens.permission import present_permission

        tool_call: ToolCall | None = None
        session_label: str | None = None
        state = self.store.get(pending.session_id) if pending.session_id else None
        if state is not None:
            entry = state.tool_index.get(pending.tool_call_id or "")
            if isinstance(entry, ToolCall):
                tool_call = entry
            if pending.session_id != self.session_id:
                session_label = display_title(state.display_title, 80)
        if not self.app.app_focus and self.settings.notify_when_unfocused:
            self.app.bell()
        return await present_permission(
            self.app,
            pending,
            position,
            total,
            tool_call=tool_call,
            session_label=session_label,
            forward_typing=self.query_one(PromptEditor).take_typing,
        )

    def _on_permission_queue_changed(self, position: int, total: int) -> None:
        """Another request queued or went: the open dialog says "k of n", so the person knows
        that another one will take its place."""
        from acp_tui.ui.screens.permission import PermissionScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, PermissionScreen) and not screen.answered and total:
                screen.set_position(position, total)

    def _on_permission_answered(self, session_id: str, text: str) -> None:
        if session_id:
            self.store.add_notice(session_id, text, severity="info")

    async def _present_elicitation(
        self, pending: PendingElicitation, position: int, total: int
    ) -> dict[str, Any] | None:
        from acp_tui.ui.screens.elicitation import present_elicitation

        state = self.store.get(pending.session_id) if pending.session_id else None
        label = None
        if state is not None and pending.session_id != self.session_id:
            label = display_title(state.display_title, 80)
        if not self.app.app_focus and self.settings.notify_when_unfocused:
            self.app.bell()
        return await present_elicitation(
            self.app,
            pending,
            position,
            total,
            session_label=label,
            forward_typing=self.query_one(PromptEditor).take_typing,
        )

    def _on_elicitation_queue_changed(self, position: int, total: int) -> None:
        from acp_tui.ui.screens.elicitation import ElicitationScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, ElicitationScreen) and not screen.answered and total:
                screen.set_position(position, total)

    async def _choose_auth(self, methods: list[AuthMethod], reason: str) -> str | None:
        from acp_tui.ui.screens.auth import AuthScreen

        agent = self.link.agent if self.link else None
        return await self._answer_of(
            AuthScreen(agent.display_name if agent else "The agent", methods, reason)
        )

    async def _run_terminal_login(self, login: TerminalLogin) -> int:
        from acp_tui.ui import terminal_login

        agent = self.link.agent if self.link else None
        name = sanitize_terminal_text(agent.display_name if agent else "The agent")
        status = await terminal_login.run_terminal_login(self.app, login, name)
        if status == 0:
            self.notify(f"Signed in ({login.method.label})", timeout=5, markup=False)
        return status

    async def _answer_of(self, screen: Screen[Any]) -> Any:
        """Push a modal and wait for what it dismisses with (callable outside workers)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, done)
        return await future

    async def _approve_outside(self, request: OutsideRequest) -> bool:
        """A file outside the project, or a command outside it or with an environment that
        changes what runs: the person decides, seeing every value the agent sent."""
        from acp_tui.services import outside
        from acp_tui.ui.screens.confirm import ConfirmScreen

        allowed = await self._answer_of(
            ConfirmScreen(
                outside.title(request),
                outside.summary(request),
                confirm_label="Allow this once",
                cancel_label="Refuse",
                details=outside.details(request),
            )
        )
        return bool(allowed)


def data_dir(settings: AppSettings) -> Path:
    if settings.data_dir is not None:
        return settings.data_dir
    return locations.data_dir()


def history_path(settings: AppSettings) -> Path:
    return locations.history_file(data_dir(settings))
