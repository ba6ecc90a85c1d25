"""The chat screen: transcript, prompt, status, queue, mode/model selectors and the gauge.

Attributes down, messages up: the screen owns the store and takes its agent's controller
from the app's workspace; widgets read what the screen gives them and post messages.

The screen composes the widgets, holds the keys (:mod:`.keys`) and hands each message and
key to the part that does the job, each a plain object it owns and gives what it needs (never
the screen): the view's model (:class:`~acp_tui.ui.models.chat.ChatModel`, no Textual: the
session on screen, the drafts, the new session, sending and cancelling), the drawing
(:mod:`.drawing`: the store's changes once a frame, the session's view), the agent
(:mod:`.agent`), the sidebar's requests (:mod:`.sessions`), dialogs (:mod:`.modals`), the
palette (:mod:`.palette`), copy/export/inspect (:mod:`.tools`), branch/rename/archive
(:mod:`.session_actions`), the local session index (:mod:`.local_index`), the session's options
(:mod:`.options`), the agents not running (:mod:`.other_agents`) and what needs the person in
the sessions not on screen (:mod:`.attention`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal
from textual.css.query import QueryType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Select, TextArea

from acp_tui.config.history import InputHistory
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.store.entries import ShellRun
from acp_tui.ui.palette import AgentCommand, AgentCommands
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat.agent import agent_parts
from acp_tui.ui.screens.chat.agent_name import background_title
from acp_tui.ui.screens.chat.budget import BudgetGate
from acp_tui.ui.screens.chat.common import data_dir, history_path
from acp_tui.ui.screens.chat.drawing import QUITTING_STATUS, ChatWidgets
from acp_tui.ui.screens.chat.keys import CHAT_BINDINGS
from acp_tui.ui.screens.chat.pacing import FramePacer
from acp_tui.ui.screens.chat.parts import ScreenSide, make_parts
from acp_tui.ui.screens.history_search import search_history
from acp_tui.ui.textual_patches import install_screen
from acp_tui.ui.toasts import toast_text
from acp_tui.ui.typing_focus import TypingRouter
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.gauge import ContextGauge
from acp_tui.ui.widgets.markdown_lines import MarkdownLines
from acp_tui.ui.widgets.option_controls import OptionChosen
from acp_tui.ui.widgets.prompt import PromptEditor, PromptTextArea, text_only
from acp_tui.ui.widgets.queue_view import QueuedItem
from acp_tui.ui.widgets.shell_view import ShellRunView
from acp_tui.ui.widgets.sidebar import SessionsSidebar, SidebarMessage
from acp_tui.ui.widgets.status_line import NewOutputMarker
from acp_tui.ui.widgets.suggestion_chips import SuggestionChips
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.transcript import Transcript
from acp_tui.ui.widgets.transcript_views import ThoughtView, UserMessageView

__all__ = ["QUITTING_STATUS", "ChatScreen"]

#: Under this width the footer's keys lose their padding, so that they all fit.
FOOTER_COMPACT_WIDTH = 110


class ChatScreen(Screen[None]):
    """Talk to one agent process; several sessions can be live on it."""

    CSS_PATH = "chat.tcss"
    AUTO_FOCUS = "PromptTextArea"
    COMMANDS = {AgentCommands}
    BINDINGS = CHAT_BINDINGS

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
        #: The store, the queue, the broker and the elicitation queue of this view's agent,
        #: kept across its restarts; each start's controller is made from them.
        self.parts = agent_parts(
            settings, lambda key: self.drawing.queue_changed(key), self.workspace
        )
        self.store = self.parts.store
        self.broker = self.parts.broker
        self.elicitations = self.parts.elicitations
        #: Everything sent that has not gone out yet, per session (survives agent restarts).
        self.prompts = self.parts.prompts
        #: When the transcript may paint: the prompt's echo first (see pacing.py).
        self.pacer = FramePacer()
        #: The widgets, as compose makes them.
        self.widgets = ChatWidgets()
        self._typing = TypingRouter(
            self,
            lambda: self.query_one(PromptEditor).text_area,
            keeps_keys=(SessionsSidebar,),
            prompt_sends=lambda key: self.query_one(PromptEditor).sends_or_breaks(key),
        )
        self._make_parts()
        # The compositor, paint gate and restyle patches (acp_tui/ui/textual_patches).
        install_screen(self, pacer=self.pacer, typing_target=self._typing.prompt_target)

    def _make_parts(self) -> None:
        """The view's parts (:mod:`.parts`), kept as the screen's attributes."""
        made = make_parts(
            self,
            ScreenSide(
                controller=lambda: self.controller,
                focus_prompt=self.focus_prompt,
                new_session=self.action_new_session,
                toggle_thoughts=self.action_toggle_thoughts,
                toggle_sidebar=self.action_toggle_sidebar,
                set_busy=lambda busy: setattr(self, "busy", busy),
            ),
            settings=self.settings,
            spec=self.spec,
            workspace=self.workspace,
            ui_settings=self.ui_settings,
            parts=self.parts,
            widgets=self.widgets,
            pacer=self.pacer,
        )
        self.model = made.model
        self.dialogs = made.dialogs
        #: The budgets: the status line's warning, the question before a message.
        self.budget = BudgetGate(
            self.workspace.budgets,
            self.parts,
            lambda: self.model.session_id,
            lambda: self.widgets.status if self.is_mounted else None,
            self.dialogs.ask_yes_no,
            lambda text: self.notify(text, severity="error", markup=False),
        )
        # Each time the session on screen is drawn, and each second: the warning follows a
        # switch to a session of another project, and a new day.
        drawn = made.drawing.drawn

        def drawn_and_warned() -> None:
            drawn()
            self.budget.show_warning()

        made.drawing.drawn = drawn_and_warned
        self.rewind = made.rewind
        self.rules = made.rules
        #: Review before the write lands (acp_tui.ui.screens.chat.write_review).
        self.write_review = made.write_review
        self.options = made.options
        self.index_sync = made.index_sync
        #: Shell mode: ``!cmd`` in the prompt.
        self.shell = made.shell
        self.session_actions = made.session_actions
        self.tools = made.tools
        self.other_agents = made.other_agents
        self.attention = made.attention
        self.drawing = made.drawing
        self.agent = made.agent
        self.sidebar_requests = made.sidebar_requests
        self.subagents = made.subagents
        self.palette = made.palette
        self.commands = made.commands
        self.queued = made.queued
        #: Your status line (status_items, status_command).
        self.own_status = made.own_status

    @property
    def controller(self) -> SessionController | None:
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

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        w = self.widgets
        history = InputHistory(history_path(self.settings))
        w.make(self.store, self.spec.cwd, self.agent.terminal_state, history)
        w.main.subagents = self.subagents
        yield w.header
        with Horizontal(id="body"):
            yield w.sidebar
            with w.main:
                yield w.banner
                yield w.welcome
                yield w.transcript
                yield w.status
                yield w.queue
                yield w.prompt
                yield w.suggestions
        yield w.bar
        yield w.own_status
        yield w.footer

    def on_mount(self) -> None:
        w = self.widgets
        # Subscribe before anything touches the store: the store wakes only on clean -> dirty.
        self.store.subscribe(self.drawing.schedule)
        self.index_sync.open()
        w.header.set_policy(self.settings.permission_policy)
        w.prompt.cwd = self.spec.cwd
        w.prompt.client_commands = tuple(self.commands.infos())
        w.welcome.set_folder(self.spec.cwd)
        w.welcome.set_agent(self.spec.label or os.path.basename(self.spec.argv[0]))
        w.prompt.run_shell = self.shell.run
        w.prompt.queue_keys = self.queued.prompt_key
        w.prompt.images.directory = data_dir(self.settings) / "pasted"
        w.prompt.builder = lambda text: self.shell.with_attachments(
            controller.build_prompt(text)
            if (controller := self.controller) is not None
            else text_only(text),
            self.model.session_id,
        )
        self.sidebar_requests.place(self.app.size.width)
        self.sidebar_requests.attach(w.sidebar, index_records=self.index_sync.records_of)
        self.dialogs.present(self.broker, self.elicitations)
        self.attention.hold(self.broker, self.elicitations)
        self.write_review.present(lambda pending: self.attention.shows_session(pending.session_id))
        self.set_interval(1.0, self.write_review.refresh)
        self.set_interval(1.0, self.drawing.tick)
        self.drawing.new_session()
        self.own_status.mount()
        self.agent.start()

    async def on_unmount(self) -> None:
        self.shell.kill_all()
        self.drawing.stop()
        await self.own_status.stop()
        self.attention.leave()
        await self.agent.stop()

    # ------------------------------------------------------------------ typing and focus

    def on_key(self, event: events.Key) -> None:
        self._typing.route_key(event)

    def on_paste(self, event: events.Paste) -> None:
        self._typing.route_paste(event)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self._typing.after_click(event)

    def get_focusable_widget_at(self, x: int, y: int) -> Widget | None:
        """What a mouse press focuses: only a place that takes typing (an input, a selector,
        the sidebar); elsewhere the focus stays on the prompt, so that keys typed right after
        the click reach it in order."""
        widget = super().get_focusable_widget_at(x, y)
        if widget is None or self._typing.takes_typing(widget, clicked=True):
            return widget
        return None

    def focus_prompt(self) -> None:
        """The prompt takes the focus now (not on a later turn of the loop: a key typed right
        after must find it there)."""
        self.set_focus(self.widgets.prompt.text_area)

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        step = lambda: super(ChatScreen, self).focus_next(selector)  # noqa: E731
        return self.queued.step(True, lambda: self._typing.focus_step(step))

    def focus_previous(self, selector: str | type[QueryType] = "*") -> Widget | None:
        step = lambda: super(ChatScreen, self).focus_previous(selector)  # noqa: E731
        return self.queued.step(False, lambda: self._typing.focus_step(step))

    def after_typed(self, switch: Callable[[], object]) -> None:
        """Run ``switch`` (a change of session) once the prompt has handled the keys typed
        before it: a key bound with priority runs as it arrives, before the prompt has taken
        an Enter typed just before it, whose message must go to the session it was typed in."""
        focused = self.focused
        if isinstance(focused, PromptTextArea):
            focused.call_later(switch)
        else:
            switch()

    @on(TextArea.Changed)
    def _note_typing(self, event: TextArea.Changed) -> None:
        # Not stopped: the prompt editor has its own use for it.
        self.drawing.text_changed(event.text_area)

    def key_on_its_way(self) -> None:
        """The app received a key that edits text (see :meth:`ChatDrawing.key_on_its_way`)."""
        self.drawing.key_on_its_way(self.is_current and not self._typing.typing_elsewhere())

    # ------------------------------------------------------------------ what the screen shows

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
            title=background_title(self.app, self, title, self.spec, self.controller),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def on_resize(self, event: events.Resize) -> None:
        self.widgets.footer.compact = event.size.width < FOOTER_COMPACT_WIDTH
        self.sidebar_requests.fit(event.size.width)
        self.refresh_bindings()  # the option keys are listed only when there is room

    @on(events.ScreenResume)
    @on(events.ScreenSuspend)
    def _front_changed(self, event: events.ScreenResume | events.ScreenSuspend) -> None:
        # A dialog over this view leaves it on screen; another agent's view does not.
        self.attention.viewing_changed()
        if isinstance(event, events.ScreenResume):
            self.drawing.resumed()

    def watch_busy(self, busy: bool) -> None:
        # On the status line only: a class on the screen would restyle every widget on it.
        self.widgets.status.set_busy(busy)
        self.widgets.prompt.busy = busy
        self.refresh_bindings()

    def show_quitting(self) -> None:
        """The app is quitting: say so at once. Stopping an agent can take seconds (its
        turn's end, its grace before TERM), and meanwhile "working… 1 s" read as a freeze."""
        self.model.quitting = True
        self.drawing.set_status(QUITTING_STATUS)

    @on(ContextGauge.LevelCrossed)
    def _level_crossed(self, event: ContextGauge.LevelCrossed) -> None:
        self.drawing.level_crossed(event)

    @on(ContextGauge.DetailsRequested)
    def _context_details(self, event: ContextGauge.DetailsRequested) -> None:
        event.stop()
        self.tools.context_details()

    @on(Transcript.Behind)
    def _transcript_behind(self, event: Transcript.Behind) -> None:
        event.stop()
        self.widgets.status.show_new_output(event.behind)

    @on(NewOutputMarker.Pressed)
    def _new_output_pressed(self, event: NewOutputMarker.Pressed) -> None:
        event.stop()
        self.widgets.transcript.to_bottom()

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The view's entries of the command palette (the app lists them)."""
        return self.palette.system_commands()

    def agent_commands(self) -> Iterable[AgentCommand]:
        """The palette's entries in the agent's words (:class:`AgentCommands` reads them)."""
        return self.palette.agent_commands()

    # ------------------------------------------------------------------ intents

    @on(PromptEditor.Submitted)
    def _submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        if self.commands.run(event.text):
            return  # acp-tui's own command (/help, /new…): not for the agent
        # What is sent, and what comes back, is at the bottom: go there.
        self.widgets.transcript.to_bottom()
        # Typed in another session than the one on screen now (a key that switched the view
        # was handled since): it goes where it was typed. Otherwise, as ever: the view's.
        target = self.model.send_target(event.target)
        text, blocks = event.text, event.blocks

        def keep() -> None:
            """Not taken: nothing typed is lost (what was typed since comes after it)."""
            typed = self.widgets.prompt.text
            self.widgets.prompt.set_draft(f"{text}\n{typed}" if typed.strip() else text)

        # "Send now": into the running turn, or the turn cancelled for it (Alt+S).
        how = self.queued.queue.send_now if event.now else self.model.send

        def send() -> None:
            if not how(text, blocks, target=target):
                keep()

        # A budget spent asks first (or refuses); editing a queued message sends nothing new.
        if self.prompts.editing(target) is not None or self.budget.before_send(target, send, keep):
            send()

    def open_session(self, session_id: str) -> None:
        """Switch to a live session at once, else resume / load it through the agent."""
        self.model.open(session_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("scroll_transcript", "transcript_top", "transcript_bottom"):
            # The sidebar's list and an open selector page themselves.
            focused = self.focused
            return focused is None or not any(
                isinstance(node, SessionsSidebar | Select) for node in focused.ancestors_with_self
            )
        if action == "cancel_turn":
            if parameters:  # Ctrl+C: a shell-mode command only
                return self.shell.running_here()
            return self.model.can_cancel(self.busy) or self.shell.running_here()
        if action == "send_now":  # listed while a turn runs, to send what is typed now
            return self.busy
        if action == "restart_agent":
            return not self.model.agent_alive or self.model.unresponsive
        if action in ("cycle_mode", "cycle_thought_level"):
            return self.options.action_allowed(action, parameters)
        return True

    def action_send_now(self) -> None:
        """The prompt's text, sent now, from where the focus is (see ``send-now``)."""
        if self.widgets.prompt.submit(now=True):
            self.focus_prompt()

    def action_rewind_escape(self) -> None:
        """Escape with no turn to cancel: twice on an empty prompt opens the rewind."""
        self.rewind.escape(self.busy)

    def action_your_message(self, step: int) -> None:
        """Alt+Up / Alt+Down: the focus on your previous / next message in the transcript
        (Enter there rewinds to before it); past the last one, back to the prompt."""
        views = list(self.query(UserMessageView))
        if not views:
            return
        focused = self.focused
        index = views.index(focused) if isinstance(focused, UserMessageView) else len(views)
        target = index + step
        if target >= len(views):
            self.focus_prompt()
            return
        view = views[max(0, target)]
        view.focus()
        view.scroll_visible()

    @on(UserMessageView.RewindAsked)
    def _rewind_asked(self, event: UserMessageView.RewindAsked) -> None:
        event.stop()
        self.rewind.from_entry(event.entry_id)

    @on(ShellRunView.AttachRequested)
    def _attach_shell(self, event: ShellRunView.AttachRequested) -> None:
        event.stop()
        assert isinstance(event.view.entry, ShellRun)
        self.shell.attach_entry(event.view.entry)

    def action_cancel_turn(self, _how: str = "") -> None:
        if self.shell.stop():  # a shell-mode command first (Ctrl+C: only it)
            return
        cancelled = self.model.cancel(self.busy)
        if cancelled == "edit":
            # Escape while editing a queued message: it stays as it was, and may go out.
            self.widgets.prompt.set_draft("")
        elif cancelled == "turn":
            self.drawing.set_status("cancelling…")

    def action_new_session(self) -> None:
        """Show the new session and create it at once (the person asked for it: its modes,
        models and commands become available). Not listed until its first prompt. After the
        keys typed before it (see :meth:`after_typed`)."""
        self.after_typed(self.model.new)

    def action_jump_waiting(self) -> None:
        """Go to the session that has waited longest for the person; its dialog shows (after
        the keys typed before it)."""
        self.after_typed(self.attention.jump_waiting)

    def action_restart_agent(self) -> None:
        self.agent.restart()

    def action_search_history(self) -> None:
        prompt = self.widgets.prompt
        search_history(
            self.app,
            prompt.history,
            prompt.cwd,
            prompt.text,
            prompt.replace_text,
            self.focus_prompt,
        )

    def action_toggle_sidebar(self) -> None:
        """Hidden: show it and go there. Shown but elsewhere: go there. In it: hide it."""
        self.sidebar_requests.toggle()

    @on(SidebarMessage)
    def _sidebar_asked(self, message: SidebarMessage) -> None:
        self.sidebar_requests.handle(message)

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

    def action_copy_last_code(self) -> None:
        self.tools.copy_last_code()

    @on(MarkdownLines.CodeClicked)
    def _code_clicked(self, event: MarkdownLines.CodeClicked) -> None:
        event.stop()
        self.tools.copy_code(event.code)

    # ------------------------------------------------------------------ the transcript

    def action_toggle_thoughts(self) -> None:
        visible = self.model.thoughts_visible = not self.model.thoughts_visible
        self.widgets.transcript.set_thoughts_visible(visible)
        self.notify("Thoughts shown" if visible else "Thoughts hidden")

    def action_toggle_latest_thought(self) -> None:
        if not self.model.thoughts_visible:
            self.action_toggle_thoughts()
        if self.widgets.transcript.toggle_latest(ThoughtView) is None:
            self.notify("No thought in this session yet.")

    def action_toggle_latest_tool(self) -> None:
        if self.widgets.transcript.toggle_latest(ToolCallView) is None:
            self.notify("No tool call in this session yet.")

    def action_scroll_transcript(self, pages: int) -> None:
        self.widgets.transcript.page(pages)

    def action_transcript_top(self) -> None:
        self.widgets.transcript.to_top()

    def action_transcript_bottom(self) -> None:
        self.widgets.transcript.to_bottom()

    # ------------------------------------------------------------------ the queue

    @on(SuggestionChips.Chosen)
    def _suggestion_chosen(self, event: SuggestionChips.Chosen) -> None:
        event.stop()
        self.drawing.suggestions.chosen(event.index)

    @on(QueuedItem.Requested)
    def _queue_asked(self, event: QueuedItem.Requested) -> None:
        event.stop()
        self.queued.handle(event)
