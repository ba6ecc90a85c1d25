"""The headless face of acp-tui: ``acp-tui ask`` and ``acp-tui sessions``.

Both are views over the TUI's :class:`~acp_tui.session.agent.controller.SessionController` (one
agent connection: start, initialize, sessions, the fs and terminal services, permissions
through the :class:`~acp_tui.session.asking.permissions.PermissionBroker`, shutdown): the controller
feeds the store, and `ask` renders what changed (:mod:`acp_tui.cli.headless_render`).

No Textual, no Rich: plain text on stdout (the agent's reply, or the session table / JSON)
and short one-line messages on stderr (tool calls, notices, the stop reason, errors), so the
commands compose in scripts; or, with ``ask --json``, one JSON event per line on stdout.
Every string that came from the agent is passed through
:func:`acp_tui.text.safety.sanitize_terminal_text` before it reaches the terminal as text.

Exit codes: 0 the turn ended with ``end_turn``; 1 another stop reason or an error answer from
the agent; 2 the agent lacks what the command needs; 3 the agent crashed; 4 the agent requires
authentication; 127 the agent could not be started; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import Any

import anyio
import anyio.abc

from acp_tui.cli.headless_base import Headless, _run
from acp_tui.cli.headless_output import (
    CANCEL_WAIT_SECONDS,
    EXIT_AUTH,
    EXIT_BUDGET,
    EXIT_CRASH,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_UNSUPPORTED,
    STOP_REASONS,
    Output,
    _label,
    format_table,
    format_updated,
)
from acp_tui.cli.headless_render import (
    JsonRenderer,
    Renderer,
    TextRenderer,
    usage_dict,
)
from acp_tui.cli.headless_sessions import HeadlessSessions, run_sessions
from acp_tui.config import locations
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.agent.events import AgentInfo
from acp_tui.session.asking.elicitation import DECLINE, FORM, answer
from acp_tui.session.asking.permissions import (
    CANCELLED,
    REJECT_ALWAYS,
    REJECT_ONCE,
    PendingPermission,
)
from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.asking.rules import Rule
from acp_tui.session.errors import SessionError
from acp_tui.session.spend.budgets import Budgets
from acp_tui.store.entries import Notice
from acp_tui.store.session import SessionState
from acp_tui.store.spend_ledger import SpendLedger
from acp_tui.store.spend_writer import SpendWriter

# ---------------------------------------------------------------------------------- ask


#: What `ask` does with elicitations: a form is declined (nobody is there to fill it in).
ELICITATION_MODES = frozenset({FORM})


def read_prompt(prompt: str) -> str:
    if prompt == "-":
        return sys.stdin.read()
    return prompt


def run_ask(invocation: Any, output: Output | None = None) -> int:
    """``acp-tui ask``: one prompt, the reply streamed to stdout. Returns the exit code."""
    output = output or Output()
    options = invocation.options
    try:
        prompt_text = read_prompt(options.prompt)
    except (OSError, UnicodeDecodeError) as error:
        output.error(f"cannot read the prompt from stdin: {error}")
        return EXIT_UNSUPPORTED
    ask = HeadlessAsk(invocation, output)
    return _run(lambda: ask.run(prompt_text), output)


class HeadlessAsk(Headless):
    """``acp-tui ask``: open (new, or ``--session``), send the prompt, render the store's
    changes until the turn ends."""

    def __init__(self, invocation: Any, output: Output) -> None:
        options = invocation.options
        self.allow = bool(getattr(options, "allow", False))
        deny = bool(getattr(options, "deny", False))
        self.session = getattr(options, "session", None)
        # The TUI's broker and its policies: --deny is --deny-all's (no rule is asked),
        # --allow is --yolo's after the rules; without either, what no rule decides is
        # rejected. Nobody is there to ask: what would be asked is rejected.
        super().__init__(
            invocation,
            output,
            policy="deny" if deny else "yolo" if self.allow else "ask",
            permission_handler=self._permission,
            rules=RuleBook(
                locations.rules_file(),
                locations.rules_state_file(),
                on_problem=lambda text: output.error(_label(text, 400)),
            ),
            on_question_ruled=self._question_ruled,
            spend=SpendWriter(locations.spend_ledger_file()),
        )
        self.budgets = tuple(getattr(invocation, "budgets", ()))
        self.over_budget = bool(getattr(options, "over_budget", False))
        renderer_class = JsonRenderer if getattr(options, "json", False) else TextRenderer
        self.renderer: Renderer = renderer_class(self.store, output)
        self.broker = self.parts.broker
        self.broker.set_presenter(self._nobody_there)
        self.parts.elicitations.set_presenter(self._decline_form, ELICITATION_MODES)
        self.session_id: str | None = None
        self.turn_done = anyio.Event()
        self.turn_reason: str | None = None
        self.interrupted = False
        self._dirty = anyio.Event()

    def render(self) -> None:
        self.renderer.render()

    def _budgets(self) -> Budgets:
        ledger = SpendLedger(locations.spend_ledger_file())
        try:
            budgets = Budgets(self.budgets, None)
            budgets.compute(ledger)
        finally:
            ledger.close()
        return budgets

    def check_budgets(self) -> bool:
        """Whether the prompt may go, by the config's budgets: a hard one spent refuses; a
        soft one spent refuses too, as nobody is there to ask, unless ``--over-budget``.
        One at 80% or more is said on stderr."""
        if not self.budgets:
            return True
        budgets = self._budgets()
        names = self.parts.budget_names()
        verdict = budgets.verdict(names, self.cwd)
        if verdict is not None and (verdict.action == "refuse" or not self.over_budget):
            message = verdict.refusal
            if verdict.action == "ask":
                message = (
                    f"Not sent: {verdict.state.warning} (the TUI would ask first; "
                    "--over-budget sends it anyway)"
                )
            self.finish(EXIT_BUDGET, message)
            return False
        for state in budgets.warnings(names, self.cwd):
            self.output.note(state.warning)
        return True

    async def run(self, prompt_text: str) -> int:
        try:
            if not self.check_budgets():
                code = self.exit_code()
                self._result(code)
                return code
            code = await self._run(prompt_text)
        finally:
            spend = self.parts.spend
            if spend is not None:
                spend.writer.close()
        if self.budgets and code != EXIT_BUDGET:
            # What this turn spent, against the budgets (said once the reply is out).
            for state in self._budgets().warnings(self.parts.budget_names(), self.cwd):
                self.output.note(state.warning)
        return code

    async def _run(self, prompt_text: str) -> int:
        unsubscribe = self.store.subscribe(lambda: self._dirty.set())
        try:
            async with anyio.create_task_group() as task_group:
                task_group.start_soon(self._render_loop)
                task_group.start_soon(self._watch_sigint, task_group)
                await self.controller.run(lambda controller: self._ask(prompt_text))
                task_group.cancel_scope.cancel()
        finally:
            unsubscribe()
        self.renderer.render()
        code = self.exit_code()
        self._result(code)
        return code

    async def _render_loop(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty = anyio.Event()
            self.renderer.render()

    async def _ask(self, prompt_text: str) -> None:
        controller = self.controller
        agent = controller.agent
        assert agent is not None
        # Built as the TUI builds what it sends: each @file attached as the agent takes it
        # (before a session is made: one it cannot take is refused without one).
        built = controller.build_prompt(prompt_text)
        if built.refused is not None:
            self.finish(EXIT_UNSUPPORTED, built.refused)
            return
        try:
            if self.session:
                if not (agent.can_resume or agent.can_load):
                    self.finish(
                        EXIT_UNSUPPORTED,
                        f"{self.agent_name} can neither resume nor load sessions; "
                        f"cannot continue {self.session!r}",
                    )
                    return
                # The history is not printed: resume when the agent can (load if it cannot).
                method = await controller.open_session(self.session, self.cwd, history=False)
                session_id = self.session
            else:
                session_id = await controller.new_session(self.cwd)
                method = "new"
        except SessionError as error:
            what = "continue the session" if self.session else "start a session"
            self.open_failed(error, what)
            return
        self.session_id = session_id
        self.renderer.begin(
            session_id, replayed=method != "new", method=method, agent=_agent_json(agent)
        )
        for note in built.notes:
            self.renderer.note("attachment", note)
        controller.send_prompt(session_id, prompt_text, built.blocks)
        await self.turn_done.wait()
        self.renderer.render()
        self._remember(session_id)
        self._turn_over(session_id)

    def _remember(self, session_id: str) -> None:
        """Into the local index, as the TUI would: titled by its first prompt in the sidebar
        and in ``acp-tui sessions`` of an agent that cannot list (Gemini CLI's showed as
        "Untitled", or not at all)."""
        state = self.store.get(session_id)
        if state is None:
            return
        with self.local_index() as index:
            index.remember_session(state)

    def _on_turn_ended(self, session_id: str, reason: str | None) -> None:
        if session_id == self.session_id:
            self.renderer.turn_over = True
            self.turn_reason = reason
            self.turn_done.set()

    def _turn_over(self, session_id: str) -> None:
        client = self.controller.client
        state = self.store.get(session_id)
        gone = client is None or client.connection.closed
        if self.turn_reason == "error":
            if (
                self.controller.is_open(session_id)
                and self.controller.runtime(session_id).auth_blocked
            ):
                self.finish(EXIT_AUTH, self.auth_message())
                return
            if gone:
                if self.interrupted:
                    self.finish(EXIT_INTERRUPTED, "interrupted; the agent exited")
                return  # exit_code() reports the crash
            self.finish(
                EXIT_INTERRUPTED if self.interrupted else EXIT_STOPPED,
                f"the prompt failed: {_label(_last_error(state), 300)}",
            )
            self.output.note(f"session: {_label(session_id, 200)}")
            return
        self.output.finish_text()
        stop = _label(state.stop_reason if state else self.turn_reason, 40) or "unknown"
        self.output.note(f"stop: {stop}  session: {_label(session_id, 200)}")
        if self.interrupted:
            self.finish(EXIT_INTERRUPTED)
        elif stop == "end_turn":
            self.finish(EXIT_OK)
        else:
            self.finish(
                EXIT_STOPPED, STOP_REASONS.get(stop, f"the turn ended with stop reason {stop!r}")
            )

    def _result(self, code: int) -> None:
        state = self.store.get(self.session_id) if self.session_id else None
        self.renderer.finish(
            {
                "stopReason": state.stop_reason if state else None,
                "usage": usage_dict(state.last_turn_usage if state else None),
                "exitCode": code,
            }
        )

    # -- the person, who is not there --

    async def _permission(self, params: Any) -> dict[str, Any]:
        self.renderer.render()  # what led to the request comes first
        pending = await self.broker.answer(params)
        result = pending.result or dict(CANCELLED)
        self.renderer.permission(pending, result, self.allow)
        return result

    async def _nobody_there(
        self, pending: PendingPermission, position: int, total: int
    ) -> str | None:
        """What the dialog would ask (a rule says ask; no rule and no --allow) is rejected:
        once where the agent offers that, else always, else cancelled."""
        choice = pending.first_of(REJECT_ONCE, REJECT_ALWAYS)
        return choice.option_id if choice is not None else None

    def _question_ruled(self, request: OutsideRequest, rule: Rule, line: str) -> None:
        self.renderer.render()
        self.renderer.question_ruled(request, rule, line)

    async def _decline_form(self, pending: Any, position: int, total: int) -> dict[str, Any]:
        what = _label(pending.request.label, 100)
        self.renderer.render()
        self.renderer.note("question", f"declined a form (acp-tui ask cannot fill one in): {what}")
        return answer(DECLINE)

    async def _watch_sigint(self, task_group: anyio.abc.TaskGroup) -> None:
        with anyio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                session_id = self.session_id
                if session_id is None or not self.controller.is_busy(session_id):
                    self.finish(EXIT_INTERRUPTED, "interrupted")
                    return
                if self.interrupted:  # a second Ctrl-C: stop waiting for the agent
                    self.finish(EXIT_INTERRUPTED, "interrupted again: not waiting for the agent")
                    return
                self.interrupted = True
                self.output.break_line()
                self.output.error("interrupted: cancelling the turn (session/cancel)")
                task_group.start_soon(self._cancel, session_id)

    async def _cancel(self, session_id: str) -> None:
        with contextlib.suppress(SessionError):
            await self.controller.cancel(session_id)
        await anyio.sleep(CANCEL_WAIT_SECONDS)
        self.finish(
            EXIT_INTERRUPTED,
            f"the agent did not answer the cancel within {CANCEL_WAIT_SECONDS:g} s",
        )


def _agent_json(agent: AgentInfo) -> dict[str, Any]:
    return {
        "name": agent.name,
        "title": agent.title,
        "version": agent.version,
        "protocolVersion": agent.protocol_version,
    }


def _last_error(state: SessionState | None) -> str:
    """The error notice the store recorded for a failed prompt."""
    for entry in reversed(state.transcript if state else []):
        if isinstance(entry, Notice) and entry.severity == "error":
            return entry.title.removeprefix("The agent reported an error: ")
    return "the agent reported an error"


__all__ = [
    "EXIT_AUTH",
    "EXIT_CRASH",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_UNSUPPORTED",
    "HeadlessAsk",
    "HeadlessSessions",
    "Output",
    "format_table",
    "format_updated",
    "run_ask",
    "run_sessions",
]
