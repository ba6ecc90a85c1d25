"""The agent's authentication methods, read once, and what each one asks of the client.

https://agentclientprotocol.com/protocol/v1/initialization (``AuthMethod``): a method without
``type`` (v1) or with ``type: "agent"`` is completed by ``authenticate`` (v2: ``auth/login``).
A ``terminal`` method MUST NOT be passed to ``authenticate``: the client runs the configured
agent command plus the method's ``args``, with its ``env`` on top of the launch environment,
in the person's terminal; exit status 0 means signed in. Any other type (an env-var method of
an older draft, or a future one) is never sent to ``authenticate`` either: the person is told
what it needs, and nothing is guessed.

Before ``terminal`` methods were in the protocol, agents put the sign-in command of an agent
method in ``_meta["terminal-auth"]`` (``command``, ``args``, ``env``: kimi-cli, claude-agent-acp,
as Zed reads them). Such a method's ``authenticate`` only checks for what that command makes,
so it is read as a terminal method running that command.

Pure Python: the UI and the headless commands decide how to run or show what is here.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "AGENT",
    "ENV_VAR",
    "TERMINAL",
    "AuthMethod",
    "TerminalLogin",
    "parse_auth_methods",
]

AGENT = "agent"
TERMINAL = "terminal"
ENV_VAR = "env_var"
#: One id advertised with different types: which one the agent means cannot be known.
AMBIGUOUS = "ambiguous"


def shell_word(word: str) -> str:
    """``word`` quoted for a POSIX shell, printable: the method's args and env are the agent's,
    and this line is written to the person's terminal (the TUI suspended) and to stderr. A word
    with control characters (an escape sequence, a newline, a bidi override) is spelt in
    ANSI-C quoting (``$'\\x1b]0;x\\x07'``), which bash and zsh read back as the same bytes."""
    if word.isprintable():
        return shlex.quote(word)
    spelt = []
    for char in word:
        if char in "\\'":
            spelt.append("\\" + char)
        elif char.isprintable():
            spelt.append(char)
        elif ord(char) < 0x100:
            spelt.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            spelt.append(f"\\u{ord(char):04x}")
        else:
            spelt.append(f"\\U{ord(char):08x}")
    return "$'" + "".join(spelt) + "'"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _env_pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """v1 spells ``env`` as a map, v2 as a list of ``{name, value}``; read both."""
    pairs: list[tuple[str, str]] = []
    if isinstance(value, dict):
        pairs = [(k, v) for k, v in value.items() if isinstance(k, str) and isinstance(v, str)]
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                name, val = item.get("name"), item.get("value")
                if isinstance(name, str) and isinstance(val, str):
                    pairs.append((name, val))
    return tuple((k, v) for k, v in pairs if k and "=" not in k and "\0" not in k + v)


def _variables(raw: dict[str, Any]) -> tuple[str, ...]:
    """The variables an env-var method asks the person to set (``varName``, or ``vars``
    with ``name`` each, as the drafts spelt it)."""
    names: list[str] = []
    single = raw.get("varName")
    if isinstance(single, str) and single:
        names.append(single)
    many = raw.get("vars")
    if isinstance(many, list):
        for item in many:
            name = item.get("name") if isinstance(item, dict) else item
            if isinstance(name, str) and name and name not in names:
                names.append(name)
    return tuple(names)


def _terminal_auth_meta(item: dict[str, Any]) -> dict[str, Any] | None:
    """The ``_meta["terminal-auth"]`` of a method, when it names a command to run."""
    meta = item.get("_meta")
    spec = meta.get("terminal-auth") if isinstance(meta, dict) else None
    if isinstance(spec, dict) and isinstance(spec.get("command"), str) and spec["command"]:
        return spec
    return None


@dataclass(frozen=True, slots=True)
class AuthMethod:
    """One advertised method, the same for both protocol versions."""

    id: str
    name: str
    kind: str
    description: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    variables: tuple[str, ...] = ()
    #: The program a terminal method runs, where the agent named one (``terminal-auth``
    #: meta); empty: the agent's own command.
    command: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def by_authenticate(self) -> bool:
        """Only agent-type methods may be sent to ``authenticate`` / ``auth/login``."""
        return self.kind == AGENT

    @property
    def label(self) -> str:
        return self.name or self.id

    def how(self) -> str:
        """One line on what choosing it does, for the picker."""
        if self.kind == AGENT:
            return "the agent signs you in"
        if self.kind == TERMINAL:
            return "runs the agent's sign-in in this terminal (acp-tui steps aside meanwhile)"
        if self.kind == AMBIGUOUS:
            return "advertised more than once with different types: acp-tui does not guess"
        if self.kind == ENV_VAR:
            names = ", ".join(self.variables) or "an environment variable"
            return f"set {names} and restart the agent"
        return f"a {self.kind!r} method acp-tui cannot complete from here"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.kind,
            "description": self.description,
        }


def parse_auth_methods(raw: Any, *, v2: bool = False) -> list[AuthMethod]:
    """The ``authMethods`` of an ``initialize`` answer; entries without an id are dropped.

    v1: the id is ``id`` and no ``type`` means an agent method. v2: the id is ``methodId``
    and ``type`` is required; one without it is not assumed to be an agent method."""
    methods: list[AuthMethod] = []
    if not isinstance(raw, list):
        return methods
    for item in raw:
        if not isinstance(item, dict):
            continue
        method_id = _text(item.get("methodId") if v2 else item.get("id")) or _text(
            item.get("id") if v2 else item.get("methodId")
        )
        if not method_id:
            continue
        kind = item.get("type")
        if kind is None and not v2:
            kind = AGENT  # v1: no type means an agent method
        elif not isinstance(kind, str) or not kind:
            kind = "unknown"  # a type we cannot read is never taken for "agent"
        args, env, command = item.get("args"), item.get("env"), ""
        legacy = _terminal_auth_meta(item) if kind == AGENT else None
        if legacy is not None:
            kind, command = TERMINAL, legacy["command"]
            args, env = legacy.get("args"), legacy.get("env")
        earlier = next((i for i, m in enumerate(methods) if m.id == method_id), None)
        if earlier is not None:
            if methods[earlier].kind != kind:
                methods[earlier] = replace(methods[earlier], kind=AMBIGUOUS)
            continue
        methods.append(
            AuthMethod(
                id=method_id,
                name=_text(item.get("name")),
                kind=kind,
                description=_text(item.get("description")),
                args=tuple(a for a in args if isinstance(a, str)) if isinstance(args, list) else (),
                env=_env_pairs(env),
                variables=_variables(item),
                command=command,
                raw=item,
            )
        )
    return methods


@dataclass(frozen=True, slots=True)
class TerminalLogin:
    """A terminal method made concrete: what runs, where, with which environment."""

    argv: list[str]
    cwd: str
    #: Set on top of the process environment: the agent's configured env, then the method's.
    env_overrides: dict[str, str]
    method: AuthMethod

    @classmethod
    def of(
        cls,
        method: AuthMethod,
        agent_argv: Sequence[str],
        cwd: str,
        configured_env: Mapping[str, str] | None = None,
    ) -> TerminalLogin:
        overrides = dict(configured_env or {})
        overrides.update(dict(method.env))  # the method's values win, as the schema says
        program = [method.command] if method.command else list(agent_argv)
        return cls([*program, *method.args], cwd, overrides, method)

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update(self.env_overrides)
        return env

    def command_line(self) -> str:
        """The command for a person to type (shlex-quoted). Values of the agent's configured
        environment are left out (they may be secrets); only the method's are spelt out."""
        method_env = dict(self.method.env)
        prefix = [f"{shell_word(name)}={shell_word(value)}" for name, value in method_env.items()]
        line = " ".join([*prefix, *(shell_word(word) for word in self.argv)])
        if os.path.abspath(self.cwd) != os.path.abspath(os.getcwd()):
            line = f"cd {shell_word(self.cwd)} && {line}"
        return line

    def hidden_env_names(self) -> list[str]:
        """Configured variables the printed command does not spell out."""
        method_names = {name for name, _ in self.method.env}
        return [name for name in self.env_overrides if name not in method_names]
