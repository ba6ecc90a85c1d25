"""The drifts between the faces before one launch spec (issue 37), each a test that failed
before it: ``acp-tui ask --agent`` left out the agent's ``additional_directories`` and sent an
``@file`` as plain text; two configured agents of one command line shared their remembered
sessions (the local index keyed both by the command line). Only the command line's entry point
is used. The launcher's pick: tests/journeys/test_launch_spec.py."""

from __future__ import annotations

import json

import pytest

from tests.launch_helpers import PROMPT, RECORDING_AGENT, Setup, ask, setup

__all__ = ["setup"]  # the fixture


def test_ask_sends_the_configured_agents_additional_directories(setup: Setup) -> None:
    code, _out, err = ask("ask", "hi", "--agent", "one")
    assert code == 0, err
    (run,) = setup.runs()
    new = next(record["params"] for record in run if record["method"] == "session/new")
    assert new["additionalDirectories"] == [str(setup.extra)]


def test_ask_attaches_the_files_it_mentions(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECORDING_AGENT_LOG", str(setup.log))
    cwd = str(setup.project)
    code, out, err = ask("ask", PROMPT, "--cwd", cwd, "--", *RECORDING_AGENT)
    assert code == 0, err
    assert f"You said: {PROMPT}" in out
    (run,) = setup.runs()
    prompt = next(record["params"] for record in run if record["method"] == "session/prompt")
    assert [block["type"] for block in prompt["prompt"]] == ["text", "resource"]
    assert prompt["prompt"][1]["resource"]["uri"] == (setup.project / "notes.md").as_uri()


def test_two_configured_agents_of_one_command_keep_their_sessions_apart(setup: Setup) -> None:
    """Two accounts of one program: what ``ask`` did with one is not listed for the other
    (the local index keyed both by the command line)."""
    code, _out, err = ask("ask", "hi", "--agent", "one")
    assert code == 0, err
    code, out, err = ask("sessions", "--agent", "one", "--json")
    assert code == 0, err
    assert [row["sessionId"] for row in json.loads(out)] == ["recorded-1"]
    code, out, err = ask("sessions", "--agent", "two", "--json")
    assert code == 0, err
    assert json.loads(out) == []
