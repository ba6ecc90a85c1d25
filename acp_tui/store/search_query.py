"""What a person types into the search of every session, read: words and filters.

``deploy script @claude in:shop after:2026-03-01 before:7d`` is the words ``deploy`` and
``script`` (every one must occur; the last one, from three letters, also as the start of a
word, so results come as you type), sessions of agents whose name or command contains ``claude``, of projects
whose folder contains ``shop``, said on or after 1 March 2026 and before seven days ago.
``"two words"`` is a phrase. A filter with nothing after it (``@``, ``in:``) is a word being
typed and is ignored; a date that cannot be read is said in :attr:`SearchQuery.problems`.

Dates are local days: ``YYYY-MM-DD``, ``today``, ``yesterday``, ``Nd`` (N days ago) and
``Nw`` (N weeks ago). ``after:D`` keeps what was said on day D or later, ``before:D`` what
was said before day D began.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = ["SearchQuery", "fts_expression", "parse_query", "words_of"]

#: The word being typed matches as a prefix from this many characters (one or two letters
#: are the start of tens of thousands of words: a search through all of them).
PREFIX_CHARS = 3
_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
_RELATIVE = re.compile(r"^(\d{1,4})([dw])$")
#: What FTS5's default tokenizer keeps as a word: letters and digits of any script.
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A query, read. Empty :attr:`terms` with filters lists what the filters keep."""

    #: The words and phrases to find (each must occur), as typed.
    terms: tuple[str, ...] = ()
    #: ``@NAME``: the agent's name or command contains one of these (case-insensitive).
    agents: tuple[str, ...] = ()
    #: ``in:NAME``: the session's folder contains one of these (case-insensitive).
    projects: tuple[str, ...] = ()
    #: ``before:D``: said before this time (seconds since the epoch).
    before: float | None = None
    #: ``after:D``: said at this time or later.
    after: float | None = None
    #: What could not be read ("before:soon is no date"), for the person.
    problems: tuple[str, ...] = ()
    #: Whether the last word was still being typed (no space after it): it matches as the
    #: start of a word too.
    typing: bool = False

    @property
    def empty(self) -> bool:
        """Nothing to look for: no words and no filter."""
        return not (
            self.terms or self.agents or self.projects or self.before or self.after is not None
        )


def _day_start(day: date) -> float:
    return time.mktime(datetime(day.year, day.month, day.day).timetuple())


def _parse_day(text: str, today: date) -> date | None:
    word = text.strip().lower()
    if word == "today":
        return today
    if word == "yesterday":
        return today - timedelta(days=1)
    relative = _RELATIVE.match(word)
    if relative is not None:
        count = int(relative.group(1))
        return today - timedelta(days=count * (7 if relative.group(2) == "w" else 1))
    try:
        return date.fromisoformat(word)
    except ValueError:
        return None


def parse_query(text: str, *, today: date | None = None) -> SearchQuery:
    """``text`` read as words and filters (see the module's docstring). Never raises."""
    today = today or date.today()
    terms: list[str] = []
    agents: list[str] = []
    projects: list[str] = []
    problems: list[str] = []
    before: float | None = None
    after: float | None = None
    for match in _TOKEN.finditer(text):
        phrase, word = match.group(1), match.group(2)
        if phrase is not None:
            if phrase.strip():
                terms.append(phrase.strip())
            continue
        lower = word.lower()
        if lower.startswith("@"):
            if word[1:]:
                agents.append(word[1:].casefold())
        elif lower.startswith("in:"):
            if word[3:]:
                projects.append(word[3:].casefold())
        elif lower.startswith(("before:", "after:")):
            name, _, value = word.partition(":")
            if not value:
                continue
            day = _parse_day(value, today)
            if day is None:
                problems.append(f"{name.lower()}:{value} is no date (YYYY-MM-DD, today, 3d, 2w)")
            elif name.lower() == "before":
                before = _day_start(day)
            else:
                after = _day_start(day)
        else:
            terms.append(word)
    typing = bool(text) and not text[-1].isspace() and not text.rstrip().endswith('"')
    return SearchQuery(
        terms=tuple(terms),
        agents=tuple(agents),
        projects=tuple(projects),
        before=before,
        after=after,
        problems=tuple(problems),
        typing=typing and bool(terms),
    )


def words_of(term: str) -> list[str]:
    """The words FTS5 sees in ``term`` (punctuation is no part of a word there)."""
    return _WORD.findall(term)


def fts_expression(query: SearchQuery) -> str | None:
    """The FTS5 ``MATCH`` expression of ``query``'s words, or None when it has none.

    Every word goes in as a quoted string, so nothing a person types is FTS5 syntax (``AND``,
    ``NEAR``, ``*``, a column name, a stray quote): only words. A phrase stays a phrase; the
    last word being typed also matches as a prefix."""
    parts: list[str] = []
    last = len(query.terms) - 1
    for position, term in enumerate(query.terms):
        words = words_of(term)
        if not words:
            continue
        quoted = '"' + " ".join(words) + '"'
        if position == last and query.typing and len(words[-1]) >= PREFIX_CHARS:
            quoted += " *"
        parts.append(quoted)
    return " AND ".join(parts) if parts else None
