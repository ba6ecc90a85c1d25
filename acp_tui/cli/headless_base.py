"""What the headless commands share: :class:`Headless` runs one
:class:`~acp_tui.session.agent.controller.SessionController` (the TUI's) without a person, decides
the exit code and says what went wrong, once, on stderr."""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc

from acp_tui.cli.agents import resolve_command_line
from acp_tui.cli.headless_output import (
    EXIT_AUTH,
    EXIT_CRASH,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_STOPPED,
    EXIT_UNSUPPORTED,
    STDERR_TAIL_LINES,
    Output,
    _label,
)
from acp_tui.config import locations
from acp_tui.services import outside
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.agent.controller import (
    AgentExit,
    ControllerEvents,
    NotResponding,
    PermissionHandler,
)
from acp_tui.session.agent.events import FaceHooks, ProcessSetup
from acp_tui.session.asking.permissions import Policy
from acp_tui.session.asking.rule_book import RuleBook
from acp_tui.session.auth.methods import ENV_VAR, TERMINAL
from acp_tui.session.errors import (
    AgentGone,
    AgentRefused,
    AuthRequired,
    NotSupported,
    SessionError,
)
from acp_tui.session.launch.factory import AgentParts, QuestionRuled
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.local_index import LocalIndex
from acp_tui.store.spend_writer import SpendWriter
from acp_tui.text.safety import one_line, sanitize_terminal_text

#: `ask` prints a terminal sign-in method's command for the person to run.
TERMINAL_AUTH = True


def _run(main: Callable[[], Any], output: Output) -> int:
    # The wire core logs handler failures with tracebacks; with no logging configured Python
    # would print them on stderr. The agent's own log file keeps its stderr; ours stay quiet.
    logging.getLogger("acp_tui").addHandler(logging.NullHandler())
    try:
        return int(anyio.run(main))
    except KeyboardInterrupt:
        output.finish_text()
        output.error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as error:  # never a traceback on the user's terminal
        if os.environ.get("ACP_TUI_DEBUG"):
            raise
        output.finish_text()
        output.error(
            f"internal error: {_describe_exception(error)} (set ACP_TUI_DEBUG=1 for details)"
        )
        return EXIT_STOPPED


