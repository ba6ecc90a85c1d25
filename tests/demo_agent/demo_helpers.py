"""Helpers: drive the demo agent as a real subprocess with the official ACP SDK's client side."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    AuthCapabilities,
    BooleanConfigOptionCapabilities,
    CancelElicitationResponse,
    ClientCapabilities,
    ClientSessionCapabilities,
    CreateTerminalResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationUrlCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    SessionConfigOptionsCapabilities,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from acp_tui.demo_agent import demo_agent_argv

ElicitationAnswer = (
    AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse
)


@dataclass
class _Terminal:
    command: str
    args: list[str]
    cwd: str | None
    output: str = ""
    exit_code: int | None = None
    released: bool = False


@dataclass
class RecordingClient:
    """An SDK ``Client``: records every update, answers permission requests with
    ``choice`` (or waits until cancelled when ``choice`` is "wait"), and serves fs and
    terminal requests for real."""

    choice: str = "allow_once"
    updates: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    permission_requests: list[dict[str, Any]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    terminals: dict[str, _Terminal] = field(default_factory=dict)
    cancel_permissions: anyio.Event = field(default_factory=anyio.Event)
    permission_asked: anyio.Event = field(default_factory=anyio.Event)
    #: How elicitations are answered, in order ("wait": until the agent withdraws it).
    elicitation_answers: list[ElicitationAnswer | str] = field(default_factory=list)
    elicitations: list[dict[str, Any]] = field(default_factory=list)
    completed_elicitations: list[str] = field(default_factory=list)
    elicitation_asked: anyio.Event = field(default_factory=anyio.Event)
    elicitation_withdrawn: anyio.Event = field(default_factory=anyio.Event)

    # -- helpers for tests
    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u["sessionUpdate"] for s, u in self.updates if session_id in (None, s)]

    def of(self, kind: str, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            u for s, u in self.updates if u["sessionUpdate"] == kind and session_id in (None, s)
        ]

    def text(self, kind: str = "agent_message_chunk", session_id: str | None = None) -> str:
        return "".join(u["content"].get("text", "") for u in self.of(kind, session_id))

    def clear(self) -> None:
        self.updates.clear()

    # -- the SDK Client interface
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update.model_dump(by_alias=True, exclude_none=True)))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(
            {
                "toolCall": tool_call.model_dump(by_alias=True, exclude_none=True),
                "options": [o.model_dump(by_alias=True, exclude_none=True) for o in options],
            }
        )
        self.permission_asked.set()
        if self.choice == "wait":
            await self.cancel_permissions.wait()
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.choice)
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> ElicitationAnswer:
        self.elicitations.append(
            {"message": message, **mode.model_dump(by_alias=True, exclude_none=True, mode="json")}
        )
        self.elicitation_asked.set()
        answer = self.elicitation_answers.pop(0) if self.elicitation_answers else "cancel"
        if answer == "wait":
            try:
                await anyio.sleep_forever()
            finally:
                self.elicitation_withdrawn.set()
        if isinstance(answer, str):
            return CancelElicitationResponse(action="cancel")
        return answer

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        self.completed_elicitations.append(elicitation_id)

    async def read_text_file(
        self, session_id: str, path: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        try:
            return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        terminal_id = f"term-{len(self.terminals) + 1}"
        terminal = _Terminal(command, list(args or []), cwd)
        result = await anyio.run_process(
            [command, *terminal.args], cwd=cwd, check=False, stderr=subprocess.STDOUT
        )
        terminal.output = result.stdout.decode()
        terminal.exit_code = result.returncode
        self.terminals[terminal_id] = terminal
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        return WaitForTerminalExitResponse(exit_code=self.terminals[terminal_id].exit_code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        terminal = self.terminals[terminal_id]
        return TerminalOutputResponse(
            output=terminal.output,
            truncated=False,
            exit_status=TerminalExitStatus(exit_code=terminal.exit_code),
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        self.terminals[terminal_id].released = True
        return ReleaseTerminalResponse()

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        return None


@dataclass
class Agent:
    conn: Any
    process: Any
    client: RecordingClient
    init: Any
    argv: list[str]

    async def raw(self, method: str, params: dict[str, Any]) -> Any:
        """A request the SDK has no method for (session/delete)."""
        return await self.conn._conn.send_request(method, params)

    async def settle(self) -> None:
        """Let updates sent after a response (session/new, load, resume) arrive."""
        await anyio.sleep(0.05)


@contextlib.asynccontextmanager
async def run_agent(
    state_dir: Path,
    client: RecordingClient | None = None,
    *,
    fs: bool = True,
    terminal: bool = True,
    elicitation: bool = False,
    terminal_auth: bool = False,
    booleans: bool = False,
    extra_args: tuple[str, ...] = (),
) -> AsyncIterator[Agent]:
    client = client or RecordingClient()
    argv = [*demo_agent_argv(str(state_dir), chunk_delay=0), *extra_args]
    caps = ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
        terminal=terminal,
        auth=AuthCapabilities(terminal=terminal_auth),
    )
    if elicitation:
        caps.elicitation = ElicitationCapabilities(
            form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()
        )
    if booleans:
        caps.session = ClientSessionCapabilities(
            config_options=SessionConfigOptionsCapabilities(
                boolean=BooleanConfigOptionCapabilities()
            )
        )
    async with spawn_agent_process(client, argv[0], *argv[1:], use_unstable_protocol=True) as (
        conn,
        process,
    ):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
        yield Agent(conn, process, client, init, argv)
