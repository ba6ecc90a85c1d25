"""What the client advertised in ``initialize``, read once, for both protocol versions.

The demo agent uses a feature only when the client said it can take it: the schema makes
most of them a MUST (``notice``, ``compaction_*``, terminal auth methods, boolean config
options, elicitation modes, ``plan_update``). A v1 client puts them in
``clientCapabilities`` (https://agentclientprotocol.com/protocol/v1/initialization); a v2
client in ``capabilities``, where notices and compaction need no capability at all and the
agent owns files and terminals itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

V1 = 1
V2 = 2


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _present(container: dict[str, Any], key: str) -> bool:
    """ACP's opt-in capabilities: an object (even ``{}``) means yes; omitted or null, no."""
    return isinstance(container.get(key), dict)


@dataclass(frozen=True, slots=True)
class ClientCaps:
    version: int = V1
    read: bool = False
    write: bool = False
    terminal: bool = False
    terminal_auth: bool = False
    elicitation_form: bool = False
    elicitation_url: bool = False
    notices: bool = False
    compaction: bool = False
    boolean_options: bool = False
    plan_updates: bool = False
    #: Child sessions shown as such (v1: ``subagents: {}``; v2: every client).
    subagents: bool = False
    #: ``prompt_suggestions_update`` offered to the person (``session.promptSuggestions``,
    #: unstable, both versions).
    prompt_suggestions: bool = False

    @classmethod
    def from_initialize(cls, params: dict[str, Any], version: int) -> ClientCaps:
        if version >= V2:
            return cls._v2(_object(params.get("capabilities")))
        return cls._v1(_object(params.get("clientCapabilities")))

    @classmethod
    def _v1(cls, caps: dict[str, Any]) -> ClientCaps:
        fs = _object(caps.get("fs"))
        session = _object(caps.get("session"))
        elicitation = _object(caps.get("elicitation"))
        config = _object(session.get("configOptions"))
        return cls(
            version=V1,
            read=fs.get("readTextFile") is True,
            write=fs.get("writeTextFile") is True,
            terminal=caps.get("terminal") is True,
            terminal_auth=_object(caps.get("auth")).get("terminal") is True,
            elicitation_form=_present(elicitation, "form"),
            elicitation_url=_present(elicitation, "url"),
            notices=_present(session, "notices"),
            compaction=_present(session, "compaction"),
            boolean_options=_present(config, "boolean"),
            plan_updates=_present(caps, "plan"),
            subagents=_present(caps, "subagents"),
            prompt_suggestions=_present(session, "promptSuggestions"),
        )

    @classmethod
    def _v2(cls, caps: dict[str, Any]) -> ClientCaps:
        elicitation = _object(caps.get("elicitation"))
        return cls(
            version=V2,
            terminal_auth=_present(_object(caps.get("auth")), "terminal"),
            elicitation_form=_present(elicitation, "form"),
            elicitation_url=_present(elicitation, "url"),
            notices=True,
            compaction=True,
            boolean_options=True,
            plan_updates=True,
            subagents=True,
            prompt_suggestions=_present(_object(caps.get("session")), "promptSuggestions"),
        )

    @property
    def v2(self) -> bool:
        return self.version >= V2

    @property
    def client_files(self) -> bool:
        """v1 edits go through the client's fs methods; v2 agents own their files."""
        return not self.v2
