"""One launch spec for every face (issue 37): a configured agent driven through ``acp-tui ask
--agent``, the TUI's ``--agent`` and the launcher is one :class:`AgentSpec`, made by one
resolver and handed to one factory, and what goes on the wire (``initialize``,
``session/new``, ``session/prompt``) is the same. The agent is a recording one: it writes
down every message it gets (tests/agents/recording_agent.py).

The drifts there were: tests/test_launch_drifts.py and tests/journeys/test_launch_spec.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.cli import tui
from acp_tui.cli.parse import parse
from acp_tui.config.load import load_config
from acp_tui.session.launch import factory
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.entries import AgentMessage
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.launcher import LauncherScreen
from tests.launch_helpers import PROMPT, Setup, ask, setup
from tests.ui.chat_helpers import chat, send, wait_for

__all__ = ["setup"]  # the fixture

SIZE = (120, 40)


@pytest.fixture
def specs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[AgentSpec]]:
    """Every spec the one factory builds an agent's parts from, in order."""
    made: list[AgentSpec] = []
    original = factory.AgentParts.__init__

    def recording(self: factory.AgentParts, spec: AgentSpec, **options: Any) -> None:
        made.append(spec)
        original(self, spec, **options)

    monkeypatch.setattr(factory.AgentParts, "__init__", recording)
    yield made


def on_the_wire(run: list[dict[str, Any]]) -> dict[str, Any]:
    """What one start of the agent was sent that every face must send alike."""
    by_method = {record["method"]: record["params"] for record in run}
    initialize = by_method["initialize"]
    prompt = dict(by_method["session/prompt"])
    prompt.pop("sessionId")
    return {
        "protocolVersion": initialize["protocolVersion"],
        "fs": initialize["clientCapabilities"].get("fs"),
        "session/new": by_method["session/new"],
        "session/prompt": prompt,
    }


def tui_app(args: list[str]) -> Any:
    """The app as ``acp-tui ARGS`` makes it (without starting the agent before the UI)."""
    invocation = parse(args)
    config, problems = load_config()
    settings, *more = tui.agent_settings(invocation, config, problems)
    ui = tui.ui_settings(invocation.options, config, problems)
    return tui.make_tui_app(settings, ui, config, problems, more)


async def send_the_prompt(pilot: Pilot[Any]) -> None:
    await wait_for(pilot, lambda: chat(pilot.app).agent_alive, "the agent")
    await send(pilot, PROMPT)
    await wait_for(
        pilot,
        lambda: any(
            isinstance(e, AgentMessage) and "You said" in e.text
            for e in transcript(chat(pilot.app))
        ),
        "the reply",
    )


def transcript(screen: ChatScreen) -> list[Any]:
    state = screen.store.get(screen.session_id) if screen.session_id else None
    return list(state.transcript) if state else []


async def tui_with_agent_option() -> None:
    app = tui_app(["--agent", "one"])
    async with app.run_test(size=SIZE) as pilot:
        await send_the_prompt(pilot)


async def tui_from_the_launcher() -> None:
    app = tui_app([])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LauncherScreen), "the launcher")
        assert app.screen.choices[0].key == "config:one"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the chat")
        await send_the_prompt(pilot)


def test_ask_the_tui_and_the_launcher_send_the_same(setup: Setup, specs: list[AgentSpec]) -> None:
    code, _out, err = ask("ask", PROMPT, "--agent", "one")  # runs its own event loop
    assert code == 0, err
    asyncio.run(tui_with_agent_option())
    asyncio.run(tui_from_the_launcher())
    # One spec, from one resolver, for the three faces.
    assert len(specs) == 3
    assert specs[0] == specs[1] == specs[2]
    spec = specs[0]
    assert spec.key == "config:one" and spec.label == "Recorder one"
    assert spec.cwd == str(setup.project)
    assert spec.additional_dirs == (str(setup.extra),)
    assert (spec.protocol_version, spec.client_files) == (2, False)
    # The same on the wire.
    runs = [on_the_wire(run) for run in setup.runs()]
    assert len(runs) == 3
    assert runs[0] == runs[1] == runs[2]
    sent = runs[0]
    assert sent["protocolVersion"] == 2
    assert sent["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert sent["session/new"]["cwd"] == str(setup.project)
    assert sent["session/new"]["additionalDirectories"] == [str(setup.extra)]
    assert [server["name"] for server in sent["session/new"]["mcpServers"]] == ["fs"]
    text, attached = sent["session/prompt"]["prompt"]
    assert text == {"type": "text", "text": PROMPT}
    assert attached["type"] == "resource"
    assert attached["resource"]["uri"] == (setup.project / "notes.md").as_uri()
    assert "remember the milk" in attached["resource"]["text"]
