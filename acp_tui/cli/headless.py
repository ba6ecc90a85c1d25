"""The headless face of acp-tui: ``acp-tui ask`` and ``acp-tui sessions``.

No Textual, no Rich: plain text on stdout (the agent's reply, or the session table / JSON)
and short one-line messages on stderr (tool calls, notices, the stop reason, errors), so the
commands compose in scripts. Every string that came from the agent is passed through
:func:`acp_tui.text.safety.sanitize_terminal_text` before it reaches the terminal.

Exit codes: 0 the turn ended with ``end_turn``; 1 another stop reason or an error answer from
the agent; 2 the agent lacks what the command needs; 3 the agent crashed; 4 the agent requires
authentication; 127 the agent could not be started; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

import anyio
import anyio.abc

from acp_tui.cli.headless_render import (
    JsonRenderer,
    Renderer,
    TextRenderer,
    usage_dict,
)
from acp_tui.config import locations
from acp_tui.config.defaults import DEFAULT_INITIALIZE_TIMEOUT
from acp_tui.protocol.client import AcpError, AgentExitedError, AgentInfo, NotSupportedError
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RpcError
from acp_tui.protocol.process import AgentProcess
from acp_tui.services import outside
from acp_tui.services.paths import OutsideRequest
from acp_tui.session.auth import AuthNotDone
from acp_tui.session.auth_methods import ENV_VAR, TERMINAL
from acp_tui.session.controller import AgentExit, LinkEvents, NotResponding, SessionController
from acp_tui.session.elicitation import DECLINE, FORM, answer
from acp_tui.session.elicitation_queue import ElicitationQueue
from acp_tui.session.permissions import PendingPermission, PermissionBroker
from acp_tui.store import SessionStore
from acp_tui.store.entries import Notice
from acp_tui.store.session import SessionState
from acp_tui.text.safety import encodable, one_line, sanitize_terminal_text

EXIT_OK = 0
EXIT_STOPPED = 1
EXIT_UNSUPPORTED = 2
EXIT_CRASH = 3
EXIT_AUTH = 4
EXIT_NOT_FOUND = 127
EXIT_INTERRUPTED = 130

CANCEL_WAIT_SECONDS = 10.0
EXIT_WAIT_SECONDS = 2.0
STDERR_TAIL_LINES = 3
TITLE_WIDTH = 80

PROG = "acp-tui"

STOP_REASONS = {
    "max_tokens": "the agent hit its token limit",
    "max_turn_requests": "the agent hit its limit of model requests for one turn",
    "refusal": "the agent refused to continue",
    "cancelled": "the turn was cancelled",
}


# ---------------------------------------------------------------------------------- output


@dataclass(slots=True)
class Output:
    """Where headless output goes; tests may swap the streams."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    # Whether the last thing written to stdout ended a line (so stderr lines and the final
    # status do not glue onto the reply when both go to one terminal).
    at_line_start: bool = True

    # The reader of stdout went away (`acp-tui ask ... | head -1`): stop writing there.
    broken: bool = False

    def text(self, text: str) -> None:
        text = sanitize_terminal_text(text)
        if text:
            self.write_raw(text)
            self.at_line_start = text.endswith("\n")

    def finish_text(self) -> None:
        if not self.at_line_start:
            self.write_raw("\n")
            self.at_line_start = True

    def write_raw(self, text: str) -> None:
        if self.broken:
            return
        # A lone surrogate (valid JSON) or a character stdout's encoding lacks must not pass
        # for a closed pipe: that cut the reply short and still exited 0.
        text = encodable(text, getattr(self.out, "encoding", None))
        try:
            self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self.broken = True
            _silence_stdout(self.out)

    def break_line(self) -> None:
        """Before a stderr line in the middle of the reply: end the reply's current line,
        but only when both streams are one terminal (a script's stdout stays the pure reply)."""
        if not self.at_line_start and _isatty(self.out) and _isatty(self.err):
            self.finish_text()

    def note(self, line: str) -> None:
        """A one-line message on stderr; ``line`` must already be safe."""
        try:
            self.err.write(encodable(line + "\n", getattr(self.err, "encoding", None)))
            self.err.flush()
        except (OSError, ValueError):
            pass

    def error(self, message: str) -> None:
        self.note(f"{PROG}: {message}")


