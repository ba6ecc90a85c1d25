"""A session's options as one list: every config option, and the legacy mode and model states.

ACP sessions carry settings in three shapes
(https://agentclientprotocol.com/protocol/v1/session-config-options):

- ``configOptions``: selects (flat or grouped values) and, for clients that advertise
  ``clientCapabilities.session.configOptions.boolean``, boolean toggles. Each has an optional
  ``category`` (``mode``, ``model``, ``model_config``, ``thought_level``, or anything else);
  it is a UX hint, never needed for correctness.
- ``modes`` (``availableModes`` / ``currentModeId``, set with ``session/set_mode``): the older
  way to offer modes. An agent that also has a config option of category ``mode`` uses that
  one (the spec: config options supersede modes).
- ``models`` (``availableModels`` / ``currentModelId``, set with ``session/set_model``): what
  agents sent before models became config options. It is in no schema any more, but agents
  still send it; with no option of category ``model`` it is the model picker.

:func:`session_options` turns a session into :class:`SessionOption` items, ordered by
category (see :data:`CATEGORY_ORDER`), each with a stable :attr:`SessionOption.key`. Pure
Python: the chat bar, the palette, the keys and the local index all read the same list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CATEGORY_ORDER",
    "LEGACY_MODE",
    "LEGACY_MODEL",
    "Choice",
    "SessionOption",
    "by_category",
    "config_id",
    "cycled",
    "legacy_models",
    "option_of_category",
    "remembered_values",
    "select_choices",
    "session_options",
    "valid_value",
]

#: Keys of the legacy ``modes`` and ``models`` states (a config option's key is ``config:ID``).
LEGACY_MODE = "modes"
LEGACY_MODEL = "models"

#: Categories in the order they show (the bar keeps the first ones when room is short, so
#: those with a key of their own come first); any other category, or none, comes last.
#: ``speed`` is unstable (schema v1.29.0): a control like the others, after the thinking level.
CATEGORY_ORDER: tuple[str, ...] = ("mode", "model", "thought_level", "speed", "model_config")

Source = Literal["config", "modes", "models"]
Kind = Literal["select", "boolean"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of a select. ``group``: the name of the group it is listed under."""

    value: str
    name: str
    description: str = ""
    group: str | None = None


@dataclass(frozen=True, slots=True)
class SessionOption:
    """One setting of a session, whatever shape the agent sent it in. Every string is the
    agent's: show it as plain text."""

    key: str
    #: The id to send: the config id, or ``""`` for the legacy states.
    id: str
    source: Source
    name: str
    description: str
    category: str | None
    kind: Kind
    choices: tuple[Choice, ...]
    #: The current value as the agent reported it (``None``: not reported).
    current: str | bool | None

    @property
    def rank(self) -> int:
        try:
            return CATEGORY_ORDER.index(self.category or "")
        except ValueError:
            return len(CATEGORY_ORDER)

    def choice(self, value: Any) -> Choice | None:
        for choice in self.choices:
            if choice.value == value:
                return choice
        return None

    def value_name(self, value: Any = None) -> str:
        """The display name of ``value`` (default: the current one)."""
        value = self.current if value is None else value
        if self.kind == "boolean":
            return "on" if value else "off"
        found = self.choice(value)
        return found.name if found else ("" if value is None else str(value))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def config_id(option: Mapping[str, Any]) -> str | None:
    """A config option's id (``id`` in v1; v2 spells it ``configId``)."""
    for key in ("id", "configId"):
        value = option.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def select_choices(raw: Any) -> tuple[Choice, ...]:
    """The values of a select's ``options``: a flat list, or groups (``group`` in v1,
    ``groupId`` in v2) each with its ``options``. Anything malformed is skipped."""
    choices: list[Choice] = []
    seen: set[str] = set()

    def add(item: Any, group: str | None) -> None:
        if isinstance(item, dict) and isinstance(item.get("value"), str):
            value = item["value"]
            if value not in seen:
                seen.add(value)
                name = _text(item.get("name")) or value
                choices.append(Choice(value, name, _text(item.get("description")), group))

    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, dict) and isinstance(item.get("options"), list):
            group = _text(item.get("name")) or None
            for sub in item["options"]:
                add(sub, group)
        else:
            add(item, None)
    return tuple(choices)


def _config_option(raw: Mapping[str, Any], booleans: bool) -> SessionOption | None:
    option_id = config_id(raw)
    if option_id is None:
        return None
    category = raw.get("category")
    category = category if isinstance(category, str) and category else None
    name = _text(raw.get("name")) or option_id
    description = _text(raw.get("description"))
    current = raw.get("currentValue")
    kind = raw.get("type", "select")
    if kind == "boolean":
        if not booleans:
            return None
        return SessionOption(
            f"config:{option_id}",
            option_id,
            "config",
            name,
            description,
            category,
            "boolean",
            (),
            current if isinstance(current, bool) else None,
        )
    if kind != "select":
        return None  # a type this client does not know: never shown as something else
    choices = select_choices(raw.get("options"))
    if not choices:
        return None
    return SessionOption(
        f"config:{option_id}",
        option_id,
        "config",
        name,
        description,
        category,
        "select",
        choices,
        current if isinstance(current, str) else None,
    )


