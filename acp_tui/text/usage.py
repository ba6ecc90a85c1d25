"""Formatting of context usage, token counts and cost (pure Python, no Textual or Rich).

The numbers come from two places in ACP (see the usage RFD):

- ``usage_update {used, size, cost?}``: session state. ``used`` / ``size`` is how full the
  context window is, ``cost`` is cumulative ``{amount, currency}``.
- ``PromptResponse.usage {totalTokens, inputTokens, outputTokens, thoughtTokens?,
  cachedReadTokens?, cachedWriteTokens?}``: what one turn consumed.

Decisions made here (tests pin them):

- Levels follow the RFD table: below 75% normal, 75-90% filling, 90-95% high, 95% and above
  critical. Boundaries are exact (computed with integers / fractions, no float rounding).
- A window ``size`` of zero or less, a negative ``used`` or a non-finite number is a report we
  cannot turn into a percentage: the level is UNKNOWN (never a fake 0% or a false alarm).
- Percentages are rounded half-up for display (15.7% shows "16%") but never *up* to a threshold
  or to 100 that the exact value has not reached (74.99% shows "74%" and is normal), so the
  number and the colour always agree. A tiny non-zero usage shows "<1%" rather than a fake
  "0%". Over 100% is shown as is ("105%"), never clamped.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from acp_tui.text.safety import one_line

__all__ = [
    "NO_USAGE_TEXT",
    "ContextLevel",
    "LevelTracker",
    "bar_cells",
    "context_level",
    "context_percent",
    "format_cost",
    "format_percent",
    "format_tokens",
    "gauge_text",
    "group_digits",
    "turn_usage_items",
    "turn_usage_text",
    "usage_details_text",
]

NO_USAGE_TEXT = "context: -"
"""What the gauge reads when the agent never reported usage."""

Number = int | float


@dataclass(frozen=True, slots=True)
class _LevelInfo:
    rank: int
    label: str
    advice: str


class ContextLevel(enum.Enum):
    """How full the context window is, per the RFD's recommended client behaviour."""

    UNKNOWN = _LevelInfo(-1, "unknown", "The agent has not reported context usage.")
    NORMAL = _LevelInfo(0, "ok", "")
    FILLING = _LevelInfo(1, "filling", "Context filling up.")
    HIGH = _LevelInfo(2, "high", "Context nearly full: start a new session or summarise.")
    CRITICAL = _LevelInfo(3, "critical", "Next prompt may fail: start a new session now.")

    @property
    def rank(self) -> int:
        """Order of severity: UNKNOWN < NORMAL < FILLING < HIGH < CRITICAL."""
        return self.value.rank

    @property
    def label(self) -> str:
        """One short word for the level ("ok", "filling", "high", "critical", "unknown")."""
        return self.value.label

    @property
    def advice(self) -> str:
        """The RFD's advice for the level; empty for NORMAL."""
        return self.value.advice

    @property
    def css_class(self) -> str:
        """The CSS class a widget carries for this level: ``-normal``, ``-filling``, ..."""
        return f"-{self.name.lower()}"


# Thresholds in percent, from the highest down.
_THRESHOLDS: tuple[tuple[int, ContextLevel], ...] = (
    (95, ContextLevel.CRITICAL),
    (90, ContextLevel.HIGH),
    (75, ContextLevel.FILLING),
)


