"""Numbers from the wire (issue 17): checked once, at the store, over their whole range.

A cost of 1e26 used to kill the TUI (``decimal.InvalidOperation`` in the formatter) and NaN or
Infinity made every refresh fail (``int(nan)``). Whatever an agent sends as a count or an amount
(negative, zero, huge, fractional, non-finite, a string, a bool, null, an object), the store
keeps either a believable number or None ("unknown"), and everything that shows those numbers
(gauge, details, sidebar percentage, turn usage) works on what it keeps.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import SessionStore
from acp_tui.store.session import MAX_COST, MAX_TOKENS, ContextUsage, TurnUsage
from acp_tui.text.usage import (
    bar_cells,
    context_level,
    format_cost,
    gauge_text,
    turn_usage_text,
    usage_details_text,
)

SID = "s1"

# Every kind of JSON number and then some: what json.loads can hand the store.
wire_number = st.one_of(
    st.integers(-(2**80), 2**80),
    st.integers(0, 300_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(0, 1e6),
    st.sampled_from(
        [
            *(0, -1, 1e26, 1e27, 1e308, -0.0, 2**64 - 1, 2**64, 1234.0, 0.5, float("nan")),
            *(float("inf"), float("-inf"), True, False, None, "12", "lots", [], {}),
        ]
    ),
    st.text(max_size=5),
)


def believable_count(value: Any) -> bool:
    return value is None or (type(value) is int and 0 <= value <= MAX_TOKENS)


def believable_amount(value: Any) -> bool:
    return value is None or (
        type(value) in (int, float) and math.isfinite(value) and 0 <= value <= MAX_COST
    )


def live_store() -> SessionStore:
    store = SessionStore()
    store.register_session(SID, cwd="/tmp", response={})
    return store


def shown(context: ContextUsage, turn: TurnUsage | None) -> list[str]:
    """Everything the UI derives from the stored numbers (gauge line, bar, details, the
    sidebar's percentage): none of it may raise."""
    used, size = context.used, context.size
    texts = [
        gauge_text(used, size),
        str(bar_cells(used, size, 8)),
        context_level(used, size).label,
        format_cost(context.cost_amount, context.cost_currency),
        usage_details_text(
            used, size, context.cost_amount, context.cost_currency, turn.to_dict() if turn else None
        ),
    ]
    fraction = context.fraction
    if fraction is not None:
        texts.append(f"{fraction * 100:.0f}%")
    if turn is not None:
        texts.append(turn_usage_text(turn.to_dict()))
    return texts


@settings(max_examples=400, deadline=None)
@given(used=wire_number, size=wire_number, amount=wire_number, currency=wire_number)
def test_any_usage_update_is_kept_as_believable_numbers_or_unknown(
    used: Any, size: Any, amount: Any, currency: Any
) -> None:
    store = live_store()
    store.apply(
        {
            "sessionId": SID,
            "update": {
                "sessionUpdate": "usage_update",
                "used": used,
                "size": size,
                "cost": {"amount": amount, "currency": currency},
            },
        }
    )
    context = store.get(SID).context  # type: ignore[union-attr]
    assert context is not None, "a usage update is never thrown away for a bad number"
    assert believable_count(context.used) and believable_count(context.size)
    assert believable_amount(context.cost_amount)
    assert context.cost_currency is None or isinstance(context.cost_currency, str)
    for text in shown(context, None):
        assert isinstance(text, str) and len(text) < 1000
        # The currency is the agent's own word ("INF" is a fine one); the numbers are ours.
        numbers = text.replace(context.cost_currency, "") if context.cost_currency else text
        assert "nan" not in numbers.lower() and "inf" not in numbers.lower()


@settings(max_examples=300, deadline=None)
@given(
    counts=st.dictionaries(
        st.sampled_from(
            [
                "totalTokens",
                "inputTokens",
                "outputTokens",
                "thoughtTokens",
                "cachedReadTokens",
                "cached_write_tokens",
            ]
        ),
        wire_number,
    )
)
def test_any_turn_usage_is_kept_as_believable_counts_or_unknown(counts: dict[str, Any]) -> None:
    store = live_store()
    turn = store.prompt_sent(SID, "hi")
    store.prompt_finished(SID, {"stopReason": "end_turn", "usage": counts}, turn=turn)
    usage = store.get(SID).last_turn_usage  # type: ignore[union-attr]
    assert usage is not None
    assert all(believable_count(value) for value in usage.to_dict().values())
    shown(ContextUsage(None, None), usage)


@pytest.mark.parametrize(
    ("raw", "used", "size", "amount"),
    [
        ('{"used": 5, "size": 10, "cost": {"amount": 1e26, "currency": "USD"}}', 5, 10, None),
        (
            '{"used": NaN, "size": Infinity, "cost": {"amount": NaN, "currency": "USD"}}',
            None,
            None,
            None,
        ),
        (
            '{"used": -1, "size": -Infinity, "cost": {"amount": -3, "currency": "USD"}}',
            None,
            None,
            None,
        ),
        ('{"used": 0, "size": 0, "cost": {"amount": 0, "currency": "USD"}}', 0, 0, 0),
        ('{"used": "12", "size": true, "cost": {"amount": "1", "currency": 5}}', None, None, None),
        (
            '{"used": 1234.0, "size": 200000, "cost": {"amount": 0.045, "currency": "USD"}}',
            1234,
            200000,
            0.045,
        ),
        ('{"used": 1.5, "size": 1e300, "cost": "free"}', None, None, None),
        ('{"used": 18446744073709551616, "size": 18446744073709551615}', None, 2**64 - 1, None),
    ],
)
def test_the_cases_that_broke_the_tui(raw: str, used: Any, size: Any, amount: Any) -> None:
    store = live_store()
    update = {"sessionUpdate": "usage_update", **json.loads(raw)}
    store.apply({"sessionId": SID, "update": update})
    context = store.get(SID).context  # type: ignore[union-attr]
    assert context is not None
    assert (context.used, context.size, context.cost_amount) == (used, size, amount)
    shown(context, None)


def test_an_update_without_a_cost_keeps_the_cost_known_and_a_null_clears_it() -> None:
    """The cost is the session's so far and optional in each usage_update: claude-agent-acp
    leaves it out of the updates during a turn, and the gauge lost its "$" every turn."""
    store = live_store()

    def usage(**fields: Any) -> None:
        store.apply({"sessionId": SID, "update": {"sessionUpdate": "usage_update", **fields}})

    usage(used=1200, size=1_000_000, cost={"amount": 0.02, "currency": "USD"})
    usage(used=1300, size=1_000_000)
    context = store.get(SID).context  # type: ignore[union-attr]
    assert context is not None and context.used == 1300
    assert (context.cost_amount, context.cost_currency) == (0.02, "USD")
    usage(used=1400, size=1_000_000, cost=None)
    context = store.get(SID).context  # type: ignore[union-attr]
    assert context is not None and context.cost_amount is None and context.cost_currency is None
