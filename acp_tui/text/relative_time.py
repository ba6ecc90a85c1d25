"""Human times: how long ago for the sessions sidebar ("just now", "3 min ago", "yesterday"...),
how long for a running turn ("12 s", "1 min 05 s").

Pure Python, no Textual or locale dependence (month names are fixed English abbreviations, so
the output does not change with the user's ``LC_TIME``).
"""

from __future__ import annotations

from datetime import datetime, tzinfo

__all__ = ["elapsed_text", "relative_time"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

#: A timestamp this far in the future (clock skew between agent and client) still reads
#: "just now"; further ahead, the date is shown.
FUTURE_SKEW = 120.0


def _local(ts: float, tz: tzinfo | None) -> datetime | None:
    try:
        return datetime.fromtimestamp(ts, tz) if tz is not None else datetime.fromtimestamp(ts)
    except (OverflowError, OSError, ValueError):
        return None


def _date(then: datetime, now: datetime) -> str:
    label = f"{then.day} {_MONTHS[then.month - 1]}"
    return label if then.year == now.year else f"{label} {then.year}"


def relative_time(ts: float | None, now: float, *, tz: tzinfo | None = None) -> str:
    """``ts`` (POSIX seconds) relative to ``now``, short enough for a sidebar row.

    - under a minute (or up to :data:`FUTURE_SKEW` ahead): ``"just now"``
    - under an hour: ``"1 min ago"`` ... ``"59 min ago"``
    - under a day: ``"1 h ago"`` ... ``"23 h ago"``
    - the previous calendar day: ``"yesterday"``; within a week: ``"2 days ago"`` ...
    - older (or far in the future): the date, ``"12 Mar"``, with the year when not this year.

    Calendar days are taken in ``tz`` (the local time zone by default). ``None`` or an
    unrepresentable time gives ``""``.
    """
    if ts is None or ts != ts:  # None or NaN
        return ""
    delta = now - ts
    if -FUTURE_SKEW <= delta < 60:
        return "just now"
    if 0 < delta < 3600:
        return f"{int(delta // 60)} min ago"
    if 0 < delta < 86400:
        return f"{int(delta // 3600)} h ago"
    then = _local(ts, tz)
    today = _local(now, tz)
    if then is None or today is None:
        return ""
    if delta > 0:
        days = (today.date() - then.date()).days
        if days <= 1:
            return "yesterday"
        if days < 7:
            return f"{days} days ago"
    return _date(then, today)


def elapsed_text(seconds: float) -> str:
    """``12 s``, ``1 min 05 s``, ``1 h 02 min``: how long a turn has been running."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
