"""Filling a form fast: "Ada", Tab, "bob" typed in one burst (as a fast typist, or a
terminal that delivers keys together, does) puts "bob" in the next field. Tab was acted on
only once it had bubbled up unused from the field, and the app had already handed the keys
after it to the field it left: the name read "Adabob"."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from acp_tui.ui.screens.elicitation import ElicitationScreen
from tests.ui.chat_helpers import demo_app, send, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def burst(app: object, keys: list[str]) -> None:
    """Keys queued at the app at once, as a terminal read delivers them."""
    names = {"\t": "tab"}
    for key in keys:
        if key == "shift+tab":
            app.post_message(events.Key("shift+tab", None))  # type: ignore[attr-defined]
        else:
            app.post_message(events.Key(names.get(key, key), key))  # type: ignore[attr-defined]


async def test_keys_typed_right_after_tab_go_to_the_next_field(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_session(pilot)
        await send(pilot, "/ask ")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ElicitationScreen)
                and app.screen.armed
                and isinstance(app.screen.focused, Input)
            ),
            "the form, armed",
        )
        form = app.screen
        name, email = list(form.query(Input).results(Input))[:2]
        burst(app, [*"Ada", "\t", *"bob"])
        await wait_for(pilot, lambda: email.value == "bob", "the email field's keys")
        assert name.value == "Ada"
        # Back: the field takes the focus with its text selected, and what is typed replaces it.
        burst(app, ["shift+tab", *"Ann"])
        await wait_for(pilot, lambda: name.value == "Ann", "the name field's keys")
        assert email.value == "bob"
