"""How a ``terminal/create`` request becomes a process: the argv (a command line with shell
syntax and no ``args`` runs under ``/bin/sh -c``: :func:`command_argv`), the environment
variables it sets (:func:`env_overrides`) and which of them decide what code runs, so that the
person is asked first (:func:`risky_env`, :data:`RISKY_ENV_NAMES`)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acp_tui.services.errors import invalid_params

_SHELL_SYNTAX = re.compile(r"[\s|&;<>()$`\\\"'*?\[\]#~=%{}!]")


# -- helpers -----------------------------------------------------------------------------------


def command_argv(command: str, args: list[str], cwd: Path) -> tuple[list[str], str]:
    if not args and _SHELL_SYNTAX.search(command) and not (cwd / command).is_file():
        return ["/bin/sh", "-c", command], command
    argv = [command, *args]
    return argv, shlex.join(argv)


#: Variables that decide which code a command runs, rather than what it works on: setting
#: one can make ``git status`` in the project run a program of the agent's choosing, so a
#: terminal that changes one is confirmed like a working directory outside the project.
#: Where programs are found (PATH); what the dynamic loader loads (LD_*, DYLD_*, and iconv's
#: modules); what a shell runs before the command (its start-up files, exported functions,
#: options that run code); what interpreters load on start (module paths, start-up files,
#: option variables); the helper programs tools start (git's, editors, pagers, askpass).
#: Variables that only configure (LANG, TERM, CI, RUST_LOG...) pass without a question.
RISKY_ENV_NAMES = frozenset(
    {
        "PATH",
        "GCONV_PATH",
        "BASH_ENV",
        "ENV",
        "ZDOTDIR",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PYTHONEXECUTABLE",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5LIB",
        "PERLLIB",
        "PERL5OPT",
        "RUBYLIB",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "LUA_PATH",
        "LUA_CPATH",
        "LUA_INIT",
        "TCLLIBPATH",
        "PHPRC",
        "PHP_INI_SCAN_DIR",
        "R_PROFILE",
        "R_PROFILE_USER",
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "GIT_EDITOR",
        "GIT_PAGER",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "GIT_TEMPLATE_DIR",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "BROWSER",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
    }
)
#: Families of such variables: the loaders' (every LD_* and DYLD_* changes what is loaded or
#: audited), bash's exported functions (BASH_FUNC_ls%% replaces ``ls``), git's config
#: (GIT_CONFIG_KEY_0=core.fsmonitor runs a program).
RISKY_ENV_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG")


def risky_env(overrides: dict[str, str], current: Mapping[str, str] | None = None) -> list[str]:
    """The variables of ``overrides`` that change which code runs: a risky name whose value
    differs from ours (setting PATH to what it already is changes nothing)."""
    current = os.environ if current is None else current
    return [
        name
        for name, value in overrides.items()
        if (name in RISKY_ENV_NAMES or name.startswith(RISKY_ENV_PREFIXES))
        and current.get(name) != value
    ]


def env_overrides(raw: Any) -> dict[str, str]:
    """The ``env`` of a ``terminal/create``, checked: the variables it sets over ours."""
    env: dict[str, str] = {}
    if raw is None:
        return env
    if not isinstance(raw, list):
        raise invalid_params("'env' must be an array of {name, value}", {"env": raw})
    for entry in raw:
        if not isinstance(entry, Mapping):
            raise invalid_params("'env' entries must be objects {name, value}", {"env": entry})
        name, value = entry.get("name"), entry.get("value")
        if not isinstance(name, str) or not name or "=" in name or "\0" in name:
            raise invalid_params("invalid environment variable name", {"name": name})
        if not isinstance(value, str) or "\0" in value:
            raise invalid_params(
                f"environment variable {name} must have a string value", {"name": name}
            )
        env[name] = value
    return env
