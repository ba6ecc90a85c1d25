"""acp-tui's key sheet: every key of the app, by place, as the keymap in force has them
(issue 38, item 6)."""

from __future__ import annotations

from acp_tui.ui.key_sheet import PLACE_ORDER, key_sheet, keys_in_force
from acp_tui.ui.keymap import key_actions
from acp_tui.ui.screens.help import sheet_text


def test_every_action_is_on_the_sheet_under_its_place() -> None:
    sections = {section.place: section for section in key_sheet({})}
    for action in key_actions().values():
        rows = sections[action.place].rows
        assert any(row.description == action.description.replace("`", "") for row in rows), (
            action.id
        )
    # The places a person meets first come first; the app's own keys lead.
    places = list(sections)
    assert places[0] == "everywhere" and places[1] == "prompt"
    assert [p for p in places if p in PLACE_ORDER] == [p for p in PLACE_ORDER if p in places]


def test_a_remapped_key_shows_as_remapped_and_its_old_key_is_gone() -> None:
    keymap = {"new-session": "ctrl+k", "sessions-sidebar": "f2,ctrl+n"}
    sheet = sheet_text(key_sheet(keymap), width=200)
    line = next(line for line in sheet.splitlines() if "new session" in line and "Ctrl" in line)
    assert "Ctrl+K" in line and "remapped; default Ctrl+N" in line
    sidebar = next(line for line in sheet.splitlines() if "go to the sessions sidebar" in line)
    assert "F2, Ctrl+N" in sidebar
    # The default keys of an action not remapped, less one another action of its place took.
    actions = key_actions()
    assert keys_in_force(actions["latest-thought"], keymap) == ("ctrl+t",)
    assert keys_in_force(actions["new-session"], {"latest-thought": "ctrl+n"}) == ()


def test_the_sheet_is_not_textuals_editing_keys() -> None:
    text = sheet_text(key_sheet({}), width=160)
    assert text.index("Everywhere") < text.index("Prompt") < text.index("Chat screen")
    assert "F1" in text and "delete right" not in text.lower()
