"""Modes that skip the permission questions (acp_tui.store.mode_danger), told apart by what
real agents call them: their ids, names and descriptions as they send them."""

from __future__ import annotations

import pytest

from acp_tui.store.mode_danger import current_danger, pass_over, skips_permissions
from acp_tui.store.options import Choice, SessionOption

CASES = [
    # claude-agent-acp (recorded in tests/data/recordings/claude-agent-acp-bash.jsonl)
    ("auto", "Auto", "Use a model classifier to approve/deny permission prompts", False),
    ("default", "Default", "Standard behavior, prompts for dangerous operations", False),
    ("acceptEdits", "Accept Edits", "Auto-accept file edit operations", False),
    ("plan", "Plan Mode", "Planning mode, no actual tool execution", False),
    ("dontAsk", "Don't Ask", "Don't prompt for permissions, deny if not pre-approved", False),
    ("bypassPermissions", "Bypass Permissions", "Bypass all permission checks", True),
    # mistral-vibe (recorded)
    ("ask", "Ask", "Requires approval for tool executions", False),
    ("accept-edits", "Accept Edits", "Auto-approves file edits only", False),
    ("auto-approve", "Auto Approve", "Auto-approves all tool executions", True),
    # Qwen Code, Gemini CLI
    ("yolo", "YOLO", "Automatically approve all tools", True),
    ("auto-edit", "Auto Edit", "Automatically approve edit tools", False),
    ("autoEdit", "Auto Edit", "", False),
    # Codex
    (
        "read-only",
        "Read Only",
        "Codex can read files and answer questions. Codex requires approval to make edits, run commands, or access network",
        False,
    ),
    (
        "auto",
        "Auto",
        "Codex can read files, make edits, and run commands in the workspace. Codex requires approval to work outside the workspace or access network.",
        False,
    ),
    (
        "full-access",
        "Full Access",
        "Codex can edit files outside this workspace and run commands with network access. Exercise caution when using.",
        True,
    ),
    # Goose
    ("auto", "auto", "Automatically approve tool calls", True),
    ("approve", "approve", "Ask before every tool call", False),
    ("smart_approve", "smart approve", "Ask only for sensitive tool calls", False),
    ("chat", "chat", "Chat only, no tools", False),
    # others
    ("code", "Code", "Edit files and run commands, asking permission first", False),
    ("danger", "Danger zone", "Runs as with --dangerously-skip-permissions", True),
    ("trusted", "Trusted", "Runs every tool without asking", True),
    ("fast", "Fast", "Skips permission prompts", True),
]


@pytest.mark.parametrize(("value", "name", "description", "skips"), CASES)
def test_a_mode_skips_permissions_by_what_the_agent_calls_it(
    value: str, name: str, description: str, skips: bool
) -> None:
    assert skips_permissions(Choice(value, name, description)) is skips


@pytest.mark.parametrize(
    "choice",
    [
        Choice("bypassPermissions", "", ""),  # the id alone
        Choice("m1", "YOLO", ""),  # the name alone
        Choice("m2", "Trusted", "Auto-approve everything"),  # the description alone
        Choice("m3", "FULL_ACCESS", ""),
    ],
)
def test_any_of_id_name_or_description_is_enough(choice: Choice) -> None:
    assert skips_permissions(choice)


def mode_option(current: str, *values: str, source: str = "config") -> SessionOption:
    names = {"bypass": "Bypass Permissions", "yolo": "YOLO"}
    return SessionOption(
        key="config:mode" if source == "config" else "modes",
        id="mode" if source == "config" else "",
        source=source,  # type: ignore[arg-type]
        name="Mode",
        description="",
        category="mode",
        kind="select",
        choices=tuple(Choice(v, names.get(v, v.title())) for v in values),
        current=current,
    )


def test_the_mode_in_force_is_named_only_when_it_skips() -> None:
    assert current_danger([mode_option("code", "ask", "code", "bypass")]) is None
    danger = current_danger([mode_option("bypass", "ask", "code", "bypass", source="modes")])
    assert danger is not None and danger.name == "Bypass Permissions"


def test_a_mode_named_bypass_in_another_option_is_not_the_mode() -> None:
    other = mode_option("bypass", "bypass", "ask")
    other = SessionOption(**{**{f: getattr(other, f) for f in other.__slots__}, "category": None})
    assert current_danger([other]) is None


@pytest.mark.parametrize(
    ("values", "current", "passed", "expected"),
    [
        (("ask", "code", "bypass"), "code", "bypass", "ask"),  # wraps round to the first
        (("default", "bypass", "plan"), "default", "bypass", "plan"),
        (("default", "bypass", "yolo", "plan"), "default", "bypass", "plan"),  # both passed
        (("code", "bypass"), "code", "bypass", None),  # back to where it was: no change
        (("bypass", "yolo"), "bypass", "yolo", None),
    ],
)
def test_passing_over_goes_to_the_next_mode_that_asks(
    values: tuple[str, ...], current: str, passed: str, expected: str | None
) -> None:
    assert pass_over(mode_option(current, *values), passed) == expected
