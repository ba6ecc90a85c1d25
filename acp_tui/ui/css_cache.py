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

_parsed: OrderedDict[tuple[Any, ...], dict[tuple[Any, ...], list[RuleSet]]] = OrderedDict()
_limit = [KEEP_THEMES]


def installed() -> bool:
    return bool(getattr(Stylesheet._parse_rules, "_shared", False))


def install(keep_themes: int = KEEP_THEMES) -> bool:
    """Share parsed rules between the process's stylesheets; True if installed (now or
    before). ``keep_themes``: sets of theme variables kept (the tests' many apps keep more)."""
    _limit[0] = max(_limit[0], keep_themes) if installed() else keep_themes
    if installed():
        return True
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
        theme = tuple(sorted(self._variables.items()))
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
