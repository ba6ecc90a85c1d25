"""Options before the first message (issue 42), in a real terminal: the mode is chosen before
anything is typed and the first prompt runs in it (seen on the wire, ``--record``); a launch
that sends nothing leaves no session in the agent's list where the agent can close or delete
one, and quits at once even when the agent never answers the close. Against the demo agent
(it can close and delete), the official SDK's agent that can close, and the same agent when
it can do neither (the session is then made by the first message, the mode chosen before it
applied right after ``session/new``)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.blackbox.home import honest_environment, installed_acp_tui
from tests.journeys.terminal import Terminal, agent_command

SIZES = [(120, 40), (80, 24)]
SIZE_IDS = ["120x40", "80x24"]
SDK = ["--", *agent_command("sdk_agent.py")]


def requests(recording: Path) -> list[dict[str, Any]]:
    """What the client sent the agent, in order (the requests and notifications)."""
    out = []
    for line in recording.read_text().splitlines():
        record = json.loads(line)
        message = record.get("msg")
        if record.get("dir") == "to_agent" and isinstance(message, dict) and "method" in message:
            out.append(message)
    return out


#: What only asks (the listing, what a new session would offer, whether one is open).
ASKING = ("session/list", "session/options", "session/status")


def session_calls(recording: Path) -> list[tuple[str, str | None]]:
    """(method, sessionId) of every session call that makes or changes one, in order."""
    return [
        (m["method"], (m.get("params") or {}).get("sessionId"))
        for m in requests(recording)
        if m["method"].startswith("session/") and m["method"] not in ASKING
    ]


def sdk_sessions(state_dir: Path) -> dict[str, Any]:
    path = state_dir / "sdk_agent_sessions.json"
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    return data


def choose_plan(term: Terminal) -> None:
    """Shift+Tab on the empty prompt: the SDK agent's next mode, Plan."""
    term.wait_for(re.compile(r"Default +▼"))
    term.press("BTab")
    term.wait_for(re.compile(r"Plan +▼"))