def legacy_models(raw: Any) -> tuple[tuple[Choice, ...], str | None]:
    """The legacy ``models`` state: (the models, the current model id)."""
    if not isinstance(raw, dict):
        return (), None
    choices: list[Choice] = []
    for item in raw.get("availableModels") or []:
        if isinstance(item, dict) and isinstance(item.get("modelId"), str):
            model_id = item["modelId"]
            name = _text(item.get("name")) or model_id
            choices.append(Choice(model_id, name, _text(item.get("description"))))
    current = raw.get("currentModelId")
    return tuple(choices), current if isinstance(current, str) else None


def session_options(state: Any, *, booleans: bool = True) -> list[SessionOption]:
    """Every option of a session (a :class:`~acp_tui.store.session.SessionState`), ordered by
    category; the agent's order within one. ``booleans``: show boolean options (the client
    advertises them)."""
    options: list[SessionOption] = []
    keys: set[str] = set()
    for raw in getattr(state, "config_options", None) or ():
        if isinstance(raw, dict):
            option = _config_option(raw, booleans)
            if option is not None and option.key not in keys:
                keys.add(option.key)
                options.append(option)
    categories = {option.category for option in options}
    modes = [
        m
        for m in getattr(state, "available_modes", None) or ()
        if isinstance(m, dict) and isinstance(m.get("id"), str)
    ]
    if modes and "mode" not in categories:
        options.append(
            SessionOption(
                LEGACY_MODE,
                "",
                "modes",
                "Mode",
                "How the agent works",
                "mode",
                "select",
                tuple(
                    Choice(m["id"], _text(m.get("name")) or m["id"], _text(m.get("description")))
                    for m in modes
                ),
                getattr(state, "current_mode_id", None),
            )
        )
    models, current_model = legacy_models(getattr(state, "models", None))
    if models and "model" not in categories:
        options.append(
            SessionOption(
                LEGACY_MODEL,
                "",
                "models",
                "Model",
                "Which model answers",
                "model",
                "select",
                models,
                current_model,
            )
        )
    # Stable: the agent's order within a category.
    return sorted(options, key=lambda option: option.rank)


def option_of_category(state: Any, category: str, *, booleans: bool = True) -> SessionOption | None:
    """``by_category(session_options(state), category)``, reading only what it needs: the
    keys ask it at every redraw of the footer, and an agent may offer a thousand options."""
    keys: set[str] = set()
    for raw in getattr(state, "config_options", None) or ():
        if not isinstance(raw, dict):
            continue
        option_id = config_id(raw)
        if option_id is None or option_id in keys:
            continue
        if raw.get("category") != category:
            if _shown(raw, booleans):  # a key is taken only by an option that is shown
                keys.add(option_id)
            continue
        option = _config_option(raw, booleans)
        if option is not None:
            return option
    if category in ("mode", "model"):
        # The legacy states count only with no config option of their category at all.
        return by_category(session_options(_Legacy(state)), category)
    return None


def _shown(raw: Mapping[str, Any], booleans: bool) -> bool:
    """Whether :func:`_config_option` makes an option of ``raw`` (its first value is enough)."""
    kind = raw.get("type", "select")
    if kind == "boolean":
        return booleans
    if kind != "select":
        return False
    items = raw.get("options")
    for item in items if isinstance(items, list) else ():
        group = item.get("options") if isinstance(item, dict) else None
        for choice in group if isinstance(group, list) else (item,):
            if isinstance(choice, dict) and isinstance(choice.get("value"), str):
                return True
    return False


class _Legacy:
    """A session's legacy ``modes`` and ``models`` states alone."""

    def __init__(self, state: Any) -> None:
        self.available_modes = getattr(state, "available_modes", None)
        self.current_mode_id = getattr(state, "current_mode_id", None)
        self.models = getattr(state, "models", None)


def by_category(options: Iterable[SessionOption], category: str) -> SessionOption | None:
    """The first select of a category (what its key cycles)."""
    for option in options:
        if option.category == category and option.kind == "select":
            return option
    return None


def cycled(option: SessionOption, step: int = 1) -> str | bool | None:
    """The value after the current one (wrapping round); a toggle flips."""
    if option.kind == "boolean":
        return not bool(option.current)
    if not option.choices:
        return None
    values = [choice.value for choice in option.choices]
    index = values.index(option.current) if option.current in values else -1
    return values[(index + step) % len(values)]


def valid_value(option: SessionOption, value: Any) -> bool:
    """Whether ``value`` can be sent for ``option``."""
    if option.kind == "boolean":
        return isinstance(value, bool)
    return option.choice(value) is not None


def remembered_values(options: Iterable[SessionOption]) -> dict[str, str | bool]:
    """The current values worth remembering for a reopen: option key -> value."""
    return {
        option.key: option.current
        for option in options
        if option.current is not None and valid_value(option, option.current)
    }
