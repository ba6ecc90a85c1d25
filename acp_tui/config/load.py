"""The config file: ``config.toml`` in the user config dir (or ``$ACP_TUI_CONFIG``).

Everything is optional; a missing file means defaults. A file that cannot be used is never
fatal: :func:`load_config` returns the problems, precisely (file, key path, what is wrong),
and the parts that are fine. The client only ever writes back the remembered ``theme``
(:func:`save_theme`), by editing that one line, and never touches a file it cannot parse.

Example::

    theme = "acp-dusk"
    sidebar = true
    permission_policy = "ask"      # "ask", "yolo" or "deny"
    notifications = "bell"         # "bell" or "off"
    desktop_notifications = "osc9" # "osc9", "osc777", "both" or "off"
    terminal_title = true          # the window title says what needs you
    initialize_timeout = 30        # seconds before an agent that does not answer is reported
    protocol = 1                   # ACP version to ask for: 1, or 2 (the draft)
    status_items = ["model", "context", "git_branch"]   # the row under the prompt
    status_command = "~/bin/acp-status"    # reads the state as JSON, prints one line

    [keys]                         # action = key (see the README for the actions)
    new-session = "ctrl+k"
    sessions-sidebar = "f2, ctrl+b"

    [agents.claude]
    command = "claude-agent-acp"
    env = { ANTHROPIC_API_KEY = "sk-..." }

    [agents.gemini]
    command = "gemini"
    args = ["--experimental-acp"]
    cwd = "~/src/project"

    [[agents.gemini.mcp_servers]]
    name = "filesystem"
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]

    [[agents.gemini.mcp_servers]]
    type = "http"
    name = "docs"
    url = "https://example.com/mcp"
    headers = { Authorization = "Bearer ..." }
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.config import locations

if TYPE_CHECKING:
    from pydantic import ValidationError

    from acp_tui.config.schema import (
        AgentConfig,
        Config,
        McpHttpServer,
        McpServerConfig,
        McpSseServer,
        McpStdioServer,
    )

__all__ = [
    "AgentConfig",
    "Config",
    "McpHttpServer",
    "McpServerConfig",
    "McpSseServer",
    "McpStdioServer",
    "config_dir",
    "config_path",
    "load_config",
    "save_theme",
]


#: The schema (pydantic models) lives in :mod:`acp_tui.config.schema`, imported on first use
#: of one of these names: the paths and helpers here, and a start-up without a config file,
#: never load pydantic.
_SCHEMA_NAMES = frozenset(
    {"AgentConfig", "Config", "McpHttpServer", "McpServerConfig", "McpSseServer", "McpStdioServer"}
)


def __getattr__(name: str) -> Any:
    if name in _SCHEMA_NAMES:
        from acp_tui.config import schema as config_schema

        value = getattr(config_schema, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------- paths


def config_path() -> Path:
    """Where the config file is read from: ``$ACP_TUI_CONFIG`` or the user config dir."""
    return locations.config_file()


def config_dir() -> Path:
    """The directory of the config file (user theme files live in its ``themes/``)."""
    return config_path().parent


# ---------------------------------------------------------------------------- loading


def _key_path(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    previous: int | str | None = None
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif isinstance(previous, int) and item in ("stdio", "http", "sse"):
            pass  # the discriminator's tag: not a key the user wrote
        else:
            parts.append(("." if parts else "") + str(item))
        previous = item
    return "".join(parts) or "(top level)"


def _describe(error: dict[str, Any]) -> str:
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    if kind == "literal_error":
        expected = (error.get("ctx") or {}).get("expected", "")
        return f"must be {expected} (got {error.get('input')!r})"
    value = error.get("input")
    if kind == "mcp_type" and isinstance(value, dict):
        value = value.get("type")
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    if isinstance(value, (dict, list)):
        return f"{message} (got a {'table' if isinstance(value, dict) else 'list'})"
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:39] + "…"
    return f"{message} (got {shown})"


def _problems(path: Path, error: ValidationError) -> list[str]:
    return [
        f"{path}: {_key_path(tuple(item['loc']))}: {_describe(dict(item))}"
        for item in error.errors(include_url=False)
    ]


def _drop(data: dict[str, Any], loc: tuple[int | str, ...]) -> bool:
    """Remove what an error points at, at the coarsest sensible level: a whole agent, or a
    top-level key. Returns False when nothing could be removed."""
    if not loc:
        return False
    head = loc[0]
    if head in ("agents", "keys") and len(loc) >= 2 and isinstance(data.get(head), dict):
        return data[head].pop(loc[1], None) is not None
    return data.pop(head, None) is not None if isinstance(head, str) else False


def parse_config(data: dict[str, Any], path: Path) -> tuple[Config, list[str]]:
    """Validate ``data``; on errors report them all and keep what is valid (a broken agent
    or key is left out, everything else still applies)."""
    from pydantic import ValidationError

    from acp_tui.config.schema import Config

    try:
        return Config.model_validate(data), []
    except ValidationError as error:
        problems = _problems(path, error)
        first = error
    data = dict(data)
    for table in ("agents", "keys"):
        if isinstance(data.get(table), dict):
            data[table] = dict(data[table])
    for _ in range(50):
        removed = False
        for item in first.errors(include_url=False):
            removed = _drop(data, tuple(item["loc"])) or removed
        if not removed:
            break
        try:
            return Config.model_validate(data), problems
        except ValidationError as error:
            first = error
    return Config(), problems


def load_config(path: Path | None = None) -> tuple[Config, list[str]]:
    """The config and a list of problems. Never raises: a missing file is defaults, a file
    that cannot be read or parsed is defaults plus a problem naming file, line and column."""
    from acp_tui.config.schema import Config

    path = path or config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(), []
    except OSError as error:
        return Config(), [f"{path}: cannot read: {error.strerror or error}"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Config(), [f"{path}: not UTF-8 text (byte {error.start})"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return Config(), [f"{path}: TOML syntax error: {error}"]
    return parse_config(data, path)


# ---------------------------------------------------------------------------- saving

_HEADER_RE = re.compile(r"^\s*\[")
_THEME_RE = re.compile(r"^(\s*)theme\s*=")
_KEY_RE = re.compile(r"^\s*[A-Za-z0-9_\"'-]+\s*=")

NEW_FILE_HEADER = (
    "# acp-tui configuration. Every key is optional; see the README for the full list.\n"
)


def _toml_string(value: str) -> str:
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(value, ensure_ascii=True)


def _with_theme(text: str, theme: str) -> str:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new_line = f"theme = {_toml_string(theme)}\n"
    insert_at = 0
    for index, line in enumerate(lines):
        if _HEADER_RE.match(line):
            break
        if _THEME_RE.match(line):
            lines[index] = new_line
            return "".join(lines)
        if _KEY_RE.match(line):
            insert_at = index + 1
    else:
        index = len(lines)
    if insert_at == 0:
        # No top-level key yet: after the leading comment block, before any table.
        insert_at = 0
        while insert_at < index and lines[insert_at].lstrip().startswith("#"):
            insert_at += 1
    lines.insert(insert_at, new_line)
    return "".join(lines)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one, never
    half of one (temp file in the same directory, fsync, ``os.replace``)."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    mode: int | None = None
    with contextlib.suppress(OSError):
        mode = path.stat().st_mode & 0o777
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def save_theme(theme: str, path: Path | None = None) -> str | None:
    """Remember ``theme`` in the config file, keeping everything else (comments included).

    Returns None on success, else why nothing was written: a file that does not parse, or
    an edit that would change anything but ``theme``, is left exactly as it is."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = NEW_FILE_HEADER
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: not saving the theme: cannot read the file ({error})"
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return f"{path}: not saving the theme: the file does not parse ({error})"
    if before.get("theme") == theme:
        return None
    updated = _with_theme(text, theme)
    try:
        after = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        after = None
    expected = {**before, "theme": theme}
    if after != expected:
        return f"{path}: not saving the theme: cannot edit this file safely; add theme = {_toml_string(theme)} yourself"
    try:
        atomic_write_text(path, updated)
    except OSError as error:
        return f"{path}: not saving the theme: {error.strerror or error}"
    return None
