"""Modes that skip the permission questions: told apart by what the agent calls them.

Agents offer modes in which they stop asking before they act: claude-agent-acp's "Bypass
Permissions" ("Bypass all permission checks"), Qwen Code's and Gemini CLI's "YOLO", Codex's
"Full Access", Mistral Vibe's "Auto Approve" ("Auto-approves all tool executions"), Goose's
"auto" ("Automatically approve tool calls"). ACP gives a mode no flag for that, so the rule
reads its id, name and description: it *skips permissions* when they say bypass, yolo, full
access, dangerously, skip(s) permissions, without asking / approval, or automatic approval
of all (or of tool calls), but not when the automatic approval is of file edits only
("Accept Edits": "Auto-accept file edit operations"), nor when the words only mention danger
("prompts for dangerous operations") or not prompting while denying ("Don't Ask": "Don't
prompt for permissions, deny if not pre-approved").

A cycling key never enters such a mode without a confirmation, and the header marks it
while it is in force (acp_tui.ui.screens.chat.options). Pure Python.
"""

from __future__ import annotations

import re

from acp_tui.store.options import Choice, SessionOption

__all__ = ["current_danger", "is_mode_option", "pass_over", "skips_permissions"]

#: Words of a mode that skips the permission questions, on its text made lower case with
#: camelCase, ``-``, ``_`` and ``/`` turned into spaces.
_SKIPS = re.compile(
    r"""
    \bbypass
    | \byolo\b
    | \bfull\s+access\b
    | \bdangerously\b
    | \bskip(s|ping)?\s+(all\s+|the\s+)?(permission|approval|confirmation)
    | \bwithout\s+(asking|approval|permission|confirmation|prompting)
    | \bno\s+(permission|approval)s?\s+(checks?|prompts?|questions?)
    | \b(auto(matically)?\s*)(approv|accept|allow)\w*+
        (?!\s+(\w+\s+)?(file\s+)?(edit|edits|editing|write|writes)\b)
    | \b(approv|accept|allow)\w*+\s+(all|every|everything)\b
        (?!\s+(\w+\s+)?(file\s+)?(edit|edits|editing|write|writes)\b)
    """,
    re.VERBOSE,
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _words(text: str) -> str:
    return re.sub(r"[-_/]+", " ", _CAMEL.sub(" ", text)).lower()


def skips_permissions(choice: Choice | None) -> bool:
    """Whether a mode, by its id, name or description, runs without asking the person."""
    if choice is None:
        return False
    text = " . ".join(_words(part) for part in (choice.value, choice.name, choice.description))
    return _SKIPS.search(text) is not None


def is_mode_option(option: SessionOption) -> bool:
    """Whether ``option`` is the session's mode (a ``mode`` config option, or legacy modes)."""
    return option.category == "mode" or option.source == "modes"


def current_danger(options: list[SessionOption]) -> Choice | None:
    """The mode in force, when it skips the permission questions (else None)."""
    for option in options:
        if is_mode_option(option) and option.kind == "select":
            choice = option.choice(option.current)
            if skips_permissions(choice):
                return choice
    return None


def pass_over(option: SessionOption, value: str) -> str | None:
    """The mode a cycling key goes to when the person passes over ``value`` (one that skips
    permissions they did not want): the next one after it that does not skip them; None
    when that is the current one (nothing changes)."""
    values = [choice.value for choice in option.choices]
    if value not in values:
        return None
    start = values.index(value)
    for step in range(1, len(values)):
        choice = option.choices[(start + step) % len(values)]
        if choice.value == option.current:
            return None
        if not skips_permissions(choice):
            return choice.value
    return None
