"""The client capabilities sent at ``initialize`` are exactly what is implemented.

Derived from the code, for both faces of acp-tui (the TUI and ``acp-tui ask``, both on a
:class:`SessionController`): every advertised capability has its handlers, its notifications, its ``session/update``
kinds (rendered, not shown as unknown) and its abilities; every agent->client method handled is
advertised. Table-driven: a new row in :data:`acp_tui.protocol.capabilities.CLIENT_FEATURES` needs a
sample here for each update kind it names and a proof for each ability it names.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import headless
from acp_tui.cli.headless_render import TextRenderer
from acp_tui.cli.parse import parse
from acp_tui.config.schema import Config
from acp_tui.protocol import v2
from acp_tui.protocol.capabilities import (
    BASELINE_METHODS,
    BASELINE_NOTIFICATIONS,
    CLIENT_FEATURES,
    ClientFeature,
    client_capabilities,
    implements,
)
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.asking.elicitation import parse_request
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.auth.signin import SignIn
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.spec import AgentSource, AgentSpec, LaunchOptions
from acp_tui.store import SessionStore
from acp_tui.ui.widgets.transcript_views import UnknownView, view_for
from tests.demo_agent import schema_check


@dataclass
class Face:
    """What one face of acp-tui handles, as its code builds it."""

    name: str
    handlers: dict[str, Any]
    notifications: frozenset[str]
    updates: frozenset[str]
    abilities: frozenset[str]
    #: Shows ``session/update``s: True when something is shown for them (not "unknown").
    shows: Callable[[list[dict[str, Any]]], bool]
    #: The elicitation modes its handler takes.
    modes: frozenset[str]
    #: Whether it runs (or prints) a terminal sign-in method.
    terminal_auth: bool

    @property
    def capabilities(self) -> dict[str, Any]:
        return client_capabilities(
            handlers=self.handlers,
            notifications=self.notifications,
            updates=self.updates,
            abilities=self.abilities,
        )


async def _present(*_: Any) -> None:
    return None


def tui_face(tmp_path: Path) -> Face:
    queue = ElicitationQueue()
    queue.set_presenter(_present)
    store = SessionStore()
    # As the chat screen's agent runner starts it (acp_tui.ui.screens.chat.agent): it offers
    # the agent's prompt suggestions as chips (tests/ui/test_prompt_suggestions.py checks the
    # app's own initialize says so).
    controller = SessionController(
        AgentSpec(["agent"], cwd=str(tmp_path)),
        store=store,
        elicitations=queue,
        face=FaceHooks(offers_suggestions=True, shows_agent_terminals=True),
    )
    setup = controller.client_setup()

    def shows(updates: list[dict[str, Any]]) -> bool:
        shown = SessionStore()
        shown.register_session("s")
        for update in updates:
            shown.apply({"sessionId": "s", "update": update})
        state = shown.get("s")
        assert state is not None
        entries = state.transcript
        if not entries:  # not history: what the session shows besides its transcript
            return bool(state.suggestions)
        return all(not isinstance(view_for(e), UnknownView) for e in entries)

    return Face(
        "tui",
        setup["handlers"],
        frozenset(setup["notifications"]),
        frozenset(setup["updates"]),
        frozenset(setup["abilities"]),
        shows,
        queue.modes,
        controller.terminal_auth,
    )


def ask_face(tmp_path: Path) -> Face:
    """``acp-tui ask``: the same controller, with its own permission answers, a form-only
    elicitation presenter, and the text renderer of the store's changes."""
    invocation = parse(["ask", "hi", "--cwd", str(tmp_path), "--", "agent"])
    ask = headless.HeadlessAsk(invocation, headless.Output(out=io.StringIO(), err=io.StringIO()))
    controller = ask.controller
    setup = controller.client_setup()
    assert controller.elicitations is not None

    def shows(updates: list[dict[str, Any]]) -> bool:
        out = headless.Output(out=io.StringIO(), err=io.StringIO())
        store = SessionStore()
        store.register_session("s", new=True)
        renderer = TextRenderer(store, out)
        renderer.begin("s", replayed=False)
        for update in updates:
            store.apply({"sessionId": "s", "update": update})
            renderer.render()
        return bool(out.out.getvalue() or out.err.getvalue())  # type: ignore[attr-defined]

    return Face(
        "ask",
        setup["handlers"],
        frozenset(setup["notifications"]),
        frozenset(setup["updates"]),
        frozenset(setup["abilities"]),
        shows,
        controller.elicitations.modes,
        controller.terminal_auth,
    )


FACES = {"tui": tui_face, "ask": ask_face}

