"""``terminal/*``: real processes the agent asks the client to run.

Lifecycle
    ``async with TerminalManager(on_output=...) as tm:`` owns a task group (or call
    ``tm.start(task_group)`` with one of yours and ``await tm.aclose()`` at the end). Leaving the
    context, or ``aclose()``, runs :meth:`TerminalManager.kill_all`: every process group gets
    SIGTERM, then SIGKILL after a grace period.

Commands
    ``command`` + ``args`` are executed directly (no shell). A ``command`` with no ``args`` that
    contains whitespace or shell syntax (``npm test``, ``ls | wc -l``) and is not itself an
    existing file is run as ``/bin/sh -c command``, which is what agents that send a command
    line mean. Each process starts in its own session and process group
    (``start_new_session=True``) with stdin at /dev/null; kill and release reach its children.
    ``env`` entries are merged over the client's environment. A command that cannot be found is
    RESOURCE_NOT_FOUND.

Working directory and environment
    ``cwd`` must be absolute; with a :class:`PathGuard` (per manager or per ``create`` call) it
    defaults to the guard's cwd (without one, to the client's cwd). With a guard, a command
    whose ``cwd`` is outside the session's roots, or whose ``env`` changes a variable that
    decides which code runs (:data:`~acp_tui.services.terminal_commands.RISKY_ENV_NAMES`: PATH, LD_PRELOAD, PYTHONPATH...), runs
    only if the person allows it: the guard's callback gets one
    :class:`~acp_tui.services.paths.OutsideRequest` with the cwd, command, args and every
    variable set; a refusal is PERMISSION_DENIED.

Output
    stdout and stderr are merged into one buffer that keeps only the last ``outputByteLimit``
    bytes, cut at a UTF-8 character boundary (``truncated`` tells). Without ``outputByteLimit``
    the manager's ``default_output_limit`` applies, so memory stays bounded whatever the process
    prints. ``on_output(terminal_id)`` is called (cheaply, on the event loop) after each chunk
    and when the process exits: a "something changed" hook for live display; read the state
    with :meth:`TerminalManager.get`.

Kill and release
    ``terminal/kill`` sends SIGKILL to the process group and waits (briefly) for the exit to be
    recorded; the terminal stays queryable. ``terminal/release`` kills if still running and
    forgets the terminal: later calls with its id are RESOURCE_NOT_FOUND.

A terminal belongs to the ``sessionId`` that created it: a request naming another session gets
RESOURCE_NOT_FOUND, as if the terminal did not exist.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc

from acp_tui.protocol import reaper
from acp_tui.services.errors import internal_error, invalid_params, not_found, permission_denied
from acp_tui.services.paths import OutsideRequest, PathGuard, require_absolute, resolve_real
from acp_tui.services.terminal_commands import command_argv, env_overrides, risky_env
from acp_tui.services.terminal_output import ExitStatus, OutputBuffer, TerminalState

log = logging.getLogger(__name__)

DEFAULT_OUTPUT_LIMIT = 4 * 1024 * 1024
#: The most output a terminal keeps, whatever ``outputByteLimit`` the agent asks for: a limit of
#: 10**30 on ``yes`` would otherwise grow the client's memory until the machine runs out. The
#: spec's truncation (from the beginning, ``truncated: true``) applies at this size.
MAX_OUTPUT_LIMIT = 64 * 1024 * 1024
READ_CHUNK = 64 * 1024


class _Terminal:
    def __init__(
        self,
        terminal_id: str,
        session_id: str | None,
        argv: list[str],
        command_line: str,
        cwd: Path,
        limit: int,
        process: anyio.abc.Process,
    ) -> None:
        self.id = terminal_id
        self.session_id = session_id
        self.argv = argv
        self.command_line = command_line
        self.cwd = cwd
        self.buffer = OutputBuffer(limit)
        self.process = process
        self.pgid = process.pid  # start_new_session: the leader's pid is the group id
        self.exit_status: ExitStatus | None = None
        self.exited = anyio.Event()
        self.output_closed = anyio.Event()
        self.finished = anyio.Event()
        self.scope = anyio.CancelScope()
        #: The mark of this terminal's processes (see acp_tui.protocol.reaper).
        self.tag = ""

    @property
    def running(self) -> bool:
        return self.exit_status is None

    def signal_group(self, sig: signal.Signals) -> None:
        # Once the leader is reaped, its pid can only be reused when no process of the group
        # is left; a group member still holding our pipe keeps the id reserved.
        if not self.running and self.output_closed.is_set():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def end_leftovers(self) -> None:
        """Kill what the command left behind outside its process group (``setsid``, daemons)."""
        if self.tag:
            reaper.sweep(self.tag)


# -- manager -----------------------------------------------------------------------------------


class TerminalManager:
    """The terminals of one client (or one session): ``terminal/*`` requests and UI snapshots."""

    def __init__(
        self,
        on_output: Callable[[str], None] | None = None,
        *,
        guard: PathGuard | None = None,
        default_output_limit: int = DEFAULT_OUTPUT_LIMIT,
        max_output_limit: int = MAX_OUTPUT_LIMIT,
        kill_grace: float = 2.0,
        drain_timeout: float = 0.5,
    ) -> None:
        self.on_output = on_output
        self.guard = guard
        self.default_output_limit = min(default_output_limit, max_output_limit)
        self.max_output_limit = max_output_limit
        self.kill_grace = kill_grace
        self.drain_timeout = drain_timeout
        self._terminals: dict[str, _Terminal] = {}
        self._task_group: anyio.abc.TaskGroup | None = None
        self._own_task_group: anyio.abc.TaskGroup | None = None

    # lifecycle

    async def __aenter__(self) -> Self:
        self._own_task_group = anyio.create_task_group()
        await self._own_task_group.__aenter__()
        self._task_group = self._own_task_group
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        task_group, self._own_task_group = self._own_task_group, None
        try:
            with anyio.CancelScope(shield=True):
                await self.kill_all()
        finally:
            self._task_group = None
        if task_group is None:
            return None
        task_group.cancel_scope.cancel()
        return await task_group.__aexit__(exc_type, exc, tb)

    def start(self, task_group: anyio.abc.TaskGroup) -> None:
        """Run the terminals' background tasks in ``task_group`` (instead of ``async with``)."""
        self._task_group = task_group

    async def aclose(self) -> None:
        """Kill every terminal and stop using the task group given to :meth:`start`."""
        with anyio.CancelScope(shield=True):
            await self.kill_all()
        for terminal in list(self._terminals.values()):
            terminal.scope.cancel()
        self._task_group = None

    # queries for the UI

    def get(self, terminal_id: str) -> TerminalState:
        """A snapshot of a terminal (KeyError if unknown or released)."""
        terminal = self._terminals[terminal_id]
        return TerminalState(
            terminal_id=terminal.id,
            session_id=terminal.session_id,
            command_line=terminal.command_line,
            cwd=str(terminal.cwd),
            output=terminal.buffer.text(final=terminal.finished.is_set()),
            truncated=terminal.buffer.truncated,
            exit_status=terminal.exit_status,
            running=terminal.running,
            output_byte_limit=terminal.buffer.limit,
        )

    def __contains__(self, terminal_id: object) -> bool:
        return terminal_id in self._terminals

    @property
    def terminal_ids(self) -> list[str]:
        return list(self._terminals)

    # ACP methods

    async def create(
        self, params: dict[str, Any], *, guard: PathGuard | None = None
    ) -> dict[str, Any]:
        """``terminal/create`` -> ``{"terminalId": str}``. ``guard`` overrides the manager's."""
        if self._task_group is None:
            raise internal_error("the terminal manager is not running")
        params = _require_object(params)
        session_id = params.get("sessionId")
        if session_id is not None and not isinstance(session_id, str):
            raise invalid_params("'sessionId' must be a string")
        command = params.get("command")
        if not isinstance(command, str) or not command.strip():
            raise invalid_params("'command' must be a non-empty string", {"command": command})
        if "\0" in command:
            raise invalid_params("'command' must not contain NUL bytes")
        args = params.get("args") or []
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise invalid_params("'args' must be an array of strings", {"args": args})
        if any("\0" in arg for arg in args):
            raise invalid_params("'args' must not contain NUL bytes")
        overrides = env_overrides(params.get("env"))
        limit = params.get("outputByteLimit")
        if limit is None:
            limit = self.default_output_limit
        elif isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise invalid_params(
                "'outputByteLimit' must be a non-negative integer", {"outputByteLimit": limit}
            )
        limit = min(limit, self.max_output_limit)
        guard = guard or self.guard
        cwd, outside = self._cwd(params.get("cwd"), guard)
        risky = risky_env(overrides)
        if guard is not None and (outside or risky):
            await self._confirm(guard, params, cwd, outside, command, args, overrides, risky)

        argv, command_line = command_argv(command, args, cwd)
        tag = reaper.new_tag("terminal")
        try:
            with reaper.spawning():
                process = await anyio.open_process(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    cwd=cwd,
                    # Marked: a daemon the command starts is found and ended with it.
                    env=reaper.child_env(tag, overrides),
                    start_new_session=True,
                )
                reaper.register(process.pid)
        except FileNotFoundError:
            raise not_found(f"command not found: {argv[0]}", {"command": argv[0]}) from None
        except PermissionError:
            raise invalid_params(
                f"command is not executable: {argv[0]}", {"command": argv[0]}
            ) from None
        except OSError as exc:
            raise internal_error(
                f"cannot start {argv[0]}: {exc.strerror or exc}", {"command": argv[0]}
            ) from None

        terminal_id = f"term_{uuid.uuid4().hex[:16]}"
        terminal = _Terminal(terminal_id, session_id, argv, command_line, cwd, limit, process)
        terminal.tag = tag
        self._terminals[terminal_id] = terminal
        self._task_group.start_soon(self._run, terminal, name=f"terminal {terminal_id}")
        return {"terminalId": terminal_id}

    async def output(self, params: dict[str, Any]) -> dict[str, Any]:
        """``terminal/output`` -> ``{"output", "truncated", "exitStatus"?}``."""
        terminal = self._lookup(params)
        result: dict[str, Any] = {
            "output": terminal.buffer.text(final=terminal.finished.is_set()),
            "truncated": terminal.buffer.truncated,
        }
        if terminal.exit_status is not None:
            result["exitStatus"] = terminal.exit_status.to_json()
        return result

    async def wait_for_exit(self, params: dict[str, Any]) -> dict[str, Any]:
        """``terminal/wait_for_exit`` -> ``{"exitCode": int|None, "signal": str|None}``."""
        terminal = self._lookup(params)
        await terminal.exited.wait()
        assert terminal.exit_status is not None
        return terminal.exit_status.to_json()

    async def kill(self, params: dict[str, Any]) -> dict[str, Any]:
        """``terminal/kill`` -> ``{}``: SIGKILL the process group; the terminal stays."""
        terminal = self._lookup(params)
        await self._kill(terminal)
        return {}

    async def release(self, params: dict[str, Any]) -> dict[str, Any]:
        """``terminal/release`` -> ``{}``: kill if running, then forget the terminal."""
        terminal = self._lookup(params)
        del self._terminals[terminal.id]
        with anyio.CancelScope(shield=True):
            await self._kill(terminal)
            terminal.scope.cancel()
            with anyio.move_on_after(self.kill_grace):
                await terminal.finished.wait()
        return {}

    async def release_session(self, session_id: str) -> None:
        """Release every terminal created by ``session_id`` (when the session goes away)."""
        for terminal in [t for t in self._terminals.values() if t.session_id == session_id]:
            await self.release({"sessionId": session_id, "terminalId": terminal.id})

    async def kill_all(self) -> None:
        """SIGTERM every terminal's process group, then SIGKILL after ``kill_grace`` seconds."""
        terminals = list(self._terminals.values())
        for terminal in terminals:
            terminal.signal_group(signal.SIGTERM)
        with anyio.move_on_after(self.kill_grace):
            for terminal in terminals:
                await terminal.exited.wait()
        # Also reach children that outlived their leader while still holding the output pipe.
        for terminal in terminals:
            terminal.signal_group(signal.SIGKILL)
        with anyio.move_on_after(self.kill_grace):
            for terminal in terminals:
                await terminal.exited.wait()
        for terminal in terminals:
            terminal.end_leftovers()

    # internals

    async def _kill(self, terminal: _Terminal) -> None:
        terminal.signal_group(signal.SIGKILL)
        with anyio.move_on_after(self.kill_grace):
            await terminal.exited.wait()
        terminal.end_leftovers()

    def _lookup(self, params: dict[str, Any]) -> _Terminal:
        params = _require_object(params)
        terminal_id = params.get("terminalId")
        if not isinstance(terminal_id, str):
            raise invalid_params("'terminalId' must be a string", {"terminalId": terminal_id})
        terminal = self._terminals.get(terminal_id)
        session_id = params.get("sessionId")
        if terminal is None or (
            terminal.session_id is not None
            and session_id is not None
            and session_id != terminal.session_id
        ):
            raise not_found(
                f"terminal not found: {terminal_id} (unknown or released)",
                {"terminalId": terminal_id},
            )
        return terminal

    def _cwd(self, raw: Any, guard: PathGuard | None) -> tuple[Path, bool]:
        """The working directory, and whether it is outside the guard's roots."""
        if raw is None:
            cwd = guard.cwd if guard is not None and guard.cwd is not None else Path.cwd()
        elif guard is not None:
            cwd = resolve_real(require_absolute(raw, "cwd"))
        else:
            cwd = require_absolute(raw, "cwd")
        if not cwd.exists():
            raise not_found(f"working directory not found: {cwd}", {"cwd": str(cwd)})
        if not cwd.is_dir():
            raise invalid_params(f"working directory is not a directory: {cwd}", {"cwd": str(cwd)})
        return cwd, guard is not None and not guard.is_inside(cwd)

    async def _confirm(
        self,
        guard: PathGuard,
        params: dict[str, Any],
        cwd: Path,
        outside: bool,
        command: str,
        args: list[str],
        overrides: dict[str, str],
        risky: list[str],
    ) -> None:
        """Ask the person (through the guard) to allow a command that runs outside the
        project or with an environment that changes which code runs; refuse otherwise."""
        raw_cwd = params.get("cwd")
        request = OutsideRequest(
            "terminal",
            cwd,
            raw_cwd if isinstance(raw_cwd, str) else str(cwd),
            guard.roots,
            outside=outside,
            command=command,
            args=tuple(args),
            env=tuple(overrides.items()),
            risky_env=tuple(risky),
        )
        if await guard.ask(request):
            return
        reasons = []
        if outside:
            reasons.append(f"its working directory {cwd} is outside the session's directories")
        if risky:
            verb = "decides" if len(risky) == 1 else "decide"
            reasons.append(f"it sets {', '.join(risky)}, which {verb} what code runs")
        raise permission_denied(
            f"refused to run {command!r}: " + " and ".join(reasons) + ", and it was not allowed",
            {"cwd": str(cwd), "roots": [str(root) for root in guard.roots], "env": risky},
        )

    def _notify(self, terminal: _Terminal) -> None:
        if self.on_output is None:
            return
        try:
            self.on_output(terminal.id)
        except Exception:
            log.exception("on_output hook failed for terminal %s", terminal.id)

    async def _run(self, terminal: _Terminal) -> None:
        try:
            with terminal.scope:
                async with anyio.create_task_group() as task_group:
                    task_group.start_soon(self._pump, terminal)
                    returncode = await terminal.process.wait()
                    reaper.unregister(terminal.process.pid)
                    # Let the reader catch the last output before the exit is reported;
                    # children still holding the pipe do not delay it beyond drain_timeout.
                    with anyio.move_on_after(self.drain_timeout):
                        await terminal.output_closed.wait()
                    terminal.exit_status = ExitStatus.from_returncode(returncode)
                    terminal.exited.set()
                    self._notify(terminal)
        except Exception:
            log.exception("terminal %s failed", terminal.id)
        finally:
            with anyio.CancelScope(shield=True):
                if terminal.exit_status is None:
                    # Cancelled (release or shutdown) before the exit was seen.
                    terminal.signal_group(signal.SIGKILL)
                    with anyio.move_on_after(self.kill_grace):
                        returncode = await terminal.process.wait()
                        reaper.unregister(terminal.process.pid)
                        terminal.exit_status = ExitStatus.from_returncode(returncode)
                    terminal.exited.set()
                with contextlib.suppress(Exception):
                    stdout = terminal.process.stdout
                    if stdout is not None:
                        await stdout.aclose()
                with contextlib.suppress(Exception), anyio.move_on_after(self.kill_grace):
                    await terminal.process.aclose()
            terminal.finished.set()
            self._notify(terminal)

    async def _pump(self, terminal: _Terminal) -> None:
        stdout = terminal.process.stdout
        assert stdout is not None
        try:
            while True:
                try:
                    chunk = await stdout.receive(READ_CHUNK)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                terminal.buffer.append(chunk)
                self._notify(terminal)
        finally:
            terminal.output_closed.set()


def _require_object(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise invalid_params("params must be an object")
    return params
