"""The reader's JSON parsing (``parse_line``, the wire's hot path) gives what ``json.loads``
gives, value or error, for any line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.protocol.jsonrpc import parse_line

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", json.dumps(parse(text))
    except (ValueError, RecursionError) as error:
        return "error", type(error).__name__


@settings(max_examples=400, deadline=None)
@given(json_values, st.sampled_from(["", " ", "x", "}", "\ufeff", " 1", "\t"]), st.booleans())
def test_parse_line_is_json_loads(value: Any, junk: str, junk_first: bool) -> None:
    text = json.dumps(value, allow_nan=True)
    if junk:
        text = junk + text if junk_first else text + junk
    assert outcome(parse_line, text) == outcome(json.loads, text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_parse_line_is_json_loads_on_any_text(text: str) -> None:
    assert outcome(parse_line, text) == outcome(json.loads, text)


@pytest.mark.parametrize("text", ["", "[" * 100_000, '{"a": 1} {"b": 2}', "NaN", '"\\ud800"'])
def test_parse_line_is_json_loads_on_edges(text: str) -> None:
    assert outcome(parse_line, text) == outcome(json.loads, text)
