"""Each stylesheet parsed once per process, not once per re-parse.

Textual re-parses every source (each widget's DEFAULT_CSS, the screens' .tcss files) into a
fresh stylesheet whenever it refreshes the CSS: when an agent's view is first shown (once per
view), when the theme changes, and on each later view switch after one. With its cache held by
that fresh stylesheet, every re-parse starts from nothing: some 100 ms each on a 2-core
machine, three of them while three agents' views open. This keeps the parsed rules for the
process, by everything the parse reads (the text, where it came from, its place among the
sources, its scope and the theme's variables). The rules are only read after the parse
(matched and copied into each widget's styles), so stylesheets can share them.

Parsed rules are kept for the last :data:`KEEP_THEMES` sets of theme variables (a person
trying every theme in turn does not grow the process for each).
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

__all__ = ["KEEP_THEMES", "install", "installed"]

log = logging.getLogger(__name__)

#: Sets of theme variables whose parsed rules are kept (least recently used dropped first).
KEEP_THEMES = 4
#: The parameters of Textual's ``Stylesheet._parse_rules`` this wraps: another Textual that
#: changed them is left alone (every parse then works as Textual's own).
_EXPECTED = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]

Theme = tuple[tuple[str, str], ...]

_parsed: OrderedDict[Theme, dict[tuple[Any, ...], list[RuleSet]]] = OrderedDict()
_limit = [KEEP_THEMES]
#: The variables last turned into a key, and that key: a parse asks for it once per source
#: (some 185 of them), and sorting 170 variables each time cost ~6 ms a parse. Textual treats
#: a stylesheet's variables as fixed until replaced (it caches their tokens the same way).
_last_theme: list[tuple[dict[str, str], Theme]] = []


def _theme_of(variables: dict[str, str]) -> Theme:
    if _last_theme and _last_theme[0][0] is variables:
        return _last_theme[0][1]
    theme = tuple(sorted(variables.items()))
    _last_theme[:] = [(variables, theme)]
    return theme


def installed() -> bool:
    return bool(getattr(Stylesheet._parse_rules, "_shared", False))


def install(keep_themes: int = KEEP_THEMES) -> bool:
    """Share parsed rules between the process's stylesheets; True if installed (now or
    before). ``keep_themes``: sets of theme variables kept (the tests' many apps keep more;
    the largest asked for holds)."""
    if installed():
        _limit[0] = max(_limit[0], keep_themes)
        return True
    _limit[0] = keep_themes
    parse_rules = Stylesheet._parse_rules
    if list(inspect.signature(parse_rules).parameters) != _EXPECTED:
        log.info("css cache: Textual's Stylesheet._parse_rules changed; not installed")
        return False

    def shared_parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        theme = _theme_of(self._variables)
        rules_of_theme = _parsed.get(theme)
        if rules_of_theme is None:
            rules_of_theme = _parsed[theme] = {}
            while len(_parsed) > _limit[0]:
                _parsed.popitem(last=False)
        else:
            _parsed.move_to_end(theme)
        key = (css, read_from, is_default_rules, tie_breaker, scope)
        rules = rules_of_theme.get(key)
        if rules is None:
            rules = rules_of_theme[key] = parse_rules(
                self, css, read_from, is_default_rules, tie_breaker, scope
            )
        return rules

    shared_parse_rules._shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]
    return True
