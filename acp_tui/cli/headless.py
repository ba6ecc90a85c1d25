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

import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

import anyio

from acp_tui.config import locations
from acp_tui.config.defaults import DEFAULT_INITIALIZE_TIMEOUT
from acp_tui.protocol import v2
from acp_tui.protocol.client import (
    AcpClient,
    AcpError,
    AgentExitedError,
    AgentInfo,
    NotSupportedError,
)
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, INVALID_PARAMS, ConnectionClosed, RpcError
from acp_tui.protocol.process import AgentProcess, AgentStartError
from acp_tui.services import outside
from acp_tui.services.errors import ServiceError
from acp_tui.services.files import FileService
from acp_tui.services.paths import OutsideRequest
from acp_tui.services.terminals import TerminalManager
from acp_tui.session.auth_methods import ENV_VAR, TERMINAL, TerminalLogin, parse_auth_methods
from acp_tui.session.elicitation import DECLINE, FORM, ElicitationError, answer, parse_request
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


def _text_of(content: Any) -> str | None:
    """The text of a text content block, or None for other blocks."""
    if isinstance(content, dict) and content.get("type") == "text":
        return _str(content.get("text"))
    return None


# ---------------------------------------------------------------------------------- ask


#: The ``session/update`` kinds `ask` shows (its client capabilities follow from these).
SHOWN_UPDATES = frozenset(
    {
        "agent_message_chunk",
        "agent_message",
        "tool_call",
        "tool_call_update",
        "plan",
        "notice",
        "current_mode_update",
    }
)
#: `ask` prints a terminal sign-in method's command for the person to run.
TERMINAL_AUTH = True
#: What `ask` does with elicitations: a form is declined (nobody is there to fill it in).
ELICITATION_ABILITIES = frozenset({f"elicitation.{FORM}"})


