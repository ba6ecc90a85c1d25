"""acp-tui's key sheet: every key of the app, grouped by where it applies, as the keymap in
force has them (a key the config file remapped shows as remapped).

:func:`key_sheet` reads the bindings (:func:`acp_tui.ui.keymap.key_actions`) and the keymap
(the ``[keys]`` table as applied: ``{action id: "key, key"}``); the help screen draws it
(:mod:`acp_tui.ui.screens.help`), and tests read it without an app.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from acp_tui.ui.keymap import KeyAction, key_actions, key_words

__all__ = ["PLACE_ORDER", "SheetRow", "SheetSection", "key_sheet", "keys_in_force"]

#: The sheet's sections, in the order a person meets the places (a place not named here
#: comes after them).
PLACE_ORDER = (
    "everywhere",
    "prompt",
    "chat screen",
    "transcript",
    "context gauge",
    "sessions sidebar",
    "sessions list",
    "sidebar filter",
    "permission dialog",
    "form dialog",
    "dialogs",
    "launcher",
    "protocol inspector",
)

#: Keys of the prompt that are not bindings (not configurable), shown with its own.
PROMPT_KEYS: tuple[tuple[str, str], ...] = (
    ("/", "acp-tui's commands and the agent's; Tab completes, Enter sends a whole name"),
    ("//", "acp-tui's command of a name an agent command also has (//help)"),
    ("@", "attach a file under the working directory"),
    ("↑ / ↓", "earlier prompts (on the first line), or move in an open list"),
    ("?", "this sheet (on an empty prompt)"),
)


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the sheet: the keys as the app spells them, what they do, and the default
    keys when the config file changed them ("" otherwise)."""

    keys: str
    description: str
    default: str = ""


@dataclass(frozen=True, slots=True)
class SheetSection:
    place: str
    rows: tuple[SheetRow, ...]


def keys_in_force(action: KeyAction, keymap: Mapping[str, str]) -> tuple[str, ...]:
    """The keys of ``action`` under ``keymap``, as Textual applies it: the configured ones,
    else the defaults less those configured for another action of the same place."""
    configured = keymap.get(action.id)
    if configured:
        return tuple(key.strip() for key in configured.split(",") if key.strip())
    taken: set[str] = set()
    for other in key_actions().values():
        if other.id != action.id and other.id in keymap and set(other.owners) & set(action.owners):
            taken.update(key.strip() for key in keymap[other.id].split(","))
    return tuple(key for key in action.keys if key not in taken)


def _spelled(keys: tuple[str, ...]) -> str:
    return ", ".join(key_words(key) for key in keys) if keys else "(no key)"


def key_sheet(keymap: Mapping[str, str]) -> list[SheetSection]:
    """Every action's keys in force, by place (see :data:`PLACE_ORDER`), in the order the
    app declares them; the prompt's own keys with the prompt's."""
    by_place: dict[str, list[SheetRow]] = {}
    for action in key_actions().values():
        keys = keys_in_force(action, keymap)
        default = _spelled(action.keys) if keys != action.keys else ""
        by_place.setdefault(action.place, []).append(
            SheetRow(_spelled(keys), action.description.replace("`", ""), default)
        )
    by_place.setdefault("prompt", []).extend(SheetRow(k, d) for k, d in PROMPT_KEYS)
    order = {place: index for index, place in enumerate(PLACE_ORDER)}
    places = sorted(by_place, key=lambda place: (order.get(place, len(order)), place))
    return [SheetSection(place, tuple(by_place[place])) for place in places]
