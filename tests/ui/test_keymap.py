"""The ``[keys]`` table (issue 21): every binding has an id, the config's entries are checked
(unknown action, bad key, clashes, ways out) without stopping the rest, and the README's list
of actions is the code's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.cli.parse import parse
from acp_tui.cli.tui import ui_settings
from acp_tui.config.load import load_config
from acp_tui.ui.keymap import (
    PLACES,
    _binding_owners,
    actions_markdown,
    declared_bindings,
    key_actions,
    key_words,
    parse_key,
    parse_keys,
)
from acp_tui.ui.keymap_config import WAYS_OUT, resolve_keymap

README = Path(__file__).resolve().parents[2] / "README.md"
SOURCE = "/home/me/.config/acp-tui/config.toml"


# --- the actions --------------------------------------------------------------------------


def test_every_binding_of_the_ui_has_an_id_a_place_and_a_bare_toml_name() -> None:
    """The class of problem: a binding added without an id cannot be configured."""
    owners = list(_binding_owners())
    assert len(owners) >= 10
    for cls in owners:
        assert cls.__name__ in PLACES, f"{cls.__qualname__}: add its place to keymap.PLACES"
        for binding in declared_bindings(cls):
            assert binding.id, f"{cls.__qualname__}: binding {binding.key!r} has no id"
            # A bare TOML key: written without quotes in [keys].
            assert re.fullmatch(r"[a-z0-9_-]+", binding.id), binding.id


def test_an_id_is_one_action() -> None:
    """Two bindings share an id only when they do the same thing (closing a dialog)."""
    actions_by_id: dict[str, set[str]] = {}
    for cls in _binding_owners():
        for binding in declared_bindings(cls):
            assert binding.id is not None
            actions_by_id.setdefault(binding.id, set()).add(binding.action.split("(")[0])
    shared = {key: value for key, value in actions_by_id.items() if len(value) > 1}
    assert shared == {}


def test_the_ways_out_are_actions() -> None:
    assert WAYS_OUT <= set(key_actions())


def test_the_readme_lists_every_action_as_the_code_has_it() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- keys:begin[^>]*-->\n(.*?)<!-- keys:end -->", text, re.S)
    assert match, "the README's list of actions is missing"
    assert match.group(1) == actions_markdown(), "regenerate it: python -m acp_tui.ui.keymap"
    for action_id in key_actions():
        assert f"| `{action_id}` |" in match.group(1)


# --- keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "key", "words"),
    [
        ("ctrl+k", "ctrl+k", "Ctrl+K"),
        ("Ctrl+K", "ctrl+k", "Ctrl+K"),
        (" shift+ctrl+up ", "ctrl+shift+up", "Ctrl+Shift+↑"),
        ("f2", "f2", "F2"),
        ("esc", "escape", "Esc"),
        ("escape", "escape", "Esc"),
        ("pgdn", "pagedown", "PgDn"),
        ("/", "slash", "/"),
        ("?", "question_mark", "?"),
        ("k", "k", "k"),
        ("ctrl++", "ctrl+plus", "Ctrl++"),
        ("alt+enter", "alt+enter", "Alt+Enter"),
    ],
)
def test_a_key_is_normalized_as_textual_names_it(written: str, key: str, words: str) -> None:
    assert parse_key(written) == key
    assert key_words(parse_key(written)) == words


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("", "empty"),
        ("ctrl+", "no key after the last '+'"),
        ("ctrl+shft+k", "'shft' is not a modifier"),
        ("ctrl+kk", "'kk' is not a key name"),
        ("ctrl+escap", "did you mean 'escape'"),
        ("ctrl+ctrl+k", "twice"),
    ],
)
def test_a_key_that_is_not_a_key_says_why(written: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        parse_key(written)


def test_several_keys_comma_separated_or_as_a_list() -> None:
    assert parse_keys("f2, ctrl+b") == ["f2", "ctrl+b"]
    assert parse_keys(["f2", "ctrl+b", "F2"]) == ["f2", "ctrl+b"]
    assert parse_keys("ctrl+,, f3") == ["ctrl+comma", "f3"]
    with pytest.raises(ValueError):
        parse_keys([])


# --- the [keys] table ---------------------------------------------------------------------


def test_good_entries_apply_and_each_bad_one_is_named_with_the_file() -> None:
    keymap, problems = resolve_keymap(
        {
            "new-session": "ctrl+k",
            "sessions-sidebar": ["f2", "ctrl+b"],
            "new-sesion": "ctrl+j",
            "latest-thought": "ctrl+shft+t",
        },
        SOURCE,
    )
    assert keymap == {"new-session": "ctrl+k", "sessions-sidebar": "f2,ctrl+b"}
    assert len(problems) == 2
    unknown, bad = problems
    assert unknown.startswith(f"{SOURCE}: keys.new-sesion: unknown action")
    assert "did you mean new-session" in unknown
    assert bad.startswith(f"{SOURCE}: keys.latest-thought: 'shft' is not a modifier")
    assert bad.endswith("keeping Ctrl+T")


def test_a_key_shared_in_one_place_says_which_action_wins() -> None:
    keymap, problems = resolve_keymap({"latest-output": "ctrl+t"}, SOURCE)
    assert keymap == {"latest-output": "ctrl+t"}
    assert problems == [
        f"{SOURCE}: keys.latest-output: Ctrl+T is also the key of latest-thought "
        "(in the chat screen); latest-output wins it, latest-thought has no key left"
    ]


def test_what_a_dialog_keeps_is_counted_in_that_dialog() -> None:
    _keymap, problems = resolve_keymap({"inspector-save": "q"}, SOURCE)
    assert problems == [
        f"{SOURCE}: keys.inspector-save: q is also the key of close-dialog (in the dialogs); "
        "inspector-save wins it, close-dialog keeps Esc"
    ]


def test_a_key_shared_with_the_app_follows_textuals_order() -> None:
    # The app's priority keys come first, everywhere.
    _keymap, problems = resolve_keymap({"latest-thought": "ctrl+q"}, SOURCE)
    assert any("also the key of quit" in p and "quit wins it" in p for p in problems)
    # A widget's key inside the screen wins over the screen's own (not a priority one).
    _keymap, problems = resolve_keymap({"latest-output": "a"}, SOURCE)
    assert any("sidebar-scope" in p and "sidebar-scope wins it" in p for p in problems)


@pytest.mark.parametrize(
    ("entry", "way_out"),
    [
        ({"quit": "escape"}, "cancel-turn"),
        ({"new-session": "escape"}, "cancel-turn"),
        ({"permission-choose": "escape"}, "permission-reject"),
        ({"inspector-save": "escape, q"}, "close-dialog"),
    ],
)
def test_a_way_out_always_keeps_a_key(entry: dict[str, str], way_out: str) -> None:
    keymap, problems = resolve_keymap(entry, SOURCE)
    assert keymap == {}
    (action_id,) = entry
    assert len(problems) == 1
    assert problems[0].startswith(f"{SOURCE}: keys.{action_id}: Esc is the only key of {way_out}")


def test_a_way_out_can_be_moved_and_its_old_key_reused() -> None:
    keymap, problems = resolve_keymap({"cancel-turn": "ctrl+g", "new-session": "escape"}, SOURCE)
    assert keymap == {"cancel-turn": "ctrl+g", "new-session": "escape"}
    assert not any("only key" in p for p in problems)


def test_a_key_that_types_edits_or_answers_is_reported() -> None:
    _keymap, problems = resolve_keymap({"new-session": "k", "latest-output": "ctrl+k"}, SOURCE)
    assert any("keys.new-session: k types a character" in p for p in problems)
    assert any(
        "keys.latest-output: Ctrl+K is also an editing key of the prompt" in p for p in problems
    )
    _keymap, problems = resolve_keymap({"prompt-send": "s, ctrl+s"}, SOURCE)
    assert problems == [
        f"{SOURCE}: keys.prompt-send: s types a character, which the prompt then cannot type"
    ]
    _keymap, problems = resolve_keymap({"permission-reject": "escape, 9"}, SOURCE)
    assert problems == [
        f"{SOURCE}: keys.permission-reject: 9 is the key of the dialog's option 9; "
        "permission-reject takes it"
    ]
    # A priority key is taken before the prompt sees it: nothing to report.
    assert resolve_keymap({"new-session": "ctrl+k"}, SOURCE) == ({"new-session": "ctrl+k"}, [])


# --- from the config file to the app's settings ---------------------------------------------


def test_the_config_files_keys_reach_the_settings_and_its_problems_name_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'theme = "acp-dusk"\n'
        "[keys]\n"
        'new-session = "ctrl+k"\n'
        "sessions-sidebar = 2\n"
        'cancel-turn = ["ctrl+g", 3]\n'
        'nonsense = "ctrl+x"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("ACP_TUI_CONFIG", str(path))
    config, problems = load_config(path)
    # A bad value loses its own entry only.
    assert config.keys == {"new-session": "ctrl+k", "nonsense": "ctrl+x"}
    assert config.theme == "acp-dusk"
    assert [p.split(": ")[1] for p in problems] == ["keys.sessions-sidebar", "keys.cancel-turn"]
    assert all(p.startswith(f"{path}: ") and 'such as "ctrl+k"' in p for p in problems)
    ui = ui_settings(parse(["--demo"]).options, config, problems)
    assert ui.keymap == {"new-session": "ctrl+k"}
    assert problems[-1].startswith(f"{path}: keys.nonsense: unknown action")
