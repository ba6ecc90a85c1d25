"""JSON too deep to print again (issue 17 #7): the reader parses what it can, but a value near
the recursion limit may not survive json.dumps in the transcript or an export. Shown as such,
never raised."""

from __future__ import annotations

import sys
from typing import Any

from acp_tui.session.export.markdown import transcript_markdown
from acp_tui.store import SessionStore
from acp_tui.ui.widgets.entry_view import pretty_json


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"k": [value]}
    return value


def test_pretty_json_of_a_too_deep_value_says_so() -> None:
    assert pretty_json(nested(sys.getrecursionlimit() + 50)) == "(too deeply nested to show)"
    assert "bottom" in pretty_json(nested(5))


def test_an_export_with_a_too_deep_unknown_update_is_written() -> None:
    store = SessionStore()
    state = store.register_session("s", cwd="/p")
    store.apply(
        {
            "sessionId": "s",
            "update": {"sessionUpdate": "vendor_deep", "payload": nested(sys.getrecursionlimit())},
        }
    )
    text = transcript_markdown(state)
    assert "too deeply nested" in text
