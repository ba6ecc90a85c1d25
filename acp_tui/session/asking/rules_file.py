"""The rules file: TOML read with the standard library, written by hand (a few strings and
lists of strings need no library), read and written through the path gate.

The person's file is ``rules.toml`` in acp-tui's config folder; a project's, when the person
asked for one, is ``.acp-tui/rules.toml`` in the project. Each rule is a ``[[rule]]`` table::

    [[rule]]
    decision = "allow"          # "allow" | "deny" | "ask"
    kind = "execute"            # or a list: ["read", "search"]; see rules.ALL_KINDS
    command = "npm test*"
    project = "~/src/app"       # left out: everywhere (a project file's rules: that project)

with ``agent``, ``title`` (globs), ``paths`` (a glob or a list) as more conditions. A file
that is not that (TOML that does not parse, an unknown key, a kind that is not one) is a
:class:`RulesFileError` naming the line: no rule of it applies. Writing replaces the whole
file atomically (:func:`acp_tui.services.path_gate.replace_file`): comments are not kept,
and the header says so.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp_tui.services.path_gate import PathRefused, read_bytes, replace_file, resolve_path
from acp_tui.session.asking.rules import ALL_KINDS, DECISIONS, Decision, Rule
from acp_tui.text.safety import one_line

__all__ = [
    "MAX_FILE_BYTES",
    "FieldError",
    "RulesFileError",
    "dump_rules",
    "load_rules",
    "parse_rules",
    "rule_from_fields",
    "toml_string",
    "write_rules",
]

#: A rules file bigger than this is refused (it is a few hundred bytes a rule).
MAX_FILE_BYTES = 1024 * 1024

_KEYS = ("decision", "kind", "agent", "title", "command", "paths", "project")

HEADER = """\
# Permission rules of acp-tui: they answer an agent's permission request before the
# dialog opens (Ctrl+P → Permission rules lists and edits them). Deny rules are checked
# first, then the others, each in this order; the first that matches decides.
# acp-tui rewrites this file when you edit rules from the app: comments are not kept.
"""


class RulesFileError(ValueError):
    """What is wrong with a rules file, and where: ``str()`` is the sentence for the person."""

    def __init__(self, path: Path | None, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = str(path) if path is not None else "the rule"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {message}")


# ------------------------------------------------------------------------------ reading


class FieldError(ValueError):
    """A rule's field is wrong: which one (``key``), and why."""

    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.key = key


