"""What this client offers an agent: each client capability as the requests, notifications,
update kinds and abilities it takes (:data:`CLIENT_FEATURES`), and the
``clientCapabilities`` of a client that handles a given set (:func:`client_capabilities`):
only what it implements is advertised. Spec:
https://agentclientprotocol.com/protocol/initialization#client-capabilities"""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from acp_tui.wire.constants import Method

# Agent -> client requests whose presence in `handlers` turns on a client capability.
FS_READ = Method.FS_READ_TEXT_FILE
FS_WRITE = Method.FS_WRITE_TEXT_FILE
TERMINAL_METHODS = (
    Method.TERMINAL_CREATE,
    Method.TERMINAL_OUTPUT,
    Method.TERMINAL_WAIT_FOR_EXIT,
    Method.TERMINAL_KILL,
    Method.TERMINAL_RELEASE,
)
ELICITATION_CREATE = Method.ELICITATION_CREATE
ELICITATION_COMPLETE = Method.ELICITATION_COMPLETE
SESSION_UPDATE = Method.SESSION_UPDATE


@dataclass(frozen=True, slots=True)
class ClientFeature:
    """One client capability and what implements it: it is advertised only when every
    agent->client request it names has a handler, every notification and ``session/update``
    kind it names is handled, and the driver declares every ability it names (a mode or
    behaviour that no method name shows, e.g. ``elicitation.url``)."""

    path: tuple[str, ...]
    #: What is advertised at ``path``: ``True``, or ``{}`` for ACP's opt-in objects.
    value: Any
    methods: tuple[str, ...] = ()
    notifications: tuple[str, ...] = ()
    updates: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()


#: Every client capability this client can advertise, one row each
#: (https://agentclientprotocol.com/protocol/v1/initialization#client-capabilities).
CLIENT_FEATURES: tuple[ClientFeature, ...] = (
    ClientFeature(("fs", "readTextFile"), True, methods=(FS_READ,)),
    ClientFeature(("fs", "writeTextFile"), True, methods=(FS_WRITE,)),
    ClientFeature(("terminal",), True, methods=TERMINAL_METHODS),
    ClientFeature(
        ("elicitation", "form"), {}, methods=(ELICITATION_CREATE,), abilities=("elicitation.form",)
    ),
    ClientFeature(
        ("elicitation", "url"),
        {},
        methods=(ELICITATION_CREATE,),
        notifications=(ELICITATION_COMPLETE,),
        abilities=("elicitation.url",),
    ),
    ClientFeature(("session", "notices"), {}, updates=("notice",)),
    # Unstable: the store keeps each plan by id, in each of its forms, and marks a removed one.
    ClientFeature(("plan",), {}, updates=("plan_update", "plan_removed")),
    ClientFeature(("auth", "terminal"), True, abilities=("auth.terminal",)),
    # The same, as spelt before the protocol had it (Zed's): claude-agent-acp offers its
    # terminal sign-in only to a client that says this (see session.auth_methods).
    ClientFeature(("_meta", "terminal-auth"), True, abilities=("auth.terminal",)),
    # Zed's convention: an agent that runs commands in terminals of its own (codex-acp)
    # reports their output in its tool calls' _meta (terminal_info, terminal_output,
    # terminal_exit); the store keeps it (acp_tui.store.terminal_report).
    ClientFeature(("_meta", "terminal_output"), True, abilities=("tool_call.agent_terminal",)),
    # Boolean session config options shown as toggles (acp_tui.store.options, the chat bar).
    ClientFeature(
        ("session", "configOptions", "boolean"), {}, abilities=("config_options.boolean",)
    ),
    ClientFeature(
        ("session", "compaction"), {}, updates=("compaction_update", "compaction_summary_chunk")
    ),
    # Subagents (stable since 2026-11-20; the SDK 2.4.0 schema still says unstable): each
    # child a session of its own under its parent, its card live, cancelled on its own.
    ClientFeature(
        ("subagents",),
        {},
        updates=("subagent_update", "session_message", "session_message_chunk"),
        abilities=("subagents.cancel",),
    ),
    # Unstable (schema v1.32.0): the agent's guesses at the next prompt, offered by a face
    # that lets the person take one (the TUI's chips; never sent unless taken).
    ClientFeature(
        ("session", "promptSuggestions"),
        {},
        updates=("prompt_suggestions_update",),
        abilities=("prompt_suggestions",),
    ),
)
#: Agent->client requests and notifications every client takes, advertised by no capability.
#: ``auth/status_update`` (unstable) is the agent's to offer (its ``auth.status``): the
#: client asks for nothing to get it, and says nothing.
BASELINE_METHODS: tuple[str, ...] = (Method.SESSION_REQUEST_PERMISSION,)
BASELINE_NOTIFICATIONS: tuple[str, ...] = (SESSION_UPDATE, Method.AUTH_STATUS_UPDATE)


def implements(
    feature: ClientFeature,
    *,
    handlers: Collection[str],
    notifications: Collection[str],
    updates: Collection[str],
    abilities: Collection[str],
) -> bool:
    """Whether what a client handles covers everything ``feature`` needs."""
    return (
        all(method in handlers for method in feature.methods)
        and all(name in notifications for name in feature.notifications)
        and all(kind in updates for kind in feature.updates)
        and all(ability in abilities for ability in feature.abilities)
    )


def client_capabilities(
    *,
    handlers: Collection[str],
    notifications: Collection[str] = BASELINE_NOTIFICATIONS,
    updates: Collection[str] = (),
    abilities: Collection[str] = (),
) -> dict[str, Any]:
    """The ``clientCapabilities`` of a client that handles these: every
    :data:`CLIENT_FEATURES` row it implements, and nothing else. fs and terminal are always
    sent (false when absent), as the schema's defaults."""
    caps: dict[str, Any] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
    }
    for feature in CLIENT_FEATURES:
        if implements(
            feature,
            handlers=handlers,
            notifications=notifications,
            updates=updates,
            abilities=abilities,
        ):
            *parents, leaf = feature.path
            node = caps
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = copy.deepcopy(feature.value)
    return caps
