"""Authentication, for real: ``/login`` makes the demo agent demand it, a client provides it.

Two methods (https://agentclientprotocol.com/protocol/v1/initialization, ``AuthMethod``):

- an agent-type method, completed by ``authenticate`` (v1) or ``auth/login`` (v2): the agent
  signs the person in itself;
- a ``terminal`` method, advertised only to clients that set ``auth.terminal``: the client
  runs the agent's own command with the method's ``args`` and ``env`` in the person's
  terminal (``python -m acp_tui.demo_agent [--state-dir DIR] --login``), which asks a
  question on the tty and writes a token file into the state directory. The running agent
  sees the token on its next session call. Such a method MUST NOT be passed to
  ``authenticate``: the demo agent answers an error if a client does.

Whether authentication is required is kept in the state directory, so it survives a restart
of the agent (and a client can be tested on session set-up as well as on prompts).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, INVALID_PARAMS, RpcError

AGENT_METHOD = "demo-sign-in"
TERMINAL_METHOD = "demo-terminal-login"
LOGIN_FLAG = "--login"
#: Set by the terminal method's ``env``: the login step records which way it was started.
LOGIN_ENV = "ACP_TUI_DEMO_LOGIN"
REQUIRED_FILE = "auth-required.json"
TOKEN_FILE = "login-token.json"


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def read_token(state_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((state_dir / TOKEN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("name"), str) else None


def write_token(state_dir: Path, name: str, method: str, at: str) -> None:
    _write_json(state_dir / TOKEN_FILE, {"name": name, "method": method, "at": at})


class AuthState:
    """Whether sign-in is required, and whether this agent process is signed in."""

    def __init__(self, state_dir: Path, *, require: bool = False) -> None:
        self.state_dir = state_dir
        self.signed_in_as: str | None = None
        if require:
            self.set_required(True)

    @property
    def required(self) -> bool:
        return (self.state_dir / REQUIRED_FILE).is_file()

    def set_required(self, required: bool) -> None:
        path = self.state_dir / REQUIRED_FILE
        if required:
            _write_json(path, {"required": True})
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def who(self) -> str | None:
        """The signed-in name: this process's sign-in, else a terminal login's token."""
        if self.signed_in_as is not None:
            return self.signed_in_as
        token = read_token(self.state_dir)
        return token["name"] if token else None

    def sign_out(self) -> None:
        self.signed_in_as = None
        with contextlib.suppress(FileNotFoundError):
            (self.state_dir / TOKEN_FILE).unlink()

    def status_json(self) -> dict[str, Any]:
        """``auth/status`` (unstable): signed in (and as whom), signed out while sign-in is
        required, or no sign-in needed."""
        who = self.who()
        if who is not None:
            how = "Demo sign-in" if self.signed_in_as is not None else "Terminal login"
            account = {"label": how, "name": who, "active": True}
            return {"state": "authenticated", "accounts": [account]}
        return {"state": "unauthenticated" if self.required else "not_required"}

    def check(self, caps: ClientCaps) -> None:
        """Raise auth_required (-32000) when sign-in is required and missing."""
        if not self.required or self.who() is not None:
            return
        names = ", ".join(m["name"] for m in methods(caps, raw=True))
        raise RpcError(
            AUTH_REQUIRED,
            "Authentication required: the demo agent was told to require sign-in (/login). "
            f"Sign in with one of: {names}. (To stop requiring it without signing in, "
            f"delete {self.state_dir / REQUIRED_FILE}.)",
            {"authMethods": [m["id"] for m in methods(caps, raw=True)]},
        )

    def authenticate(self, method_id: Any) -> None:
        if method_id == TERMINAL_METHOD:
            raise RpcError(
                INVALID_PARAMS,
                f"`{TERMINAL_METHOD}` is a terminal authentication method: a client MUST NOT "
                "pass it to authenticate; it runs the agent's command with the method's args "
                f"and env in a terminal instead (here: the agent's command plus {LOGIN_FLAG})",
            )
        if method_id != AGENT_METHOD:
            raise RpcError(INVALID_PARAMS, f"unknown authentication method: {method_id!r}")
        self.signed_in_as = "demo user"


def methods(caps: ClientCaps, *, raw: bool = False) -> list[dict[str, Any]]:
    """``authMethods`` for this client, spelled for its protocol version (``raw``: the
    neutral form, with ``id``). The terminal method only when the client can run it, and
    then first: a client that blindly authenticates with the first method breaks the
    terminal method's MUST NOT, and is told so."""
    found: list[dict[str, Any]] = [
        {
            "type": "agent",
            "id": AGENT_METHOD,
            "name": "Demo sign-in",
            "description": "The demo agent signs you in at once; no password, no network.",
        }
    ]
    if caps.terminal_auth:
        found.insert(
            0,
            {
                "type": "terminal",
                "id": TERMINAL_METHOD,
                "name": "Sign in in the terminal",
                "description": "Runs the demo agent's own login step in your terminal: "
                "it asks your name and stores a token.",
                "args": [LOGIN_FLAG],
                "env": {LOGIN_ENV: "terminal"},
            },
        )
    if raw:
        return found
    return [_spell(method, caps) for method in found]


def _spell(method: dict[str, Any], caps: ClientCaps) -> dict[str, Any]:
    data = dict(method)
    if caps.v2:
        data["methodId"] = data.pop("id")
        if "env" in data:
            data["env"] = [{"name": k, "value": v} for k, v in data["env"].items()]
        return data
    if data["type"] == "agent":
        del data["type"]  # v1: no type means an agent method
    return data