def _exact(value: object) -> Fraction | None:
    """``value`` as an exact fraction, or None when it is not a finite real number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return Fraction(value)


def _ratio(used: object, size: object) -> Fraction | None:
    """``used / size * 100`` exactly, or None when the pair makes no sense."""
    u = _exact(used)
    s = _exact(size)
    if u is None or s is None or s <= 0 or u < 0:
        return None
    return u * 100 / s


def context_percent(used: Number | None, size: Number | None) -> float | None:
    """``used / size * 100``, or None when unknown or meaningless (size <= 0, used < 0)."""
    ratio = _ratio(used, size)
    return None if ratio is None else float(ratio)


def context_level(used: Number | None, size: Number | None) -> ContextLevel:
    """The level for ``used`` tokens of a ``size``-token window.

    UNKNOWN when either is None, not finite, ``size <= 0`` or ``used < 0``.
    """
    ratio = _ratio(used, size)
    if ratio is None:
        return ContextLevel.UNKNOWN
    for threshold, level in _THRESHOLDS:
        if ratio >= threshold:
            return level
    return ContextLevel.NORMAL


_DISPLAY_LIMITS: tuple[int, ...] = (75, 90, 95, 100)
"""Values a displayed percentage may not be rounded up to: the thresholds and "full"."""


def format_percent(used: Number | None, size: Number | None, decimals: int = 0) -> str:
    """The percentage to ``decimals`` places, with a ``%`` sign.

    Rounded half-up (31,400 of 200,000 is ``16%``), except that it is never rounded *up* to a
    threshold (75, 90, 95) or to 100 that the exact value has not reached: 74.6% shows ``74%``
    and stays normal, 99.7% shows ``99%``, so the number and the level always agree.
    ``"-"`` when unknown; ``"<1%"`` (or ``"<0.1%"``) for a non-zero usage that would show as 0.
    Over 100% is shown as is (``105%``).
    """
    ratio = _ratio(used, size)
    if ratio is None:
        return "-"
    scale = 10**decimals
    shown = _half_up(ratio * scale)
    if any(ratio < limit <= Fraction(shown, scale) for limit in _DISPLAY_LIMITS):
        shown = math.floor(ratio * scale)
    if shown == 0 and ratio > 0:
        return "<1%" if decimals == 0 else f"<0.{'0' * (decimals - 1)}1%"
    if decimals == 0:
        return f"{shown}%"
    return f"{shown // scale}.{shown % scale:0{decimals}d}%"


# ---------------------------------------------------------------------------------------------
# Token counts


_UNITS: tuple[tuple[int, str], ...] = (
    (1_000, "K"),
    (1_000_000, "M"),
    (1_000_000_000, "B"),
    (1_000_000_000_000, "T"),
)


def _half_up(value: Fraction) -> int:
    """Round a non-negative fraction to the nearest integer, halves up (no banker's rounding)."""
    return math.floor(value + Fraction(1, 2))


def format_tokens(n: Number | None) -> str:
    """A compact token count.

    Below 1,000 the integer itself (``999``). Above, the largest unit (K, M, B, T) that keeps
    the number below 1,000 after rounding; one decimal while the rounded value is below 100 of
    the unit (``1.0K``, ``31.4K``, ``99.9K``), none from 100 up (``100K``, ``200K``, ``999K``).
    Rounding is half-up, and a value that rounds up to 1,000 of a unit moves to the next unit:
    ``99_950`` is ``100K``, ``999_950`` is ``1.0M``. ``None`` or non-finite gives ``"?"``.
    """
    value = _exact(n)
    if value is None:
        return "?"
    if value < 0:
        return "-" + format_tokens(-n)  # type: ignore[operator]
    whole = _half_up(value)
    if whole < 1_000:
        return str(whole)
    for index, (unit, suffix) in enumerate(_UNITS):
        tenths = _half_up(value * 10 / unit)
        if tenths < 1_000:
            return f"{tenths // 10}.{tenths % 10}{suffix}"
        units = _half_up(value / unit)
        if units < 1_000 or index == len(_UNITS) - 1:
            return f"{units}{suffix}"
    raise AssertionError("unreachable")  # pragma: no cover


def group_digits(n: Number | None) -> str:
    """An exact count with thousands separators: ``31,400``. ``"?"`` when not a number."""
    value = _exact(n)
    if value is None:
        return "?"
    if value.denominator == 1:
        return f"{value.numerator:,}"
    return f"{float(value):,.1f}"


# ---------------------------------------------------------------------------------------------
# Cost

_CURRENCY_SYMBOLS: dict[str, str] = {"USD": "$", "EUR": "€", "GBP": "£"}
_MAX_UNIT_CHARS = 16


def _clean_unit(unit: str) -> str:
    """The unit as given, as a label (:func:`acp_tui.text.safety.one_line`: escape sequences
    and invisible characters removed), cut with an ellipsis when very long."""
    return one_line(unit, _MAX_UNIT_CHARS)


def _is_iso_code(unit: str) -> bool:
    return len(unit) == 3 and unit.isascii() and unit.isalpha() and unit.isupper()


def _strip_zeros(text: str, keep: int) -> str:
    """Strip trailing zeros after the decimal point, keeping at least ``keep`` decimals."""
    if "." not in text:
        return text
    whole, frac = text.split(".")
    frac = frac.rstrip("0")
    frac = frac.ljust(keep, "0")
    return f"{whole}.{frac}" if frac else whole


_CENT = Decimal("0.01")


def _amount_text(amount: Decimal, money: bool) -> str:
    """A non-negative amount: two significant digits under a cent (``0.00035``, ``0.0042``),
    cents from a cent up (``0.12``, ``3.40``). Money keeps its zeros (``0.0040``, ``0.00``);
    another unit drops trailing ones (``0.004``, ``12.5``, ``0``)."""
    if amount == 0:
        return "0.00" if money else "0"
    if amount < _CENT:
        quantum = Decimal(1).scaleb(amount.adjusted() - 1)
        rounded = amount.quantize(quantum, rounding=ROUND_HALF_UP)
        if rounded < _CENT:
            text = f"{rounded:f}"
            return text if money else _strip_zeros(text, 0)
        amount = rounded  # 0.00996 is a cent
    text = f"{amount.quantize(_CENT, rounding=ROUND_HALF_UP):,.2f}"
    return text if money else _strip_zeros(text, 0)


def format_cost(amount: Number | None, currency: str | None) -> str:
    """A cumulative cost with its unit as given.

    - USD, EUR, GBP (in any case) get their symbol: ``$0.05``, ``€1.20``, ``£3.00``.
    - Another ISO 4217-looking code (three upper-case letters) follows the number:
      ``1.20 JPY``. Money always shows at least two decimals.
      Lower-case ``jpy`` is not assumed to be money: it is a unit shown verbatim.
    - Anything else is a unit shown verbatim, without padding decimals: ``12 credits``,
      ``0.5 credits``.
    - One rule for the number: two significant digits under a cent (``$0.00035``,
      ``$0.0042``), cents from a cent up (``$0.12``, ``$3.40``, ``$1,234.50``), rounded half-up
      on the decimal value, so float noise such as ``0.045000001`` never shows. Zero is
      ``$0.00``. Another unit drops trailing zeros (``0.004 credits``).
    - Negative amounts keep their sign in front (``-$1.20``); None, NaN or infinity give ``?``
      in place of the number (``$?``).
    """
    unit = _clean_unit(currency or "")
    symbol = _CURRENCY_SYMBOLS.get(unit.upper())
    is_money = symbol is not None or _is_iso_code(unit)

    value = _exact(amount)
    if value is None:
        sign, number = "", "?"
    else:
        dec = Decimal(repr(float(amount))) if isinstance(amount, float) else Decimal(amount)  # type: ignore[arg-type]
        sign = "-" if dec < 0 else ""
        # Enough digits for the whole amount to cents: the default 28 made 1e26 raise
        # InvalidOperation in quantize.
        with localcontext() as context:
            context.prec = max(context.prec, dec.adjusted() + 8)
            number = _amount_text(abs(dec), is_money)

    if symbol is not None:
        return f"{sign}{symbol}{number}"
    if unit:
        return f"{sign}{number} {unit}"
    return f"{sign}{number}"


# ---------------------------------------------------------------------------------------------
# Gauge text


def gauge_text(used: Number | None, size: Number | None) -> str:
    """The one-line reading: ``31.4K / 200K · 16%``.

    ``context: -`` when either number is missing; ``210K / 200K · 105%`` over the window;
    ``31.4K / 0`` (no percentage) for a window size that makes no percentage.
    """
    if used is None or size is None:
        return NO_USAGE_TEXT
    head = f"{format_tokens(used)} / {format_tokens(size)}"
    if _ratio(used, size) is None:
        return head
    return f"{head} · {format_percent(used, size)}"


def bar_cells(used: Number | None, size: Number | None, width: int) -> int | None:
    """How many of ``width`` bar cells to fill; None when the percentage is unknown.

    Rounded half-up, but any non-zero usage fills at least one cell and the bar is full only
    at 100% or more (over 100% the bar is simply full).
    """
    ratio = _ratio(used, size)
    if ratio is None or width <= 0:
        return None
    if ratio >= 100:
        return width
    cells = _half_up(ratio * width / 100)
    if ratio > 0:
        cells = max(cells, 1)
    return min(cells, width - 1)


# ---------------------------------------------------------------------------------------------
# Per-turn token breakdown

_TURN_FIELDS: tuple[tuple[str, str, str], ...] = (
    # (camelCase key, snake_case key as in the RFD's example, label)
    ("inputTokens", "input_tokens", "input"),
    ("outputTokens", "output_tokens", "output"),
    ("thoughtTokens", "thought_tokens", "thought"),
    ("cachedReadTokens", "cached_read_tokens", "cache read"),
    ("cachedWriteTokens", "cached_write_tokens", "cache write"),
    ("totalTokens", "total_tokens", "total"),
)


def _count(value: object) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def turn_usage_items(usage: Mapping[str, object] | None) -> list[tuple[str, int | float]]:
    """``(label, count)`` pairs for a ``PromptResponse.usage`` dict, in a fixed order.

    Keys are camelCase as in the schema (snake_case as in the RFD's example is accepted too).
    Missing keys and values that are not numbers are left out.
    """
    if not usage:
        return []
    items: list[tuple[str, int | float]] = []
    for camel, snake, label in _TURN_FIELDS:
        raw = usage.get(camel, usage.get(snake))
        count = _count(raw)
        if count is not None:
            items.append((label, count))
    return items


def turn_usage_text(usage: Mapping[str, object] | None) -> str:
    """``input 35,000 · output 12,000 · ... · total 53,000``; empty when nothing usable."""
    return " · ".join(f"{label} {group_digits(count)}" for label, count in turn_usage_items(usage))


def usage_details_text(
    used: Number | None,
    size: Number | None,
    cost_amount: Number | None = None,
    cost_currency: str | None = None,
    turn_usage: Mapping[str, object] | None = None,
) -> str:
    """The exact numbers behind the gauge, several lines, for a tooltip or a notification."""
    lines: list[str] = []
    level = context_level(used, size)
    if used is None or size is None:
        lines.append("Context: not reported by the agent")
    elif level is ContextLevel.UNKNOWN:
        lines.append(f"Context: {group_digits(used)} tokens (window size {group_digits(size)})")
    else:
        lines.append(
            f"Context: {group_digits(used)} of {group_digits(size)} tokens"
            f" ({format_percent(used, size, decimals=1)})"
        )
        remaining = size - used
        if remaining >= 0:
            lines.append(f"Remaining: {group_digits(remaining)} tokens")
        else:
            lines.append(f"Remaining: none ({group_digits(-remaining)} tokens over the window)")
        lines.append(f"Level: {level.label}")
        if level.advice:
            lines.append(level.advice)
    if cost_amount is not None or cost_currency:
        lines.append(f"Cost: {format_cost(cost_amount, cost_currency)}")
    else:
        lines.append("Cost: not reported")
    turn = turn_usage_text(turn_usage)
    if turn:
        lines.append(f"Last turn: {turn}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Threshold crossings


class LevelTracker:
    """Decides when a rise in context usage deserves a notification.

    ``feed(used, size)`` returns the new level when usage rises into a level above any reached
    since usage last fell below it, and None otherwise: several updates inside one level give
    one notification, a fall and a new rise give another. A jump across several levels gives one
    notification, for the highest. NORMAL is never notified, and an UNKNOWN report (missing or
    meaningless numbers) changes nothing.
    """

    def __init__(self) -> None:
        self._peak: ContextLevel = ContextLevel.UNKNOWN

    @property
    def level(self) -> ContextLevel:
        """The highest level reached since usage last fell (UNKNOWN before any report)."""
        return self._peak

    def reset(self) -> None:
        """Forget history, e.g. when the gauge switches to another session."""
        self._peak = ContextLevel.UNKNOWN

    def feed(self, used: Number | None, size: Number | None) -> ContextLevel | None:
        level = context_level(used, size)
        if level is ContextLevel.UNKNOWN:
            return None
        previous = self._peak
        self._peak = level
        if level.rank > previous.rank and level.rank > ContextLevel.NORMAL.rank:
            return level
        return None
