"""Which Textual patches are on: the version gate and the ``ACP_TUI_PATCHES`` switch.

Every patch is named in :data:`PATCHES`. All are on by default, only with a Textual inside
:data:`SUPPORTED_TEXTUAL` (the range the suite runs against, pinned in pyproject.toml); with any
other Textual every patch is off and the app runs on Textual's own code, slower.

``ACP_TUI_PATCHES`` picks among them, a comma-separated list read left to right:

- ``none``: all off; ``all``: all on (the default);
- ``-name``: that one off (``-compositor,-css-cache``: all but those two);
- ``name`` or ``+name``: that one on; a list that starts with a name turns on only those
  (``compositor``: the compositor alone).

A name that is not a patch is reported and ignored. This module imports no Textual: the
command line reads it before the UI loads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path

__all__ = [
    "ENV",
    "PATCHES",
    "SUPPORTED_TEXTUAL",
    "Patch",
    "Switches",
    "from_environment",
    "parse",
    "supported",
    "textual_version",
]

#: The environment variable that switches patches (see the module docstring).
ENV = "ACP_TUI_PATCHES"

#: The Textual versions the patches are made for: at least the first, below the second. The
#: first is the release CI and the benchmarks run (a fresh install of the range takes the
#: newest), so no older release is claimed untested. The same range is pinned in
#: pyproject.toml (tests/ui/test_textual_patches.py checks they agree).
SUPPORTED_TEXTUAL: tuple[tuple[int, ...], tuple[int, ...]] = ((8, 2, 8), (8, 3))


@dataclass(frozen=True)
class Patch:
    """One patch: its switch name and what it changes (one line)."""

    name: str
    what: str


#: Every patch, by switch name. A new patch adds its line here, and its module to the package.
PATCHES: Mapping[str, Patch] = {
    patch.name: patch
    for patch in (
        Patch("css-cache", "each stylesheet parsed once per process, and kept between launches"),
        Patch("compositor", "the chat screen does not draw what is covered by other widgets"),
        Patch("paint-gate", "a typed key's echo is painted first, the rest around the typing"),
        Patch("restyle", "the chat screen is restyled on resume only when its styles may be stale"),
        Patch("tall-widgets", "layout bookkeeping of a tall widget does not grow with its height"),
        Patch("key-order", "a key typed before a priority key acts where it was typed"),
        Patch("input-thread", "the app hears a key as the terminal's input thread reads it"),
        Patch("early-keys", "keys typed while the app starts keep Enter as Enter"),
        Patch("dead-terminal", "a terminal gone (hang-up) no longer blocks the app's quit"),
        Patch("lazy-select", "a closed select is one widget; its list is mounted when opened"),
        Patch("inert-output", "no line drawn can write a control character to the terminal"),
    )
}

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def parse(spec: str | None, names: Iterable[str] = PATCHES) -> tuple[frozenset[str], list[str]]:
    """The patches ``spec`` turns on (of ``names``), and what in it was not understood."""
    known = frozenset(names)
    items = [item.strip() for item in (spec or "").split(",") if item.strip()]
    on = set(known)
    problems: list[str] = []
    if items and items[0][0] not in "-" and items[0] not in ("all", "none"):
        on = set()  # a list of names: only those
    for item in items:
        if item == "all":
            on = set(known)
            continue
        if item == "none":
            on = set()
            continue
        sign, name = (item[0], item[1:]) if item[0] in "+-" else ("+", item)
        if name not in known:
            shown = name if _NAME.match(name) else repr(name)
            problems.append(
                f"{ENV}: no patch is called {shown} (the patches: {', '.join(sorted(known))})"
            )
            continue
        if sign == "-":
            on.discard(name)
        else:
            on.add(name)
    return frozenset(on), problems


@cache
def textual_version() -> str | None:
    """The installed Textual's version, or None if it cannot be told. Read from its
    ``dist-info`` folder beside it, not from ``textual.__version__`` (that asks the package
    metadata: some 20-50 ms of a launch); the metadata only where there is no such folder."""
    spec = find_spec("textual")
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        found = sorted(site.glob("textual-*.dist-info"))
        if len(found) == 1:
            return found[0].name.removeprefix("textual-").removesuffix(".dist-info")
    from importlib import metadata

    try:
        return metadata.version("textual")
    except metadata.PackageNotFoundError:
        return None


def _release(version: str) -> tuple[int, ...] | None:
    """The numbers of ``version``'s release (``8.2.8`` → (8, 2, 8); pre-releases and local
    parts are left off), or None if it does not start with one."""
    match = re.match(r"^(\d+(?:\.\d+)*)", version)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def supported(version: str | None) -> bool:
    """Whether the patches are made for Textual ``version``."""
    release = _release(version) if version else None
    if release is None:
        return False
    lowest, beyond = SUPPORTED_TEXTUAL
    return lowest <= release < beyond


def range_text() -> str:
    """The supported range as pyproject.toml spells it: ``>=8.2.8,<8.3``."""
    lowest, beyond = SUPPORTED_TEXTUAL
    return f">={'.'.join(map(str, lowest))},<{'.'.join(map(str, beyond))}"


@dataclass(frozen=True)
class Switches:
    """The patches on for an app (and why some may be off)."""

    on: frozenset[str]
    #: The Textual version found (None: unknown).
    textual: str | None
    #: What the person should know: a name in the switch that is no patch.
    problems: tuple[str, ...] = ()
    #: Set when the version gate turned every patch off.
    gated: str | None = None

    def __call__(self, name: str) -> bool:
        """Whether the patch ``name`` is on (a name that is no patch is an error)."""
        if name not in PATCHES:
            raise KeyError(f"no Textual patch is called {name!r}")
        return name in self.on

    @classmethod
    def all_on(cls) -> Switches:
        return cls(frozenset(PATCHES), textual_version())

    @classmethod
    def all_off(cls) -> Switches:
        return cls(frozenset(), textual_version())


def from_environment(
    environ: Mapping[str, str] | None = None, version: str | None = None
) -> Switches:
    """The switches ``environ`` (default: this process's) asks for, with the version gate
    applied to Textual ``version`` (default: the installed one)."""
    environ = os.environ if environ is None else environ
    version = textual_version() if version is None else version
    on, problems = parse(environ.get(ENV))
    if not supported(version):
        gated = (
            f"Textual {version or '(version unknown)'} is outside the range acp-tui's Textual "
            f"patches are made for ({range_text()}): every patch is off"
        )
        return Switches(frozenset(), version, tuple(problems), gated)
    return Switches(on, version, tuple(problems))
