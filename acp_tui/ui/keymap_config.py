"""The ``[keys]`` table of the config file checked against the bindings
(:func:`resolve_keymap`): an unknown action, a key that is not a key, or a key that would take
the only key of a way out (:data:`WAYS_OUT`: cancel, reject, close) is reported and left out,
the rest applies; a key shared with another action of the same place is reported with which
one wins. The actions and keys themselves are :mod:`acp_tui.ui.keymap`'s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acp_tui.ui.keymap import INSIDE, KeyAction, key_actions, key_words, parse_keys
from acp_tui.ui.textual_patches import access

#: Ways out: an entry that would leave one of these without a key is refused (someone must
#: always be able to cancel a turn, say no to a permission, and close a dialog).
WAYS_OUT = frozenset({"cancel-turn", "permission-reject", "close-dialog"})


def resolve_keymap(table: Mapping[str, Any], source: str) -> tuple[dict[str, str], list[str]]:
    """The keymap for :meth:`App.set_keymap` from a ``[keys]`` table, and the problems
    (``source`` names the config file): an entry that cannot be used is left out (its
    action keeps its default keys), and never stops the rest."""
    actions = key_actions()
    problems: list[str] = []
    wanted: dict[str, list[str]] = {}
    for action_id, value in table.items():
        where = f"{source}: keys.{action_id}"
        if action_id not in actions:
            import difflib

            close = difflib.get_close_matches(action_id, list(actions), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; see the README's list"
            problems.append(f"{where}: unknown action{hint}")
            continue
        try:
            wanted[action_id] = parse_keys(value)
        except ValueError as error:
            default = ", ".join(key_words(key) for key in actions[action_id].keys)
            problems.append(f"{where}: {error}; keeping {default}")
    problems += _check_clashes(actions, wanted, source)
    return {action_id: ",".join(keys) for action_id, keys in wanted.items()}, problems


def _check_clashes(
    actions: Mapping[str, KeyAction], wanted: dict[str, list[str]], source: str
) -> list[str]:
    """Report keys two actions live at the same time would share (the app's keys are live
    everywhere, a screen's around its widgets'), and keys the prompt keeps for itself; first
    drop an entry that would leave a way out without a key. Mutates ``wanted``."""
    problems = _keep_ways_out(actions, wanted, source)
    reported: set[frozenset[str]] = set()
    for action_id, keys in wanted.items():
        action = actions[action_id]
        where = f"{source}: keys.{action_id}"
        for other in actions.values():
            pair = frozenset({action_id, other.id})
            relation = _relation(action, other)
            if other.id == action_id or pair in reported or relation is None:
                continue
            other_keys = wanted.get(other.id, list(other.keys))
            shared = [key for key in keys if key in other_keys]
            if not shared:
                continue
            key = shared[0]
            reported.add(pair)
            winner = _winner(action, other, wanted)
            loser = other.id if winner == action_id else action_id
            if relation == "same":
                place = next(o for o in action.owners if o in other.owners)
                left = _what_is_left(loser, key, actions, wanted, place)
                outcome = f"{winner} wins it, {loser} {left}"
            else:
                inner = other if relation == "outer" else action
                outcome = f"in the {inner.place}, {winner} wins it"
            problems.append(
                f"{where}: {key_words(key)} is also the key of {other.id} "
                f"({_place_words(other)}); {outcome}"
            )
        problems += _place_clashes(action, keys, where)
    return problems


def _keep_ways_out(
    actions: Mapping[str, KeyAction], wanted: dict[str, list[str]], source: str
) -> list[str]:
    """Drop the entries that would take the last key of a way out somewhere it applies."""
    problems: list[str] = []
    for action_id in list(wanted):
        action = actions[action_id]
        for other_id in sorted(WAYS_OUT - {action_id} - set(wanted)):
            other = actions.get(other_id)
            if other is None:
                continue
            for owner, keys in other.owner_keys.items():
                place = KeyAction(other.id, keys, other.place, "", (owner,), other.priority)
                if _relation(action, place) is not None and set(keys) <= set(wanted[action_id]):
                    problems.append(
                        f"{source}: keys.{action_id}: {key_words(keys[0])} is the only key of "
                        f"{other.id} ({_place_words(other)}), and must stay so; "
                        f"{action_id} keeps {', '.join(key_words(k) for k in action.keys)}"
                    )
                    del wanted[action_id]
                    break
            if action_id not in wanted:
                break
    return problems


def _place_clashes(action: KeyAction, keys: list[str], where: str) -> list[str]:
    """The prompt (a text area) keeps the keys that type, and its editing keys unless the
    screen's key is a priority one."""
    from textual.keys import key_to_character
    from textual.widgets import TextArea

    if "PermissionScreen" in action.owners:
        return [
            f"{where}: {key} is the key of the dialog's option {key}; {action.id} takes it"
            for key in keys
            if key in tuple("123456789")
        ]
    if "PromptEditor" in action.owners:
        return [
            f"{where}: {key_words(key)} types a character, which the prompt then cannot type"
            for key in keys
            if key_to_character(key) not in (None, "\x1b", "\r", "\n", "\t")
        ]
    if not {"AcpTuiApp", "ChatScreen"} & set(action.owners):
        return []

    editing = {key for key, _binding in access.class_bindings(TextArea)}
    problems: list[str] = []
    for key in keys:
        if key_to_character(key) is not None and key_to_character(key) != "\x1b":
            problems.append(
                f"{where}: {key_words(key)} types a character, so it does nothing while "
                "the prompt has the focus (use a key with ctrl or alt, or a function key)"
            )
        elif key in editing and not action.priority:
            problems.append(
                f"{where}: {key_words(key)} is also an editing key of the prompt, which "
                "takes it while it has the focus"
            )
    return problems


def _place_words(action: KeyAction) -> str:
    return "everywhere" if action.place == "everywhere" else f"in the {action.place}"


def _relation(first: KeyAction, second: KeyAction) -> str | None:
    """How two actions' places relate: "same", "outer" (``first`` is around ``second``),
    "inner", or None when they are never live together."""
    for a in first.owners:
        for b in second.owners:
            if a == b:
                return "same"
            if a == "AcpTuiApp" or b in INSIDE.get(a, ()):
                return "outer"
            if b == "AcpTuiApp" or a in INSIDE.get(b, ()):
                return "inner"
    return None


def _winner(action: KeyAction, other: KeyAction, wanted: Mapping[str, list[str]]) -> str:
    """Which action a shared key runs, as Textual decides: in one place, a configured key over
    a default one (both configured: the one declared first); between places one inside the
    other, the outer one's priority key first, else the inner one (the focused widget up)."""
    relation = _relation(action, other)
    if relation == "same":
        if (action.id in wanted) != (other.id in wanted):
            return action.id if action.id in wanted else other.id
        order = list(key_actions())
        return min(action.id, other.id, key=order.index)
    outer, inner = (action, other) if relation == "outer" else (other, action)
    return outer.id if outer.priority else inner.id


def _what_is_left(
    loser: str,
    key: str,
    actions: Mapping[str, KeyAction],
    wanted: Mapping[str, list[str]],
    place: str | None = None,
) -> str:
    """The keys ``loser`` keeps (in ``place``, a class name, when its keys differ by place)."""
    action = actions[loser]
    defaults = list(action.owner_keys.get(place, action.keys) if place else action.keys)
    keys = [k for k in wanted.get(loser, defaults) if k != key]
    if keys:
        return f"keeps {', '.join(key_words(k) for k in keys)}"
    return "has no key left"
