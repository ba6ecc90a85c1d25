"""What the agent said of itself in ``initialize`` (:class:`AgentInfo`: name, protocol
version, capabilities, sign-in methods), read from v1 and v2 answers alike
(:func:`parse_agent_info`), and the guard that keeps a terminal sign-in method away from the
agent's login call (:func:`refuse_terminal_login`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_tui.protocol import v2
from acp_tui.protocol.errors import AcpError, ProtocolVersionError
from acp_tui.wire.constants import PROTOCOL_VERSION, ForkAtMessage, Inject, Method
from acp_tui.wire.updates import JsonObject


@dataclass(slots=True)
class AgentInfo:
    """What initialize told us about the agent."""

    protocol_version: int = PROTOCOL_VERSION
    name: str = ""
    title: str = ""
    version: str = ""
    capabilities: JsonObject = field(default_factory=dict)
    auth_methods: list[JsonObject] = field(default_factory=list)
    raw: JsonObject = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        return self.title or self.name or "agent"

    def session_capability(self, name: str) -> bool:
        caps = self.capabilities.get("sessionCapabilities")
        return isinstance(caps, dict) and caps.get(name) is not None

    @property
    def can_load(self) -> bool:
        return bool(self.capabilities.get("loadSession"))

    @property
    def can_list(self) -> bool:
        return self.session_capability("list")

    @property
    def can_resume(self) -> bool:
        return self.session_capability("resume")

    @property
    def can_close(self) -> bool:
        return self.session_capability("close")

    @property
    def can_delete(self) -> bool:
        return self.session_capability("delete")

    @property
    def can_add_dirs(self) -> bool:
        """``additionalDirectories`` on session/new, load, resume (and fork)."""
        return self.session_capability("additionalDirectories")

    @property
    def can_fork(self) -> bool:
        return self.session_capability("fork")

    @property
    def can_fork_at_message(self) -> bool:
        """``session/fork`` takes a ``messageId`` (the fork-at-message RFD)."""
        caps = self.capabilities.get("sessionCapabilities")
        fork = caps.get("fork") if isinstance(caps, dict) else None
        return isinstance(fork, dict) and fork.get(ForkAtMessage.CAPABILITY) is True

    @property
    def can_steer(self) -> bool:
        """``session/inject`` in ``steer`` mode: a message goes into the running turn
        (``sessionCapabilities.inject.modes``, the mid-turn input RFD)."""
        caps = self.capabilities.get("sessionCapabilities")
        inject = caps.get(Inject.CAPABILITY) if isinstance(caps, dict) else None
        modes = inject.get(Inject.MODES) if isinstance(inject, dict) else None
        return isinstance(modes, list) and Inject.STEER in modes

    @property
    def can_set_title(self) -> bool:
        return self.session_capability("title")

    @property
    def can_archive(self) -> bool:
        return self.session_capability("archive")

    @property
    def can_session_status(self) -> bool:
        """``session/status`` (unstable): whether it has a session in memory, asked freely."""
        return self.session_capability("status")

    @property
    def can_session_options(self) -> bool:
        """``session/options`` and initial config option values on ``session/new``
        (unstable, one capability for both)."""
        return self.session_capability("options")

    @property
    def can_auth_status(self) -> bool:
        """``auth/status`` (unstable); such an agent may push ``auth/status_update``."""
        auth = self.capabilities.get("auth")
        return isinstance(auth, dict) and isinstance(auth.get("status"), dict)

    @property
    def system_prompt_modes(self) -> frozenset[str]:
        """The ``systemPrompt`` modes the agent takes on session setup requests: none, or
        ``append`` (``sessionCapabilities.systemPrompt``) and ``override`` when its ``mode``
        says so."""
        caps = self.capabilities.get("sessionCapabilities")
        prompt = caps.get("systemPrompt") if isinstance(caps, dict) else None
        if not isinstance(prompt, dict):
            return frozenset()
        modes = prompt.get("mode")
        override = isinstance(modes, dict) and isinstance(modes.get("override"), dict)
        return frozenset({"append", "override"} if override else {"append"})

    def mcp_capability(self, transport: str) -> bool:
        caps = self.capabilities.get("mcpCapabilities")
        return isinstance(caps, dict) and bool(caps.get(transport))

    def prompt_capability(self, name: str) -> bool:
        caps = self.capabilities.get("promptCapabilities")
        return isinstance(caps, dict) and bool(caps.get(name))


#: The requests that complete an agent-type sign-in (v1, v2).
LOGIN_METHODS = (Method.AUTHENTICATE, "auth/login")


def refuse_terminal_login(agent: AgentInfo | None, params: Any) -> None:
    """The last guard of a MUST: a method the agent advertised as ``terminal`` is never sent
    to ``authenticate`` (v2: ``auth/login``), whoever asks. Any method that is not plainly an
    agent method (v1: no ``type``; either: ``type: "agent"``) is refused the same way."""
    if agent is None:
        return
    method_id = params.get("methodId") if isinstance(params, dict) else None
    for method in agent.auth_methods:
        advertised = method.get("methodId", method.get("id"))
        if advertised != method_id:
            continue
        kind = method.get("type", None if agent.protocol_version < 2 else "")
        if kind not in (None, "agent"):
            raise AcpError(
                f"refused to send the {kind!r} sign-in method {method_id!r} to the agent's "
                "login call: only agent methods go there (a terminal method runs the agent's "
                "command in a terminal)"
            )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_agent_info(result: Any) -> AgentInfo:
    if not isinstance(result, dict):
        raise ProtocolVersionError("the agent's initialize answer is not a JSON object")
    version = result.get("protocolVersion")
    raw_info = v2.agent_identity(result) if version == v2.V2 else result.get("agentInfo")
    info = raw_info if isinstance(raw_info, dict) else {}
    caps = v2.agent_capabilities(result) if version == v2.V2 else result.get("agentCapabilities")
    methods = result.get("authMethods")
    return AgentInfo(
        protocol_version=version if isinstance(version, int) else -1,
        name=_text(info.get("name")),
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        capabilities=caps if isinstance(caps, dict) else {},
        auth_methods=[m for m in methods if isinstance(m, dict)]
        if isinstance(methods, list)
        else [],
        raw=result,
    )
