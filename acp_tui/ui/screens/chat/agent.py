"""The chat screen's agent: starting it through the workspace, what its controller reports
(ready, status, errors, not responding, exit), the banner, and restarts.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`).
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any

from textual import work

from acp_tui.session.agent.controller import AgentExit, LinkEvents, NotResponding, SessionController
from acp_tui.session.agent.events import AgentInfo, FaceHooks
from acp_tui.session.launch.start import StartOutcome, open_at_start, reopen_after_restart
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.keymap import key_label
from acp_tui.ui.screens.chat.common import TITLE_DISPLAY_LIMIT, display_title
from acp_tui.ui.toasts import toast_text
from acp_tui.ui.widgets.agent_banner import AgentBanner
from acp_tui.ui.widgets.chat_header import ChatHeader
from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class AgentLifecycle(ChatHost):
    """Start, watch and restart the agent of the screen (its controller lives in the workspace)."""

    async def stop_agent(self, grace: float = 6.0) -> None:
        """Shut the agent down (EOF, TERM, KILL) and wait for it, so quitting never leaves
        a process or a terminal behind."""
        await self.workspace.stop(self.spec.key, grace)

    def start_agent(self, reopen: str | None = None) -> None:
        events = LinkEvents(
            on_ready=self._on_agent_ready,
            on_status=self._on_agent_status,
            on_error=self._on_agent_error,
            on_session_opened=self._on_session_opened,
            on_session_created=self.index_sync.session_created,
            on_turn_ended=self._on_turn_ended,
            on_exit=self._on_agent_exit,
            on_terminal_output=self._on_terminal_output,
            on_not_responding=self._on_not_responding,
        )
        replay = self.settings.replay
        link = self.workspace.start(
            self.parts,
            FaceHooks(
                events=events,
                approve_outside=self.dialogs.approve_outside,
                choose_auth=self.dialogs.choose_auth,
                run_terminal_login=self.dialogs.run_terminal_login,
                # A browser has no terminal to hand over to an agent's sign-in.
                # A replay neither: its "agent command" is whatever the recording says.
                terminal_auth=not self.app.is_web and replay is None,
            ),
        )
        if replay is not None:
            replay.bind(link, self._notify_replay, self.broker.cancel_session)
        self.model.unresponsive = False
        self.query_one(SessionsSidebar).connecting = True
        self.query_one(AgentBanner).hide()
        self._set_status("starting the agent…")
        self._run_link(link, reopen)

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
                    cwd=self.spec.cwd,
                    resume=self.settings.resume,
                    continue_latest=self.settings.continue_latest,
                )
            else:
                outcome = StartOutcome()
            self._after_start(link, outcome, reopen)

        await link.run(opener)

    def _reopening_over(self) -> None:
        """The reopening at start is over (done, failed, or the agent ended): when no session
        was opened, what is on screen is the new session, and its view is drawn."""
        if self.model.reopening_at_start:
            self.model.reopening_at_start = False
            if self.session_id is None:
                self._draw_new_session()

    def _after_start(
        self, link: SessionController, outcome: StartOutcome, reopen: str | None
    ) -> None:
        self._reopening_over()
        for gone in outcome.gone:
            self.model.forget(gone)
        if outcome.message:
            self._draw_status()
            self.notify(sanitize_terminal_text(outcome.message)[:500], severity="warning")
        if outcome.opened is None and reopen is not None:
            # Its transcript stays on screen; what waited for it, and the next message, go to
            # a new session.
            self.model.unopenable.add(reopen)
            self.prompts.rekey(reopen, None)
        if outcome.choose:
            self.call_later(self._offer_sessions)
        if outcome.opened is None and self.prompts.has(None):
            # Messages sent while the agent was starting: they start the new session.
            self.model.start_new_session(link)

    def _offer_sessions(self) -> None:
        """``--resume`` without an id: the sidebar, focused, the most recent session
        highlighted; Enter opens one, Escape goes to the prompt (a new session)."""
        sidebar = self.query_one(SessionsSidebar)
        if not sidebar.display:
            sidebar.display = True
        sidebar.session_list.focus()
        self.model.offering_sessions = True
        keys = " ".join(
            key_label(self, f"sidebar-{name}", owner=SessionList) for name in ("up", "down", "open")
        )
        leave = key_label(self, "sidebar-leave", owner=SessionList)
        self._set_status(f"Choose a session to resume ({keys}), or {leave} for a new one")

    def _on_agent_ready(self, agent: AgentInfo) -> None:
        self.model.agent_alive = True
        if self.model.unresponsive:
            # It answered after all: the "not responding" banner is out of date.
            self.model.unresponsive = False
            self.query_one(AgentBanner).hide()
        if self.session_id is None:
            self._draw_new_session()
        label = self.spec.label or agent.display_name
        version = f" {agent.version}" if agent.version else ""
        self.query_one(ChatHeader).set_agent(display_title(f"{label}{version}", 80))
        self._draw_status()
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
        self._draw_status()

    def _on_turn_ended(self, session_id: str, reason: str | None) -> None:
        # The bell rang (see attention.py) as the store saw the turn end.
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
        self.model.unresponsive = True
        self.refresh_bindings()
        self.query_one(AgentBanner).show_not_responding(
            report,
            shlex.join(self.spec.argv),
            self.model.restart_key(),
            key_label(self, "quit"),
        )
        self._set_status("the agent is not responding")

    def _on_agent_exit(self, info: AgentExit) -> None:
        self._reopening_over()  # it ended before reopening anything
        self.model.agent_alive = False
        self.model.unresponsive = False
        self.query_one(SessionsSidebar).connecting = False
        self.broker.cancel_all()
        self.elicitations.cancel_all()
        self.busy = False
        self.refresh_bindings()
        if info.expected:
            return
        banner = self.query_one(AgentBanner)
        # Quoted as a shell would need it: an argument with a space stays one argument.
        command = shlex.join(self.spec.argv)
        if info.start_failed:
            if self.link is not None and self.link.agent is None:
                # The header said "starting…": name the command that did not start instead.
                name = self.spec.label or os.path.basename(self.spec.argv[0])
                self.query_one(ChatHeader).set_agent(display_title(name, 80))
            self.workspace.note_start_failure(
                self.spec.key, f"acp-tui: cannot start `{command}`: {info.description}"
            )
        main_width = self.query_one("#main").size.width or self.size.width
        row = max(20, main_width - banner.styles.gutter.width - 2)
        banner.show_exit(info, command, self.model.restart_key(), key_label(self, "quit"), row)
        # How the turn ended ("stopped: error") stays said; it may have been drawn already.
        self._draw_status()
        if self not in self.app.screen_stack:
            # Several agents, this one not on screen: the others go on; say which one stopped.
            self.notify(
                f"{info.description}. {key_label(self, 'next-agent', 'The palette')} goes "
                f"to its view; {self.model.restart_key()} there restarts it.",
                title="exited" if not info.start_failed else "could not start",
                severity="error",
                timeout=10,
            )
        if not self.app.app_focus:
            self.app.bell()

    def action_restart_agent(self) -> None:
        link = self.link
        if self.model.unresponsive and link is not None:
            self.run_worker(self._restart_unresponsive(link), group="restart")
            return
        if self.model.agent_alive or (link is not None and not link.finished.is_set()):
            self.notify("The agent is running.")
            return
        delay = self.model.restart_delay()
        if delay:
            self.notify(f"The agent keeps exiting; restarting in {delay:.0f} s.")
        self.set_timer(delay or 0.01, lambda: self.start_agent(reopen=self.model.reopen_target()))

    async def _restart_unresponsive(self, link: SessionController) -> None:
        self.model.unresponsive = False
        self._set_status("stopping the agent…")
        await self.stop_agent()
        self.start_agent(reopen=self.model.reopen_target())
