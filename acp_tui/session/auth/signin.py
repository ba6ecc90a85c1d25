"""Signing in to an agent from the link: pick a method, complete it the way its type says.

https://agentclientprotocol.com/protocol/v1/initialization#authentication. Only an agent-type
method goes to ``authenticate``; a ``terminal`` one runs the agent's own command in the
person's terminal (the driver of the link supplies how: the TUI suspends itself); an env-var
or unknown one is explained to the person. Nothing is chosen for the person: without a
chooser, the error names the methods.

One sign-in at a time: two sessions that hear "authentication required" together ask once,
and the second retries after the first sign-in instead of asking again.

Where the agent tells its sign-in state (unstable ``auth/status``,
https://agentclientprotocol.com/rfds/get-auth-state), it is asked once after ``initialize``
and once after a sign-in or logout made here, unless the agent pushed the new state
(``auth/status_update``) meanwhile: never polled. A state of ``unauthenticated`` makes the
next session call sign in first, instead of waiting for the agent to refuse it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from acp_tui.protocol.client import AcpClient
from acp_tui.protocol.errors import AcpError
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.services.paths import ApproveOutside, OutsideRequest
from acp_tui.services.terminal_commands import risky_env
from acp_tui.session.auth.methods import TERMINAL, AuthMethod, TerminalLogin, parse_auth_methods
from acp_tui.session.auth.status import AuthStatus

__all__ = ["AuthChooser", "AuthNotDone", "SignIn", "TerminalRunner"]

log = logging.getLogger(__name__)

AuthChooser = Callable[[list[AuthMethod], str], Awaitable[str | None]]
#: Runs a terminal sign-in in the person's terminal; answers its exit status.
TerminalRunner = Callable[[TerminalLogin], Awaitable[int]]


class AuthNotDone(AcpError):
    """Authentication was needed and did not happen (declined, failed, or impossible here)."""


def describe(methods: Sequence[AuthMethod]) -> str:
    return ", ".join(f"{m.label} [{m.id}]" if m.name and m.name != m.id else m.id for m in methods)


class SignIn:
    """The sign-in state of one agent process."""

    def __init__(
        self,
        agent_argv: Sequence[str],
        cwd: str,
        configured_env: Mapping[str, str] | None,
        choose: AuthChooser | None,
        run_in_terminal: TerminalRunner | None,
        approve: ApproveOutside | None = None,
    ) -> None:
        self.agent_argv = list(agent_argv)
        #: Asks the person about a sign-in whose environment changes which code runs, as
        #: ``terminal/create`` does (None: such a sign-in is refused).
        self.approve = approve
        self.cwd = cwd
        self.configured_env = dict(configured_env or {})
        self.choose = choose
        self.run_in_terminal = run_in_terminal
        self.methods: list[AuthMethod] = []
        self.agent_name = "the agent"
        self._lock = anyio.Lock()
        #: Bumped by every completed sign-in: a waiter that sees it move retries at once.
        self.generation = 0
        #: After a logout, until the next sign-in (shown to the person).
        self.signed_out = False
        #: What the agent last said of its sign-in (None: it does not tell, or not yet).
        self.status: AuthStatus | None = None
        #: Told each new :attr:`status` (the face's header).
        self.on_status: Callable[[AuthStatus], None] = lambda status: None
        #: How many ``auth/status_update`` the agent pushed: an answer asked before the
        #: latest push is older than it, and a push after a sign-in makes asking needless.
        self.pushes = 0
        #: Whether the agent answers ``auth/status`` (its ``auth.status`` capability).
        self.tells_status = False

    def configure(
        self, raw_methods: Any, *, v2: bool, agent_name: str, tells_status: bool = False
    ) -> None:
        """From ``initialize``: the methods, the agent's name, and whether it answers
        ``auth/status``."""
        self.methods = parse_auth_methods(raw_methods, v2=v2)
        self.agent_name = agent_name
        self.tells_status = tells_status

    @property
    def needs_sign_in(self) -> bool:
        """The agent said the person has to sign in (and offers a way to)."""
        return self.status is not None and self.status.needs_sign_in and bool(self.methods)

    def pushed(self, params: Any) -> None:
        """``auth/status_update``: the agent's sign-in state changed."""
        self.pushes += 1
        self._set_status(AuthStatus.parse(params))

    async def ask_status(self, client: AcpClient) -> None:
        """``auth/status``, where the agent tells it; an answer overtaken by a push is
        dropped, a refusal only logged (the state stays unknown)."""
        if not self.tells_status:
            return
        pushes = self.pushes
        try:
            raw = await client.auth_status()
        except (AcpError, RpcError) as error:  # an exit is reported by whoever watches it
            log.info("auth/status: %s", error)
            return
        if self.pushes == pushes:
            self._set_status(AuthStatus.parse(raw))

    async def changed_here(self, client: AcpClient, pushes: int) -> None:
        """A sign-in or logout made here is done: the new state is asked once, unless the
        agent pushed it since (``pushes``: the count before)."""
        if self.pushes == pushes:
            await self.ask_status(client)

    def _set_status(self, status: AuthStatus) -> None:
        self.status = status
        if status.signed_in:
            self.signed_out = False
        self.on_status(status)

    def terminal_login(self, method: AuthMethod) -> TerminalLogin:
        return TerminalLogin.of(method, self.agent_argv, self.cwd, self.configured_env)

    async def sign_in(self, client: AcpClient, reason: str, *, login_call: str) -> None:
        """The agent answered "authentication required" (``reason``): sign in, or raise
        :class:`AuthNotDone` saying why."""
        seen = self.generation
        async with self._lock:
            if self.generation != seen:
                return  # signed in meanwhile (another session asked): just retry
            pushes = self.pushes
            await self._sign_in(client, reason, login_call)
            self.generation += 1
            self.signed_out = False
            await self.changed_here(client, pushes)

    async def _sign_in(self, client: AcpClient, reason: str, login_call: str) -> None:
        methods = self.methods
        if not methods:
            raise AuthNotDone(
                f"{self.agent_name} requires authentication ({reason}) but offers no method "
                "to do it from here: log in with the agent's own command first"
            )
        if self.choose is None:
            raise AuthNotDone(
                f"{self.agent_name} requires authentication; choose one of its methods "
                f"({describe(methods)}) in the acp-tui TUI, or log in with the agent itself"
            )
        chosen = await self.choose(methods, reason)
        method = next((m for m in methods if m.id == chosen), None) if chosen else None
        if method is None:
            raise AuthNotDone(
                f"authentication was not chosen: {self.agent_name} cannot go on without it"
            )
        await self.complete(client, method, login_call=login_call)

    async def complete(self, client: AcpClient, method: AuthMethod, *, login_call: str) -> None:
        """Complete one chosen method the way its type says."""
        if method.kind == TERMINAL:
            login = self.terminal_login(method)
            if self.run_in_terminal is None:
                raise AuthNotDone(
                    f"sign in with {method.label} in a terminal: {login.command_line()}"
                )
            await self._allowed(login)
            status = await self.run_in_terminal(login)
            if status != 0:
                raise AuthNotDone(
                    f"signing in with {method.label} did not succeed (its command ended with "
                    f"status {status}); to try it yourself: {login.command_line()}"
                )
            return
        if not method.by_authenticate:
            raise AuthNotDone(f"{method.label}: {method.how()}")
        await self._authenticate(client, method, login_call)

    async def _allowed(self, login: TerminalLogin) -> None:
        """A sign-in whose variables change which code runs (``PATH``, ``LD_PRELOAD``...: the
        rule of ``terminal/create``, :func:`acp_tui.services.terminals.risky_env`) runs only
        if the person allows it, asked with everything it sets; the configured environment is
        the person's own and is not asked about."""
        method_env = dict(login.method.env)
        risky = risky_env(method_env)
        if not risky:
            return
        request = OutsideRequest(
            "terminal",
            Path(login.cwd),
            login.cwd,
            (Path(self.cwd),),
            outside=False,
            command=login.argv[0] if login.argv else "",
            args=tuple(login.argv[1:]),
            env=tuple(method_env.items()),
            risky_env=tuple(risky),
        )
        if self.approve is not None and await self.approve(request):
            return
        verb = "decides" if len(risky) == 1 else "decide"
        raise AuthNotDone(
            f"signing in with {login.method.label} was not allowed: it sets "
            f"{', '.join(risky)}, which {verb} what code runs"
        )

    async def _authenticate(self, client: AcpClient, method: AuthMethod, login_call: str) -> None:
        try:
            await client.call(login_call, {"methodId": method.id})
        except RpcError as error:
            raise AuthNotDone(
                f"authentication with {method.label} failed: {error.reason}"
            ) from error