def _str(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise FieldError(key, f"`{key}` must be a string")
    if not value.strip():
        raise FieldError(key, f"`{key}` is empty (leave it out to match anything)")
    if "\0" in value:
        raise FieldError(key, f"`{key}` holds a NUL character")
    return value


def _strings(value: Any, key: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise FieldError(key, f"`{key}` must be a string or a non-empty list of strings")
    return tuple(_str(item, key) for item in items)


def _path_glob(glob: str) -> str:
    if any(name == ".." for name in glob.split("/")):
        raise FieldError(
            "paths", f"the path glob {one_line(glob, 60)!r} holds `..`: write the whole path"
        )
    return glob


def rule_from_fields(fields: Any, *, in_project: bool = False) -> Rule:
    """One rule from a table's fields; :class:`FieldError` says what is wrong, and where."""
    if not isinstance(fields, dict):
        raise FieldError(None, "a rule must be a table ([[rule]])")
    unknown = [key for key in fields if key not in _KEYS]
    if unknown:
        raise FieldError(
            unknown[0], f"unknown key `{one_line(unknown[0], 40)}`; a rule has {', '.join(_KEYS)}"
        )
    decision = fields.get("decision")
    if decision not in DECISIONS:
        raise FieldError(
            "decision" if "decision" in fields else None,
            f"`decision` must be one of {', '.join(DECISIONS)}"
            + ("" if decision is None else f", not {one_line(str(decision), 40)!r}"),
        )
    kinds: tuple[str, ...] = ()
    if "kind" in fields:
        kinds = _strings(fields["kind"], "kind")
        for kind in kinds:
            if kind not in ALL_KINDS:
                raise FieldError(
                    "kind", f"unknown kind {one_line(kind, 40)!r}; kinds are {', '.join(ALL_KINDS)}"
                )
    project: str | None = None
    if "project" in fields:
        if in_project:
            raise FieldError(
                "project", "a project's rules file applies to its project: leave `project` out"
            )
        project = _str(fields["project"], "project")
        if not (project.startswith("/") or project == "~" or project.startswith("~/")):
            raise FieldError("project", "`project` must be a folder's whole path (/… or ~/…)")
    return Rule(
        decision=_decision(decision),
        kinds=tuple(dict.fromkeys(kinds)),
        agent=_str(fields["agent"], "agent") if "agent" in fields else None,
        title=_str(fields["title"], "title") if "title" in fields else None,
        command=_str(fields["command"], "command") if "command" in fields else None,
        paths=tuple(_path_glob(p) for p in _strings(fields["paths"], "paths"))
        if "paths" in fields
        else (),
        project=project,
    )


def _decision(value: Any) -> Decision:
    for decision in DECISIONS:
        if value == decision:
            return decision
    raise FieldError("decision", f"unknown decision {value!r}")


_RULE_HEADER = re.compile(r"^\s*\[\[\s*\"?rule\"?\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[")
_AT_LINE = re.compile(r"at line (\d+)")


def _rule_lines(text: str) -> list[tuple[int, list[str]]]:
    """Where each ``[[rule]]`` starts (1-based) and its lines up to the next table."""
    found: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if _RULE_HEADER.match(line):
            current = []
            found.append((number, current))
        elif _TABLE_HEADER.match(line):
            current = None
        elif current is not None:
            current.append(line)
    return found


def _key_line(start: int, lines: list[str], key: str | None) -> int:
    if key is not None:
        pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
        for offset, line in enumerate(lines, start=1):
            if pattern.match(line):
                return start + offset
    return start


def parse_rules(text: str, *, path: Path | None = None, project: Path | None = None) -> list[Rule]:
    """The rules of a file's text, in order (``project``: a project's file, whose rules are
    that project's). Raises :class:`RulesFileError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = getattr(error, "lineno", None)
        if not isinstance(found, int):
            match = _AT_LINE.search(str(error))
            found = int(match.group(1)) if match else None
        message = getattr(error, "msg", None) or _AT_LINE.sub("", str(error)).strip(" ()")
        raise RulesFileError(path, found, f"not valid TOML: {message}") from None
    unknown = [key for key in data if key != "rule"]
    if unknown:
        raise RulesFileError(
            path, None, f"unknown key `{one_line(unknown[0], 40)}`: rules are [[rule]] tables"
        )
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise RulesFileError(path, None, "`rule` must be tables: write each as [[rule]]")
    places = _rule_lines(text)
    rules: list[Rule] = []
    for index, fields in enumerate(tables):
        start, lines = places[index] if index < len(places) else (None, [])
        try:
            rule = rule_from_fields(fields, in_project=project is not None)
        except FieldError as error:
            line = _key_line(start, lines, error.key) if start else None
            raise RulesFileError(path, line, f"rule {index + 1}: {error}") from None
        if project is not None:
            rule = replace(rule, project=str(project))
        rules.append(replace(rule, source=path, line=start))
    return rules


def load_rules(path: Path, *, project: Path | None = None) -> tuple[list[Rule], bytes | None]:
    """The rules of the file at ``path`` and its bytes (``[], None`` when there is none).
    A project's file must stay inside the project. Raises :class:`RulesFileError`."""
    resolved = resolve_path(path, roots=(project,) if project is not None else ())
    if resolved.kind == "missing":
        return [], None
    try:
        data = read_bytes(resolved, MAX_FILE_BYTES, inside=project is not None)
    except PathRefused as refused:
        raise RulesFileError(path, None, f"cannot be read: {refused.what}") from None
    except OSError as error:
        raise RulesFileError(path, None, f"cannot be read: {error.strerror or error}") from None
    if data is None:
        raise RulesFileError(path, None, f"is bigger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise RulesFileError(path, line, "is not UTF-8 text") from None
    return parse_rules(text, path=path, project=project), data


# ------------------------------------------------------------------------------ writing

_NAMED = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string: every control character escaped (a lone surrogate,
    which no file can hold, as U+FFFD)."""
    out = ['"']
    for char in value:
        code = ord(char)
        if char in _NAMED:
            out.append(_NAMED[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _list(values: Sequence[str]) -> str:
    return "[" + ", ".join(toml_string(value) for value in values) + "]"


def dump_rules(rules: Sequence[Rule], *, in_project: bool = False) -> str:
    """The text of a rules file holding ``rules`` (a project's file: without ``project``)."""
    out = [HEADER]
    for rule in rules:
        out.append("\n[[rule]]\n")
        out.append(f"decision = {toml_string(rule.decision)}\n")
        if rule.kinds:
            kinds = rule.kinds
            out.append(f"kind = {toml_string(kinds[0]) if len(kinds) == 1 else _list(kinds)}\n")
        for key, value in (("agent", rule.agent), ("title", rule.title), ("command", rule.command)):
            if value is not None:
                out.append(f"{key} = {toml_string(value)}\n")
        if rule.paths:
            paths = rule.paths
            out.append(f"paths = {toml_string(paths[0]) if len(paths) == 1 else _list(paths)}\n")
        if rule.project is not None and not in_project:
            out.append(f"project = {toml_string(rule.project)}\n")
    return "".join(out)


def write_rules(path: Path, rules: Sequence[Rule], *, project: Path | None = None) -> bytes:
    """Replace the file at ``path`` with ``rules`` (atomically: readers see the old file or
    the new one). A project's file must stay inside the project. Returns the bytes written;
    :class:`RulesFileError` when it cannot be written."""
    data = dump_rules(rules, in_project=project is not None).encode("utf-8")
    resolved = resolve_path(path, roots=(project,) if project is not None else ())
    try:
        if resolved.escapes:
            raise resolved.refuse("escapes", "leads outside the project through a link")
        replace_file(resolved, data)
    except PathRefused as refused:
        raise RulesFileError(path, None, f"cannot be written: {refused.what}") from None
    except OSError as error:
        raise RulesFileError(path, None, f"cannot be written: {error.strerror or error}") from None
    return data
