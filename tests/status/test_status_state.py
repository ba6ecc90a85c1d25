"""Your status line (issue 42): the config keys through the one resolver, the session's state
as the status command's JSON, and the built-in items drawn from that same JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acp_tui.config.load import Config, parse_config
from acp_tui.session.launch.resolve import resolve_agent
from acp_tui.session.launch.spec import AgentSource, LaunchOptions
from acp_tui.session.status.settings import STATUS_ITEMS, StatusLineSettings
from acp_tui.session.status.state import (
    StatusSource,
    state_json,
    status_items,
    status_state,
)
from acp_tui.store.session import ContextUsage, SessionState, TurnUsage
from acp_tui.store.store import SessionStore

# ------------------------------------------------------------------------------ the config


def test_the_agents_own_items_and_command_win_over_the_top_level(tmp_path: Path) -> None:
    made = Config.model_validate(
        {
            "status_items": ["model", "context"],
            "status_command": "~/bin/status",
            "agents": {
                "own": {"command": "a", "status_items": ["cwd"], "status_command": "mine"},
                "none": {"command": "b", "status_items": [], "status_command": ""},
                "plain": {"command": "c"},
            },
        }
    )
    at = LaunchOptions(cwd=str(tmp_path))

    def line(source: AgentSource, config: Config | None) -> StatusLineSettings:
        return resolve_agent(source, config, at).spec.status_line

    assert line(AgentSource.configured("own"), made) == StatusLineSettings(("cwd",), "mine")
    assert line(AgentSource.configured("none"), made) == StatusLineSettings((), None)
    assert not line(AgentSource.configured("none"), made).shown
    top = StatusLineSettings(("model", "context"), "~/bin/status")
    assert line(AgentSource.configured("plain"), made) == top
    assert line(AgentSource.command(["x"]), made) == top  # an agent given by its command
    assert line(AgentSource.command(["x"]), None) == StatusLineSettings()
    assert not StatusLineSettings().shown


def test_every_item_is_accepted_and_a_wrong_one_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    config, problems = parse_config({"status_items": list(STATUS_ITEMS)}, path)
    assert problems == [] and tuple(config.status_items) == STATUS_ITEMS
    config, problems = parse_config(
        {"status_items": ["model", "weather"], "status_command": "x", "theme": "t"}, path
    )
    assert len(problems) == 1 and "status_items" in problems[0] and "weather" in problems[0]
    assert config.status_items == [] and config.status_command == "x" and config.theme == "t"


# ------------------------------------------------------------------------------ the state


def session(**fields: object) -> SessionState:
    state = SessionState("s-1")
    state.cwd = "/work/shop"
    state.title = "Fix the tests"
    state.config_options = [
        {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": "fast",
            "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}],
        }
    ]
    state.available_modes = [{"id": "plan", "name": "Plan"}, {"id": "code", "name": "Code"}]
    state.current_mode_id = "plan"
    state.context = ContextUsage(31_400, 200_000, 0.0042, "USD")
    state.last_turn_usage = TurnUsage(1_500, 1_200, 300)
    state.turn = 3
    for name, value in fields.items():
        setattr(state, name, value)
    return state


SOURCE = StatusSource("claude", "Claude", "/work/shop", "main", now=1000.0)


def test_the_json_names_everything_the_line_can_show() -> None:
    data = status_state(session(), SOURCE)
    assert data == {
        "version": 1,
        "acp_tui_version": data["acp_tui_version"],
        "agent": {"name": "claude", "label": "Claude"},
        "session": {"id": "s-1", "title": "Fix the tests"},
        "cwd": "/work/shop",
        "model": {"id": "fast", "name": "Fast"},
        "mode": {"id": "plan", "name": "Plan"},
        "context": {"used": 31_400, "size": 200_000, "percent": 15.7},
        "cost": {"amount": 0.0042, "currency": "USD"},
        "git_branch": "main",
        "turn": {"count": 3, "running": False, "elapsed_seconds": None, "last_seconds": None},
        "turn_tokens": {
            "input": 1_200,
            "output": 300,
            "total": 1_500,
            "thought": None,
            "cached_read": None,
            "cached_write": None,
        },
    }
    assert isinstance(data["acp_tui_version"], str) and data["acp_tui_version"]
    # The bytes: one line of JSON, the same for the same state.
    encoded = state_json(data)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert json.loads(encoded) == data
    assert state_json(status_state(session(), SOURCE)) == encoded


def test_a_running_turn_has_its_time_and_an_ended_one_its_length() -> None:
    running = status_state(session(activity="running", turn_started=988.4), SOURCE)
    assert running["turn"] == {
        "count": 3,
        "running": True,
        "elapsed_seconds": 11,
        "last_seconds": None,
    }
    assert status_items(running, ["elapsed"]) == ["turn 11 s"]
    ended = status_state(session(last_turn_seconds=75.2), SOURCE)
    assert ended["turn"]["elapsed_seconds"] is None and ended["turn"]["last_seconds"] == 75
    assert status_items(ended, ["elapsed"]) == ["last turn 1 min 15 s"]
    waiting = status_state(session(activity="requires_action", turn_started=999.0), SOURCE)
    assert waiting["turn"]["running"] is True


def test_the_new_session_shows_the_mode_and_model_it_will_be_made_with() -> None:
    preview = session()
    data = status_state(None, SOURCE, preview)
    assert data["session"] == {"id": None, "title": None}
    assert data["mode"] == {"id": "plan", "name": "Plan"}
    assert data["model"] == {"id": "fast", "name": "Fast"}
    assert data["context"] is None and data["cost"] is None and data["turn_tokens"] is None
    assert data["turn"] == {
        "count": 0,
        "running": False,
        "elapsed_seconds": None,
        "last_seconds": None,
    }
    assert data["cwd"] == "/work/shop"
    assert status_items(data, ["agent", "context", "cost", "turn_tokens"]) == ["Claude"]


def test_each_item_in_the_order_asked() -> None:
    data = status_state(session(), SOURCE)
    assert status_items(data, list(STATUS_ITEMS)) == [
        "Claude",
        "Fast",
        "Plan",
        "ctx 16%",
        "$0.0042",
        "/work/shop",
        "⎇ main",
        "↑1.2K ↓300",
    ]
    assert status_items(data, ["git_branch", "model"]) == ["⎇ main", "Fast"]


def test_an_item_with_nothing_to_say_is_left_out() -> None:
    bare = SessionState("s-2")
    data = status_state(bare, StatusSource(None, "", "/x"))
    assert status_items(data, list(STATUS_ITEMS)) == ["/x"]
    only_total = status_state(session(last_turn_usage=TurnUsage(900, None, None)), SOURCE)
    assert status_items(only_total, ["turn_tokens"]) == ["900 tokens"]


def test_the_working_directory_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ana")
    home = StatusSource(None, "", "/home/ana/src/shop")
    assert status_items(status_state(None, home), ["cwd"]) == ["~/src/shop"]
    deep = "/home/ana/" + "/".join(["very-long-folder-name"] * 4) + "/shop"
    shown = status_items(status_state(None, StatusSource(None, "", deep)), ["cwd"])[0]
    assert shown == "…" + os.sep + "very-long-folder-name/shop" and len(shown) <= 40


def test_the_agents_words_are_data_in_the_items_and_the_json() -> None:
    """Names from the agent (a mode, a model, a title) with escape sequences, markup and
    line breaks: the items show them literally on one line, the JSON carries them as sent
    (JSON escapes every control character) but for the title, one line and bounded."""
    nasty = "\x1b]0;owned\x07[b]Plan[/b]\nnext\u202e"
    state = session(available_modes=[{"id": "plan", "name": nasty}], title="t\x1b[2J" + "x" * 500)
    data = status_state(state, SOURCE)
    (mode,) = status_items(data, ["mode"])
    assert mode == "[b]Plan[/b] next"
    assert data["mode"]["name"] == nasty
    assert b"\x1b" not in state_json(data) and b"\\u001b" in state_json(data)
    assert "\x1b" not in data["session"]["title"] and len(data["session"]["title"]) <= 200


def test_the_store_times_a_turn_from_its_start_to_its_end() -> None:
    now = [100.0]
    store = SessionStore(clock=lambda: now[0])
    store.register_session("s", cwd="/w", new=True)
    state = store.get("s")
    assert state is not None and state.last_turn_seconds is None
    turn = store.prompt_sent("s", "hello")
    now[0] = 142.5
    store.prompt_finished("s", {"stopReason": "end_turn"}, turn=turn)
    assert state.last_turn_seconds == 42.5
    data = status_state(state, StatusSource(None, "", "/w", now=150.0))
    assert data["turn"]["last_seconds"] == 42 and data["turn"]["count"] == 1