@dataclass(slots=True)
class _Turn:
    """What `ask` tracks while the agent works."""

    output: Output
    session_id: str | None = None
    # While session/new (or load) is pending the session id is unknown: keep what arrives.
    early: list[Any] = field(default_factory=list)
    replaying: bool = False
    tool_titles: dict[str, str] = field(default_factory=dict)
    tool_status: dict[str, str] = field(default_factory=dict)
    # v2 whole-message upserts: text already printed per messageId.
    message_text: dict[str, str] = field(default_factory=dict)
    allow: bool = False
    cancelling: bool = False
    #: v2: the turn ends with a `state_update` idle, not with the prompt's answer.
    awaiting_idle: bool = False
    idle: anyio.Event = field(default_factory=anyio.Event)
    idle_update: dict[str, Any] = field(default_factory=dict)

    def on_notification(self, method: str, params: Any) -> None:
        if method != "session/update" or not isinstance(params, dict):
            return
        if self.session_id is None:
            self.early.append(params)
            return
        if params.get("sessionId") != self.session_id or self.replaying:
            return
        update = params.get("update")
        if isinstance(update, dict):
            self.apply(update)

    def flush_early(self) -> None:
        early, self.early = self.early, []
        for params in early:
            self.on_notification("session/update", params)

    def apply(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        out = self.output
        if kind == "agent_message_chunk":
            content = update.get("content")
            text = _text_of(content)
            if text is not None:
                out.text(text)
                message_id = update.get("messageId")
                if isinstance(message_id, str):  # v2: its whole upsert may follow
                    self.message_text[message_id] = self.message_text.get(message_id, "") + text
            elif isinstance(content, dict):
                self._note(f"[{_label(content.get('type'), 20) or 'content'}]")
        elif kind == "agent_message":  # v2 draft: whole-message upsert
            self._agent_message(update)
        elif kind == "tool_call":
            self._tool(update, new=True)
        elif kind == "tool_call_update":
            self._tool(update, new=False)
        elif kind == "plan":
            self._plan(update.get("entries"))
        elif kind == "notice":
            severity = _label(update.get("severity"), 20) or "info"
            text = _label(update.get("title"), 200)
            description = _label(update.get("description"), 200)
            self._note(f"[{severity}] {text}" + (f": {description}" if description else ""))
        elif kind == "current_mode_update":
            self._note(f"[mode] {_label(update.get('currentModeId'), 40)}")
        elif kind == "state_update" and update.get("state") == "idle" and self.awaiting_idle:
            self.awaiting_idle = False
            self.idle_update = update
            self.idle.set()
        # Thoughts, user message echoes, usage, titles, commands, unknown variants: not
        # printed (the TUI shows them; a script wants the answer).

    def _note(self, line: str) -> None:
        self.output.break_line()
        self.output.note(line)

    def _agent_message(self, update: dict[str, Any]) -> None:
        message_id = _str(update.get("messageId"))
        content = update.get("content")
        if not isinstance(content, list):
            return
        text = "".join(t for t in (_text_of(block) for block in content) if t is not None)
        printed = self.message_text.get(message_id, "")
        if text.startswith(printed):
            self.output.text(text[len(printed) :])
        else:  # the agent rewrote the message: show the new version on its own line
            self.output.finish_text()
            self.output.text(text)
        self.message_text[message_id] = text

    def _tool(self, update: dict[str, Any], *, new: bool) -> None:
        tool_id = _str(update.get("toolCallId"))
        title = _label(update.get("title"), 100)
        if title:
            self.tool_titles[tool_id] = title
        status = _label(update.get("status"), 20)
        if new:
            status = status or "pending"
        elif not status or status == self.tool_status.get(tool_id):
            return  # content-only progress: not worth a line
        self.tool_status[tool_id] = status
        name = self.tool_titles.get(tool_id) or _label(update.get("kind"), 20) or "tool"
        self._note(f"[tool] {name} ({status})")

    def _plan(self, entries: Any) -> None:
        if not isinstance(entries, list):
            return
        entries = [e for e in entries if isinstance(e, dict)]
        done = sum(1 for e in entries if e.get("status") == "completed")
        current = next((e for e in entries if e.get("status") == "in_progress"), None)
        line = f"[plan] {done}/{len(entries)} done"
        if current is not None:
            line += f"; now: {_label(current.get('content'), 100)}"
        self._note(line)

    async def elicit(self, params: Any) -> dict[str, Any]:
        """``elicitation/create``: nobody can fill in a form here, so it is declined, and
        stderr says what was asked."""
        try:
            request = parse_request(params, {FORM})
        except ElicitationError as error:
            self._note(f"[question] the agent asked something acp-tui cannot show: {error}")
            raise RpcError(INVALID_PARAMS, str(error)) from None
        what = _label(request.label, 100)
        self._note(f"[question] declined a form (acp-tui ask cannot fill one in): {what}")
        return answer(DECLINE)

    async def request_permission(self, params: Any) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        if "subject" in params or ("title" in params and "toolCall" not in params):
            params = v2.with_prompt_title(v2.permission_params(params)[0])  # a v2 request
        options = [o for o in params.get("options") or [] if isinstance(o, dict)]
        tool = params.get("toolCall") if isinstance(params.get("toolCall"), dict) else {}
        tool_id = _str(tool.get("toolCallId"))
        what = _label(tool.get("title"), 100) or self.tool_titles.get(tool_id) or "a tool call"
        if params.get("sessionId") != self.session_id or self.cancelling:
            return {"outcome": {"outcome": "cancelled"}}
        if self.allow:
            kinds: tuple[str, ...] = ("allow_once", "allow_always")
            verb = "allowed"
        else:
            kinds = ("reject_once", "reject_always")
            verb = "rejected"
        for option_kind in kinds:
            chosen = next((o for o in options if o.get("kind") == option_kind), None)
            if chosen is not None:
                name = _label(chosen.get("name"), 40) or _label(chosen.get("optionId"), 40)
                hint = "" if self.allow else " (use --allow to allow)"
                self._note(f"[permission] {what}: {verb} ({name}){hint}")
                return {"outcome": {"outcome": "selected", "optionId": chosen.get("optionId")}}
        self._note(f"[permission] {what}: no {verb[:-2]} option offered, answered cancelled")
        return {"outcome": {"outcome": "cancelled"}}


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
    turn = _Turn(output, allow=bool(getattr(options, "allow", False)))
    return _run(lambda: _ask(invocation, prompt_text, turn, initialize_timeout), output)


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


def _client_services(
    cwd: str, output: Output, allow_outside: bool
) -> tuple[TerminalManager, dict[str, Callable[[Any], Awaitable[Any]]]]:
    """Files and terminals for the agent, kept to ``cwd`` as in the TUI: what needs the
    person's yes there (a path or a command outside, an environment that changes what runs)
    is refused here, with a line on stderr, unless ``--allow-outside``."""

    async def approve(request: OutsideRequest) -> bool:
        output.break_line()
        if allow_outside:
            output.error(f"allowed (--allow-outside): {outside.one_line(request)}")
            return True
        output.error(f"refused: {outside.one_line(request)} (--allow-outside allows it)")
        return False

    files = FileService([cwd], approve)
    terminals = TerminalManager(guard=files.guard)

    def service(method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        async def call(params: Any) -> Any:
            try:
                return await method(params if isinstance(params, dict) else {})
            except ServiceError as error:
                raise RpcError(error.code, error.message, error.data) from None

        return call

    handlers = {
        "fs/read_text_file": service(files.read_text_file),
        "fs/write_text_file": service(files.write_text_file),
        "terminal/create": service(terminals.create),
        "terminal/output": service(terminals.output),
        "terminal/wait_for_exit": service(terminals.wait_for_exit),
        "terminal/kill": service(terminals.kill),
        "terminal/release": service(terminals.release),
    }
    return terminals, handlers


async def _ask(invocation: Any, prompt_text: str, turn: _Turn, initialize_timeout: float) -> int:
    options = invocation.options
    cwd = options.cwd or os.getcwd()
    output = turn.output
    terminals, handlers = _client_services(
        cwd, output, bool(getattr(options, "allow_outside", False))
    )
    try:
        async with (
            AcpClient.launch(
                invocation.agent_argv,
                cwd=cwd,
                log_dir=locations.log_dir(),
                handlers={
                    "session/request_permission": turn.request_permission,
                    "elicitation/create": turn.elicit,
                    **handlers,
                },
                on_notification=turn.on_notification,
                updates=SHOWN_UPDATES,
                abilities=ELICITATION_ABILITIES,
                recorder=getattr(invocation, "recorder", None),
                terminal_auth=TERMINAL_AUTH,  # a terminal method is printed for the person to run
                protocol_version=getattr(options, "protocol", None) or 1,
            ) as client,
            terminals,
        ):
            try:
                agent = await _initialize(client, output, initialize_timeout)
                if agent is None:
                    return EXIT_STOPPED
                return await _ask_session(client, agent, cwd, options.session, prompt_text, turn)
            except AgentExitedError as error:
                return await _report_crash(
                    client.process, str(error), output, closed_input=client.closed_its_input
                )
            except ConnectionClosed as error:
                return await _report_crash(
                    client.process, str(error), output, closed_input=client.closed_its_input
                )
    except AgentStartError as error:
        output.error(str(error))
        return EXIT_NOT_FOUND


async def _initialize(client: AcpClient, output: Output, seconds: float) -> AgentInfo | None:
    """``initialize``, bounded: None (said why on stderr) when the command is not an ACP agent,
    fails to negotiate, or does not answer within ``seconds``."""
    timeout = seconds
    try:
        with anyio.fail_after(timeout):
            return await client.initialize()
    except TimeoutError:
        message = f"the agent is not responding (no answer to initialize after {timeout:g} s)"
        printed = [one_line(line, 200) for line in client.connection.stats.first_skipped]
        printed = [line for line in printed if line]
        if printed:
            message += "; it printed this on stdout, which is not ACP: " + " | ".join(printed)
        output.error(message)
        return None
    except RpcError as error:
        output.error(f"initialize failed: {_label(str(error), 300)}")
        return None
    except AcpError as error:
        if isinstance(error, AgentExitedError):
            raise
        output.error(_label(str(error), 300))
        return None


async def _ask_session(
    client: AcpClient,
    agent: AgentInfo,
    cwd: str,
    session: str | None,
    prompt_text: str,
    turn: _Turn,
) -> int:
    output = turn.output
    name = _label(agent.display_name, 60)

    try:
        if session:
            if agent.can_resume:
                await client.resume_session(session, cwd)
            elif agent.can_load:
                turn.replaying = True
                turn.session_id = session  # replayed history is routed, then dropped
                try:
                    await client.load_session(session, cwd)
                finally:
                    turn.replaying = False
            else:
                output.error(
                    f"{name} can neither resume nor load sessions; cannot continue {session!r}"
                )
                return EXIT_UNSUPPORTED
            turn.session_id = session
            turn.early.clear()
        else:
            created = await client.new_session(cwd)
            session_id = created.get("sessionId") if isinstance(created, dict) else None
            if not isinstance(session_id, str) or not session_id:
                output.error(f"{name} answered session/new without a session id")
                return EXIT_STOPPED
            turn.session_id = session_id
            turn.flush_early()
    except RpcError as error:
        if error.code == AUTH_REQUIRED:
            output.error(_auth_message(name, client))
            return EXIT_AUTH
        what = "continue the session" if session else "start a session"
        output.error(f"{name} could not {what}: {_label(str(error), 300)}")
        return EXIT_STOPPED
    except NotSupportedError as error:
        output.error(_label(str(error), 300))
        return EXIT_UNSUPPORTED

    session_id = turn.session_id
    assert session_id is not None
    prompt = [{"type": "text", "text": prompt_text}]
    interrupted = False
    result: dict[str, Any] = {}
    failure: Exception | None = None
    async with anyio.create_task_group() as task_group:

        async def watch_sigint() -> None:
            nonlocal interrupted
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                async for _ in signals:
                    if interrupted:  # a second Ctrl-C: stop waiting for the agent
                        output.error("interrupted again: not waiting for the agent")
                        task_group.cancel_scope.cancel()
                        return
                    interrupted = True
                    turn.cancelling = True
                    output.break_line()
                    output.error("interrupted: cancelling the turn (session/cancel)")
                    await client.cancel(session_id)
                    task_group.start_soon(cancel_deadline)

        async def cancel_deadline() -> None:
            await anyio.sleep(CANCEL_WAIT_SECONDS)
            output.error(f"the agent did not answer the cancel within {CANCEL_WAIT_SECONDS:g} s")
            task_group.cancel_scope.cancel()

        task_group.start_soon(watch_sigint)
        try:
            turn.awaiting_idle = client.v2
            result = await client.prompt(session_id, prompt)
            if client.v2:
                # v2: the answer says the prompt was accepted; the idle state ends the turn.
                await turn.idle.wait()
                reason = turn.idle_update.get("stopReason")
                result = {"stopReason": reason} if isinstance(reason, str) else {}
        except (AcpError, RpcError, ConnectionClosed) as error:
            failure = error  # handled outside: a task group would wrap it in a group
        finally:
            task_group.cancel_scope.cancel()

    if isinstance(failure, AgentExitedError | ConnectionClosed):
        if interrupted:
            output.finish_text()
            output.error("interrupted; the agent exited")
            return EXIT_INTERRUPTED
        raise failure
    if failure is not None:
        output.finish_text()
        if isinstance(failure, RpcError) and failure.code == AUTH_REQUIRED:
            output.error(_auth_message(name, client))
            return EXIT_AUTH
        output.error(f"the prompt failed: {_label(str(failure), 300)}")
        output.note(f"session: {_label(session_id, 200)}")
        return EXIT_INTERRUPTED if interrupted else EXIT_STOPPED

    output.finish_text()
    if interrupted and not result:
        output.note(f"stop: (no answer)  session: {_label(session_id, 200)}")
        return EXIT_INTERRUPTED
    stop = _label(result.get("stopReason"), 40) or "unknown"
    output.note(f"stop: {stop}  session: {_label(session_id, 200)}")
    if interrupted:
        return EXIT_INTERRUPTED
    if stop == "end_turn":
        return EXIT_OK
    output.error(STOP_REASONS.get(stop, f"the turn ended with stop reason {stop!r}"))
    return EXIT_STOPPED


def _auth_message(name: str, client: AcpClient) -> str:
    """One line: the methods, and for a terminal method the exact command to run (``ask``
    never signs in itself, and never sends a terminal method to ``authenticate``)."""
    agent = client.agent
    methods = parse_auth_methods(agent.auth_methods if agent else [], v2=client.v2)
    names = []
    for method in methods:
        label = _label(method.name, 40)
        method_id = _label(method.id, 40)
        if label and method_id and label != method_id:
            names.append(f"{label} [{method_id}]")
        elif label or method_id:
            names.append(label or method_id)
    listed = ", ".join(names) if names else "none advertised"
    message = (
        f"{name} requires authentication (methods: {listed}); "
        "authenticate in the acp-tui TUI or with the agent itself, then retry"
    )
    cwd = str(client.process.cwd) if client.process.cwd else os.getcwd()
    for method in methods:
        if method.kind == TERMINAL:
            login = TerminalLogin.of(method, client.process.argv, cwd)
            command = sanitize_terminal_text(login.command_line()).replace("\n", " ")
            message += f"; to sign in with {_label(method.label, 40)}, run: {command}"
        elif method.kind == ENV_VAR:
            message += f"; {_label(method.label, 40)}: {_label(method.how(), 200)}"
    return message


async def _report_crash(
    process: AgentProcess, reason: str, output: Output, *, closed_input: bool = False
) -> int:
    with anyio.move_on_after(EXIT_WAIT_SECONDS):
        await process.exited.wait()
    output.finish_text()
    status = process.exit_description
    if closed_input:
        message = f"the agent closed its input (stdin) and was stopped ({_label(reason, 200)})"
    elif status == "running":
        message = f"the agent closed its output ({_label(reason, 200)})"
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
    return _run(lambda: _sessions(invocation, output, initialize_timeout), output)


async def _sessions(invocation: Any, output: Output, initialize_timeout: float) -> int:
    options = invocation.options
    cwd = options.cwd or os.getcwd()
    try:
        async with AcpClient.launch(
            invocation.agent_argv,
            cwd=cwd,
            log_dir=locations.log_dir(),
            recorder=getattr(invocation, "recorder", None),
            terminal_auth=TERMINAL_AUTH,
            protocol_version=getattr(options, "protocol", None) or 1,
        ) as client:
            try:
                initialized = await _initialize(client, output, initialize_timeout)
                if initialized is None:
                    return EXIT_STOPPED
                agent = initialized
                name = _label(agent.display_name, 60)
                if not agent.can_list:
                    output.error(
                        f"{name} does not support listing sessions "
                        "(it does not advertise sessionCapabilities.list)"
                    )
                    return EXIT_UNSUPPORTED
                notes: list[str] = []
                sessions = await client.list_all_sessions(
                    None if getattr(options, "all", False) else cwd, notes=notes
                )
                for note in notes:
                    output.error(note)
            except AgentExitedError as error:
                return await _report_crash(
                    client.process, str(error), output, closed_input=client.closed_its_input
                )
            except RpcError as error:
                if error.code == AUTH_REQUIRED:
                    output.error(_auth_message("the agent", client))
                    return EXIT_AUTH
                output.error(f"session/list failed: {_label(str(error), 300)}")
                return EXIT_STOPPED
            except AcpError as error:
                output.error(_label(str(error), 300))
                return EXIT_STOPPED
    except AgentStartError as error:
        output.error(str(error))
        return EXIT_NOT_FOUND
    if getattr(options, "json", False):
        output.write_raw(json.dumps(sessions, indent=2, ensure_ascii=True) + "\n")
        return EXIT_OK
    output.write_raw(format_table(sessions))
    if not sessions:
        where = "any directory" if getattr(options, "all", False) else cwd
        output.note(f"no sessions for {_label(where, 200)}")
    return EXIT_OK


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
