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

**Between runs** (the command line only, :func:`keep_on_disk`): the first parse of a launch
cost some 100-200 ms of the way to a ready prompt on a 2-core machine, and it is the same every
launch. The rules of each theme are kept in the user's cache directory, one file per theme and
per installed Textual, Python and acp-tui version, loaded on the first parse (some 10-20 ms) and
written again, if a launch parsed something new, by the warm-up thread a second after start and
when the app ends. The file is a pickle in the person's own cache directory (whoever can write
there can already change what their shell runs). Any file that cannot be read, or holds
something else, is ignored and replaced: the parse then works as Textual's own.

It wraps Textual's private ``Stylesheet._parse_rules``. Switch: ``css-cache``;
docs/upstream/css-parse-cache-across-stylesheets.md proposes it to Textual.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
import pickle
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

__all__ = ["KEEP_THEMES", "install", "installed", "keep_on_disk", "save_to_disk"]

log = logging.getLogger(__name__)

#: Sets of theme variables whose parsed rules are kept (least recently used dropped first).
KEEP_THEMES = 4
#: Files kept on disk between runs (one per theme and versions; least recently used go).
KEEP_FILES = 12
#: The parameters of Textual's ``Stylesheet._parse_rules`` this wraps: another Textual that
#: changed them is left alone (every parse then works as Textual's own).
_EXPECTED = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]


class Theme(tuple[tuple[str, str], ...]):
    """A theme's variables, sorted, as a dict key hashed once: a plain tuple of ~170 pairs is
    hashed anew at each lookup (tuples keep no hash), and a parse looks its theme up twice per
    source. Its repr is the tuple's (the name of the theme's file on disk is made from it)."""

    _hash: int

    def __new__(cls, variables: dict[str, str]) -> Theme:
        theme = super().__new__(cls, sorted(variables.items()))
        theme._hash = tuple.__hash__(theme)
        return theme

    def __hash__(self) -> int:
        return self._hash


_parsed: OrderedDict[Theme, dict[tuple[Any, ...], list[RuleSet]]] = OrderedDict()
_limit = [KEEP_THEMES]
#: The variables last turned into a key, and that key: a parse asks for it once per source
#: (some 185 of them), and sorting 170 variables each time cost ~6 ms a parse. Textual treats
#: a stylesheet's variables as fixed until replaced (it caches their tokens the same way).
_last_theme: list[tuple[dict[str, str], Theme]] = []


def _theme_of(variables: dict[str, str]) -> Theme:
    if _last_theme and _last_theme[0][0] is variables:
        return _last_theme[0][1]
    theme = Theme(variables)
    # The very key already in the cache, if any: an equal key that is another object is
    # compared pair by pair at each lookup.
    theme = next((known for known in _parsed if known == theme), theme)
    _last_theme[:] = [(variables, theme)]
    return theme


#: Where the rules are kept between runs (None: not kept), and the themes whose rules there
#: were read (or found missing) this run, and whose rules were parsed anew since.
_disk: list[Path | None] = [None]
_read_from_disk: set[Theme] = set()
_parsed_anew: set[Theme] = set()


def keep_on_disk(directory: Path | None) -> None:
    """Keep parsed rules in ``directory`` between runs (None: stop)."""
    _disk[0] = directory
    _read_from_disk.clear()


def _disk_file(theme: Theme) -> Path | None:
    directory = _disk[0]
    if directory is None:
        return None
    from acp_tui import __version__

    identity = repr((_installed_textual(), sys.version, __version__, theme)).encode()
    return directory / f"css-{hashlib.sha256(identity).hexdigest()[:24]}.pickle"


def _installed_textual() -> tuple[str, int, int]:
    """Which Textual parsed the rules: where its CSS model and parser are, and when and how big
    they were written (an upgrade or a reinstall writes them anew). Not ``textual.__version__``:
    that reads the package metadata, some 30-50 ms of a launch here."""
    import textual.css.model
    import textual.css.parse

    files = [Path(textual.css.model.__file__ or ""), Path(textual.css.parse.__file__ or "")]
    try:
        stats = [file.stat() for file in files]
    except OSError:
        return (str(files[0]), 0, 0)
    return (
        str(files[0].parent),
        max(stat.st_mtime_ns for stat in stats),
        sum(stat.st_size for stat in stats),
    )


def _load(theme: Theme) -> dict[tuple[Any, ...], list[RuleSet]]:
    """The rules kept on disk for ``theme`` (empty if none, or if the file is not ours)."""
    _read_from_disk.add(theme)
    path = _disk_file(theme)
    if path is None:
        return {}
    try:
        data = path.read_bytes()
        os.utime(path)  # used now: the last to be pruned
    except OSError:
        return {}
    try:
        rules = pickle.loads(data)
        if not isinstance(rules, dict) or not all(
            isinstance(key, tuple) and isinstance(value, list) for key, value in rules.items()
        ):
            raise TypeError(f"not a dict of rules: {type(rules).__name__}")
        if not all(isinstance(rule, RuleSet) for value in rules.values() for rule in value):
            raise TypeError("not rule sets")
    except Exception as error:  # a bad cache is never worse than no cache
        # Nothing read: what is parsed instead marks the theme to be written again, whole.
        log.info("css cache: ignoring %s (%s)", path, error)
        return {}
    return rules


def save_to_disk() -> None:
    """Write the rules of each theme that parsed something new this run (soon after start,
    from the warm-up thread, so that a launch killed or crashed still leaves them; and at the
    app's end, for what later views and themes parsed)."""
    if not _parsed_anew:
        return
    import tempfile  # not on the way to the first frame

    for theme in list(_parsed_anew):
        path = _disk_file(theme)
        rules = _parsed.get(theme)
        if path is None or rules is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A copy: called from the warm-up thread too, while the loop may parse a new view.
            data = pickle.dumps(dict(rules), protocol=pickle.HIGHEST_PROTOCOL)
            # Whole or not at all: another acp-tui may be reading it this very moment.
            fd, temporary = tempfile.mkstemp(prefix=".css-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(data)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except Exception as error:  # the next launch simply parses again
            log.info("css cache: not written to %s (%s)", path, error)
        _parsed_anew.discard(theme)
        _prune(path.parent)


def _prune(directory: Path) -> None:
    """Keep the :data:`KEEP_FILES` files used last: each theme tried, and each upgrade of
    Textual or acp-tui, leaves one behind."""
    try:
        files = sorted(
            directory.glob("css-*.pickle"), key=lambda file: file.stat().st_mtime, reverse=True
        )
        for old in files[KEEP_FILES:]:
            old.unlink(missing_ok=True)
    except OSError as error:
        log.info("css cache: not pruned (%s)", error)


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
        if rules is None and _disk[0] is not None and theme not in _read_from_disk:
            rules_of_theme.update(_load(theme))
            rules = rules_of_theme.get(key)
        if rules is None:
            rules = rules_of_theme[key] = parse_rules(
                self, css, read_from, is_default_rules, tie_breaker, scope
            )
            if _disk[0] is not None:
                _parsed_anew.add(theme)
        return rules

    shared_parse_rules._shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]
    return True
