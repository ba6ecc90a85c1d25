"""Context levels, token / cost / percentage formatting and threshold crossings."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from acp_tui.text.usage import (
    NO_USAGE_TEXT,
    ContextLevel,
    LevelTracker,
    bar_cells,
    context_level,
    context_percent,
    format_cost,
    format_percent,
    format_tokens,
    gauge_text,
    group_digits,
    turn_usage_items,
    turn_usage_text,
    usage_details_text,
)

# -- levels ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("used", "size", "expected"),
    [
        (0, 200_000, ContextLevel.NORMAL),
        (7_499, 10_000, ContextLevel.NORMAL),  # 74.99%
        (7_500, 10_000, ContextLevel.FILLING),  # 75%
        (8_999, 10_000, ContextLevel.FILLING),  # 89.99%
        (9_000, 10_000, ContextLevel.HIGH),  # 90%
        (9_499, 10_000, ContextLevel.HIGH),  # 94.99%
        (9_500, 10_000, ContextLevel.CRITICAL),  # 95%
        (10_000, 10_000, ContextLevel.CRITICAL),  # 100%
        (10_001, 10_000, ContextLevel.CRITICAL),  # >100%
        (210_000, 200_000, ContextLevel.CRITICAL),
        # Thresholds are exact, not float-rounded: one token below 75% of 200K is normal.
        (149_999, 200_000, ContextLevel.NORMAL),
        (150_000, 200_000, ContextLevel.FILLING),
        (7_499.99, 10_000, ContextLevel.NORMAL),
        (7_500.0, 10_000.0, ContextLevel.FILLING),
    ],
)
def test_context_level_at_exact_boundaries(
    used: float, size: float, expected: ContextLevel
) -> None:
    assert context_level(used, size) is expected


@pytest.mark.parametrize(
    ("used", "size"),
    [
        (None, 200_000),
        (31_400, None),
        (None, None),
        (100, 0),  # a zero window makes no percentage: unknown, not a false alarm
        (0, 0),
        (100, -5),
        (-1, 200_000),
        (math.nan, 200_000),
        (100, math.inf),
        (True, 10),
    ],
)
def test_context_level_unknown_for_meaningless_reports(used: object, size: object) -> None:
    assert context_level(used, size) is ContextLevel.UNKNOWN  # type: ignore[arg-type]
    assert context_percent(used, size) is None  # type: ignore[arg-type]


def test_levels_have_words_advice_and_css_classes() -> None:
    assert [level.label for level in ContextLevel] == [
        "unknown",
        "ok",
        "filling",
        "high",
        "critical",
    ]
    assert ContextLevel.NORMAL.advice == ""
    assert "filling up" in ContextLevel.FILLING.advice.lower()
    assert "new session" in ContextLevel.HIGH.advice and "summarise" in ContextLevel.HIGH.advice
    assert "next prompt may fail" in ContextLevel.CRITICAL.advice.lower()
    assert ContextLevel.HIGH.css_class == "-high"
    ranks = [level.rank for level in ContextLevel]
    assert ranks == sorted(ranks)


# -- tokens ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0"),
        (7, "7"),
        (999, "999"),
        (1_000, "1.0K"),
        (1_049, "1.0K"),
        (1_050, "1.1K"),  # half-up, not banker's rounding
        (31_400, "31.4K"),
        (99_949, "99.9K"),
        (99_950, "100K"),  # one decimal only below 100 of a unit
        (200_000, "200K"),
        (999_499, "999K"),
        (999_500, "1.0M"),  # would read "1000K": moves to the next unit
        (999_950, "1.0M"),
        (1_000_000, "1.0M"),
        (1_200_000, "1.2M"),
        (150_000_000, "150M"),
        (2_500_000_000, "2.5B"),
        (-31_400, "-31.4K"),
        (999.6, "1.0K"),
        (None, "?"),
        (math.nan, "?"),
    ],
)
def test_format_tokens(n: float | None, text: str) -> None:
    assert format_tokens(n) == text


def test_group_digits() -> None:
    assert group_digits(31_400) == "31,400"
    assert group_digits(1_200_000) == "1,200,000"
    assert group_digits(None) == "?"


# -- percentages and the gauge line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("used", "size", "text"),
    [
        (31_400, 200_000, "16%"),  # 15.7% rounds to nearest
        (7_460, 10_000, "74%"),  # 74.6%: never rounded up onto a threshold not reached
        (7_500, 10_000, "75%"),
        (8_960, 10_000, "89%"),
        (9_460, 10_000, "94%"),
        (9_970, 10_000, "99%"),  # not "100%" until it is full
        (10_000, 10_000, "100%"),
        (210_000, 200_000, "105%"),  # over 100% is not clamped
        (10, 200_000, "<1%"),  # never a fake 0% for a non-zero usage
        (0, 200_000, "0%"),
        (None, 200_000, "-"),
        (5, 0, "-"),
    ],
)
def test_format_percent(used: int | None, size: int, text: str) -> None:
    assert format_percent(used, size) == text


def test_format_percent_one_decimal() -> None:
    assert format_percent(31_400, 200_000, decimals=1) == "15.7%"
    assert format_percent(7_499.9, 10_000, decimals=1) == "74.9%"
    assert format_percent(1, 200_000, decimals=1) == "<0.1%"


@pytest.mark.parametrize(
    ("used", "size", "text"),
    [
        (31_400, 200_000, "31.4K / 200K · 16%"),
        (184_000, 200_000, "184K / 200K · 92%"),
        (210_000, 200_000, "210K / 200K · 105%"),
        (31_400, 1_000_000, "31.4K / 1.0M · 3%"),
        (None, 200_000, NO_USAGE_TEXT),
        (31_400, None, NO_USAGE_TEXT),
        (31_400, 0, "31.4K / 0"),
    ],
)
def test_gauge_text(used: int | None, size: int | None, text: str) -> None:
    assert gauge_text(used, size) == text


def test_no_usage_text() -> None:
    assert NO_USAGE_TEXT == "context: -"


@pytest.mark.parametrize(
    ("used", "size", "cells"),
    [
        (0, 100, 0),
        (1, 1_000_000, 1),  # any usage shows
        (16, 100, 1),
        (50, 100, 4),
        (97, 100, 7),  # full only when full
        (100, 100, 8),
        (150, 100, 8),
        (None, 100, None),
        (5, 0, None),
    ],
)
def test_bar_cells(used: int | None, size: int, cells: int | None) -> None:
    assert bar_cells(used, size, 8) == cells


# -- cost --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        # Two significant digits under a cent, cents from a cent up.
        (0.00035, "USD", "$0.00035"),
        (0.0042, "USD", "$0.0042"),
        (0.004, "USD", "$0.0040"),  # money keeps its two digits
        (0.00123, "USD", "$0.0012"),
        (0.00001, "USD", "$0.000010"),  # no floor: tiny amounts are still told
        (0.000000123, "USD", "$0.00000012"),
        (0.00996, "USD", "$0.01"),  # rounds up to a cent: then cents
        (0.01, "USD", "$0.01"),
        (0.12, "USD", "$0.12"),
        (0.123456, "USD", "$0.12"),
        (0.045, "USD", "$0.05"),  # half-up on the decimal value
        (0.045000001, "USD", "$0.05"),  # float noise never shows
        (0.1 + 0.2, "USD", "$0.30"),
        (0.5, "USD", "$0.50"),
        (3.4, "USD", "$3.40"),
        (0.9996, "USD", "$1.00"),
        (0, "USD", "$0.00"),
        (0.0, "EUR", "€0.00"),
        (12.344, "USD", "$12.34"),
        (12.345, "USD", "$12.35"),  # half-up on the decimal value, not the binary one
        (1_234.5, "USD", "$1,234.50"),
        (1.2, "EUR", "€1.20"),
        (3, "GBP", "£3.00"),
        (1.2, "JPY", "1.20 JPY"),
        (0.0042, "CHF", "0.0042 CHF"),
        (0.045, "CHF", "0.05 CHF"),
        (12, "credits", "12 credits"),  # non-ISO units verbatim, no padded decimals
        (12.5, "credits", "12.5 credits"),
        (0.5, "points", "0.5 points"),
        (0.004, "credits", "0.004 credits"),
        (0, "credits", "0 credits"),
        (1.2, "usd", "$1.20"),  # a known code in lower case still gets its symbol
        (1.2, "jpy", "1.2 jpy"),  # another code in lower case is a unit, shown verbatim
        (5, "", "5"),
        (5, None, "5"),
        (-1.2, "USD", "-$1.20"),
        (-0.00001, "USD", "-$0.000010"),
        (-0.045, "USD", "-$0.05"),
        (-3, "credits", "-3 credits"),
        (math.nan, "USD", "$?"),
        (math.inf, "EUR", "€?"),
        (None, "credits", "? credits"),
        (1, "cr\x1b[31medits", "1 credits"),  # an escape sequence removed whole
        (1, "x" * 40, "1 " + "x" * 15 + "…"),
    ],
)
def test_format_cost(amount: float | None, currency: str | None, text: str) -> None:
    assert format_cost(amount, currency) == text


# -- per-turn usage and details ----------------------------------------------------------------

_TURN = {
    "totalTokens": 53_000,
    "inputTokens": 35_000,
    "outputTokens": 12_000,
    "thoughtTokens": 5_000,
    "cachedReadTokens": 5_000,
    "cachedWriteTokens": 1_000,
}


def test_turn_usage_full() -> None:
    assert turn_usage_items(_TURN) == [
        ("input", 35_000),
        ("output", 12_000),
        ("thought", 5_000),
        ("cache read", 5_000),
        ("cache write", 1_000),
        ("total", 53_000),
    ]
    assert turn_usage_text(_TURN) == (
        "input 35,000 · output 12,000 · thought 5,000 · cache read 5,000 · cache write 1,000"
        " · total 53,000"
    )


def test_turn_usage_missing_optional_keys_are_omitted() -> None:
    usage = {"totalTokens": 47_000, "inputTokens": 35_000, "outputTokens": 12_000}
    assert turn_usage_text(usage) == "input 35,000 · output 12,000 · total 47,000"


def test_turn_usage_tolerates_snake_case_and_junk() -> None:
    usage = {"total_tokens": 10, "input_tokens": 7, "outputTokens": "3", "thoughtTokens": None}
    assert turn_usage_items(usage) == [("input", 7), ("total", 10)]
    assert turn_usage_text(None) == ""
    assert turn_usage_text({}) == ""


def test_details_text_with_everything() -> None:
    text = usage_details_text(31_400, 200_000, 0.045, "USD", _TURN)
    assert text.splitlines() == [
        "Context: 31,400 of 200,000 tokens (15.7%)",
        "Remaining: 168,600 tokens",
        "Level: ok",
        "Cost: $0.05",
        "Last turn: input 35,000 · output 12,000 · thought 5,000 · cache read 5,000"
        " · cache write 1,000 · total 53,000",
    ]


def test_details_text_over_the_window_and_advice() -> None:
    text = usage_details_text(210_000, 200_000)
    assert "Context: 210,000 of 200,000 tokens (105.0%)" in text
    assert "Remaining: none (10,000 tokens over the window)" in text
    assert "Level: critical" in text
    assert ContextLevel.CRITICAL.advice in text
    assert "Cost: not reported" in text
    assert "Last turn" not in text


def test_details_text_never_reported() -> None:
    text = usage_details_text(None, None)
    assert text.splitlines() == ["Context: not reported by the agent", "Cost: not reported"]


# -- crossings ---------------------------------------------------------------------------------


def _feed_all(tracker: LevelTracker, percents: list[float | None]) -> list[ContextLevel | None]:
    return [tracker.feed(None if p is None else p * 100, 10_000) for p in percents]


def test_tracker_notifies_once_per_crossing() -> None:
    tracker = LevelTracker()
    F, H, C = ContextLevel.FILLING, ContextLevel.HIGH, ContextLevel.CRITICAL
    got = _feed_all(tracker, [10, 50, 75, 80, 85, 89.99, 90, 91, 94, 95, 99, 120])
    assert got == [None, None, F, None, None, None, H, None, None, C, None, None]
    assert tracker.level is C


def test_tracker_notifies_again_after_a_drop() -> None:
    tracker = LevelTracker()
    F, H = ContextLevel.FILLING, ContextLevel.HIGH
    got = _feed_all(tracker, [80, 92, 85, 92, 93, 30, 80, 79, 81])
    assert got == [F, H, None, H, None, None, F, None, None]


def test_tracker_jump_notifies_only_the_highest_level() -> None:
    tracker = LevelTracker()
    assert _feed_all(tracker, [10, 97]) == [None, ContextLevel.CRITICAL]


def test_tracker_first_report_already_high_is_notified() -> None:
    # e.g. a resumed session whose first usage_update is at 92%
    assert LevelTracker().feed(184_000, 200_000) is ContextLevel.HIGH


def test_tracker_ignores_unknown_reports_and_normal() -> None:
    tracker = LevelTracker()
    assert _feed_all(tracker, [None, 10, None, 80, None, 80]) == [
        None,
        None,
        None,
        ContextLevel.FILLING,
        None,
        None,
    ]
    assert tracker.feed(5, 0) is None
    assert tracker.level is ContextLevel.FILLING


def test_tracker_follows_a_size_change() -> None:
    tracker = LevelTracker()
    assert tracker.feed(190_000, 200_000) is ContextLevel.CRITICAL
    assert tracker.feed(190_000, 1_000_000) is None  # window grew: back to normal
    assert tracker.level is ContextLevel.NORMAL
    assert tracker.feed(960_000, 1_000_000) is ContextLevel.CRITICAL


def test_tracker_reset() -> None:
    tracker = LevelTracker()
    assert tracker.feed(80, 100) is ContextLevel.FILLING
    tracker.reset()
    assert tracker.level is ContextLevel.UNKNOWN
    assert tracker.feed(80, 100) is ContextLevel.FILLING


# -- purity ------------------------------------------------------------------------------------


def test_usage_format_imports_no_textual_or_rich() -> None:
    probe = (
        "import json, sys; import acp_tui.text.usage; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []
