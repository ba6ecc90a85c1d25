"""The demo agent's session config options: one of every category, remembered per session.

https://agentclientprotocol.com/protocol/v1/session-config-options. Categories are UX hints:
``mode``, ``model`` (grouped values), ``thought_level``, ``speed`` (unstable, schema
v1.29.0), ``model_config``, a custom ``_demo``
category standing for "other", and a boolean toggle, listed only to clients that advertise
``session.configOptions.boolean`` (v1; v2 has booleans in the base protocol). Each one
changes what the agent does, so a person sees the choice take effect.

The mode option mirrors the legacy ``modes`` state of v1: setting either sets both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.demo_agent.sessions import SessionRecord
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RpcError

MODE = "mode"
MODEL = "model"
THOUGHT_LEVEL = "thought_level"
SPEED = "speed"
VERBOSITY = "verbosity"
FORMAT = "format"
CONFIRM_TOOLS = "confirm_tools"

# (value, name, description)
Choice = tuple[str, str, str]

MODES: tuple[Choice, ...] = (
    ("ask", "Ask", "Answer questions; changes still need your permission"),
    ("code", "Code", "Edit files and run commands, asking permission first"),
    ("yolo", "YOLO", "Bypass permissions: edit files and run commands without asking first"),
)
#: The mode in which tools run without asking (as Qwen Code's "YOLO" and claude-agent-acp's
#: "Bypass Permissions"); its name is as short as the others', so the mode select keeps its
#: width.
BYPASS_MODE = "yolo"

# (value, name, description, group, USD per million input tokens, per million output tokens)
MODELS: tuple[tuple[str, str, str, str, float, float], ...] = (
    ("demo-swift", "Demo Swift", "Quick and cheap (pretend)", "fast", 0.25, 1.25),
    ("demo-balanced", "Demo Balanced", "The sensible middle (pretend)", "fast", 3.0, 15.0),
    ("demo-deep", "Demo Deep", "Slow, thorough and pricey (pretend)", "thorough", 15.0, 75.0),
)
MODEL_GROUPS: tuple[tuple[str, str], ...] = (("fast", "Fast"), ("thorough", "Thorough"))

THOUGHT_LEVELS: tuple[Choice, ...] = (
    ("off", "Off", "No visible reasoning: /think answers straight away"),
    ("low", "Low", "A sentence or two of reasoning"),
    ("medium", "Medium", "A paragraph of reasoning"),
    ("high", "High", "Long reasoning, and a thought before every reply"),
)
SPEEDS: tuple[Choice, ...] = (
    ("standard", "Standard", "Replies stream at the usual pace"),
    ("fast", "Fast", "Replies stream twice as fast (the same words)"),
)
#: How much of the usual pause between chunks each speed leaves.
SPEED_FACTOR = {"standard": 1.0, "fast": 0.5}

#: Paragraphs of reasoning /think streams at each level.
THOUGHT_PARAGRAPHS = {"off": 0, "low": 1, "medium": 2, "high": 4}

VERBOSITIES: tuple[Choice, ...] = (
    ("short", "Short", "Just the gist"),
    ("normal", "Normal", "The usual reply"),
    ("long", "Long", "Every fact the demo can think of"),
)
FORMATS: tuple[Choice, ...] = (
    ("markdown", "Markdown", "Headings, quotes, bold and code spans"),
    ("plain", "Plain text", "No Markdown at all"),
)


@dataclass(frozen=True, slots=True)
class Select:
    id: str
    name: str
    description: str
    category: str | None
    choices: tuple[Choice, ...]
    default: str

    def values(self) -> frozenset[str]:
        return frozenset(choice[0] for choice in self.choices)


@dataclass(frozen=True, slots=True)
class Toggle:
    id: str
    name: str
    description: str
    category: str | None
    default: bool


OPTIONS: tuple[Select | Toggle, ...] = (
    Select(MODE, "Mode", "How the agent works", "mode", MODES, "code"),
    Select(
        MODEL,
        "Model",
        "Which (pretend) model answers",
        "model",
        tuple((m[0], m[1], m[2]) for m in MODELS),
        "demo-swift",
    ),
    Select(
        THOUGHT_LEVEL,
        "Thinking",
        "How much reasoning the agent shows",
        "thought_level",
        THOUGHT_LEVELS,
        "medium",
    ),
    Select(SPEED, "Speed", "How fast the agent answers", "speed", SPEEDS, "standard"),
    Select(
        VERBOSITY, "Reply length", "How much the agent says", "model_config", VERBOSITIES, "normal"
    ),
    # A category outside the spec's list: clients must show it like any other select.
    Select(
        FORMAT, "Reply format", "Markdown or plain text replies", "_demo_style", FORMATS, "markdown"
    ),
    Toggle(
        CONFIRM_TOOLS,
        "Ask before tools",
        "Ask permission before /edit and /run (off: they just run)",
        None,
        True,
    ),
)
BY_ID = {option.id: option for option in OPTIONS}


def value(record: SessionRecord, option_id: str, caps: ClientCaps | None = None) -> Any:
    """The option's value for this session. A toggle the client cannot show is at its
    default, so a choice made in another client never acts unseen."""
    option = BY_ID[option_id]
    if option_id == MODE:
        return record.mode
    if option_id == MODEL:
        return record.model
    if isinstance(option, Toggle) and caps is not None and not caps.boolean_options:
        return option.default
    stored = record.options.get(option_id)
    if isinstance(option, Toggle):
        return stored if isinstance(stored, bool) else option.default
    return stored if isinstance(stored, str) and stored in option.values() else option.default


def set_value(record: SessionRecord, option_id: str, new: Any) -> None:
    if option_id == MODE:
        record.mode = new
    elif option_id == MODEL:
        record.model = new
    else:
        record.options[option_id] = new


def listed(caps: ClientCaps) -> list[Select | Toggle]:
    return [o for o in OPTIONS if isinstance(o, Select) or caps.boolean_options]


def options_json(record: SessionRecord, caps: ClientCaps) -> list[dict[str, Any]]:
    """``configOptions`` as the client's protocol version spells them."""
    id_key = "configId" if caps.v2 else "id"
    result = []
    for option in listed(caps):
        data: dict[str, Any] = {id_key: option.id, "name": option.name}
        data["description"] = option.description
        if option.category is not None:
            data["category"] = option.category
        if isinstance(option, Toggle):
            data["type"] = "boolean"
            data["currentValue"] = value(record, option.id, caps)
        else:
            data["type"] = "select"
            data["currentValue"] = value(record, option.id, caps)
            data["options"] = _select_options(option, caps)
        result.append(data)
    return result


