"""The chat screen: transcript, prompt, status, queue, mode/model selectors and the gauge.

Attributes down, messages up: the screen owns the store and takes its agent's controller
from the app's workspace; widgets read what the screen gives them and post messages. The store
wakes the screen at most once per frame (:meth:`ChatScreen._schedule_refresh`), however many
updates arrive.

This module composes the screen, wires it, paces its frames and hands the person's intents
to the view's model (:class:`~acp_tui.ui.models.chat.ChatModel`: the session on screen, the
drafts, the new session, sending and cancelling; no Textual there). The view's other jobs are
plain objects it owns, each given what it needs: dialogs (:mod:`.modals`), the palette
(:mod:`.palette`), copy/export/inspect (:mod:`.tools`), branch/rename/archive
(:mod:`.session_actions`), the local session index (:mod:`.local_index`), the session's options
(:mod:`.options`) and the agents not running (:mod:`.other_agents`). Still mixed in: the
agent's lifecycle (:mod:`.agent`), sessions and switching (:mod:`.sessions`) and what needs the
person in the sessions not on screen (:mod:`.attention`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches, QueryType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Select, TextArea

from acp_tui.config.history import InputHistory
from acp_tui.pace.input_first import give_way
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import ProcessSetup
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.prompts.attachments import BuiltPrompt
from acp_tui.session.workspace.directory import SessionDirectory
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_INFO,
    PART_MODES,
    PART_RESET,
    PART_STATE,
    PART_TITLE,
    PART_USAGE,
)
from acp_tui.store.session import SessionState
from acp_tui.text.usage import format_percent
from acp_tui.ui.keymap import effective_keys, key_label, key_words
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.palette import AgentCommand, AgentCommands
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat.agent import AgentLifecycle
from acp_tui.ui.screens.chat.agent_name import agent_label, background_title
from acp_tui.ui.screens.chat.attention import ChatAttention
from acp_tui.ui.screens.chat.common import display_title, history_path
from acp_tui.ui.screens.chat.local_index import IndexSync
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.screens.chat.options import SessionOptions
from acp_tui.ui.screens.chat.other_agents import OtherAgents
from acp_tui.ui.screens.chat.pacing import FramePacer
from acp_tui.ui.screens.chat.palette import ChatPalette, ViewActions
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.screens.chat.sessions import SessionSwitching
from acp_tui.ui.screens.chat.tools import ChatTools
from acp_tui.ui.textual_patches import install_screen
from acp_tui.ui.toasts import toast_text
from acp_tui.ui.typing_focus import TypingRouter
from acp_tui.ui.widgets.agent_banner import AgentBanner
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.chat_header import ChatHeader
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.option_controls import OptionChosen
from acp_tui.ui.widgets.prompt import PromptEditor, PromptTextArea, text_only
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.status_line import NewOutputMarker, StatusLine
from acp_tui.ui.widgets.transcript import ThoughtView, ToolCallView, Transcript

log = logging.getLogger(__name__)

#: Changes worth writing to the local session index (never per streamed chunk).
SIDEBAR_MIN_WIDTH = 100
REMEMBERED_PARTS = frozenset({"title", "info", "modes", "config", "state"})
#: Changes that may change what a session's row says about it (working, waiting...).
LIVE_PARTS = frozenset({PART_STATE, PART_INFO})
FOOTER_COMPACT_WIDTH = 110


@dataclass
class NotDrawn:
    """What changed in a view's session while the view was behind another agent's."""

    session_id: str | None = None
    parts: set[str] = field(default_factory=set)
    entries: set[int] = field(default_factory=set)

    def clear(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.parts = set()
        self.entries = set()


#: The status line while the app quits.
QUITTING_STATUS = "quitting: stopping the agent…"


class ChatScreen(
    AgentLifecycle,
    SessionSwitching,
    ChatAttention,
    Screen[None],
):
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
        # Priority: the prompt has the focus when a toast says "ctrl+l to go there". Not Ctrl+G:
        # that is the app's next agent.
        Binding(
            "ctrl+l",
            "jump_waiting",
            "Go to waiting",
            show=False,
            priority=True,
            id="jump-waiting",
        ),
        # Shift+Tab from the prompt, as in Claude Code (elsewhere it moves the focus back: the
        # last binding of the three). Priority: the prompt would type the "t" of Alt+T. Each
        # key has a twin not listed in the footer, which works where the footer has no room
        # for it (see options.FOOTER_KEYS_WIDTH); the twin shares the id, so a remap
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
        # Without a thinking level to cycle, the key says so: it must not fall through to the
        # prompt and type a "t". The same id, so a remapped key moves with it.
        Binding(
            "alt+t",
            "cycle_thought_level('none')",
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

    busy: reactive[bool] = reactive(False, repaint=False)

    def __init__(
        self,
        settings: AppSettings,
        workspace: Workspace | None = None,
        ui: UiSettings | None = None,
    ) -> None:
        super().__init__()
        assert settings.agent is not None, "the chat screen shows an agent"
        self.settings = settings
        #: The agent of this view, resolved (its key is its identity in the workspace).
        self.spec: AgentSpec = settings.agent
        self.ui_settings = ui or UiSettings()
        #: Where the controller of this screen's agent lives (the app's: it outlives the
        #: screen's widgets and knows every agent to stop). A screen on its own makes one.
        self.workspace = workspace if workspace is not None else Workspace()
        replay = settings.replay
        #: The store, the queue, the broker and the elicitation queue of this view's agent,
        #: kept across its restarts; each start's controller is made from them.
        self.parts = AgentParts(
            self.spec,
            policy=settings.permission_policy,
            process=ProcessSetup(
                log_dir=settings.log_dir,
                recorder=settings.recorder,
                process_factory=replay.process_for if replay else settings.process_factory,
                machine_access=replay is None,
            ),
            on_queue_changed=self._on_queue_changed,
        )
        self.store = self.parts.store
        self.broker = self.parts.broker
        self.elicitations = self.parts.elicitations
        #: Everything sent that has not gone out yet, per session (survives agent restarts).
        self.prompts = self.parts.prompts
        #: What the view shows and the person's intents (no Textual there).
        self.model = ChatModel(
            store=self.store,
            prompts=self.prompts,
            broker=self.broker,
            elicitations=self.elicitations,
            controller=lambda: self.link,
            notify=self.notify,
            keys=lambda binding_id, fallback="(no key)": key_label(self, binding_id, fallback),
            # ``--continue`` or ``--resume ID``: the view is not the new session's (its title
            # and last mode and model showed there until the reopened session replaced them).
            reopening_at_start=settings.resume is not None
            and (bool(settings.resume) or settings.continue_latest),
        )
        self.model.show = self._show
        self.dialogs = ChatDialogs(
            self.model,
            app=lambda: self.app,
            run_worker=self.run_worker,
            forward_typing=lambda key, text: self.query_one(PromptEditor).take_typing(key, text),
            agent=lambda: agent_label(self.spec, self.link),
        )
        self.dialogs.attach(self.broker, self.elicitations)
        self.options = SessionOptions(
            self.model,
            bar=lambda: self.query_one(ChatBar),
            push=lambda popup, closed: self.app.push_screen(popup, closed),
            refresh_bindings=self.refresh_bindings,
            typing_in_prompt=lambda: (
                self.focused is None or self.focused is self._typing.prompt_area()
            ),
            width=lambda: self.size.width,
            mark_mode=lambda name: self.query_one(ChatHeader).set_mode_warning(name),
            ask=self.dialogs.ask_yes_no,
        )
        self.index_sync = IndexSync(
            self.model,
            settings,
            self.spec,
            reapply=self.options.reapply,
            spec_of=self.workspace.spec_of,
        )
        self.session_actions = SessionActions(
            self.model,
            push=lambda dialog, answered: self.app.push_screen(dialog, answered),
            confirm_delete=self.dialogs.confirm_delete,
            origin=self.dialogs.origin,
        )
        self.tools = ChatTools(
            self.model,
            settings,
            push=lambda screen: self.app.push_screen(screen),
            copy=lambda text: self.app.copy_to_clipboard(text),
            gauge=lambda: self.query_one(ContextGauge),
            announce=lambda message, **how: self.app.notify(message, **how),
        )
        self.other_agents = OtherAgents(
            self.workspace,
            settings,
            self.spec,
            notify=self.notify,
            sidebar=lambda: self.query_one(SessionsSidebar),
            app=lambda: self.app,
        )
        self.palette = ChatPalette(
            self.model,
            actions=ViewActions(
                new_session=self.action_new_session,
                toggle_thoughts=self.action_toggle_thoughts,
                toggle_sidebar=self.action_toggle_sidebar,
                restart_agent=self.action_restart_agent,
            ),
            tools=self.tools,
            sessions=self.session_actions,
            dialogs=self.dialogs,
            key_words=lambda binding_id: next(
                (key_words(key) for key in effective_keys(self, binding_id)), None
            ),
            highlighted=lambda: self.query_one(SessionsSidebar).highlighted_session_id(),
            other_agents=self.other_agents.commands,
            options=self.options.commands,
            agent_switches=lambda: getattr(self.app, "agent_switch_commands", tuple)(),
        )
        self.model.focus_prompt = self.focus_prompt
        self.model.status_changed = self._draw_status
        self._started_once = False
        self.thoughts_visible = True
        self._refresh_pending = False
        self._refreshing = False
        self._refresh_again = False
        #: What changed while this view was behind another agent's, not drawn yet.
        self._behind = NotDrawn()
        self._sidebar_behind = False
        self._refresh_tasks: set[asyncio.Task[None]] = set()
        #: Held while the transcript is synced or switched to another session: the sync runs
        #: in its own task and must never interleave with a switch.
        self._transcript_lock = asyncio.Lock()
        #: When the transcript may paint: the prompt's echo first (see pacing.py).
        self.pacer = FramePacer()
        self._typing_widget: Widget | None = None
        self._render_error_shown = False
        self._typing = TypingRouter(
            self,
            lambda: self.query_one(PromptEditor).text_area,
            keeps_keys=(SessionsSidebar,),
            prompt_sends=lambda key: self.query_one(PromptEditor).sends_or_breaks(key),
        )
        # The compositor, paint gate and restyle patches (acp_tui/ui/textual_patches).
        install_screen(self, pacer=self.pacer, typing_target=self._typing_target)

    @property
    def link(self) -> SessionController | None:
        """The controller of this screen's agent (its latest run), from the workspace."""
        return self.workspace.get(self.spec.key)

    @property
    def session_id(self) -> str | None:
        """The session on screen; None: the new session (created by the first message)."""
        return self.model.session_id

    @property
    def agent_alive(self) -> bool:
        """The agent answered initialize and has not exited since."""
        return self.model.agent_alive

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
        asked, self.model.focus_prompt_on_open = self.model.focus_prompt_on_open, False
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
        what is shown here often quotes the agent. From a view not on screen (several agents),
        the title names its agent."""
        super().notify(
            toast_text(message),
            title=background_title(self.app, self, title, self.spec, self.link),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def on_resize(self, event: events.Resize) -> None:
        # Under this width the footer's keys lose their padding, so that they all fit.
        self.query_one(KeyFooter).compact = event.size.width < FOOTER_COMPACT_WIDTH
        self.refresh_bindings()  # the option keys are listed only when there is room

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ChatHeader()
        with Horizontal(id="body"):
            yield SessionsSidebar(self.store, self.spec.cwd, id="sidebar")
            with Vertical(id="main"):
                yield AgentBanner(id="banner")
                yield Transcript(id="transcript", terminal_lookup=self._terminal_state)
                yield StatusLine(id="status-line")
                yield QueueView(id="queue")
                yield PromptEditor(id="prompt", history=InputHistory(history_path(self.settings)))
        yield ChatBar(id="bar")
        yield KeyFooter()

    def on_mount(self) -> None:
        # Subscribe before anything touches the store: the store wakes only on clean -> dirty.
        self.store.subscribe(self._schedule_refresh)
        self.index_sync.open()
        self.query_one(ChatHeader).set_policy(self.settings.permission_policy)
        prompt = self.query_one(PromptEditor)
        prompt.cwd = self.spec.cwd
        prompt.builder = self._build_prompt
        show_sidebar = self.ui_settings.show_sidebar
        if show_sidebar is None:
            show_sidebar = self.app.size.width >= SIDEBAR_MIN_WIDTH
        sidebar = self.query_one(SessionsSidebar)
        sidebar.display = show_sidebar
        sidebar.model.agent_key = self.spec.key
        if self.spec.label:
            self.workspace.labels[self.spec.key] = self.spec.label
        sidebar.model.directory = SessionDirectory(
            self.workspace,
            primary=self.spec.key,
            names=self.workspace.labels,
            index_records=self.index_sync.records_of,
        )
        self.dialogs.present(self.broker, self.elicitations)
        self._attention_ready()
        self.set_interval(1.0, self._tick_elapsed)
        self._draw_new_session()
        self.start_agent()

    async def on_unmount(self) -> None:
        for task in list(self._refresh_tasks):
            task.cancel()
        self._leave_attention()
        await self.stop_agent()

    # ------------------------------------------------------------------ store -> screen

    def _schedule_refresh(self) -> None:
        if self._refresh_pending:
            return
        self._refresh_pending = True
        self.set_timer(self.pacer.delay(), self._start_refresh)

    @on(TextArea.Changed)
    def _note_typing(self, event: TextArea.Changed) -> None:
        # Not stopped: the prompt editor has its own use for it. Typing is a key that changed
        # the text; text set by the program (an edit taken from the queue) is not, and an
        # emptied prompt (a message sent) ends the typing: what follows is drawn at once.
        area = event.text_area
        typed = isinstance(area, PromptTextArea) and area.change_was_typed()
        if not area.text:
            self.pacer.stopped_typing()
        elif typed:
            self.pacer.typed()

    def key_on_its_way(self) -> None:
        """The app received a key that edits text: if it goes to the prompt, the pacer knows
        a key is on its way (whole frames and background work wait for its echo, briefly)."""
        if self.is_current and not self._typing_elsewhere():
            self.pacer.key_arrived()
        else:
            self.pacer.key_not_for_the_prompt()  # heard early by the app, going elsewhere

    def _typing_elsewhere(self) -> bool:
        focused = self.focused
        return focused is not self._typing_target() and self._typing.takes_typing(focused)

    def _typing_target(self) -> Widget | None:
        target = self._typing_widget
        if target is None or not target.is_attached:
            try:
                target = self._typing_widget = self.query_one(PromptEditor).text_area
            except NoMatches:
                return None
        return target

    def _start_refresh(self) -> None:
        # Off the screen's own message queue: Textual paints a screen only when its queue
        # goes idle, so a sync awaited here would hold every paint (the prompt's echo too)
        # for as long as an agent keeps the transcript busy.
        task = asyncio.create_task(self._refresh(), name="chat-refresh")
        self._refresh_tasks.add(task)
        task.add_done_callback(self._refresh_tasks.discard)

    async def _refresh(self) -> None:
        self._refresh_pending = False
        if not self.is_attached:  # also once the app exits
            return  # the screen is going away (quit): nothing left to draw on
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        await give_way()  # a key on its way to the prompt is echoed first
        started = self.pacer.frame_started()
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
        self.pacer.frame_painted(started)

    async def _apply_changes(self) -> None:
        changes = self.store.take_changes()
        # A view behind another agent's is not drawn: what its transcript, header, gauge and
        # list would show waits until it comes to the front (on_screen_resume), where it is
        # drawn at once. Mounting and drawing three agents' replies at once where one is seen
        # kept the keys typed into that one waiting (issue 19). What is remembered and told
        # (the index, "needs you") goes on for every view.
        in_front = self._view_in_front()
        if SessionsSidebar.wants(changes):
            if in_front:
                with self._step("sidebar"):
                    self.query_one(SessionsSidebar).refresh_rows()
            else:
                self._sidebar_behind = True
        for changed_id, changed_parts in changes.sessions.items():
            if changed_parts & REMEMBERED_PARTS:
                changed = self.store.get(changed_id)
                if changed is not None:
                    with self._step("session index"):
                        self.index_sync.remember(changed)
                    self.model.note_turns(changed_id, changed)
            if PART_COMMANDS in changed_parts:
                with self._step("session index"):
                    self.index_sync.remember_commands(self.store.get(changed_id))
            if not changed_parts.isdisjoint(LIVE_PARTS):
                with self._step("attention"):
                    self._note_live(changed_id)
        session_id = self.session_id
        if session_id is None:
            return
        parts = set(changes.sessions.get(session_id, ()))
        entries = set(changes.entries.get(session_id, ()))
        behind = self._behind
        if behind.session_id == session_id:
            parts |= behind.parts
            entries |= behind.entries
        behind.clear(session_id)
        state = self.store.get(session_id)
        if not in_front:
            behind.parts, behind.entries = parts, entries
            if state is not None and PART_STATE in parts:
                # Whether a turn runs is state (the cancel key reads it), not only a drawing.
                with self._step("activity"):
                    self._draw_activity(state)
            return
        if state is None:
            return
        transcript = self.query_one(Transcript)
        with self._step("transcript"):
            if PART_RESET in parts:
                await transcript.show_session(session_id, list(state.transcript))
            elif entries:
                await transcript.sync_entries(state.transcript, entries)
        with self._step("terminals"):
            transcript.refresh_terminals()
        self._draw_session_parts(state, parts)

    @on(events.ScreenResume)
    def _draw_what_waited(self) -> None:
        """Back in front: what changed while another agent's view was shown is drawn now."""
        if self._sidebar_behind:
            self._sidebar_behind = False
            self.query_one(SessionsSidebar).refresh_rows()
        if self._behind.parts or self._behind.entries:
            self._schedule_refresh()

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
                self.options.draw(state)
        if PART_COMMANDS in parts:
            with self._step("commands"):
                self.query_one(PromptEditor).commands = list(state.commands or [])
                self.index_sync.remember_commands(state)

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
        self.tools.context_details()

    def _draw_activity(self, state: SessionState) -> None:
        self.busy = state.activity in ("running", "requires_action")
        self._set_status(self.model.activity_status(state))

    def _draw_status(self) -> None:
        """The status line from the session on screen (a notice of the moment, such as
        "starting the agent…", is over): what its turn is doing, or how it ended."""
        self._set_status(self.model.status())

    def _set_status(self, text: str) -> None:
        self.query_one(StatusLine).set_text(QUITTING_STATUS if self.model.quitting else text)

    def show_quitting(self) -> None:
        """The app is quitting: say so at once. Stopping an agent can take seconds (its
        turn's end, its grace before TERM), and meanwhile "working… 1 s" read as a freeze."""
        self.model.quitting = True
        self._set_status(QUITTING_STATUS)

    def watch_busy(self, busy: bool) -> None:
        # On the status line only: a class on the screen would restyle every widget on it.
        self.query_one(StatusLine).set_busy(busy)
        self.refresh_bindings()

    def _tick_elapsed(self) -> None:
        """Once a second: the clocks of working sessions move."""
        self.query_one(SessionsSidebar).tick_working()
        state = self.model.state()
        if state is not None and state.activity == "running" and not state.replaying:
            self._draw_activity(state)

    # ------------------------------------------------------------------ intents

    @on(PromptEditor.Submitted)
    def on_prompt_submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        # What is sent, and what comes back, is at the bottom: go there.
        self.query_one(Transcript).to_bottom()
        # Typed in another session than the one on screen now (a key that switched the view
        # was handled since): it goes where it was typed. Otherwise, as ever: the view's.
        self.model.send(event.text, event.blocks, target=self.model.send_target(event.target))

    def _build_prompt(self, text: str) -> BuiltPrompt:
        """What is sent for ``text``: as the agent's controller builds it (``@file``s
        attached as the agent takes them), as ``acp-tui ask`` sends it."""
        link = self.link
        return link.build_prompt(text) if link is not None else text_only(text)

    def after_typed(self, switch: Callable[[], object]) -> None:
        """Run ``switch`` (a change of session) once the prompt has handled the keys typed
        before it: a key bound with priority runs as it arrives, before the prompt has taken
        an Enter typed just before it, whose message must go to the session it was typed in."""
        focused = self.focused
        if isinstance(focused, PromptTextArea):
            focused.call_later(switch)
        else:
            switch()

    def send_text(
        self, text: str, blocks: list[dict[str, Any]] | None = None, *, target: str | None = None
    ) -> None:
        """Send, or queue (see :meth:`ChatModel.send`)."""
        self.model.send(text, blocks, target=target)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("scroll_transcript", "transcript_top", "transcript_bottom"):
            # The sidebar's list and an open selector page themselves.
            focused = self.focused
            return focused is None or not any(
                isinstance(node, SessionsSidebar | Select) for node in focused.ancestors_with_self
            )
        if action == "cancel_turn":
            return self.model.can_cancel(self.busy)
        if action == "restart_agent":
            return not self.model.agent_alive or self.model.unresponsive
        if action in ("cycle_mode", "cycle_thought_level"):
            return self.options.action_allowed(action, parameters)
        return True

    def action_cancel_turn(self) -> None:
        cancelled = self.model.cancel(self.busy)
        if cancelled == "edit":
            # Escape while editing a queued message: it stays as it was, and may go out.
            self.query_one(PromptEditor).set_draft("")
        elif cancelled == "turn":
            self._set_status("cancelling…")

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The view's entries of the command palette (the app lists them)."""
        return self.palette.system_commands()

    def agent_commands(self) -> Iterable[AgentCommand]:
        """The palette's entries in the agent's words (:class:`AgentCommands` reads them)."""
        return self.palette.agent_commands()

    def action_cycle_mode(self, _how: str = "") -> None:
        """The next mode (Shift+Tab from the prompt, as in Claude Code)."""
        self.options.cycle("mode")

    def action_cycle_thought_level(self, _how: str = "") -> None:
        """The next thinking level (Alt+T)."""
        self.options.cycle("thought_level")

    @on(OptionChosen)
    def _option_chosen(self, event: OptionChosen) -> None:
        event.stop()
        self.options.choose(event.key, event.value)
        # Chosen in the bar: back to the prompt, so the next Enter sends rather than opening
        # the select again.
        self.call_after_refresh(self.focus_prompt)

    @on(ChatBar.OptionsRequested)
    def _options_requested(self, event: ChatBar.OptionsRequested) -> None:
        event.stop()
        self.options.open_popup()

    def action_copy_last_reply(self) -> None:
        self.tools.copy_last_reply()

    @on(SessionsSidebar.Branch)
    @on(SessionsSidebar.Rename)
    @on(SessionsSidebar.Archive)
    def _act_on_row(
        self, event: SessionsSidebar.Branch | SessionsSidebar.Rename | SessionsSidebar.Archive
    ) -> None:
        """A key on a sidebar row: branch, rename or archive that session."""
        event.stop()
        if isinstance(event, SessionsSidebar.Branch):
            self.session_actions.branch(event.session_id)
        elif isinstance(event, SessionsSidebar.Rename):
            self.session_actions.rename(event.session_id)
        else:
            self.session_actions.archive(event.session_id, event.archived)

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

    # ------------------------------------------------------------------ the queue

    def _on_queue_changed(self, session_id: str | None) -> None:
        if session_id == self.model.queue_key() and self.is_mounted:
            self.call_later(self._draw_queue)

    async def _draw_queue(self) -> None:
        await self.query_one(QueueView).show(self.prompts.items(self.model.queue_key()))

    @on(QueuedItem.RemoveRequested)
    def _remove_queued(self, event: QueuedItem.RemoveRequested) -> None:
        event.stop()
        item = event.queued.item
        if item.editing:
            self.query_one(PromptEditor).set_draft("")
        self.model.remove_queued(item.queue_id)

    @on(QueuedItem.EditRequested)
    def _edit_queued(self, event: QueuedItem.EditRequested) -> None:
        event.stop()
        prompt = self.query_one(PromptEditor)
        text = self.model.edit_queued(event.queued.item.queue_id, prompt.draft)
        if text is not None:
            prompt.set_draft(text)
            prompt.text_area.focus()