def leave(term: Terminal) -> None:
    term.press("C-q")
    assert term.wait_exit() == 0


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_demo_agent_mode_chosen_before_typing_and_nothing_left_by_an_empty_launch(
    terminal: Callable[..., Terminal], size: tuple[int, int], tmp_path: Path
) -> None:
    term = terminal(*size, name="used")
    used = tmp_path / "used.jsonl"
    term.start(["--record", str(used), "--demo"])
    term.wait_header("New session")
    # Before a key is typed: the session's own selectors (nothing remembered in this home).
    term.wait_for(re.compile(r"Code +▼"))
    term.press("BTab")  # Code -> YOLO asks first; "n" passes it over to Ask
    term.wait_until(lambda s: "y Switch to" in s, "the question armed")
    term.press("n")
    term.wait_for(re.compile(r"Ask +▼"))
    term.send("hello")
    term.wait_for("You said")
    term.wait_header("hello")
    leave(term)
    calls = session_calls(used)
    made = calls[0]
    assert made[0] == "session/new"
    sent = requests(used)
    chosen = [
        m
        for m in sent
        if m["method"] in ("session/set_mode", "session/set_config_option")
        and (m["params"].get("modeId") == "ask" or m["params"].get("value") == "ask")
    ]
    prompt = next(m for m in sent if m["method"] == "session/prompt")
    assert chosen and sent.index(chosen[0]) < sent.index(prompt)
    session_id = prompt["params"]["sessionId"]
    assert chosen[0]["params"]["sessionId"] == session_id
    assert ("session/close", session_id) not in calls  # a used session stays

    # Launched and left without a word: the session opened early is closed and deleted.
    empty = terminal(*size, name="empty")
    empty.home, empty.env = term.home, term.env
    recording = tmp_path / "empty.jsonl"
    empty.start(["--record", str(recording), "--demo"])
    empty.wait_header("New session")
    empty.wait_for(re.compile(r"Code +▼"))  # the early session's own mode
    leave(empty)
    calls = session_calls(recording)
    assert [c[0] for c in calls] == ["session/new", "session/close", "session/delete"]
    assert calls[1][1] == calls[2][1] is not None

    # The agent lists the used session only (asked as a person would, from the shell).
    listed = subprocess.run(
        [installed_acp_tui(), "sessions", "--json", "--demo"],
        cwd=term.home,
        env={**honest_environment(), **term.env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert [s["sessionId"] for s in json.loads(listed.stdout)] == [session_id]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_sdk_agent_that_can_close_plan_mode_before_typing_and_a_quick_quit(
    terminal: Callable[..., Terminal], size: tuple[int, int], tmp_path: Path
) -> None:
    state = tmp_path / "sdk-state"
    state.mkdir()
    env = {"SDK_AGENT_MODES": "1", "SDK_AGENT_CLOSE": "1", "SDK_AGENT_STATE_DIR": str(state)}
    term = terminal(*size, name="plan")
    used = tmp_path / "plan.jsonl"
    term.start(["--record", str(used), *SDK], env=env)
    term.wait_header("New session")
    choose_plan(term)
    term.send("hello")
    term.wait_for("(plan mode) You said: hello")
    leave(term)
    calls = session_calls(used)
    session_id = calls[0][1] or next(s for m, s in calls if m == "session/prompt")
    assert [m for m, _ in calls][:3] == ["session/new", "session/set_mode", "session/prompt"]
    assert {s for m, s in calls if m in ("session/set_mode", "session/prompt")} == {session_id}
    mode = next(m for m in requests(used) if m["method"] == "session/set_mode")
    assert mode["params"]["modeId"] == "plan"
    kept = set(sdk_sessions(state))
    assert session_id in kept

    # Ctrl+Q as soon as the app shows: the early session is closed, the agent forgets it.
    quick = terminal(*size, name="quick")
    quick.home, quick.env = term.home, term.env
    recording = tmp_path / "quick.jsonl"
    quick.start(["--record", str(recording), *SDK], env=env)
    quick.wait_header("New session")
    leave(quick)
    assert set(sdk_sessions(state)) == kept
    assert "session/close" in [m for m, _ in session_calls(recording)]

    # An agent that never answers the close: the quit does not wait for it.
    hung = terminal(*size, name="hung")
    hung.home, hung.env = term.home, term.env
    recording = tmp_path / "hung.jsonl"
    hung.start(
        ["--record", str(recording), *SDK],
        env={**env, "SDK_AGENT_CLOSE_GATE": str(tmp_path / "never")},
    )
    hung.wait_header("New session")
    hung.wait_for(re.compile(r"Default +▼"))  # the early session is open
    hung.press("C-q")
    assert hung.wait_exit(timeout=20) == 0
    assert "session/close" in [m for m, _ in session_calls(recording)]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_sdk_agent_that_cannot_close_gets_the_mode_right_after_session_new(
    terminal: Callable[..., Terminal], size: tuple[int, int], tmp_path: Path
) -> None:
    state = tmp_path / "sdk-state"
    state.mkdir()
    env = {"SDK_AGENT_MODES": "1", "SDK_AGENT_STATE_DIR": str(state)}
    # A first session teaches acp-tui what a new session of this agent offers.
    first = terminal(*size, name="first")
    first.start([*SDK], env=env)
    first.wait_header("New session")
    first.send("first")
    first.wait_for("You said: first")
    leave(first)
    known = set(sdk_sessions(state))

    # Nothing sent: nothing made (the agent could not take it back).
    empty = terminal(*size, name="empty")
    empty.home, empty.env = first.home, first.env
    recording = tmp_path / "empty.jsonl"
    empty.start(["--record", str(recording), *SDK], env=env)
    empty.wait_header("New session")
    empty.wait_for(re.compile(r"Default +▼"))  # remembered from the last session
    leave(empty)
    assert session_calls(recording) == [] and set(sdk_sessions(state)) == known

    # Plan chosen before the session exists: set right after session/new, before the prompt.
    term = terminal(*size, name="plan")
    term.home, term.env = first.home, first.env
    used = tmp_path / "plan.jsonl"
    term.start(["--record", str(used), *SDK], env=env)
    term.wait_header("New session")
    choose_plan(term)
    term.send("hello")
    term.wait_for("(plan mode) You said: hello")
    leave(term)
    calls = session_calls(used)
    assert [m for m, _ in calls][:3] == ["session/new", "session/set_mode", "session/prompt"]
    mode = next(m for m in requests(used) if m["method"] == "session/set_mode")
    assert mode["params"]["modeId"] == "plan"