def _select_options(option: Select, caps: ClientCaps) -> list[dict[str, Any]]:
    flat = [{"value": v, "name": n, "description": d} for v, n, d in option.choices]
    if option.id != MODEL:
        return flat
    groups = []
    group_key = "groupId" if caps.v2 else "group"
    for group_id, group_name in MODEL_GROUPS:
        members = [
            {"value": m[0], "name": m[1], "description": m[2]} for m in MODELS if m[3] == group_id
        ]
        groups.append({group_key: group_id, "name": group_name, "options": members})
    return groups


def apply_initial(record: SessionRecord, initial: Any, caps: ClientCaps) -> None:
    """``configOptions`` on ``session/new`` (unstable, with ``session/options``): each value
    as ``session/set_config_option`` would set it; one that it would refuse is ignored."""
    if caps.v2 or not isinstance(initial, list):
        return
    for item in initial:
        if not isinstance(item, dict):
            continue
        try:
            option_id, new = parse_set(item, caps)
        except RpcError:
            continue
        set_value(record, option_id, new)


def parse_set(params: dict[str, Any], caps: ClientCaps) -> tuple[str, Any]:
    """Validate a ``session/set_config_option`` request: (option id, new value). An unknown
    option or a bad value is -32602, and nothing changes."""
    option_id = params.get("configId")
    option = BY_ID.get(option_id) if isinstance(option_id, str) else None
    if option is None or option not in listed(caps):
        raise RpcError(INVALID_PARAMS, f"unknown config option: {option_id}")
    kind = params.get("type")
    new = params.get("value")
    if isinstance(option, Toggle):
        if kind != "boolean" or not isinstance(new, bool):
            raise RpcError(
                INVALID_PARAMS, f"`{option.id}` is a boolean option: send type boolean and a bool"
            )
        return option.id, new
    # v1 reads a missing or unknown type as a value id; v2 names it "id" and nothing else.
    if kind == "boolean" or (caps.v2 and kind != "id"):
        raise RpcError(INVALID_PARAMS, f"`{option.id}` takes a value id, not type {kind!r}")
    if new not in option.values():
        raise RpcError(
            INVALID_PARAMS,
            f"unknown value for {option.id}: {new}",
            {"values": sorted(option.values())},
        )
    return option.id, new


#: The environment variable naming the currency the demo reports its cost in (default USD).
CURRENCY_ENV = "ACP_TUI_DEMO_CURRENCY"


def currency() -> str:
    """The unit of the cost the demo reports: ``$ACP_TUI_DEMO_CURRENCY``, else ``USD``."""
    return os.environ.get(CURRENCY_ENV, "").strip() or "USD"


def model_prices(model: str) -> tuple[float, float]:
    for entry in MODELS:
        if entry[0] == model:
            return entry[4], entry[5]
    return MODELS[0][4], MODELS[0][5]


def choice_name(option_id: str, current: Any) -> str:
    option = BY_ID[option_id]
    if isinstance(option, Toggle):
        return "on" if current else "off"
    for value_id, name, _description in option.choices:
        if value_id == current:
            return name
    return str(current)


def modes_state(mode: str) -> dict[str, Any]:
    """The legacy v1 ``modes`` state, kept beside the mode option."""
    return {
        "currentModeId": mode,
        "availableModes": [{"id": v, "name": n, "description": d} for v, n, d in MODES],
    }
