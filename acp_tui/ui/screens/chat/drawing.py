"""The chat view's drawing: the store's changes onto the screen, once a frame, and the view of
the session on screen (its transcript, header, bar, gauge, status line and queue).

The store wakes :class:`ChatDrawing` at most once per frame (:meth:`ChatDrawing.schedule`),
however many updates arrive; the changes are applied in a task of their own, off the screen's
message queue (Textual paints a screen only when its queue goes idle), paced by the screen's
:class:`~acp_tui.ui.screens.chat.pacing.FramePacer` so that the prompt's echo comes first. A
view behind another agent's is not drawn: what changed waits until it comes to the front.

:class:`ChatWidgets` holds the screen's widgets (made in its ``compose``); :class:`ChatDrawing`
is a plain object the screen owns, given them, the view's model and the parts it tells what
changed (the local index, "what needs you", the options).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from textual.widget import Widget
from textual.widgets import TextArea

from acp_tui.config.history import InputHistory
from acp_tui.pace.input_first import give_way
from acp_tui.store import SessionStore
from acp_tui.store.changes import (
    PART_COMMANDS,
    PART_CONFIG,
    PART_INFO,
    PART_MODES,
    PART_RESET,
    PART_STATE,
    PART_SUGGESTIONS,
    PART_TITLE,
    PART_USAGE,
)
from acp_tui.store.session import SessionState
from acp_tui.text.usage import format_percent
from acp_tui.ui.models import Notify
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.screens.chat.attention import Attention
from acp_tui.ui.screens.chat.common import display_title
from acp_tui.ui.screens.chat.local_index import IndexSync
from acp_tui.ui.screens.chat.options import SessionOptions
from acp_tui.ui.screens.chat.pacing import FramePacer
from acp_tui.ui.screens.chat.subagents import ChatMain
from acp_tui.ui.screens.chat.suggestions import ChatSuggestions
from acp_tui.ui.widgets.agent_banner import AgentBanner
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.chat_header import ChatHeader
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.own_status import OwnStatusLine
from acp_tui.ui.widgets.prompt import PromptEditor, PromptTextArea
from acp_tui.ui.widgets.queue_view import QueueView
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.status_line import StatusLine
from acp_tui.ui.widgets.suggestion_chips import SuggestionChips
from acp_tui.ui.widgets.tool_call_view import TerminalLookup
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.welcome import Welcome

__all__ = ["QUITTING_STATUS", "ChatDrawing", "ChatWidgets", "Scheduling"]

log = logging.getLogger(__name__)

#: Changes worth writing to the local session index (never per streamed chunk).
REMEMBERED_PARTS = frozenset({"title", "info", "modes", "config", "state"})
#: Changes that may change what a session's row says about it (working, waiting...).
LIVE_PARTS = frozenset({PART_STATE, PART_INFO})
#: What a session's view draws when it is shown.
EVERY_PART = frozenset(
    {PART_TITLE, PART_STATE, PART_USAGE, PART_MODES, PART_CONFIG, PART_COMMANDS, PART_SUGGESTIONS}
)
#: The status line while the app quits.
QUITTING_STATUS = "quitting: stopping the agent…"


class ChatWidgets:
    """The chat screen's widgets, made as its ``compose`` lays them out (its parts draw on
    them; none is replaced while the screen lives)."""

    header: ChatHeader
    sidebar: SessionsSidebar
    main: ChatMain
    banner: AgentBanner
    welcome: Welcome
    transcript: Transcript
    status: StatusLine
    queue: QueueView
    prompt: PromptEditor
    suggestions: SuggestionChips
    bar: ChatBar
    gauge: ContextGauge
    own_status: OwnStatusLine
    footer: KeyFooter

    def make(
        self, store: SessionStore, cwd: str, terminals: TerminalLookup, history: InputHistory
    ) -> None:
        """Make the widgets: the sidebar lists ``store``'s sessions (``cwd`` first), the
        transcript finds the agent's terminals through ``terminals``, the prompt remembers
        what was sent in ``history``."""
        self.header = ChatHeader()
        self.sidebar = SessionsSidebar(store, cwd, id="sidebar")
        self.main = ChatMain(id="main")
        self.banner = AgentBanner(id="banner")
        self.welcome = Welcome(id="welcome")
        self.transcript = Transcript(id="transcript", terminal_lookup=terminals)
        self.transcript.session_lookup = store.get
        self.status = StatusLine(id="status-line")
        self.queue = QueueView(id="queue")
        self.prompt = PromptEditor(id="prompt", history=history)
        self.suggestions = SuggestionChips(id="suggestions")
        self.bar = ChatBar(id="bar")
        self.gauge = self.bar.gauge
        self.own_status = OwnStatusLine(id="own-status")
        self.footer = KeyFooter()


@dataclass(frozen=True, slots=True)
class Scheduling:
    """The screen's ways to run something later: ``timer(delay, callback)``,
    ``next_turn(callback)`` (once the messages queued meanwhile are handled),
    ``after_paint(callback, *args)``; and whether it is ``mounted`` and still ``attached``
    (a screen going away draws nothing)."""

    timer: Callable[[float, Callable[[], object]], object]
    next_turn: Callable[[Callable[[], object]], object]
    after_paint: Callable[..., object]
    mounted: Callable[[], bool]
    attached: Callable[[], bool]


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


class ChatDrawing:
    """Draw the view (see the module docstring). ``set_busy`` marks whether a turn runs in
    the session on screen (the screen's ``busy``); ``focused`` is the widget with the focus,
    ``focus_prompt`` gives it to the prompt."""

    def __init__(
        self,
        model: ChatModel,
        widgets: ChatWidgets,
        *,
        pacer: FramePacer,
        scheduling: Scheduling,
        index_sync: IndexSync,
        attention: Attention,
        options: SessionOptions,
        set_busy: Callable[[bool], None],
        focus_prompt: Callable[[], None],
        focused: Callable[[], Widget | None],
        notify: Notify,
    ) -> None:
        self.model = model
        self.store = model.store
        self.widgets = widgets
        self.pacer = pacer
        self.scheduling = scheduling
        self.index_sync = index_sync
        self.attention = attention
        self.options = options
        self.set_busy = set_busy
        self.focus_prompt = focus_prompt
        self.focused = focused
        self.notify = notify
        self.pending = False
        self.refreshing = False
        self._again = False
        #: What changed while this view was behind another agent's, not drawn yet.
        self._behind = NotDrawn()
        self._sidebar_behind = False
        self._tasks: set[asyncio.Task[None]] = set()
        #: Held while the transcript is synced or switched to another session: the sync runs
        #: in its own task and must never interleave with a switch.
        self._transcript_lock = asyncio.Lock()
        self._error_shown = False
        #: The agent's prompt suggestions under the prompt.
        self.suggestions = ChatSuggestions(widgets)
        #: Called once the session on screen is drawn, and each second: your status line.
        self.drawn: Callable[[], None] = lambda: None

    # ------------------------------------------------------------------ store -> screen

    def idle(self) -> bool:
        """Every store change is on the screen: no refresh scheduled or running, the store
        clean."""
        return not self.pending and not self.refreshing and not self.store.dirty

    def schedule(self) -> None:
        """Draw what changed, once, as soon as the pacer lets a frame go."""
        if self.pending:
            return
        self.pending = True
        self.scheduling.timer(self.pacer.delay(), self._start)

    def stop(self) -> None:
        """The screen goes: no refresh runs on."""
        for task in list(self._tasks):
            task.cancel()

    def _start(self) -> None:
        # Off the screen's own message queue: Textual paints a screen only when its queue
        # goes idle, so a sync awaited here would hold every paint (the prompt's echo too)
        # for as long as an agent keeps the transcript busy.
        task = asyncio.create_task(self._refresh(), name="chat-refresh")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh(self) -> None:
        self.pending = False
        if not self.scheduling.attached():  # also once the app exits
            return  # the screen is going away (quit): nothing left to draw on
        if self.refreshing:
            self._again = True
            return
        self.refreshing = True
        await give_way()  # a key on its way to the prompt is echoed first
        started = self.pacer.frame_started()
        try:
            async with self._transcript_lock:
                await self._apply_changes()
            self.scheduling.after_paint(self.pacer.frame_painted, started)
        except Exception:
            # A drawing bug must never take the conversation down with it: log it, tell the
            # person once, and keep going with the next frame.
            log.exception("refreshing the chat screen failed")
            self.report_error()
        finally:
            self.refreshing = False
        if self._again:
            self._again = False
            self.schedule()

    def text_changed(self, area: TextArea) -> None:
        """Typing is a key that changed the prompt's text; text set by the program (an edit
        taken from the queue) is not, and an emptied prompt (a message sent) ends the typing:
        what follows is drawn at once."""
        typed = isinstance(area, PromptTextArea) and area.change_was_typed()
        if isinstance(area, PromptTextArea):
            self.suggestions.refresh()
        if not area.text:
            self.pacer.stopped_typing()
        elif typed:
            self.pacer.typed()

    def key_on_its_way(self, for_the_prompt: bool) -> None:
        """The app received a key that edits text: if it goes to the prompt, the pacer knows a
        key is on its way (whole frames and background work wait for its echo, briefly)."""
        if for_the_prompt:
            self.pacer.key_arrived()
        else:
            self.pacer.key_not_for_the_prompt()  # heard early by the app, going elsewhere

    def report_error(self) -> None:
        """A drawing failed: said once, in a toast (the details are in the log)."""
        if not self._error_shown:
            self._error_shown = True
            self.notify(
                "A display error occurred (details in the log); the session goes on.",
                severity="error",
            )

    @property
    def error_shown(self) -> bool:
        return self._error_shown

    @contextlib.contextmanager
    def _step(self, what: str) -> Iterator[None]:
        """One step of applying the store's changes: the changes are taken once, so a step
        that fails (a title the index cannot store, a widget that cannot draw) is logged and
        the other steps still run; one bad string never freezes the transcript."""
        try:
            yield
        except Exception:
            log.exception("applying changes: %s failed", what)
            self.report_error()

    async def _apply_changes(self) -> None:
        changes = self.store.take_changes()
        # A view behind another agent's is not drawn: what its transcript, header, gauge and
        # list would show waits until it comes to the front (resumed), where it is drawn at
        # once. Mounting and drawing three agents' replies at once where one is seen kept the
        # keys typed into that one waiting (issue 19). What is remembered and told (the
        # index, "needs you") goes on for every view.
        in_front = self.attention.in_front()
        if SessionsSidebar.wants(changes):
            if in_front:
                with self._step("sidebar"):
                    self.widgets.sidebar.refresh_rows()
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
                    self.attention.note_live(changed_id)
        session_id = self.model.session_id
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
                    self.activity(state)
            return
        if state is None:
            return
        transcript = self.widgets.transcript
        with self._step("transcript"):
            if PART_RESET in parts:
                await transcript.show_session(session_id, list(state.transcript))
            elif entries:
                await transcript.sync_entries(state.transcript, entries)
        with self._step("terminals"):
            transcript.refresh_terminals()
        self.welcome()
        self.session_parts(state, parts)
        with self._step("your status line"):
            self.drawn()

    def resumed(self) -> None:
        """Back in front: what changed while another agent's view was shown is drawn now."""
        if self._sidebar_behind:
            self._sidebar_behind = False
            self.widgets.sidebar.refresh_rows()
        if self._behind.parts or self._behind.entries:
            self.schedule()

    # ------------------------------------------------------------------ a session's parts

    def session_parts(self, state: SessionState | None, parts: set[str] | frozenset[str]) -> None:
        if state is None:
            return
        widgets = self.widgets
        if PART_TITLE in parts or "info" in parts:
            with self._step("title"):
                widgets.header.set_dirs(state.additional_dirs or [])
                title = state.display_title if state.title or state.first_prompt else "New session"
                parent = self.store.get(state.parent_id) if state.parent_id else None
                if parent is not None:  # a subagent's view says whose it is
                    title = f"⧉ {title} · subagent of {parent.display_title}"
                widgets.header.set_title(display_title(title))
                controller = self.model.controller
                widgets.header.set_elsewhere(
                    controller is not None and controller.reported_status(state.id) == "open"
                )
        if PART_STATE in parts:
            with self._step("activity"):
                self.activity(state)
        if PART_USAGE in parts:
            with self._step("gauge"):
                self._gauge(state)
        if PART_MODES in parts or PART_CONFIG in parts:
            with self._step("options"):
                self.options.draw(state)
        if PART_SUGGESTIONS in parts:
            with self._step("suggestions"):
                self.suggestions.draw(state)
        if PART_COMMANDS in parts:
            with self._step("commands"):
                widgets.prompt.commands = list(state.commands or [])
                self.index_sync.remember_commands(state)

    def level_crossed(self, event: ContextGauge.LevelCrossed) -> None:
        """The context filled past a threshold: one line (the gauge itself changed colour and
        reads the numbers; the details are a click away)."""
        gauge = self.widgets.gauge
        self.notify(
            f"{format_percent(gauge.used, gauge.context_size)} used. {event.advice}",
            severity="error" if event.level.name == "CRITICAL" else "warning",
            timeout=6,
        )

    def _gauge(self, state: SessionState) -> None:
        gauge = self.widgets.gauge
        context = state.context
        if context is None:
            gauge.set_usage(None, None)
        else:
            # Checked at the store: each number is valid or None (unknown).
            gauge.set_usage(context.used, context.size, context.cost_amount, context.cost_currency)
        gauge.turn_usage = state.last_turn_usage.to_dict() if state.last_turn_usage else None
        self.widgets.bar.fit()

    # ------------------------------------------------------------------ the status line

    def activity(self, state: SessionState) -> None:
        """Whether the session on screen runs a turn, and what the status line says of it."""
        self.set_busy(state.activity in ("running", "requires_action"))
        self.set_status(self.model.activity_status(state))

    def status(self) -> None:
        """The status line from the session on screen (a notice of the moment, such as
        "starting the agent…", is over): what its turn is doing, or how it ended."""
        self.set_status(self.model.status())

    def set_status(self, text: str) -> None:
        self.widgets.status.set_text(QUITTING_STATUS if self.model.quitting else text)

    def tick(self) -> None:
        """Once a second: the clocks of working sessions move."""
        self.widgets.sidebar.tick_working()
        state = self.model.state()
        if state is not None and state.activity == "running" and not state.replaying:
            self.activity(state)
        with self._step("your status line"):
            self.drawn()

    # ------------------------------------------------------------------ switching

    def show(self, session_id: str | None) -> None:
        """Put ``session_id`` on screen: messages go there at once, drawn on the next turn."""
        self.enter(session_id)
        self.scheduling.next_turn(self.view)

    def enter(self, session_id: str | None) -> None:
        """Make ``session_id`` the one messages go to, at once (a message already on its way
        after the key that switched must not go to the session left), and swap drafts."""
        prompt = self.widgets.prompt
        draft = self.model.enter(session_id, prompt.draft)
        self.widgets.sidebar.current_session_id = session_id
        self.attention.viewing_changed()
        prompt.set_draft(draft)
        prompt.target = self.model.queue_key()

    async def view(self) -> None:
        """Draw the session of :meth:`enter`: transcript, header, bar, queue."""
        session_id = self.model.session_id
        self.widgets.gauge.clear()
        async with self._transcript_lock:
            state = self.store.get(session_id) if session_id else None
            await self.widgets.transcript.show_session(
                session_id, list(state.transcript) if state else []
            )
        if state is None:
            self.new_session()
            self.set_status(self.model.new_session_status())
        else:
            # The session's own activity set the status line (a turn may run already: what
            # waited for the session went out as it opened).
            self.session_parts(state, EVERY_PART)
        self.welcome()
        self.drawn()
        await self.queue()
        # The prompt takes the focus when the person asked for the session (from the sidebar,
        # Ctrl+N) or nothing has it; a session that opens by itself (the first one) never
        # pulls the focus away from where the person is typing.
        asked, self.model.focus_prompt_on_open = self.model.focus_prompt_on_open, False
        if asked or self.focused() is None:
            self.focus_prompt()

    def new_session(self) -> None:
        """The header and bar of the new session, before it exists: the mode, model and
        commands its agent offered last time (a choice is applied once it is made)."""
        self.set_busy(False)
        model = self.model
        controller = model.controller
        widgets = self.widgets
        widgets.header.set_dirs(controller.session_dirs(None) if controller else [])
        widgets.header.set_elsewhere(False)
        if model.reopening_at_start:
            # Not the new session's view: the reopened session's own comes with it.
            widgets.header.set_title("Reopening a session…")
            widgets.bar.show_options([])
            widgets.prompt.commands = []
            return
        widgets.header.set_title("New session")
        self.welcome()
        preview = model.new_choices.preview()
        self.options.draw(preview)
        widgets.prompt.commands = list(preview.commands or [])

    def welcome(self) -> None:
        """The welcome shows while the view has nothing else to show."""
        self.widgets.welcome.set_class(self.model.shows_welcome(), "-visible")

    # ------------------------------------------------------------------ the queue

    def queue_changed(self, session_id: str | None) -> None:
        if session_id == self.model.queue_key() and self.scheduling.mounted():
            self.scheduling.next_turn(self.queue)

    async def queue(self) -> None:
        await self.widgets.queue.show(self.model.prompts.items(self.model.queue_key()))
