"""Auth methods read from either protocol version, and the terminal sign-in they describe."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from acp_tui.session.auth.methods import AGENT, TERMINAL, TerminalLogin, parse_auth_methods


def test_v1_methods_without_type_are_agent_methods_and_terminal_ones_carry_args_and_env() -> None:
    methods = parse_auth_methods(
        [
            {"id": "oauth", "name": "Log in", "description": "Browser"},
            {
                "id": "tui",
                "name": "Terminal",
                "type": "terminal",
                "args": ["--login"],
                "env": {"A": "1"},
            },
            {"name": "no id"},
            "junk",
        ]
    )
    assert [(m.id, m.kind) for m in methods] == [("oauth", AGENT), ("tui", TERMINAL)]
    assert methods[0].by_authenticate and not methods[1].by_authenticate
    assert methods[1].args == ("--login",) and methods[1].env == (("A", "1"),)


def test_v2_methods_use_method_id_env_lists_and_require_a_type() -> None:
    methods = parse_auth_methods(
        [
            {"type": "agent", "methodId": "a", "name": "A"},
            {
                "type": "terminal",
                "methodId": "t",
                "name": "T",
                "env": [{"name": "X", "value": "y z"}],
            },
            {"methodId": "untyped", "name": "?"},
            {"type": "_vendor", "methodId": "v", "name": "V"},
        ],
        v2=True,
    )
    kinds = {m.id: m.kind for m in methods}
    assert kinds == {"a": "agent", "t": "terminal", "untyped": "unknown", "v": "_vendor"}
    assert [m.id for m in methods if m.by_authenticate] == ["a"]
    assert methods[1].env == (("X", "y z"),)


def test_env_var_methods_name_their_variables_and_are_never_sent_to_authenticate() -> None:
    (single, many) = parse_auth_methods(
        [
            {"id": "key", "name": "API key", "type": "env_var", "varName": "OPENAI_API_KEY"},
            {
                "id": "keys",
                "name": "Keys",
                "type": "env_var",
                "vars": [{"name": "A"}, {"name": "B"}],
            },
        ]
    )
    assert not single.by_authenticate and "OPENAI_API_KEY" in single.how()
    assert many.variables == ("A", "B") and "A, B" in many.how()


def test_bad_env_entries_are_dropped_not_passed_on() -> None:
    (method,) = parse_auth_methods(
        [{"id": "t", "type": "terminal", "env": {"OK": "1", "BAD=NAME": "x", "N": 3, "Z": "a\0b"}}]
    )
    assert method.env == (("OK", "1"),)


def test_terminal_login_is_the_agent_command_plus_args_with_the_methods_env_on_top(
    tmp_path: Path,
) -> None:
    (method,) = parse_auth_methods(
        [
            {
                "id": "t",
                "type": "terminal",
                "args": ["--login", "a b"],
                "env": {"MODE": "x y", "K": "m"},
            }
        ]
    )
    login = TerminalLogin.of(
        method, ["/opt/my agent/bin", "--acp"], str(tmp_path), {"K": "configured", "SECRET": "s3"}
    )
    assert login.argv == ["/opt/my agent/bin", "--acp", "--login", "a b"]
    env = login.environment({"PATH": "/bin", "K": "base"})
    assert env == {"PATH": "/bin", "K": "m", "MODE": "x y", "SECRET": "s3"}
    line = login.command_line()
    # The line a person can paste: quoted, the method's env spelt out, configured secrets not.
    assert "s3" not in line and login.hidden_env_names() == ["SECRET"]
    words = shlex.split(line)
    assert words[:3] == ["cd", str(tmp_path), "&&"]
    assert words[3:] == ["MODE=x y", "K=m", "/opt/my agent/bin", "--acp", "--login", "a b"]


def test_the_command_line_needs_no_cd_in_the_current_directory() -> None:
    (method,) = parse_auth_methods([{"id": "t", "type": "terminal"}])
    login = TerminalLogin.of(method, ["agent"], os.getcwd())
    assert login.command_line() == "agent"


def test_an_id_advertised_with_two_types_is_never_sent_anywhere() -> None:
    methods = parse_auth_methods(
        [{"id": "x", "name": "A"}, {"id": "x", "type": "terminal"}, {"id": "y"}, {"id": "y"}]
    )
    assert [(m.id, m.kind, m.by_authenticate) for m in methods] == [
        ("x", "ambiguous", False),
        ("y", "agent", True),
    ]


HOSTILE_WORD = "--x\x1b]0;OWNED\x07\x1b[2J\u202eevil\nnext 'q' \\ é 🙂"


def test_a_command_line_with_escapes_is_printable_and_reads_back_the_same(
    tmp_path: Path,
) -> None:
    """Round 3 of issue 17: the line "Running: …" is written to the real terminal while the TUI
    is suspended, and the method's args and env are the agent's: shlex quoting left an escape
    sequence (a window title, a screen clear) raw in it."""
    (method,) = parse_auth_methods(
        [{"id": "t", "type": "terminal", "args": [HOSTILE_WORD], "env": {"V": HOSTILE_WORD}}]
    )
    login = TerminalLogin.of(method, ["agent"], str(tmp_path))
    line = login.command_line()
    assert line.isprintable(), repr(line)
    # What a person pasting it into bash runs: the same words, byte for byte ("agent" is a
    # function here that prints what it got).
    show = "agent() { printf '%s\\0' \"$@\"; printf '%s' \"$V\"; }; "
    shown = subprocess.run(["bash", "-c", show + line], capture_output=True, check=True)
    assert shown.stdout.decode() == f"{HOSTILE_WORD}\0{HOSTILE_WORD}"


# What kimi-cli 1.51 advertises (claude-agent-acp and Zed spell it the same): no type, so an
# agent method, with the sign-in command in ``_meta["terminal-auth"]``. Its authenticate only
# checks for a token that the command makes: sent there first, the person was stuck.
KIMI_LOGIN = {
    "id": "login",
    "name": "Login with Kimi account",
    "description": "Run `kimi login` command in the terminal, then follow the instructions.",
    "_meta": {
        "terminal-auth": {
            "command": "/opt/kimi/bin/kimi",
            "args": ["login"],
            "label": "Kimi Code Login",
            "env": {"KIMI_X": "1"},
            "type": "terminal",
        }
    },
}


def test_a_terminal_auth_meta_makes_a_terminal_method_that_runs_its_command(
    tmp_path: Path,
) -> None:
    (method,) = parse_auth_methods([KIMI_LOGIN])
    assert method.kind == TERMINAL and not method.by_authenticate
    assert method.command == "/opt/kimi/bin/kimi"
    login = TerminalLogin.of(method, ["/opt/kimi/bin/kimi", "acp"], str(tmp_path), {"K": "v"})
    assert login.argv == ["/opt/kimi/bin/kimi", "login"]
    assert login.environment({}) == {"K": "v", "KIMI_X": "1"}


def test_a_malformed_terminal_auth_meta_leaves_the_method_as_advertised() -> None:
    for meta in ({"args": ["login"]}, {"command": ""}, {"command": 3}, "login", None):
        (method,) = parse_auth_methods([{"id": "m", "_meta": {"terminal-auth": meta}}])
        assert method.kind == AGENT and method.command == ""
    # An explicit type is the protocol's word: the meta does not override it.
    (method,) = parse_auth_methods([{**KIMI_LOGIN, "type": "env_var", "varName": "K"}])
    assert method.kind == "env_var"
