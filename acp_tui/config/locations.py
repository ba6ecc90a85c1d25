"""Every place on disk acp-tui reads or writes, in one module: the only caller of platformdirs.

Each function answers the platform's directory for the current user (XDG on Linux, which the
tests point at temporary folders), computed when called so a changed environment is seen.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "acp-tui"
#: An environment variable naming the config file, for tests and for several setups side by side.
CONFIG_ENV = "ACP_TUI_CONFIG"

__all__ = [
    "APP_NAME",
    "CONFIG_ENV",
    "cache_dir",
    "config_file",
    "data_dir",
    "demo_agent_state_dir",
    "exports_dir",
    "history_file",
    "local_index_file",
    "log_dir",
    "recent_agents_file",
    "recordings_dir",
    "rules_file",
    "rules_state_file",
    "search_index_file",
    "state_dir",
]


def config_file() -> Path:
    """The config file: ``$ACP_TUI_CONFIG`` or ``config.toml`` in the user config dir."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


def rules_file() -> Path:
    """The person's permission rules: ``rules.toml`` beside the config file."""
    return config_file().parent / "rules.toml"


def rules_state_file(data: Path | None = None) -> Path:
    """What acp-tui keeps about the rules (how often each fired, the projects whose rules
    file is in use), in ``data`` or the data dir: never in the hand-edited file."""
    return (data or data_dir()) / "rules-state.json"


def data_dir() -> Path:
    """Data kept for the person: the local session index and the prompt history."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def state_dir() -> Path:
    """State that may be lost without harm (the recently used agents)."""
    from platformdirs import user_state_dir

    return Path(user_state_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """What acp-tui can make again, kept to start faster (the parsed stylesheets)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """The client's log and one stderr log per agent process."""
    from platformdirs import user_log_dir

    return Path(user_log_dir(APP_NAME, appauthor=False))


def recent_agents_file() -> Path:
    """The agents started lately, offered first by the launcher."""
    return state_dir() / "recent-agents.json"


def history_file(data: Path | None = None) -> Path:
    """The prompt history (Up/Down in the prompt), in ``data`` or the data dir."""
    return (data or data_dir()) / "history.jsonl"


def local_index_file(data: Path | None = None) -> Path:
    """The local index of sessions (for agents that cannot list theirs), in ``data`` or the
    data dir."""
    return (data or data_dir()) / "sessions.sqlite3"


def search_index_file(data: Path | None = None) -> Path:
    """The search index of every session of every agent, in ``data`` or the data dir."""
    return (data or data_dir()) / "search.sqlite3"


def spend_ledger_file(data: Path | None = None) -> Path:
    """The spend ledger (every cost the agents reported), in ``data`` or the data dir."""
    return (data or data_dir()) / "spend.sqlite3"


def exports_dir(data: Path | None = None) -> Path:
    """Exported transcripts (Markdown), in ``data`` or the data dir: never the project, where
    they would show in its ``git status``."""
    return (data or data_dir()) / "exports"


def recordings_dir(data: Path | None = None) -> Path:
    """Recordings of the wire (``--record`` without a file, the inspector's save), in ``data``
    or the data dir."""
    return (data or data_dir()) / "recordings"


def demo_agent_state_dir() -> Path:
    """Where the demo agent keeps its sessions between runs."""
    return data_dir() / "demo-agent"