_PLAN = {
    "sessionUpdate": "plan_update",
    "plan": {
        "planId": "p1",
        "type": "items",
        "entries": [{"content": "a", "priority": "low", "status": "pending"}],
    },
}

#: One valid update of each kind a feature names (or a few, the last of that kind).
SAMPLE_UPDATES: dict[str, dict[str, Any] | list[dict[str, Any]]] = {
    "notice": {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited"},
    "compaction_update": {
        "sessionUpdate": "compaction_update",
        "compactionId": "c1",
        "status": "in_progress",
    },
    "plan_update": _PLAN,
    "plan_removed": [_PLAN, {"sessionUpdate": "plan_removed", "planId": "p1"}],
    "prompt_suggestions_update": {
        "sessionUpdate": "prompt_suggestions_update",
        "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}],
    },
    "compaction_summary_chunk": {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": "c1",
        "content": {"type": "text", "text": "Summary"},
    },
    "subagent_update": {
        "sessionUpdate": "subagent_update",
        "sessionId": "child",
        "title": "Research",
        "capabilities": {"cancel": {}},
        "state": {"state": "running"},
    },
    "session_message": {
        "sessionUpdate": "session_message",
        "messageId": "m1",
        "senderSessionId": "child",
        "content": [{"type": "text", "text": "Found it"}],
    },
    "session_message_chunk": {
        "sessionUpdate": "session_message_chunk",
        "messageId": "m2",
        "content": {"type": "text", "text": "Found it"},
    },
}

_FORM = {"sessionId": "s", "mode": "form", "message": "m", "requestedSchema": {"properties": {}}}
_URL = {"sessionId": "s", "mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"}


def _takes(params: dict[str, Any]) -> Callable[[Face], bool]:
    def proof(face: Face) -> bool:
        parse_request(params, face.modes)  # raises when the mode is not taken
        return "elicitation/create" in face.handlers

    return proof


#: How the code proves each ability a feature names.
ABILITY_PROOFS: dict[str, Callable[[Face], bool]] = {
    "elicitation.form": _takes(_FORM),
    "elicitation.url": _takes(_URL),
    "auth.terminal": lambda face: face.terminal_auth and callable(SignIn.terminal_login),
    "config_options.boolean": lambda face: _boolean_option_is_a_toggle(),
    "subagents.cancel": lambda face: _a_subagent_is_cancelled_on_its_own(),
    "prompt_suggestions": lambda face: _a_suggestion_is_taken_as_written(),
    "tool_call.agent_terminal": lambda face: _an_agent_terminal_is_kept(),
}


def _a_suggestion_is_taken_as_written() -> bool:
    """A suggestion keeps the agent's blocks, which the prompt sends unchanged once taken
    (tests/ui/test_prompt_suggestions.py takes one with Tab and a click in the app)."""
    from acp_tui.store.suggestions import suggestions_of
    from acp_tui.ui.widgets.prompt import PromptEditor

    controller = {"type": "resource_link", "uri": "file:///a.md", "name": "a.md"}
    (suggestion,) = suggestions_of([{"prompt": [{"type": "text", "text": "Read"}, controller]}])
    return suggestion.blocks[1] == controller and callable(PromptEditor.take_suggestion)


def _an_agent_terminal_is_kept() -> bool:
    """The store keeps what a tool call's _meta reports of the agent's own terminal
    (shown by the tool block: tests/ui/test_agent_terminals.py)."""
    from acp_tui.store import SessionStore

    store = SessionStore()
    store.register_session("s", cwd="/p")
    for meta in (
        {"terminal_info": {"terminal_id": "t", "cwd": "/p"}},
        {"terminal_output": {"terminal_id": "t", "data": "hi "}},
        {"terminal_output": {"terminal_id": "t", "data": "there"}},
        {"terminal_exit": {"terminal_id": "t", "exit_code": 0, "signal": None}},
    ):
        store.apply(
            {
                "sessionId": "s",
                "update": {"sessionUpdate": "tool_call_update", "toolCallId": "c", "_meta": meta},
            }
        )
    call = store.get("s").tool_index["c"]  # type: ignore[union-attr]
    report = call.agent_terminal  # type: ignore[union-attr]
    return report is not None and report.output == "hi there" and report.exit_code == 0


def _a_subagent_is_cancelled_on_its_own() -> bool:
    """``session/cancel`` goes out on the child alone, once it advertised ``cancel``."""
    import anyio

    sent: list[tuple[str, Any]] = []

    class Client:
        async def cancel(self, session_id: str) -> None:
            sent.append(("session/cancel", session_id))

    store = SessionStore()
    store.register_session("parent")
    store.apply_update(
        "parent",
        {"sessionUpdate": "subagent_update", "sessionId": "c", "capabilities": {"cancel": {}}},
    )
    controller = SessionController(AgentSpec(["agent"], cwd="."), store=store)
    controller.state.client = Client()  # type: ignore[assignment]
    controller.state.agent = object()  # type: ignore[assignment]
    anyio.run(controller.cancel_child, "c")
    return sent == [("session/cancel", "c")]


def _boolean_option_is_a_toggle() -> bool:
    """A boolean config option becomes a toggle of the chat bar's option list."""
    from types import SimpleNamespace

    from acp_tui.store.options import session_options

    option = {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": True}
    state = SimpleNamespace(
        config_options=[option],
        available_modes=None,
        current_mode=None,
        available_models=None,
        current_model=None,
    )
    return [o.kind for o in session_options(state)] == ["boolean"]


def advertised(caps: dict[str, Any], feature: ClientFeature) -> bool:
    node: Any = caps
    for key in feature.path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return node is not False and node is not None


@pytest.fixture(params=sorted(FACES))
def face(request: pytest.FixtureRequest, tmp_path: Path) -> Face:
    return FACES[request.param](tmp_path)


def test_every_advertised_capability_is_implemented(face: Face) -> None:
    caps = face.capabilities
    for feature in CLIENT_FEATURES:
        if not advertised(caps, feature):
            continue
        where = f"{face.name}: {'.'.join(feature.path)}"
        for method in feature.methods:
            assert callable(face.handlers.get(method)), f"{where}: no handler for {method}"
        assert set(feature.notifications) <= face.notifications, where
        for kind in feature.updates:
            assert kind in SAMPLE_UPDATES, f"{where}: add a sample {kind} update to this test"
            sample = SAMPLE_UPDATES[kind]
            updates = sample if isinstance(sample, list) else [sample]
            assert face.shows(updates), f"{where}: a {kind} update is not shown"
        for ability in feature.abilities:
            assert ability in ABILITY_PROOFS, f"{where}: add a proof of {ability} to this test"
            assert ABILITY_PROOFS[ability](face), f"{where}: {ability} is not implemented"


def test_every_handled_method_and_notification_is_advertised(face: Face) -> None:
    caps = face.capabilities
    on = [f for f in CLIENT_FEATURES if advertised(caps, f)]
    for method in face.handlers:
        assert method in BASELINE_METHODS or any(method in f.methods for f in on), (
            f"{face.name} handles {method} but advertises no capability for it"
        )
    for name in face.notifications:
        assert name in BASELINE_NOTIFICATIONS or any(name in f.notifications for f in on), (
            f"{face.name} handles the {name} notification but advertises nothing for it"
        )


def test_the_capabilities_fit_the_schema(face: Face) -> None:
    schema_check.check(face.capabilities, "ClientCapabilities", unstable=False)


def test_what_each_face_advertises(face: Face) -> None:
    """Read off the table, for a person checking the change: both run the same controller
    and store (notices, compaction, plans); the TUI takes both elicitation modes, ``ask``
    declines forms (and cannot open a url for anyone)."""
    caps = face.capabilities
    assert caps["fs"] == {"readTextFile": True, "writeTextFile": True} and caps["terminal"]
    assert caps["auth"] == {"terminal": True}
    session = {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}}
    if face.name == "tui":  # nobody takes a suggestion in ``ask``: one prompt, then it ends
        session["promptSuggestions"] = {}
    assert caps["session"] == session
    assert caps["plan"] == {}
    assert caps["subagents"] == {}
    if face.name == "tui":
        assert caps["elicitation"] == {"form": {}, "url": {}}
    else:
        assert caps["elicitation"] == {"form": {}}


def test_the_agents_status_methods_ask_no_client_capability(face: Face) -> None:
    """``auth/status``, ``session/status`` and ``session/options`` (unstable) are the agent's
    methods, offered by its capabilities; ``auth/status_update`` is taken by every face (the
    sign-in state it carries feeds the sign-in), and nothing is advertised for any of them."""
    assert "auth/status_update" in face.notifications
    caps = json.dumps(face.capabilities)
    assert caps.count('"status"') == 0 and caps.count('"options"') == 0
    assert set(face.capabilities["auth"]) == {"terminal"}


@pytest.mark.parametrize("feature", CLIENT_FEATURES, ids=lambda f: ".".join(f.path))
def test_a_feature_is_not_advertised_when_any_part_of_it_is_missing(feature: ClientFeature) -> None:
    everything = {
        "handlers": set(feature.methods),
        "notifications": set(feature.notifications),
        "updates": set(feature.updates),
        "abilities": set(feature.abilities),
    }
    assert implements(feature, **everything)
    for part, names in everything.items():
        for name in names:
            missing = {**everything, part: names - {name}}
            assert not implements(feature, **missing), f"advertised without {name}"
            assert not advertised(client_capabilities(**missing), feature)


def _schema_node(path: tuple[str, ...]) -> dict[str, Any] | None:
    definitions = schema_check.load(1, unstable=True)["$defs"]
    node: dict[str, Any] = definitions["ClientCapabilities"]
    for key in path:
        properties = node.get("properties", {})
        if key not in properties:
            # ``_meta`` is the schema's open place for extensions: any key may be there.
            extension = path[0] == "_meta" and node.get("additionalProperties") is True
            return node if extension else None
        node = properties[key]
        refs = [node, *node.get("anyOf", []), *node.get("allOf", [])]
        target = next((r["$ref"] for r in refs if "$ref" in r), None)
        if target is not None:
            node = definitions[target.rsplit("/", 1)[1]]
    return node


@pytest.mark.parametrize("feature", CLIENT_FEATURES, ids=lambda f: ".".join(f.path))
def test_every_feature_is_a_capability_of_the_schema(feature: ClientFeature) -> None:
    assert _schema_node(feature.path) is not None, f"{feature.path} is not in ClientCapabilities"


@pytest.mark.parametrize(
    ("argv", "offered"),
    [
        (["gemini", "--acp"], False),
        (["/usr/local/bin/gemini", "--experimental-acp"], False),
        (["npx", "-y", "@google/gemini-cli@0.61.0", "--acp"], False),
        (["claude-agent-acp"], True),
        (["qwen", "--experimental-acp"], True),
        (["python", "my_agent.py", "--name", "gemini"], True),
    ],
)
def test_the_clients_file_access_is_not_offered_to_gemini_cli(
    tmp_path: Path, argv: list[str], offered: bool
) -> None:
    """Gemini CLI cannot create a file through a client (it tells a missing file by an error
    message its SDK never hands it), so it is not offered file access and uses its own tools;
    its config's ``client_files`` decides over that, either way."""
    config = Config.model_validate(
        {
            "agents": {
                "default": {"command": argv[0], "args": argv[1:]},
                "yes": {"command": argv[0], "args": argv[1:], "client_files": True},
                "no": {"command": argv[0], "args": argv[1:], "client_files": False},
            }
        }
    )
    options = LaunchOptions(cwd=str(tmp_path))
    sources = [AgentSource.command(argv), *map(AgentSource.configured, ("default", "yes", "no"))]
    for source, expected in zip(sources, (offered, offered, True, False), strict=True):
        spec = resolve_agent(source, config, options).spec
        controller = SessionController(spec, store=SessionStore())
        setup = controller.client_setup()
        caps = client_capabilities(
            handlers=setup["handlers"],
            notifications=setup["notifications"],
            updates=setup["updates"],
            abilities=setup["abilities"],
        )
        assert caps["fs"] == {"readTextFile": expected, "writeTextFile": expected}
        assert caps["terminal"] is True  # the rest is offered as ever


def test_an_agents_client_files_setting_reaches_its_link(tmp_path: Path) -> None:
    from acp_tui.cli.tui import settings_from_invocation

    config = Config.model_validate(
        {"agents": {"gem": {"command": "gemini", "args": ["--acp"], "client_files": True}}}
    )
    settings = settings_from_invocation(parse(["--agent", "gem", "--cwd", str(tmp_path)]), config)
    assert settings.agent is not None
    assert settings.agent.argv == ("gemini", "--acp") and settings.agent.client_files is True
    plain = settings_from_invocation(parse(["--cwd", str(tmp_path), "--", "gemini", "--acp"]))
    assert plain.agent is not None
    assert plain.agent.client_files is False  # decided by the command: not offered to gemini


def test_each_face_advertises_the_v2_preview_layout(face: Face) -> None:
    """Asked for v2, the same implemented features in the preview's layout: one
    ``capabilities`` object, objects for markers, ``session`` a group holding only what v2
    still has a client capability for (notices, plans, subagents and compaction are
    baseline there; files and terminals the agent's own). Nothing v1 would not say."""
    caps = v2.client_capabilities(face.capabilities, terminal_auth=face.terminal_auth)
    expected: dict[str, Any] = {"auth": {"terminal": {}}}
    if face.name == "tui":
        expected["elicitation"] = {"form": {}, "url": {}}
        expected["session"] = {"promptSuggestions": {}}
    else:
        expected["elicitation"] = {"form": {}}
    assert caps == expected
    schema_check.check(caps, "ClientCapabilities", 2, unstable=False)
    # A v1 capability withdrawn is withdrawn from the v2 layout too.
    bare = client_capabilities(handlers=face.handlers)
    assert v2.client_capabilities(bare, terminal_auth=False) == {}
