"""One parse of each stylesheet per test process, not one per app.

Textual keeps the rules it parsed in the app's own stylesheet, so every app a test builds
parses the same CSS again (every widget's DEFAULT_CSS, the screens' .tcss files): about a
sixth of the CPU of an app's start here, over the ~450 apps of a run. This keeps the parsed
rules per process, by everything the parse reads (the text, where it came from, its place
among the sources, its scope and the theme's variables), so each worker parses each source
once. The rules are only read after the parse (matched and copied into each widget's styles),
so apps can share them. Tests only: the app itself is started once.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_parsed: dict[tuple[Any, ...], list[RuleSet]] = {}


def install() -> None:
    if getattr(Stylesheet._parse_rules, "_shared", False):
        return
    parse_rules = Stylesheet._parse_rules

    def shared_parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (
            css,
            read_from,
            is_default_rules,
            tie_breaker,
            scope,
            tuple(sorted(self._variables.items())),
        )
        rules = _parsed.get(key)
        if rules is None:
            rules = _parsed[key] = parse_rules(
                self, css, read_from, is_default_rules, tie_breaker, scope
            )
        return rules

    shared_parse_rules._shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]
