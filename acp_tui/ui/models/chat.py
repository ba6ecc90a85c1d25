"""The chat view's model: which session is on screen, the drafts, the new session and its
choices, the turns' clocks, and the person's intents (send, cancel, open, new).

Plain Python over the session controller, the store and the prompt queue: the chat screen
draws what it holds and hands it what the person did. It tells the screen through three
callbacks: ``show`` (put this session on screen: the screen swaps the drafts through
:meth:`ChatModel.enter` and draws it), ``focus_prompt`` and ``status_changed`` (what the status
line says may differ now).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.session.errors import AgentGone, SessionError
from acp_tui.session.launch.start import NewSessionChoices, session_is_gone
from acp_tui.text.relative_time import elapsed_text
from acp_tui.text.safety import one_line
from acp_tui.ui.models import KeyLabel, Notify

if TYPE_CHECKING:
    from acp_tui.session.agent.controller import SessionController
    from acp_tui.session.asking.elicitation_queue import ElicitationQueue
    from acp_tui.session.asking.permissions import PermissionBroker
    from acp_tui.session.asking.write_reviews import WriteReviews
    from acp_tui.session.prompts.queue import PromptQueue
    from acp_tui.store import SessionStore
    from acp_tui.store.local_index import LocalIndex
    from acp_tui.store.session import SessionState

__all__ = ["RESTART_BACKOFF", "ChatModel"]

log = logging.getLogger(__name__)

#: Seconds before each restart of an agent that keeps exiting (within two minutes).
RESTART_BACKOFF = (0.0, 2.0, 5.0, 15.0, 30.0)
#: Restarts this long ago no longer count towards the back-off.
RESTART_WINDOW = 120.0
#: Where a turn runs: the agent works, or waits for the person.
RUNNING = ("running", "requires_action")


def _nothing() -> None:
    return None


class ChatModel:
    """One agent's chat view (see the module docstring). ``controller`` returns the agent's
    controller (its latest run) or None; ``keys`` names a binding's key for the sentences
    that mention one."""

    def __init__(
        self,
        *,
        store: SessionStore,
        prompts: PromptQueue,
        broker: PermissionBroker,
        elicitations: ElicitationQueue,
        controller: Callable[[], SessionController | None],
        notify: Notify,
        keys: KeyLabel,
        reopening_at_start: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.prompts = prompts
        self.broker = broker
        self.elicitations = elicitations
        #: The writes waiting for review (cancelling a turn rejects its own); None: none.
        self.write_reviews: WriteReviews | None = None
        self._controller = controller
        self.notify = notify
        self.keys = keys
        self.clock = clock
        #: The view's hooks (the screen sets them): show a session, focus the prompt, redraw
        #: the status line.
        self.show: Callable[[str | None], None] = lambda session_id: None
        self.focus_prompt: Callable[[], None] = _nothing
        self.status_changed: Callable[[], None] = _nothing
        #: The local session index (set once it is open): sessions the agent has not are
        #: forgotten there too.
        self.index: LocalIndex | None = None
        #: The session on screen; None: the new session, not created until the first message.
        self.session_id: str | None = None
        #: The agent answered initialize and has not exited since.
        self.agent_alive = False
        #: The agent has not answered initialize in time (Ctrl+R restarts it).
        self.unresponsive = False
        #: A reconnect waiting for its timer: said by the status line instead of the turn's end.
        self.reconnect_note = ""
        #: The mode and model shown (and chosen) for the new session before it exists.
        self.new_choices = NewSessionChoices()
        #: A session/new for the new session is on its way.
        self.starting_new = False
        #: Why the last session/new for the new session failed (said on the status line until
        #: the next attempt, with what becomes of the messages waiting for it).
        self.new_session_error: str | None = None
        #: ``--continue`` or ``--resume ID``: a session is being reopened at start, so the view
        #: is not the new session's.
        self.reopening_at_start = reopening_at_start
        #: The sessions are offered for ``--resume`` (the status line says how to choose).
        self.offering_sessions = False
        #: Sessions on screen that this agent run could not reopen: a message sent there
        #: starts a new session.
        self.unopenable: set[str] = set()
        #: The session the person asked to open: what they typed stays where they typed it.
        self.explicit_open: str | None = None
        #: The person opened a session (sidebar, Ctrl+N): the prompt takes the focus once shown.
        self.focus_prompt_on_open = False
        #: What was typed in each session left (None: the new session).
        self.drafts: dict[str | None, str] = {}
        #: The agent's thoughts are shown in the transcript.
        self.thoughts_visible = True
        #: The app is quitting: the status line says so whatever else happens meanwhile.
        self.quitting = False
        #: Per session: (turn number, when the view saw it start running).
        self.turn_started: dict[str, tuple[int, float]] = {}
        #: When the agent was last restarted (for the back-off).
        self.restart_times: list[float] = []

    @property
    def controller(self) -> SessionController | None:
        """The controller of the view's agent (its latest run)."""
        return self._controller()

    def state(self) -> SessionState | None:
        """The session on screen, None for the new session."""
        return self.store.get(self.session_id) if self.session_id else None

    def shows_welcome(self) -> bool:
        """The welcome shows while the view has nothing else to show: the new session, or a
        session with no entry yet (not while a session is reopened at start, nor loaded)."""
        if self.reopening_at_start:
            return False
        state = self.state()
        return state is None or (not state.transcript and not state.replaying)

    # ------------------------------------------------------------------ the queue and drafts

    def queue_key(self) -> str | None:
        """Where a message sent from this view waits: the session on screen, or ``None`` (the
        new session) when that one could not be reopened."""
        session_id = self.session_id
        return None if session_id in self.unopenable else session_id

    def enter(self, session_id: str | None, typed: str) -> str:
        """Make ``session_id`` the one messages go to, at once (a message already on its way
        after the key that switched must not go to the session left); ``typed`` is the
        prompt's text. Returns the draft the prompt shows now."""
        previous = self.session_id
        if session_id == previous:
            return typed
        # Leaving a view while editing one of its queued messages saves the edit.
        typed = self.finish_edit(self.queue_key(), typed)
        left = self.store.get(previous) if previous is not None else None
        explicit, self.explicit_open = self.explicit_open, None
        # What was typed for the new session goes with it: into the session that opened for
        # it (not one the person chose in the sidebar), also from a session that could not be
        # reopened, or back to "New session" from one that never had a prompt.
        if explicit != session_id and (
            previous is None
            or previous in self.unopenable
            or (session_id is None and left is not None and left.draft)
        ):
            draft = typed
            self.drafts.pop(session_id, None)
        else:
            self.drafts[previous] = typed
            draft = self.drafts.pop(session_id, "")
        self.session_id = session_id
        return draft

    def finish_edit(self, session_id: str | None, typed: str) -> str:
        """Leaving a session while editing one of its queued messages: a non-blank edit is
        saved, a blank one abandoned. Returns what remains of the draft."""
        editing = self.prompts.editing(session_id)
        if editing is None:
            return typed
        if typed.strip():
            self.prompts.save_edit(session_id, editing.queue_id, typed)
        else:
            self.prompts.abandon_edit(session_id, editing.queue_id)
        self.flush(session_id)
        return ""

    def flush(self, session_id: str | None) -> None:
        """What waits for ``session_id`` may go out now."""
        controller = self.controller
        if controller is not None and session_id is not None:
            controller.flush(session_id)

    def remove_queued(self, queue_id: int) -> None:
        """The person removed a queued message of this view."""
        key = self.queue_key()
        self.prompts.remove(key, queue_id)
        self.flush(key)

    def edit_queued(self, queue_id: int, typed: str) -> str | None:
        """The person asked to edit a queued message (``typed``: what the prompt holds): its
        text for the prompt, held back until the edit is saved or abandoned; None when it
        cannot be edited (said why)."""
        if typed.strip():
            self.notify("Send or clear what you are typing first.", severity="warning")
            return None
        item = self.prompts.begin_edit(self.queue_key(), queue_id)
        if item is None:
            self.notify("That message has been sent already.")
            return None
        return item.text

    # ------------------------------------------------------------------ send and cancel

    def send_target(self, typed_in: str | None) -> str | None:
        """Where a message typed in ``typed_in`` goes: there when a key that switched the view
        was handled since (and that session can take it); otherwise None, the view's."""
        switched_since = (
            typed_in is not None
            and typed_in != self.session_id
            and typed_in not in self.unopenable
            and self.store.get(typed_in) is not None
        )
        return typed_in if switched_since else None

    def child(self, session_id: str | None) -> SessionState | None:
        """``session_id``'s session when it is a subagent (a child of another), else None."""
        state = self.store.get(session_id) if session_id is not None else None
        return state if state is not None and state.parent_id is not None else None

    def send(
        self, text: str, blocks: list[dict[str, Any]] | None = None, *, target: str | None = None
    ) -> bool:
        """Send, or queue: nothing sent is ever lost, whatever the agent is doing. ``target``:
        the session it was typed in (default: the view's). False: not taken (a subagent's
        view: its parent gives it its work), and the prompt keeps the text."""
        session_id = target if target is not None else self.queue_key()
        if self.child(session_id) is not None:
            self.notify(
                "A subagent takes its work from its parent, not from you: your message stays "
                f"in the prompt ({self.keys('back-to-parent', 'Escape')} goes back to the parent).",
                severity="warning",
            )
            return False
        editing = self.prompts.editing(session_id)
        controller = self.controller
        if editing is not None:
            self.prompts.save_edit(session_id, editing.queue_id, text, blocks)
            if controller is not None and session_id is not None:
                controller.edit_saved(session_id)  # also retries what waited for a sign-in
            return True
        if controller is not None and session_id is not None and self.agent_alive:
            if controller.can_send(session_id):
                try:
                    controller.send_prompt(session_id, text, blocks)
                except SessionError as error:
                    self.prompts.add(session_id, text, blocks)
                    self.notify(str(error), severity="error")
                return True
        # No session open to take it yet: it waits in the queue, shown, and goes out when the
        # session opens (the new one is created now if the agent is ready; while a session is
        # reopened at start, it is that session's, unless none opens).
        self.prompts.add(session_id, text, blocks)
        if session_id is None and self.agent_alive and not self.reopening_at_start:
            self.start_new_session()
        elif not self.agent_alive and (controller is None or controller.finished.is_set()):
            self.notify(
                "The agent is not running: your message is queued and goes out once "
                f"{self.restart_key()} has restarted it.",
                severity="warning",
            )
        return True

    def can_cancel(self, busy: bool) -> bool:
        """Escape does something: a turn runs (``busy``), or a queued message is edited."""
        return busy or self.prompts.editing(self.queue_key()) is not None

    def cancel(self, busy: bool) -> Literal["edit", "turn"] | None:
        """Escape: the edit of a queued message is abandoned (the message stays as it was and
        may go out: ``"edit"``), else the running turn (``busy``) is cancelled (``"turn"``)."""
        key = self.queue_key()
        editing = self.prompts.editing(key)
        if editing is not None:
            self.prompts.abandon_edit(key, editing.queue_id)
            self.flush(key)
            return "edit"
        session_id = self.session_id
        if self.controller is None or session_id is None or not busy:
            return None
        self.cancel_turn_of(session_id)
        return "turn"

    def cancel_turn_of(self, session_id: str) -> None:
        """The turn of ``session_id`` is cancelled (when one runs) and every question of it
        answered ``cancel``: its forms and permission requests (Escape in a form: a storm of
        200 forms took 200 Escapes, and meanwhile the turn could not be cancelled). The
        questions of no session (``""``): those of no session."""
        controller = self.controller
        elicitations = self.elicitations
        self.broker.cancel_session(session_id)
        if self.write_reviews is not None:
            self.write_reviews.cancel_session(session_id)
        if controller is None or not session_id or not controller.is_busy(session_id):
            elicitations.cancel_session(session_id)
            return
        controller.begin_cancel(session_id)

        async def cancel() -> None:
            try:
                await controller.cancel(session_id)
            finally:
                # After session/cancel has gone out: the agent learns the turn is cancelled
                # before it reads "cancel" for its open questions.
                elicitations.cancel_session(session_id)

        controller.spawn(cancel, "cancel")

    # ------------------------------------------------------------------ the new session

    def start_new_session(
        self, controller: SessionController | None = None, *, early: bool = False
    ) -> None:
        """Create the new session (the one shown as "New session") now. The choices made
        for it are applied as soon as it exists (also those made while it is created).
        ``early``: opened at start, before the person asked for anything: it signs in to
        nothing, and a failure is quiet (the first message tries again, and says why)."""
        controller = controller or self.controller
        if (
            controller is None
            or self.starting_new
            or controller.agent is None
            or controller.finished.is_set()
        ):
            return
        self.starting_new = True
        self.new_session_error = None
        choices = self.new_choices
        taken: list[tuple[str | None, dict[str, Any], str | None]] = []

        def take() -> tuple[str | None, dict[str, Any], str | None]:
            taken.append(choices.take())
            return taken[-1]

        async def start() -> None:
            retry = False
            try:
                try:
                    await controller.new_session(adopt=True, choices=take, sign_in=not early)
                except BaseException:
                    # Not made: what was chosen stands for the next attempt.
                    for mode, config, model in taken:
                        choices.mode = choices.mode or mode
                        choices.model = choices.model or model
                        choices.config = {**config, **choices.config}
                    raise
            except SessionError as error:
                if not early:
                    self.new_session_error = str(error)
                    raise
                log.info("the new session did not open early: %s", error)
                # A message sent meanwhile asks for it as the person would: again, at once.
                retry = not isinstance(error, AgentGone)
            finally:
                self.starting_new = False
                if self.session_id is None:
                    self.status_changed()
            if retry and self.prompts.has(None):
                self.start_new_session(controller)

        controller.spawn(start, "new session")

    def open_early(self, controller: SessionController) -> None:
        """Open the new session now, in the background, so its mode, model and options can
        be chosen before the first message: only where the agent can close or delete a
        session (one left unused is discarded as the person leaves, see
        :meth:`SessionController.discard_unused`); elsewhere it is made by the first
        message, with the choices made before it."""
        agent = controller.agent
        if (
            agent is None
            or not (agent.can_close or agent.can_delete)
            or controller.sign_in.needs_sign_in  # the first message signs in, then makes it
            or self.session_id is not None
            or self.reopening_at_start
            or controller.unused_sessions()
        ):
            return
        self.start_new_session(controller, early=True)

    def new_session_status(self) -> str:
        """The status line of the new session's view: starting it, or why that failed and what
        becomes of the messages waiting for it."""
        if self.starting_new:
            return "starting a new session…"
        error = self.new_session_error
        if error is None:
            return ""
        waiting = (
            " Your messages wait: send another or edit one to try again."
            if self.prompts.has(None)
            else ""
        )
        return f"The agent did not start a session: {one_line(error, 160)}.{waiting}"

    def new(self) -> None:
        """The person asked for a new session: shown and created at once (its modes, models
        and commands become available); one unused new session per agent run is enough."""
        controller = self.controller
        if controller is None or not self.agent_alive:
            if (
                controller is not None
                and not controller.finished.is_set()
                and self.session_id is not None
            ):
                # Still starting (a restart): the new session is made by the first message.
                self.show(None)
                return
            self.notify("The agent is not running.", severity="warning")
            return
        current = self.state()
        if current is not None and current.draft:
            self.notify("This is a new session already.")
            self.focus_prompt()
            return
        self.focus_prompt_on_open = True
        unused = next(
            (
                s
                for s in self.store.sessions.values()
                if s.draft and s.live and controller.is_open(s.id)
            ),
            None,
        )
        if unused is not None:
            self.open(unused.id)
            return
        if self.session_id is not None:
            self.show(None)
        self.start_new_session()

    def session_opened(self, session_id: str) -> bool:
        """The agent opened ``session_id`` (new, resumed, loaded): whether the view goes to it.
        A new session made for "New session" while the person went to another one takes what
        waited for it, and does not pull the person back; one the person asked for (Ctrl+N
        going back to the unused new session) is gone to."""
        self.new_session_error = None
        self.unopenable.discard(session_id)
        state = self.store.get(session_id)
        on_screen = self.session_id
        return self.explicit_open == session_id or not (
            state is not None
            and state.draft
            and on_screen is not None
            and on_screen != session_id
            and on_screen not in self.unopenable
        )

    # ------------------------------------------------------------------ opening

    def open(self, session_id: str) -> None:
        """Switch to a live session at once, else resume / load it through the agent. A
        subagent is shown at once (its transcript is its parent's agent's to send: nothing
        is asked of the agent)."""
        if self.child(session_id) is not None:
            self.focus_prompt_on_open = False
            if session_id != self.session_id:
                self.show(session_id)
            return
        controller = self.controller
        if controller is None or not self.agent_alive:
            self.notify(
                f"The agent is not running: press {self.restart_key()} to restart it.",
                severity="warning",
            )
            return
        self.focus_prompt_on_open = True
        if session_id == self.session_id:
            self.focus_prompt()
            return
        agent = controller.agent
        state = self.store.get(session_id)
        if (
            not controller.is_open(session_id)
            and agent is not None
            and not (agent.can_load or agent.can_resume)
        ):
            self.notify(
                f"{one_line(agent.display_name, 80)} cannot reopen past sessions (it supports "
                "neither session/resume nor session/load).",
                severity="warning",
                timeout=8,
            )
            return
        if state is not None and state.replaying:
            return
        self.explicit_open = session_id

        async def open_it() -> None:
            try:
                await controller.open_session(session_id)
            except SessionError as error:
                if isinstance(error, AgentGone):
                    raise
                known = self.store.get(session_id)
                if session_is_gone(error) and not (known is not None and known.listed):
                    # The agent does not have it: a row that can never open goes.
                    self.forget(session_id)
                raise

        controller.spawn(open_it, "open session")

    def forget(self, session_id: str) -> None:
        """A session the agent does not have: gone from the index and the store."""
        if self.index is not None:
            self.index.forget(session_id)
        self.store.forget(session_id)

    # ------------------------------------------------------------------ restarts

    def restart_key(self) -> str:
        return self.keys("restart-agent", "the palette's Restart agent")

    def restart_delay(self) -> float:
        """The wait before restarting an agent that exited: longer each time it keeps
        exiting (:data:`RESTART_BACKOFF`)."""
        now = self.clock()
        self.restart_times = [t for t in self.restart_times if now - t < RESTART_WINDOW]
        delay = RESTART_BACKOFF[min(len(self.restart_times), len(RESTART_BACKOFF) - 1)]
        self.restart_times.append(now)
        return delay

    def reopen_target(self) -> str | None:
        """The session to reopen after a restart: the one on screen, unless it never had a
        prompt (the agent may not have kept it): then what waits for it goes to a new one."""
        session_id = self.session_id
        if session_id in self.unopenable:
            return None
        state = self.state()
        if session_id is not None and (state is None or state.draft):
            self.prompts.rekey(session_id, None)
            self.show(None)
            return None
        return session_id

    # ------------------------------------------------------------------ the status line

    def note_turns(self, session_id: str, state: SessionState) -> None:
        """Remember when each session's running turn started (for ``working… 12 s``)."""
        if state.activity in RUNNING:
            known = self.turn_started.get(session_id)
            if known is None or known[0] != state.turn:
                self.turn_started[session_id] = (state.turn, self.clock())
        else:
            self.turn_started.pop(session_id, None)

    def activity_status(self, state: SessionState) -> str:
        """What the status line says of a session: what its turn is doing, or how it ended."""
        running = state.activity in RUNNING
        controller = self.controller
        if state.replaying:
            return "loading the session…"
        if state.activity == "requires_action":
            return "▲ waiting for you"
        if state.parent_id is not None:
            return self._child_status(state)
        if running and controller is not None and controller.is_cancelling(state.id):
            # Said until the turn ends: the agent may stream on (or never stop) after a cancel.
            return "cancelling…"
        if running:
            now = self.clock()
            elapsed = elapsed_text(now - self.turn_started.get(state.id, (0, now))[1])
            return f"● working… {elapsed} ({self.keys('cancel-turn')} to cancel)"
        if self.reconnect_note:
            return self.reconnect_note
        if state.stop_reason == "cancelled":
            return "cancelled"
        if state.stop_reason and state.stop_reason not in ("end_turn",):
            return f"stopped: {one_line(state.stop_reason, 60)}"
        return ""

    def _child_status(self, state: SessionState) -> str:
        """A subagent's view: what it does, and the keys of its view."""
        card = state.card
        back = f"{self.keys('back-to-parent', 'Escape')} back to its parent"
        if state.activity in ("running", "unknown"):
            started = state.turn_started
            took = f" {elapsed_text(self.clock() - started)}" if started is not None else ""
            key = self.keys("subagent-cancel", "Delete")
            cancel = f", {key} to cancel it" if card is not None and card.can_cancel else ""
            return f"● subagent working…{took} ({back}{cancel})"
        if card is not None and card.stop_reason == "cancelled":
            return f"subagent cancelled ({back})"
        return f"subagent idle ({back})"

    def status(self) -> str:
        """The status line of the view: its session's activity, or the new session's."""
        state = self.state()
        return self.activity_status(state) if state is not None else self.new_session_status()
