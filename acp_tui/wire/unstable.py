"""Unstable parts of the wire the client speaks, as :class:`~typing.TypedDict` shapes (protocol
v1): the agent's sign-in state (``auth/status``, pushed as ``auth/status_update``), whether
the agent has a session in memory (``session/status``), and the options a session would start
with (``session/options``, newer than the schema kept here: schema v1.32.0).

Declarations like :mod:`acp_tui.wire.schema`, imported only under ``TYPE_CHECKING`` at run
time; ``tests/test_schema.py`` checks each against ``schema.unstable.json`` with the additions
of ``tests/data/acp-schema/newer.json``.

Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable: the RFDs
https://agentclientprotocol.com/rfds/get-auth-state, /rfds/session-status,
/rfds/session-options)
"""

from typing import Any, Required, TypedDict

from acp_tui.wire.updates import JsonObject


class AuthAccount(TypedDict, total=False):
    """An account or credential the agent has configured; display information only, never an
    identifier. Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable)"""

    label: Required[str]
    active: bool | None
    name: str | None
    email: str | None
    organization: str | None
    _meta: JsonObject | None


class AuthStatusResponse(TypedDict, total=False):
    """The answer to ``auth/status``: the state (the only field to act on; an unknown value
    means ``unknown``) and the accounts, for display. Spec:
    https://agentclientprotocol.com/protocol/v1/overview (unstable)"""

    state: Required[str]
    accounts: list[AuthAccount]
    _meta: JsonObject | None


class AuthStatusUpdateNotification(TypedDict, total=False):
    """The agent's sign-in state changed (the same fields as the ``auth/status`` answer).
    Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable)"""

    state: Required[str]
    accounts: list[AuthAccount]
    _meta: JsonObject | None


class SessionStatusRequest(TypedDict, total=False):
    """``session/status``: asks about one session without loading, resuming or changing it.
    Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable)"""

    sessionId: Required[str]
    _meta: JsonObject | None


class SessionStatusResponse(TypedDict, total=False):
    """``open`` (in the agent's memory, for any connection) or ``saved``; an unknown value
    means ``saved``. Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable)"""

    status: Required[str]
    _meta: JsonObject | None


class InitialSessionConfigOption(TypedDict, total=False):
    """A value picked before the session existed, sent on ``session/new``: the shape of
    ``session/set_config_option`` without ``sessionId`` (``type: "boolean"`` for a toggle);
    one the agent does not take is ignored, not refused. Spec:
    https://agentclientprotocol.com/protocol/v1/overview (unstable, schema v1.32.0)"""

    configId: Required[str]
    type: str
    value: Required[Any]
    _meta: JsonObject | None


class SessionOptionsRequest(TypedDict, total=False):
    """``session/options``: the config options a session in ``cwd`` would start with, asked
    without creating one. Spec: https://agentclientprotocol.com/protocol/v1/overview
    (unstable, schema v1.32.0)"""

    cwd: Required[str]
    additionalDirectories: list[str]
    sessionId: str | None
    _meta: JsonObject | None


class SessionOptionsResponse(TypedDict, total=False):
    """The options a session would start with (a snapshot: the session's own are those of
    its setup answer). Spec: https://agentclientprotocol.com/protocol/v1/overview (unstable,
    schema v1.32.0)"""

    configOptions: list[JsonObject]
    _meta: JsonObject | None
