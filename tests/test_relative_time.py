"""relative_time: fixed "now", fixed time zone (UTC), every band and its edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from acp_tui.text.relative_time import relative_time

# Wednesday 2025-06-18 15:30:00 UTC
NOW = datetime(2025, 6, 18, 15, 30, tzinfo=UTC).timestamp()
MIN = 60.0
HOUR = 3600.0
DAY = 86400.0


def rel(seconds_ago: float) -> str:
    return relative_time(NOW - seconds_ago, NOW, tz=UTC)


@pytest.mark.parametrize(
    ("ago", "expected"),
    [
        (0, "just now"),
        (59, "just now"),
        (-30, "just now"),  # a little clock skew
        (60, "1 min ago"),
        (3 * MIN + 10, "3 min ago"),
        (59 * MIN + 59, "59 min ago"),
        (HOUR, "1 h ago"),
        (2 * HOUR + 5 * MIN, "2 h ago"),
        (23 * HOUR + 59 * MIN, "23 h ago"),
        (DAY, "yesterday"),
        (2 * DAY, "2 days ago"),
        (5 * DAY, "5 days ago"),
        (6 * DAY, "6 days ago"),
    ],
)
def test_bands(ago: float, expected: str) -> None:
    assert rel(ago) == expected


def test_yesterday_is_a_calendar_day() -> None:
    # 16:00 the day before is 23.5 h ago: hours; 10:00 two days before is 53.5 h ago: 2 days.
    assert rel(23.5 * HOUR) == "23 h ago"
    assert rel(DAY + 20 * HOUR) == "2 days ago"  # 2025-06-16 19:30, two calendar days back
    assert rel(DAY + 10 * HOUR) == "yesterday"  # 2025-06-17 05:30


def test_dates_this_year_and_older() -> None:
    assert rel(7 * DAY) == "11 Jun"
    assert rel(200 * DAY) == "30 Nov 2024"
    assert relative_time(datetime(2025, 1, 2, tzinfo=UTC).timestamp(), NOW, tz=UTC) == "2 Jan"


def test_far_future_shows_the_date() -> None:
    assert relative_time(NOW + 3 * DAY, NOW, tz=UTC) == "21 Jun"


def test_missing_or_bad_values() -> None:
    assert relative_time(None, NOW) == ""
    assert relative_time(float("nan"), NOW) == ""
    assert relative_time(1e20, NOW, tz=UTC) == ""


def test_time_zone_decides_the_calendar_day() -> None:
    # The same instant, 30 h before NOW: one calendar day back in UTC, two in Tokyo.
    assert relative_time(NOW - 30 * HOUR, NOW, tz=UTC) == "yesterday"
    tokyo = timezone(timedelta(hours=9))
    # 2025-06-17 09:00 UTC = 18:00 on the 17th in Tokyo; NOW = 00:30 on the 19th there.
    assert relative_time(NOW - 30.5 * HOUR, NOW, tz=tokyo) == "2 days ago"