def _silence_stdout(stream: TextIO) -> None:
    """Point a broken stdout at /dev/null, so the interpreter's final flush stays quiet."""
    if stream is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _label(value: Any, limit: int = TITLE_WIDTH) -> str:
    return one_line(_str(value), limit)


# ---------------------------------------------------------------------------------- ask


#: `ask` prints a terminal sign-in method's command for the person to run.
TERMINAL_AUTH = True
#: What `ask` does with elicitations: a form is declined (nobody is there to fill it in).
ELICITATION_MODES = frozenset({FORM})
#: Pages of session/list read at most (each page must bring new sessions, see the store).
MAX_LIST_PAGES = 1000


def read_prompt(prompt: str) -> str:
    if prompt == "-":
        return sys.stdin.read()
    return prompt


def run_ask(
    invocation: Any,
    output: Output | None = None,
    *,
    initialize_timeout: float = DEFAULT_INITIALIZE_TIMEOUT,
) -> int:
    """``acp-tui ask``: one prompt, the reply streamed to stdout. Returns the exit code."""
    output = output or Output()
    options = invocation.options
    try:
        prompt_text = read_prompt(options.prompt)
    except (OSError, UnicodeDecodeError) as error:
        output.error(f"cannot read the prompt from stdin: {error}")
        return EXIT_UNSUPPORTED
    ask = HeadlessAsk(invocation, output, initialize_timeout=initialize_timeout)
    return _run(lambda: ask.run(prompt_text), output)


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
        initialize_timeout: float,
        store: SessionStore | None = None,
        permission_handler: Any = None,
        elicitations: ElicitationQueue | None = None,
    ) -> None:
        options = invocation.options
        self.output = output
        self.cwd = os.path.abspath(options.cwd or os.getcwd())
        self.allow_outside = bool(getattr(options, "allow_outside", False))
        self.store = store or SessionStore()
        self.code: int | None = None
        self.exit_info: AgentExit | None = None
        self.controller = SessionController(
            invocation.agent_argv,
            cwd=self.cwd,
            store=self.store,
            events=LinkEvents(
                on_error=self._on_error,
                on_exit=self._on_exit,
                on_turn_ended=self._on_turn_ended,
                on_not_responding=self._on_not_responding,
            ),
            permission_handler=permission_handler,
            approve_outside=self._approve_outside,
            mcp_servers=getattr(invocation, "mcp_servers", None),
            # The agent's configured env goes to the agent process only.
            env=getattr(invocation, "agent_env", None),
            log_dir=locations.log_dir(),
            recorder=getattr(invocation, "recorder", None),
            initialize_timeout=initialize_timeout,
            protocol_version=getattr(options, "protocol", None)
            or getattr(invocation, "protocol", None)
            or 1,
            terminal_auth=TERMINAL_AUTH,  # a terminal method is printed for the person to run
            elicitations=elicitations,
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

    @property
    def agent_name(self) -> str:
        agent = self.controller.agent
        return _label(agent.display_name if agent else "the agent", 60)

    def exit_code(self) -> int:
        """After the controller's run: the decided code, or why the agent is gone."""
        if self.code is not None:
            return self.code
        client = self.controller.client
        info = self.exit_info
        if client is None:  # never started
            argv = shlex.join(self.controller.argv)
            reason = info.description if info else "it did not start"
            self.output.error(f"cannot start agent `{argv}`: {reason}")
            return EXIT_NOT_FOUND
        failure = self.controller.start_failure
        if failure is not None:
            self.output.finish_text()
            self.output.error(_label(failure, 300))
            return EXIT_STOPPED
        return _report_crash(client.process, self.output, closed_input=client.closed_its_input)

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

    def open_failed(self, error: BaseException, what: str) -> None:
        """A session call failed: the exit code and the line that says why."""
        if isinstance(error, AgentExitedError):
            return  # the agent is gone: exit_code() says how
        if isinstance(error, AuthNotDone) or (
            isinstance(error, RpcError) and error.code == AUTH_REQUIRED
        ):
            self.finish(EXIT_AUTH, self.auth_message())
        elif isinstance(error, NotSupportedError):
            self.finish(EXIT_UNSUPPORTED, _label(str(error), 300))
        elif isinstance(error, RpcError):
            self.finish(EXIT_STOPPED, f"{self.agent_name} could not {what}: {error}")
        else:
            self.finish(EXIT_STOPPED, _label(str(error), 300))


class HeadlessAsk(Headless):
    """``acp-tui ask``: open (new, or ``--session``), send the prompt, render the store's
    changes until the turn ends."""

    def __init__(self, invocation: Any, output: Output, *, initialize_timeout: float) -> None:
        options = invocation.options
        self.allow = bool(getattr(options, "allow", False))
        self.session = getattr(options, "session", None)
        store = SessionStore()
        renderer_class = JsonRenderer if getattr(options, "json", False) else TextRenderer
        self.renderer: Renderer = renderer_class(store, output)
        # The TUI's broker and its policies: --allow is --yolo's, --deny (the default) is
        # --deny-all's. Nobody is there to ask.
        self.broker = PermissionBroker("yolo" if self.allow else "deny")
        elicitations = ElicitationQueue()
        elicitations.set_presenter(self._decline_form, ELICITATION_MODES)
        super().__init__(
            invocation,
            output,
            initialize_timeout=initialize_timeout,
            store=store,
            permission_handler=self._permission,
            elicitations=elicitations,
        )
        self.session_id: str | None = None
        self.turn_done = anyio.Event()
        self.turn_reason: str | None = None
        self.interrupted = False
        self._dirty = anyio.Event()

    def render(self) -> None:
        self.renderer.render()

    async def run(self, prompt_text: str) -> int:
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
        except (AcpError, RpcError) as error:
            what = "continue the session" if self.session else "start a session"
            self.open_failed(error, what)
            return
        self.session_id = session_id
        self.renderer.begin(
            session_id, replayed=method != "new", method=method, agent=_agent_json(agent)
        )
        controller.send_prompt(session_id, prompt_text)
        await self.turn_done.wait()
        self.renderer.render()
        self._turn_over(session_id)

    def _on_turn_ended(self, session_id: str, reason: str | None) -> None:
        if session_id == self.session_id:
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
        pending = PendingPermission.from_params(params)
        result = await self.broker.request(params)
        self.renderer.permission(pending, result, self.allow)
        return result

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
        with contextlib.suppress(AcpError, RpcError):
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
            return entry.title
    return "the agent reported an error"


def _report_crash(process: AgentProcess, output: Output, *, closed_input: bool = False) -> int:
    """The agent is gone (the controller shut it down): how, with its last stderr lines."""
    output.finish_text()
    status = process.exit_description
    if closed_input:
        message = "the agent closed its input (stdin) and was stopped"
    elif status == "running":
        message = "the agent closed its output"
    elif process.returncode == 0:
        message = f"the agent exited unexpectedly ({status})"
    else:
        message = f"the agent crashed ({status})"
    tail = [one_line(line, 200) for line in process.stderr_tail]
    tail = [line for line in tail if line]
    if tail:
        message += "; last stderr: " + " | ".join(tail[-STDERR_TAIL_LINES:])
    if process.log_path is not None:
        message += f" (full log: {process.log_path})"
    output.error(message)
    return EXIT_CRASH


# ---------------------------------------------------------------------------------- sessions


def run_sessions(
    invocation: Any,
    output: Output | None = None,
    *,
    initialize_timeout: float = DEFAULT_INITIALIZE_TIMEOUT,
) -> int:
    """``acp-tui sessions``: every page of session/list, as a table or JSON."""
    output = output or Output()
    sessions = HeadlessSessions(invocation, output, initialize_timeout=initialize_timeout)
    return _run(sessions.run, output)


class HeadlessSessions(Headless):
    """``acp-tui sessions``: the controller lists every page (the store stops a list that
    loops or brings nothing new); the rows are printed in the agent's order, each once."""

    def __init__(self, invocation: Any, output: Output, *, initialize_timeout: float) -> None:
        super().__init__(invocation, output, initialize_timeout=initialize_timeout)
        options = invocation.options
        self.all = bool(getattr(options, "all", False))
        self.json = bool(getattr(options, "json", False))
        self.rows: list[dict[str, Any]] = []

    async def run(self) -> int:
        await self.controller.run(lambda controller: self._list())
        code = self.exit_code()
        if code != EXIT_OK:
            return code
        if self.json:
            self.output.write_raw(json.dumps(self.rows, indent=2, ensure_ascii=True) + "\n")
            return EXIT_OK
        self.output.write_raw(format_table(self.rows))
        if not self.rows:
            where = "any directory" if self.all else self.cwd
            self.output.note(f"no sessions for {_label(where, 200)}")
        return EXIT_OK

    async def _list(self) -> None:
        agent = self.controller.agent
        assert agent is not None
        if not agent.can_list:
            self.finish(
                EXIT_UNSUPPORTED,
                f"{self.agent_name} does not support listing sessions "
                "(it does not advertise sessionCapabilities.list)",
            )
            return
        scope = None if self.all else self.cwd
        pages: list[Any] = []
        seen: set[str] = set()
        cursor: str | None = None
        try:
            for _ in range(MAX_LIST_PAGES):
                cursor = await self.controller.list_sessions(scope, cursor, pages=pages)
                for row in _rows(pages.pop()):
                    if row["sessionId"] not in seen:
                        seen.add(row["sessionId"])
                        self.rows.append(row)
                if cursor is None:
                    break
            else:
                self.output.error(f"stopped listing after {MAX_LIST_PAGES} pages")
        except (AcpError, RpcError) as error:
            self.open_failed(error, "list sessions")
            return
        stopped = self.store.list_state(scope).stopped
        if stopped:
            self.output.error(f"{_label(stopped, 100)} (the agent's session list): stopped listing")
        self.finish(EXIT_OK)


def _rows(page: Any) -> list[dict[str, Any]]:
    """The well-formed sessions of one session/list page, as the agent sent them."""
    items = page.get("sessions") if isinstance(page, dict) else None
    return [
        item
        for item in items or []
        if isinstance(item, dict) and isinstance(item.get("sessionId"), str)
    ]


def format_updated(value: Any, now: datetime | None = None) -> str:
    """The table's UPDATED cell: '5m ago', '3h ago', '2d ago' for ISO 8601 times within a
    week; the ISO date (YYYY-MM-DD) beyond; the raw (sanitised) value when it does not
    parse; '' when absent. (The sidebar's wording lives in :mod:`acp_tui.text.relative_time`; a
    script-facing table prefers sortable ISO dates.)"""
    text = _str(value)
    if not text:
        return ""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return one_line(text, 25)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < -60:
        return when.strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return when.strftime("%Y-%m-%d")


def format_table(sessions: list[dict[str, Any]], now: datetime | None = None) -> str:
    """A plain-text table: TITLE, UPDATED, CWD, ID; every cell sanitised and one line."""
    rows = [
        (
            _label(session.get("title"), TITLE_WIDTH) or "(untitled)",
            format_updated(session.get("updatedAt"), now),
            _label(session.get("cwd"), 200),
            _label(session.get("sessionId"), 200),
        )
        for session in sessions
    ]
    header = ("TITLE", "UPDATED", "CWD", "ID")
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:3])]
        lines.append("  ".join([*cells, row[3]]).rstrip())
    return "\n".join(lines) + "\n"


__all__ = [
    "Output",
    "format_table",
    "format_updated",
    "run_ask",
    "run_sessions",
]