def _describe_exception(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return _label(f"{type(error).__name__}: {error}", 300)


class Headless:
    """One headless command over a :class:`SessionController`: the controller runs the agent
    (start, initialize, sessions, services, shutdown); this class decides the exit code and
    says what went wrong, once, on stderr."""

    def __init__(
        self,
        invocation: Any,
        output: Output,
        *,
        policy: Policy = "deny",
        permission_handler: PermissionHandler | None = None,
        rules: RuleBook | None = None,
        on_question_ruled: QuestionRuled | None = None,
        spend: SpendWriter | None = None,
    ) -> None:
        options = invocation.options
        spec = invocation.spec
        if spec is None:  # not resolved by the command line (a test): without a config file
            resolved = resolve_command_line(options, invocation.agent_argv)
            assert resolved is not None, "a headless command runs an agent"
            spec = resolved.spec
        self.spec: AgentSpec = spec
        self.output = output
        self.cwd = spec.cwd
        self.allow_outside = bool(getattr(options, "allow_outside", False))
        self.code: int | None = None
        self.exit_info: AgentExit | None = None
        #: The TUI's parts, built by the same factory: the store, the queue, the broker
        #: (answering by ``policy``: nobody is there to ask) and the elicitation queue.
        self.parts = AgentParts(
            spec,
            policy=policy,
            process=ProcessSetup(
                log_dir=locations.log_dir(), recorder=getattr(invocation, "recorder", None)
            ),
            rules=rules,
            on_question_ruled=on_question_ruled,
            spend=spend,
        )
        self.store = self.parts.store
        # Nobody can review a write here (review_writes = "ask"): the policy decides at once
        # (--allow: written; else rejected), and stderr says what was done.
        self.parts.write_reviews.on_answered = lambda _session, text: self.output.note(text)
        self.controller = self.parts.controller(
            FaceHooks(
                events=ControllerEvents(
                    on_error=self._on_error,
                    on_exit=self._on_exit,
                    on_turn_ended=self._on_turn_ended,
                    on_not_responding=self._on_not_responding,
                ),
                permission_handler=permission_handler,
                approve_outside=self._approve_outside,
                terminal_auth=TERMINAL_AUTH,  # a terminal method is printed for the person
            )
        )

    # -- events from the controller --

    def _on_error(self, text: str) -> None:
        self.render()
        self.output.break_line()
        self.output.error(_label(text, 300))

    def _on_exit(self, exit_info: AgentExit) -> None:
        self.exit_info = exit_info

    def _on_turn_ended(self, session_id: str, reason: str | None) -> None:
        pass

    def _on_not_responding(self, report: NotResponding) -> None:
        message = (
            f"the agent is not responding (no answer to initialize after {report.seconds:g} s)"
        )
        printed = [one_line(line, 200) for line in report.printed]
        printed = [line for line in printed if line]
        if printed:
            message += "; it printed this on stdout, which is not ACP: " + " | ".join(printed)
        self.finish(EXIT_STOPPED, message)

    async def _approve_outside(self, request: OutsideRequest) -> bool:
        """What needs the person's yes in the TUI (a path or a command outside the cwd, an
        environment that changes what runs) is refused here unless ``--allow-outside``."""
        self.render()
        self.output.break_line()
        if self.allow_outside:
            self.output.error(f"allowed (--allow-outside): {outside.one_line(request)}")
            return True
        self.output.error(f"refused: {outside.one_line(request)} (--allow-outside allows it)")
        return False

    def render(self) -> None:
        """Print what changed in the store so far (before a line about what followed)."""

    # -- the end --

    def finish(self, code: int, error: str | None = None) -> None:
        """The command is decided: say why (once), and stop the agent."""
        if self.code is None:
            self.code = code
            if error is not None:
                self.output.finish_text()
                self.output.error(error)
        self.controller.request_stop()

    def local_index(self) -> LocalIndex:
        """The TUI's local index of sessions, this agent's part (the key the TUI uses: the
        agent's identity), to use in a ``with``."""
        return LocalIndex(locations.local_index_file(), self.spec.key, legacy=self.spec.legacy_key)

    @property
    def agent_name(self) -> str:
        agent = self.controller.agent
        return _label(agent.display_name if agent else "the agent", 60)

    def exit_code(self) -> int:
        """After the controller's run: the decided code, or why the agent is gone."""
        if self.code is not None:
            return self.code
        info = self.exit_info
        if self.controller.process is None:  # never started
            argv = shlex.join(self.controller.argv)
            reason = info.description if info else "it did not start"
            self.output.error(f"cannot start agent `{argv}`: {reason}")
            return EXIT_NOT_FOUND
        failure = self.controller.start_failure
        if failure is not None:
            self.output.finish_text()
            self.output.error(_label(failure, 300))
            return EXIT_STOPPED
        return _report_crash(info, self.output)

    def auth_message(self) -> str:
        """One line: the methods, and for a terminal method the exact command to run (``ask``
        never signs in itself, and never sends a terminal method to ``authenticate``)."""
        sign_in = self.controller.sign_in
        names = []
        for method in sign_in.methods:
            label = _label(method.name, 40)
            method_id = _label(method.id, 40)
            if label and method_id and label != method_id:
                names.append(f"{label} [{method_id}]")
            elif label or method_id:
                names.append(label or method_id)
        listed = ", ".join(names) if names else "none advertised"
        message = (
            f"{self.agent_name} requires authentication (methods: {listed}); "
            "authenticate in the acp-tui TUI or with the agent itself, then retry"
        )
        for method in sign_in.methods:
            if method.kind == TERMINAL:
                login = sign_in.terminal_login(method)
                command = sanitize_terminal_text(login.command_line()).replace("\n", " ")
                message += f"; to sign in with {_label(method.label, 40)}, run: {command}"
            elif method.kind == ENV_VAR:
                message += f"; {_label(method.label, 40)}: {_label(method.how(), 200)}"
        return message

    def open_failed(self, error: SessionError, what: str) -> None:
        """A session call failed: the exit code and the line that says why."""
        if isinstance(error, AgentGone):
            return  # the agent is gone: exit_code() says how
        if isinstance(error, AuthRequired):
            self.finish(EXIT_AUTH, self.auth_message())
        elif isinstance(error, NotSupported):
            self.finish(EXIT_UNSUPPORTED, _label(str(error), 300))
        elif isinstance(error, AgentRefused):
            self.finish(EXIT_STOPPED, f"{self.agent_name} could not {what}: {error}")
        else:
            self.finish(EXIT_STOPPED, _label(str(error), 300))


def _report_crash(info: AgentExit | None, output: Output) -> int:
    """The agent is gone (the controller shut it down): how, as its exit report says, with
    its last stderr lines."""
    output.finish_text()
    status = info.status if info is not None else "running"
    if info is not None and info.closed_input:
        message = "the agent closed its input (stdin) and was stopped"
    elif status == "running":
        message = "the agent closed its output"
    elif info is not None and info.returncode == 0:
        message = f"the agent exited unexpectedly ({status})"
    else:
        message = f"the agent crashed ({status})"
    tail = [one_line(line, 200) for line in (info.stderr_tail if info is not None else [])]
    tail = [line for line in tail if line]
    if tail:
        message += "; last stderr: " + " | ".join(tail[-STDERR_TAIL_LINES:])
    if info is not None and info.log_path is not None:
        message += f" (full log: {info.log_path})"
    output.error(message)
    return EXIT_CRASH
