"""Configurable keys: the ``[keys]`` table of the config file (``action = "key"``).

Every key binding a person uses has a stable id (``Binding(..., id="new-session")``); those
ids are the action names of the config file, and Textual's keymap (:meth:`App.set_keymap`)
puts the configured keys on the bindings, so the footer and the key panel show them. What
the app spells out in its own words ("Esc to cancel", "press Ctrl+R") reads the effective key
through :func:`key_label`.

:func:`resolve_keymap` checks a ``[keys]`` table against the bindings: an unknown action, a
key that is not a key, or a key that would take the only key of a way out (cancel, reject,
close) is reported and left out, the rest applies; a key shared with another action of the
same place is reported with which one wins.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.keys import Keys

from acp_tui.ui.textual_patches import access

#: Where a class's keys apply, in the words of the README and the problems reported.
PLACES: dict[str, str] = {
    "AcpTuiApp": "everywhere",
    "ChatScreen": "chat screen",
    "PromptEditor": "prompt",
    "QueuedItem": "queued message (its row, reached with Tab from the prompt)",
    "SessionsSidebar": "sessions sidebar",
    "SessionList": "sessions list",
    "_FilterInput": "sidebar filter",
    "ContextGauge": "context gauge",
    "FoldedText": "transcript",
    "UserMessageView": "your message in the transcript",
    "ChangeReview": "change review",
    "HunkPane": "change review",
    "RewindPicker": "dialogs",
    "ReviewDialog": "dialogs",
    "PermissionScreen": "permission dialog",
    "ElicitationScreen": "form dialog",
    "LauncherScreen": "launcher",
    "InspectorScreen": "protocol inspector",
    "TextLogScreen": "dialogs",
    "ContextDetailsScreen": "dialogs",
    "SpendScreen": "dialogs",
    "AuthScreen": "dialogs",
    "ConfirmScreen": "dialogs",
    "OptionsScreen": "dialogs",
    "RenameScreen": "dialogs",
    "RulesScreen": "permission rules",
    "RuleEditorScreen": "rule editor",
    "ChatMain": "subagent's view",
    "SubagentCardView": "subagent card",
    "BackgroundScreen": "background work",
    "HistorySearchScreen": "history search",
    "SearchScreen": "dialogs",
    "HelpScreen": "dialogs",
    "RedactionReview": "export review",
}

#: What an action does, for the README's list (a binding's own description is a footer word).
DESCRIPTIONS: dict[str, str] = {
    "quit": "quit",
    "command-palette": "open the command palette",
    "keys-help": "this key sheet and the / commands (also `?` on an empty prompt, `/help`); "
    "in it, close it",
    "close-dialog": "close a dialog: sign-in, confirm, session options, rule editor, history "
    "search (`escape`), "
    "agent log, inspector and permission rules "
    "(`escape`, `q`), context details (`escape`, `enter`, `q`)",
    "cancel-turn": "cancel the running turn; while editing a queued message, keep it as it was",
    "new-session": "new session",
    "sessions-sidebar": "go to the sessions sidebar (showing it if hidden); in it, hide it",
    "latest-thought": "open or close the latest thought",
    "latest-output": "open or close the latest tool call's whole output",
    "restart-agent": "restart the agent after it exited (or stopped responding)",
    "shell-stop": "stop the shell-mode command running in the session on screen (Escape "
    "too); otherwise the key copies",
    "history-search": "search the prompts you have sent, this project's first (while the agent "
    "runs: once it has exited, the same key restarts it)",
    "history-choose": "put the highlighted prompt in the prompt (it sends nothing)",
    "history-newer": "the newer match",
    "history-older": "the older match (Ctrl+R again, as in a shell)",
    "copy-selection": "copy the text selected with the mouse (from a reply: as the agent sent it)",
    "copy-reply": "copy the agent's last reply (as sent: its Markdown)",
    "copy-code": "copy the code of the last code block (a click on a code block copies that one)",
    "jump-waiting": "go to the session that has waited longest for you (a permission or a "
    "question of a session not on screen); its dialog then shows",
    "cycle-mode": "the agent's next mode (from the prompt; elsewhere Shift+Tab moves the focus "
    "back)",
    "cycle-thought-level": "the agent's next thinking level",
    "focus-previous": "the previous control (where Shift+Tab does not cycle the mode)",
    "page-up": "scroll the transcript a page up (from the prompt too)",
    "page-down": "scroll the transcript a page down (from the prompt too)",
    "transcript-top": "top of the transcript",
    "transcript-bottom": "bottom of the transcript, following new output again",
    "inspector-save": "save the traffic as a recording",
    "inspector-expand": "open or close the highlighted message whole (indented JSON, to read "
    "and copy)",
    "inspector-filter": "to the filter: a method or any words; `in` or `out` keeps one direction",
    "launcher-start": "start the highlighted agent",
    "launcher-back": 'back to the agent\'s view (a launcher opened by "Start agent…")',
    "search-sessions": "search every session of every agent (`@agent`, `in:project`, "
    "`before:`/`after:`); Enter opens the session found, scrolled to it",
    "search-forget": "take the highlighted result's session out of the search index",
    "next-agent": "the next running agent's view (with several agents; none is stopped or "
    "cancelled)",
    "permission-reject": "reject (at any time: a key that types only once the dialog is armed)",
    "permission-up": "highlight the option above",
    "permission-down": "highlight the option below",
    "permission-first": "highlight the first option",
    "permission-last": "highlight the last option",
    "permission-scroll-up": "scroll the details up",
    "permission-scroll-down": "scroll the details down",
    "permission-choose": "answer with the highlighted option (once armed)",
    "permission-raw": "show or hide the raw input (once armed)",
    "permission-always-allow": "a rule that allows requests like this one: opens the rule "
    "editor, pre-filled (once armed)",
    "permission-always-deny": "a rule that denies requests like this one: opens the rule "
    "editor, pre-filled (once armed)",
    "rules-add": "a new rule",
    "rules-edit": "edit the highlighted rule (Enter too)",
    "rules-delete": "delete the highlighted rule (asks first)",
    "rules-move-up": "move the highlighted rule up (within its file)",
    "rules-move-down": "move the highlighted rule down (within its file)",
    "rules-accept": "put the project's rules file in use as it is now (asks first)",
    "rule-save": "save the rule (once armed)",
    "form-next-field": "the next field of the agent's form",
    "rule-next-field": "the rule editor's next field (from a field)",
    "form-previous-field": "the previous field of the agent's form",
    "gauge-details": "context details (on the focused gauge)",
    "sidebar-up": "previous session",
    "sidebar-down": "next session",
    "sidebar-page-up": "a page of sessions up",
    "sidebar-page-down": "a page of sessions down",
    "sidebar-first": "first session",
    "sidebar-last": "last session",
    "sidebar-open": "open the highlighted session",
    "sidebar-leave": "back to the prompt",
    "sidebar-scope": "this folder's sessions / all folders",
    "sidebar-new-session": "new session",
    "sidebar-filter": "to the filter",
    "sidebar-retry": "load the list again after an error",
    "sidebar-branch": "branch (fork) the highlighted session",
    "sidebar-rename": "rename the highlighted session",
    "sidebar-archive": "archive the highlighted session (in the archived view: unarchive it)",
    "sidebar-archived": "show the archived sessions / the others",
    "filter-up": "previous match",
    "filter-down": "next match",
    "filter-clear": "clear the filter (when empty: back to the list)",
    "prompt-send": "send the prompt (or queue it while the agent works)",
    "prompt-newline": "a new line in the prompt",
    "send-now": "send now: into the running turn where the agent takes it (`session/inject`), "
    "else the turn is cancelled and the message goes at once (Ctrl+Enter only where the "
    "terminal tells it from Enter); while editing a queued message, that one",
    "queue-previous": "on an empty prompt with messages queued: edit the last of them (else "
    "the history, as ever); while editing one, the one before it",
    "queue-next": "while editing a queued message: the one after it (past the last, an empty "
    "prompt again)",
    "queue-row-up": "the queued message above",
    "queue-row-down": "the queued message below",
    "queue-row-edit": "edit the queued message (in the prompt; Enter there saves it)",
    "queue-row-remove": "remove the queued message",
    "queue-row-first": "move the queued message first: it goes out next",
    "queue-row-send-now": "send the queued message now (as `send-now`)",
    "external-editor": "write the prompt in your editor ($VISUAL, else $EDITOR, else vi); "
    "what it saves replaces the prompt",
    "show-folded": 'show the earlier entries (on a focused "⋯ earlier entries" row)',
    "rewind-escape": "twice, on an empty prompt while no turn runs: rewind (the files, the "
    "conversation or both, to before a turn)",
    "previous-message": "the focus on your previous message in the transcript (Enter there "
    "rewinds to before it)",
    "next-message": "the focus on your next message in the transcript; past the last, the prompt",
    "rewind-message": "rewind to before this message (the files, the conversation, or edit it)",
    "review-keep": "keep or leave out the file (in the list) or the hunk (in the diff)",
    "review-all": "keep every file",
    "review-none": "leave out every file",
    "review-hunks": "to the highlighted file's hunks",
    "review-previous-hunk": "the previous hunk",
    "review-next-hunk": "the next hunk",
    "review-files": "back to the list of files",
    "sidebar-unfold": "list the highlighted session's subagents under it",
    "sidebar-fold": "fold them (on a subagent's row: up to its parent)",
    "back-to-parent": "back to the session that started the subagent",
    "subagent-cancel": "cancel the subagent (session/cancel on it), when its agent allows it",
    "subagent-open": "open the subagent's own transcript (a click does too)",
    "background-cancel": "cancel the highlighted work with its own cancel",
    "background-jump": "go to the highlighted work (a subagent's view, or its session)",
}

#: Places inside others (a widget in a screen): their keys are live at the same time, the
#: inner one's first unless the outer one's is a priority key. The app is around everything.
INSIDE: dict[str, frozenset[str]] = {
    "ChatScreen": frozenset(
        {
            "SessionsSidebar",
            "SessionList",
            "_FilterInput",
            "ContextGauge",
            "FoldedText",
            "PromptEditor",
            "UserMessageView",
            "ChatMain",
            "SubagentCardView",
        }
    ),
    "ChatMain": frozenset({"PromptEditor", "FoldedText", "SubagentCardView"}),
    "SessionsSidebar": frozenset({"SessionList", "_FilterInput"}),
}


MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")
#: Friendly spellings accepted in the config file.
KEY_ALIASES = {
    "esc": "escape",
    "return": "enter",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "del": "delete",
    "ins": "insert",
    "bs": "backspace",
}


@cache
def _named_keys() -> frozenset[str]:
    """Every key name Textual gives a key press (computed once, when a config names keys)."""
    return frozenset(
        {key.value for key in Keys if "+" not in key.value}
        | {access.character_to_key(char) for char in string.printable if not char.isspace()}
        | {"space", "enter", "tab", "escape", "backspace"}
    )


#: How keys are spelled in the app's own sentences.
_WORDS = {
    "escape": "Esc",
    "enter": "Enter",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "space": "Space",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Del",
    "insert": "Ins",
    "home": "Home",
    "end": "End",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
}


@dataclass(frozen=True, slots=True)
class KeyAction:
    """One configurable action: its id, default keys, where it applies and what it does."""

    id: str
    keys: tuple[str, ...]
    place: str
    description: str
    owners: tuple[str, ...]
    priority: bool
    #: The default keys in each place (a dialog's Escape may be its only key).
    owner_keys: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)


# ---------------------------------------------------------------------------- the actions


def _binding_owners() -> Iterable[type[DOMNode]]:
    """Every class of the app's UI that declares key bindings (imports all of the UI: only
    used when a ``[keys]`` table is given, and by the docs and tests)."""
    import importlib
    import pkgutil

    import acp_tui.ui

    for module in pkgutil.walk_packages(acp_tui.ui.__path__, "acp_tui.ui."):
        importlib.import_module(module.name)
    seen: set[type[DOMNode]] = set()
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                pending.append(sub)
    for cls in sorted(seen, key=lambda c: (c.__module__, c.__qualname__)):
        if cls.__module__.startswith("acp_tui.ui.") and cls.__dict__.get("BINDINGS"):
            yield cls


def declared_bindings(cls: type[DOMNode]) -> list[Binding]:
    """The bindings a class declares itself (not inherited), one per key list."""
    return [
        binding if isinstance(binding, Binding) else Binding(*binding)
        for binding in cls.__dict__.get("BINDINGS", [])
    ]


@cache
def key_actions() -> dict[str, KeyAction]:
    """Every configurable action by id, in the order the UI declares them."""
    actions: dict[str, KeyAction] = {}
    for cls in _binding_owners():
        for binding in declared_bindings(cls):
            if binding.id is None:
                continue
            keys = own_keys = tuple(key.strip() for key in binding.key.split(","))
            known = actions.get(binding.id)
            owners: tuple[str, ...] = (cls.__name__,)
            if known is not None:
                # One id on several bindings (every dialog's Escape): one action.
                keys = known.keys + tuple(k for k in keys if k not in known.keys)
                owners = known.owners + tuple(o for o in owners if o not in known.owners)
            actions[binding.id] = KeyAction(
                id=binding.id,
                keys=keys,
                place=known.place if known else PLACES.get(cls.__name__, cls.__name__),
                description=DESCRIPTIONS.get(binding.id)
                or (known.description if known else "")
                or binding.tooltip
                or binding.description,
                owners=owners,
                priority=binding.priority,
                owner_keys={
                    **(known.owner_keys if known else {}),
                    cls.__name__: tuple(
                        dict.fromkeys(
                            (known.owner_keys.get(cls.__name__, ()) if known else ()) + own_keys
                        )
                    ),
                },
            )
    return actions


def actions_markdown() -> str:
    """The README's table of actions, generated from the bindings."""
    lines = ["| Action | Default keys | Where | What it does |", "|---|---|---|---|"]
    for action in key_actions().values():
        keys = ", ".join(f"`{key}`" for key in action.keys)
        lines.append(f"| `{action.id}` | {keys} | {action.place} | {action.description} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- keys


def parse_key(text: str) -> str:
    """One key in Textual's syntax (``ctrl+k``, ``f2``, ``escape``, ``/``), normalized
    (modifiers in Textual's order, a character by its name); raises ValueError saying why."""
    text = text.strip()
    if not text:
        raise ValueError("an empty key")
    if text == "+":
        return "plus"
    head, plus, last = text.rpartition("+")
    if plus and not last:
        if not head.endswith("+"):
            raise ValueError("no key after the last '+'")
        # "ctrl++": the key is "+" itself.
        head, last = head[:-1], "+"
    modifiers = [part.strip().lower() for part in head.split("+")] if head else []
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            raise ValueError(f"{modifier!r} is not a modifier (use {', '.join(MODIFIERS)})")
    if len(set(modifiers)) != len(modifiers):
        raise ValueError("a modifier is given twice")
    last = last.strip()
    if len(last) == 1:
        name = access.character_to_key(last.lower() if modifiers and last.isalpha() else last)
    else:
        name = KEY_ALIASES.get(last.lower(), last.lower())
        if name not in _named_keys():
            import difflib

            close = difflib.get_close_matches(name, sorted(_named_keys()), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{last!r} is not a key name{hint}")
    return "+".join([*sorted(modifiers), name])


def parse_keys(value: str | list[str]) -> list[str]:
    """A comma-separated list of keys (or a list of them), each normalized."""
    parts = value if isinstance(value, list) else _split_keys(value)
    keys: list[str] = []
    for part in parts:
        if not isinstance(part, str):
            raise ValueError(f"{part!r} is not a key (keys are strings)")
        key = parse_key(part)
        if key not in keys:
            keys.append(key)
    if not keys:
        raise ValueError("no key given")
    return keys


def _split_keys(value: str) -> list[str]:
    # "ctrl+," names the comma key: a comma right after a "+" is the key, not a separator.
    parts: list[str] = []
    current = ""
    for char in value:
        if char == "," and current.strip() and not current.endswith("+"):
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def key_words(key: str) -> str:
    """A key as the app's sentences spell it: ``Ctrl+N``, ``Esc``, ``PgUp``, ``r``."""
    *modifiers, name = key.split("+") if key != "plus" else ["plus"]
    word = _WORDS.get(name)
    if word is None:
        from textual.keys import format_key

        word = format_key(name)
        if len(name) > 1 and len(word) > 1:
            word = word[:1].upper() + word[1:]  # F2, Insert
        elif modifiers and word.isalpha():
            word = word.upper()  # Ctrl+N, as keyboards print it
    return "+".join([*(modifier.capitalize() for modifier in modifiers), word])


# ---------------------------------------------------------------------------- effective keys


def effective_keys(node: DOMNode, action_id: str, owner: type[DOMNode] | None = None) -> list[str]:
    """The keys that run ``action_id`` now, as Textual applies the keymap: the configured
    ones, else the defaults less any a configured key took, of the binding with that id in
    ``owner`` (a class), or else on ``node``, around it, or on the app."""
    try:
        app = node.app
    except Exception:  # no app (a node built outside one): the defaults
        app = None
    keymap: Mapping[str, str] = access.keymap(app)
    if owner is not None:
        candidates = [BindingsMap(declared_bindings(owner))]
    else:
        nodes: list[DOMNode] = [node]
        if node.is_attached:
            nodes += list(node.ancestors)
        if app is not None and app not in nodes:
            nodes.append(app)
        candidates = [access.bindings(candidate) for candidate in nodes]
    for bindings in candidates:
        if not any(binding.id == action_id for _key, binding in bindings):
            continue
        if keymap:
            bindings = bindings.copy()
            bindings.apply_keymap(keymap)
        # (A binding of several keys is one per key: a keymap entry lands once per key.)
        return list(dict.fromkeys(key for key, binding in bindings if binding.id == action_id))
    configured = keymap.get(action_id)
    return [key.strip() for key in configured.split(",") if key.strip()] if configured else []


def key_label(
    node: DOMNode,
    action_id: str,
    fallback: str = "(no key)",
    *,
    owner: type[DOMNode] | None = None,
) -> str:
    """The first key of ``action_id`` as the app's sentences spell it (``Ctrl+N``)."""
    keys = effective_keys(node, action_id, owner)
    return key_words(keys[0]) if keys else fallback


if __name__ == "__main__":
    print(actions_markdown(), end="")  # noqa: T201 - our own table, generated for the README
