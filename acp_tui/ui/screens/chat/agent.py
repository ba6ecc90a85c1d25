"""The chat view's agent: starting it through the workspace, what its controller reports
(ready, status, errors, not responding, exit), the banner, and restarts.

:class:`AgentRunner` is a plain object the chat screen owns. The controller is made by the
workspace from the view's :class:`~acp_tui.session.launch.factory.AgentParts` (its store,
queue and broker outlive each start); the runner hands it the view's hooks
(:class:`~acp_tui.session.link_events.FaceHooks`) and runs it in a worker of the screen.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.worker import Worker

from acp_tui.session.agent.controller import (
    AgentExit,
    ControllerEvents,
    NotResponding,
    SessionController,
)
from acp_tui.session.agent.events import AgentInfo, FaceHooks, ProcessSetup
from acp_tui.session.agent.reconnect import Reconnects
from acp_tui.session.auth.status import AuthStatus
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.start import StartOutcome, open_at_start, reopen_after_restart
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.models import KeyLabel
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.screens.chat.common import TITLE_DISPLAY_LIMIT, display_title
from acp_tui.ui.screens.chat.drawing import ChatDrawing, ChatWidgets
from acp_tui.ui.screens.chat.local_index import IndexSync
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.toasts import toast_text

__all__ = ["AgentRunner", "ScreenHooks", "agent_parts"]


def agent_parts(
    settings: AppSettings,
    on_queue_changed: Callable[[str | None], None],
    workspace: Workspace,
) -> AgentParts:
    """The store, the prompt queue, the broker and the question queue of ``settings``' agent,
    kept across its restarts (each start's controller is made from them), answering by the
    ``workspace``'s permission rules, feeding its search index."""
    assert settings.agent is not None, "the chat screen shows an agent"
    replay = settings.replay
    return AgentParts(
        settings.agent,
        policy=settings.permission_policy,
        process=ProcessSetup(
            log_dir=settings.log_dir,
            recorder=settings.recorder,
            process_factory=replay.process_for if replay else settings.process_factory,
            machine_access=replay is None,
        ),
        on_queue_changed=on_queue_changed,
        rules=workspace.rules,
        search=workspace.search,
        spend=workspace.spend if replay is None else None,
    )


@dataclass(frozen=True, slots=True)
class ScreenHooks:
    """What the runner uses of the screen besides its drawing's timers: ``run_worker`` (its
    workers end with it), ``refresh_bindings``, whether the view is the one ``on_screen``, and
    ``list_key``: the key of a binding of the sessions list, by id ("Up")."""

    run_worker: Callable[..., Worker[Any]]
    refresh_bindings: Callable[[], object]
    on_screen: Callable[[], bool]
    list_key: Callable[[str], str]


class AgentRunner:
    """Start, watch and restart the agent of the view (its controller lives in the
    workspace)."""

    def __init__(
        self,
        model: ChatModel,
        parts: AgentParts,
        workspace: Workspace,
        settings: AppSettings,
        *,
        widgets: ChatWidgets,
        drawing: ChatDrawing,
        dialogs: ChatDialogs,
        index_sync: IndexSync,
        keys: KeyLabel,
        app: Callable[[], App[Any]],
        screen: ScreenHooks,
    ) -> None:
        self.model = model
        self.parts = parts
        self.spec = parts.spec
        self.workspace = workspace
        self.settings = settings
        self.widgets = widgets
        self.drawing = drawing
        self.dialogs = dialogs
        self.index_sync = index_sync
        self.keys = keys
        self.app = app
        self.screen = screen
        self._started_once = False
        #: Automatic reconnects of a v2 agent that died with work in flight.
        self.reconnects = Reconnects(clock=model.clock)
        #: The reconnect waiting for its timer (a number; None when none waits).
        self.reconnect_due: int | None = None

    async def stop(self, grace: float = 6.0) -> None:
        """Shut the agent down (EOF, TERM, KILL) and wait for it, so quitting never leaves
        a process or a terminal behind."""
        await self.workspace.stop(self.spec.key, grace)

    def start(self, reopen: str | None = None) -> None:
        """Start the agent (``reopen``: the session to open again after a restart)."""
        events = ControllerEvents(
            on_ready=self._ready,
            on_status=lambda text: self.drawing.set_status(text + "…"),
            on_error=self._error,
            on_session_opened=self._session_opened,
            on_session_created=self.index_sync.session_created,
            on_turn_ended=self._turn_ended,
            on_exit=self._exited,
            on_terminal_output=lambda terminal_id: self.drawing.schedule(),
            on_not_responding=self._not_responding,
            on_auth_status=self._auth_status,
            on_session_options=self._session_options,
        )
        replay = self.settings.replay
        controller = self.workspace.start(
            self.parts,
            FaceHooks(
                events=events,
                approve_outside=self.dialogs.approve_outside,
                choose_auth=self.dialogs.choose_auth,
                run_terminal_login=self.dialogs.run_terminal_login,
                # A browser has no terminal to hand over to an agent's sign-in.
                # A replay neither: its "agent command" is whatever the recording says.
                terminal_auth=not self.app().is_web and replay is None,
                # The agent's guesses at the next prompt: chips under the prompt.
                offers_suggestions=True,
                # The tool blocks show the output of the agent's own terminals (codex-acp).
                shows_agent_terminals=True,
                # The new session's view shows its options before it exists.
                shows_new_session_options=True,
            ),
        )
        if replay is not None:
            replay.bind(controller, self._notify_replay, self.parts.broker.cancel_session)
        self.model.unresponsive = False
        self.widgets.sidebar.connecting = True
        self.widgets.banner.hide()
        self.drawing.set_status("starting the agent…")
        self._in_worker(self._run(controller, reopen), group="agent", exit_on_error=False)

    def _in_worker(self, work: Coroutine[Any, Any, None], **how: Any) -> None:
        self.screen.run_worker(work, **how)

    async def _run(self, controller: SessionController, reopen: str | None) -> None:
        first_start = not self._started_once
        self._started_once = True

        async def opener(controller: SessionController) -> None:
            if reopen is not None:
                outcome = await reopen_after_restart(controller, reopen)
            elif first_start:
                outcome = await open_at_start(
                    controller,
                    cwd=self.spec.cwd,
                    resume=self.settings.resume,
                    continue_latest=self.settings.continue_latest,
                )
            else:
                outcome = StartOutcome()
            self._after_start(controller, outcome, reopen)

        await controller.run(opener)

    def terminal_state(self, terminal_id: str) -> Any:
        """An agent terminal of the running agent, for the transcript's tool calls."""
        controller = self.model.controller
        return controller.terminal_state(terminal_id) if controller is not None else None

    # ------------------------------------------------------------------ opening at start

    def _reopening_over(self) -> None:
        """The reopening at start is over (done, failed, or the agent ended): when no session
        was opened, what is on screen is the new session, and its view is drawn."""
        if self.model.reopening_at_start:
            self.model.reopening_at_start = False
            if self.model.session_id is None:
                self.drawing.new_session()

    def _after_start(
        self, controller: SessionController, outcome: StartOutcome, reopen: str | None
    ) -> None:
        model = self.model
        self._reopening_over()
        for gone in outcome.gone:
            model.forget(gone)
        if outcome.message:
            self.drawing.status()
            model.notify(sanitize_terminal_text(outcome.message)[:500], severity="warning")
        if outcome.opened is None and reopen is not None:
            # Its transcript stays on screen; what waited for it, and the next message, go to
            # a new session.
            model.unopenable.add(reopen)
            model.prompts.rekey(reopen, None)
        if outcome.choose:
            self.drawing.scheduling.next_turn(self._offer_sessions)
        if outcome.opened is None and model.prompts.has(None):
            # Messages sent while the agent was starting: they start the new session.
            model.start_new_session(controller)
        elif outcome.opened is None and not outcome.choose and self.settings.replay is None:
            # Its options can be chosen before the first message (a replay has the
            # recording's calls only).
            model.open_early(controller)

    def _offer_sessions(self) -> None:
        """``--resume`` without an id: the sidebar, focused, the most recent session
        highlighted; Enter opens one, Escape goes to the prompt (a new session)."""
        sidebar = self.widgets.sidebar
        if not sidebar.display:
            sidebar.display = True
        sidebar.session_list.focus()
        self.model.offering_sessions = True
        keys = " ".join(self.screen.list_key(f"sidebar-{name}") for name in ("up", "down", "open"))
        leave = self.screen.list_key("sidebar-leave")
        self.drawing.set_status(f"Choose a session to resume ({keys}), or {leave} for a new one")

    def _session_opened(self, session_id: str) -> None:
        switch = self.model.session_opened(session_id)
        state = self.model.store.get(session_id)
        if state is not None:
            self.index_sync.session_opened(state)
        if switch:
            # At once: a message sent from now on is this session's (drawn on the next turn).
            self.drawing.show(session_id)

    # ------------------------------------------------------------------ what the agent says

    def _ready(self, agent: AgentInfo) -> None:
        model = self.model
        model.agent_alive = True
        if model.unresponsive:
            # It answered after all: the "not responding" banner is out of date.
            model.unresponsive = False
            self.widgets.banner.hide()
        if model.session_id is None:
            self.drawing.new_session()
        label = self.spec.label or agent.display_name
        version = f" {agent.version}" if agent.version else ""
        self.widgets.header.set_agent(display_title(f"{label}{version}", 80))
        self.widgets.welcome.set_agent(label, agent.version or "")
        self.drawing.status()
        sidebar = self.widgets.sidebar
        sidebar.set_loading(False)
        # A (re)started agent: list again from the first page.
        sidebar.reload()

    def _auth_status(self, status: AuthStatus) -> None:
        """The agent told (or pushed) its sign-in state: the header says who is signed in,
        or that nobody is and how to sign in."""
        headline = status.headline()
        details = status.details()
        if status.needs_sign_in:
            details += "\nYour next message signs you in first (or Ctrl+P → Sign in)."
        self.widgets.header.set_account(headline, details, signed_out=status.needs_sign_in)
        self.screen.refresh_bindings()

    def _session_options(self, response: Any) -> None:
        """``session/options``: the new session's view shows what the agent offers now."""
        self.index_sync.options_offered(response)
        if self.model.session_id is None:
            self.drawing.new_session()

    def _notify_replay(self, text: str) -> None:
        self.model.notify(
            sanitize_terminal_text(text)[:500], title="Replay", timeout=8, markup=False
        )

    def _error(self, text: str) -> None:
        # The toast says what went wrong in a line or two; the whole text goes in the
        # transcript, where it stays to be read.
        model = self.model
        model.notify(text, severity="error", timeout=10)
        whole = sanitize_terminal_text(text).strip()
        if model.session_id is not None and toast_text(whole) != whole:
            lines = whole.split("\n", 1)
            model.store.add_notice(
                model.session_id,
                lines[0][:TITLE_DISPLAY_LIMIT],
                severity="error",
                description=lines[1][:20_000] if len(lines) > 1 else None,
            )
        self.drawing.status()

    def _turn_ended(self, session_id: str, reason: str | None) -> None:
        # The bell rang (see attention.py) as the store saw the turn end.
        if reason == "cancelled" and session_id == self.model.session_id:
            self.drawing.set_status("cancelled")
        # A question still open for a turn that is over can only be answered in vain.
        self.model.elicitations.cancel_session(session_id)

    def _not_responding(self, report: NotResponding) -> None:
        """initialize took too long: say so, quote what the command printed if it was not ACP,
        and offer a restart or quit (the wait goes on: a late answer hides this again)."""
        self.model.unresponsive = True
        self.screen.refresh_bindings()
        self.widgets.banner.show_not_responding(
            report,
            shlex.join(self.spec.argv),
            self.model.restart_key(),
            self.keys("quit"),
        )
        self.drawing.set_status("the agent is not responding")

    def _exited(self, info: AgentExit) -> None:
        model = self.model
        # Who is signed in is the running agent's to say: a new process says it again.
        self.widgets.header.set_account("", "", signed_out=False)
        self._reopening_over()  # it ended before reopening anything
        model.agent_alive = False
        model.unresponsive = False
        self.widgets.sidebar.connecting = False
        model.broker.cancel_all()
        model.elicitations.cancel_all()
        self.drawing.set_busy(False)
        self.screen.refresh_bindings()
        if info.expected:
            return
        if info.reconnect and not info.start_failed and self._reconnect(info):
            return
        banner = self.widgets.banner
        # Quoted as a shell would need it: an argument with a space stays one argument.
        command = shlex.join(self.spec.argv)
        if info.start_failed:
            controller = model.controller
            if controller is not None and controller.agent is None:
                # The header said "starting…": name the command that did not start instead.
                name = self.spec.label or os.path.basename(self.spec.argv[0])
                self.widgets.header.set_agent(display_title(name, 80))
            self.workspace.note_start_failure(
                self.spec.key, f"acp-tui: cannot start `{command}`: {info.description}"
            )
        main = self.widgets.main
        main_width = main.size.width or main.screen.size.width
        row = max(20, main_width - banner.styles.gutter.width - 2)
        banner.show_exit(info, command, model.restart_key(), self.keys("quit"), row)
        # How the turn ended ("stopped: error") stays said; it may have been drawn already.
        self.drawing.status()
        if not self.screen.on_screen():
            # Several agents, this one not on screen: the others go on; say which one stopped.
            model.notify(
                f"{info.description}. {self.keys('next-agent', 'The palette')} goes "
                f"to its view; {model.restart_key()} there restarts it.",
                title="exited" if not info.start_failed else "could not start",
                severity="error",
                timeout=10,
            )
        app = self.app()
        if not app.app_focus:
            app.bell()

    # ------------------------------------------------------------------ restarts

    def _reconnect(self, info: AgentExit) -> bool:
        """v2, work in flight: start the agent again on its own after a short wait, said in
        the transcript and the status line (see acp_tui.session.agent.reconnect). False
        when the attempts are used up (the banner then offers Ctrl+R)."""
        model = self.model
        attempt = self.reconnects.take()
        session_id = model.session_id
        if attempt is None:
            if session_id is not None:
                model.store.add_notice(
                    session_id,
                    f"Not reconnecting: the agent exited {self.reconnects.limit} times in a "
                    "short while",
                    severity="error",
                    description=f"{model.restart_key()} restarts it.",
                )
            return False
        number, delay = attempt
        self.reconnect_due = number
        what = f"reconnecting (attempt {number} of {self.reconnects.limit})"
        if session_id is not None:
            model.store.add_notice(
                session_id,
                f"The agent exited ({info.status or info.description}): {what}",
                severity="warning",
                description="The session is resumed; a message whose answer was lost goes "
                "again with its idempotency key, so the agent does not run it twice.",
            )
        self.model.reconnect_note = f"the agent exited; {what} in {delay:g} s…"
        self.drawing.status()
        self.drawing.scheduling.timer(delay, lambda: self._reconnect_now(number))
        return True

    def _reconnect_now(self, number: int) -> None:
        """The wait is over: start the agent (unless the person restarted or quit it)."""
        if self.reconnect_due != number:
            return
        self.reconnect_due = None
        self.model.reconnect_note = ""
        controller = self.model.controller
        if self.model.agent_alive or (controller is not None and not controller.finished.is_set()):
            return
        self.start(reopen=self.model.reopen_target())

    def restart(self) -> None:
        """The person asked for a restart (Ctrl+R): after a back-off when it keeps exiting."""
        model = self.model
        self.reconnect_due = None  # the person's restart replaces one waiting
        self.model.reconnect_note = ""
        controller = model.controller
        if model.unresponsive and controller is not None:
            self._in_worker(self._restart_unresponsive(), group="restart")
            return
        if model.agent_alive or (controller is not None and not controller.finished.is_set()):
            model.notify("The agent is running.")
            return
        delay = model.restart_delay()
        if delay:
            model.notify(f"The agent keeps exiting; restarting in {delay:.0f} s.")
        restart = lambda: self.start(reopen=model.reopen_target())  # noqa: E731
        self.drawing.scheduling.timer(delay or 0.01, restart)

    async def _restart_unresponsive(self) -> None:
        self.model.unresponsive = False
        self.drawing.set_status("stopping the agent…")
        await self.stop()
        self.start(reopen=self.model.reopen_target())
