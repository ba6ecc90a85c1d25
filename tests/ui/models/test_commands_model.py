"""The / list's model: acp-tui's commands beside the agent's (the agent's wins a name), what
Enter sends, and which typed text runs an acp-tui command (issue 38, items 1 and 5)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.ui.models.commands import (
    ClientCommand,
    enter_sends,
    match_commands,
    parse_client_command,
    pick_by_name,
    slash_list,
    unknown_client_command,
)

AGENT: list[dict[str, Any]] = [
    {"name": "help", "description": "the agent's help"},
    {"name": "plan", "description": "a plan", "input": {"hint": "task"}},
    {"name": "planner", "description": "a planner"},
    {"description": "no name: left out"},
]
CLIENT = [
    ClientCommand("help", "keys and commands"),
    ClientCommand("new", "a new session"),
    ClientCommand("model", "choose the model", "[name]"),
]


def test_the_agents_commands_come_first_and_win_their_names() -> None:
    rows = slash_list(AGENT, CLIENT)
    assert [(row.name, row.client) for row in rows] == [
        ("help", False),
        ("plan", False),
        ("planner", False),
        ("/help", True),  # acp-tui's help is //help: the agent's /help stays the agent's
        ("new", True),
        ("model", True),
    ]
    assert rows[1].hint == "task"


def test_with_no_agent_command_every_client_command_is_a_plain_name() -> None:
    assert [row.name for row in slash_list([], CLIENT)] == ["help", "new", "model"]


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("", ["help", "plan", "planner", "/help", "new", "model"]),
        ("he", ["help", "/help"]),  # the agent's first, then acp-tui's (contains "he")
        ("pl", ["plan", "planner"]),
        ("/", ["/help", "/new", "/model"]),  # "//": acp-tui's commands only
        ("/m", ["/model"]),
        ("zz", []),
    ],
)
def test_matching(query: str, names: list[str]) -> None:
    assert [row.name for row in match_commands(query, slash_list(AGENT, CLIENT))] == names


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("plan", "plan"),  # a whole name, though "planner" starts so too
        ("PLAN", "plan"),
        ("plann", "planner"),  # the only one starting so
        ("ne", "new"),
        ("pl", None),  # two start so: Enter completes the highlighted one
        ("", None),
        ("lan", None),  # contained, not started: completes
        ("/he", "/help"),
    ],
)
def test_what_enter_sends(query: str, sent: str | None) -> None:
    found = enter_sends(query, match_commands(query, slash_list(AGENT, CLIENT)))
    assert (found.name if found else None) == sent


@pytest.mark.parametrize(
    ("text", "ran"),
    [
        ("/new", ("new", "")),
        ("/model  opus 4 ", ("model", "opus 4")),
        ("/MODEL opus", ("model", "opus")),
        ("/help", None),  # the agent's
        ("//help", ("help", "")),  # acp-tui's, always
        ("//new", ("new", "")),
        ("/plan x", None),
        ("hello /new", None),
        ("/", None),
        ("//", None),
        ("/newer", None),
        ("/model\nsecond line", ("model", "second line")),
    ],
)
def test_which_text_runs_an_acp_tui_command(text: str, ran: tuple[str, str] | None) -> None:
    found = parse_client_command(text, AGENT, CLIENT)
    assert ((found[0].name, found[1]) if found else None) == ran


@pytest.mark.parametrize(
    ("text", "unknown"),
    [("//nope", "nope"), ("//help", None), ("// a comment", None), ("/nope", None), ("//", None)],
)
def test_an_unknown_double_slash_command_is_named(text: str, unknown: str | None) -> None:
    assert unknown_client_command(text, CLIENT) == unknown


@pytest.mark.parametrize(
    ("wanted", "value"),
    [
        ("opus", "opus-4"),  # the name's start, one only
        ("Claude Opus", "opus-4"),  # the whole name
        ("sonnet-4", "sonnet-4"),  # the whole value
        ("s", None),  # two start so
        ("gpt", None),
        ("", None),
    ],
)
def test_a_value_is_picked_by_its_name_or_value(wanted: str, value: str | None) -> None:
    choices = [("opus-4", "Claude Opus"), ("sonnet-4", "Sonnet"), ("sonnet-3", "Sonnet old")]
    assert pick_by_name(choices, wanted) == value
