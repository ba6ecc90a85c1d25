"""`acp-tui ask` applies the permission rules: after --deny, before --allow; each answer a
rule gave is said on stderr and in the --json event; a malformed rules file is reported and
applies nothing. Against the official SDK's agent and the demo agent."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from acp_tui.cli import headless
from acp_tui.cli.headless import Output
from acp_tui.cli.parse import parse
from acp_tui.config import locations

AGENTS = Path(__file__).parent / "agents"
SDK_AGENT = [sys.executable, str(AGENTS / "sdk_agent.py")]
DEMO_AGENT = [sys.executable, "-m", "acp_tui.demo_agent"]

EDIT_RULE = '[[rule]]\ndecision = "{decision}"\nkind = "edit"\ntitle = "Edit *"\n'


def write_rules(text: str) -> Path:
    path = locations.rules_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def ask(tmp_path: Path, *args: str, agent: list[str] = SDK_AGENT) -> tuple[int, str, str]:
    output = Output(io.StringIO(), io.StringIO())
    invocation = parse(["ask", *args, "--cwd", str(tmp_path), "--", *agent])
    code = headless.run_ask(invocation, output)
    return code, output.out.getvalue(), output.err.getvalue()  # type: ignore[attr-defined]


def events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_an_allow_rule_answers_without_allow(tmp_path: Path) -> None:
    write_rules(EDIT_RULE.format(decision="allow"))
    code, out, err = ask(tmp_path, "needs permission")
    assert code == 0, err
    assert out == "outcome: allow\n"  # allow_once, not the "always" option offered too
    assert (
        "[permission] Edit src/app.py: allowed (Allow once) by rule: edit titled `Edit *` "
        "everywhere" in err.splitlines()
    )


def test_deny_wins_over_the_rules_and_rules_win_over_allow(tmp_path: Path) -> None:
    write_rules(EDIT_RULE.format(decision="allow"))
    code, out, _ = ask(tmp_path, "needs permission", "--deny")
    assert (code, out) == (0, "outcome: reject\n")
    write_rules(EDIT_RULE.format(decision="deny"))
    code, out, err = ask(tmp_path, "needs permission", "--allow")
    assert (code, out) == (0, "outcome: reject\n")
    assert "rejected (Reject) by rule: edit titled `Edit *` everywhere" in err


def test_an_ask_rule_is_rejected_with_nobody_to_ask(tmp_path: Path) -> None:
    write_rules(EDIT_RULE.format(decision="ask"))
    code, out, _ = ask(tmp_path, "needs permission", "--allow")
    assert (code, out) == (0, "outcome: reject\n")


def test_the_json_permission_event_names_the_rule(tmp_path: Path) -> None:
    path = write_rules("# mine\n\n" + EDIT_RULE.format(decision="allow"))
    code, out, err = ask(tmp_path, "needs permission", "--json")
    assert code == 0, err
    (permission,) = [e for e in events(out) if e["type"] == "permission"]
    assert permission["optionId"] == "allow" and permission["optionKind"] == "allow_once"
    assert permission["rule"] == {
        "decision": "allow",
        "rule": "edit titled `Edit *` everywhere",
        "file": str(path),
        "line": 3,
    }
    # An answer no rule gave says so.
    write_rules("")
    _, out, _ = ask(tmp_path, "needs permission", "--json", "--allow")
    (permission,) = [e for e in events(out) if e["type"] == "permission"]
    assert permission["rule"] is None and permission["optionId"] == "allow"


def test_a_malformed_rules_file_is_reported_and_applies_nothing(tmp_path: Path) -> None:
    path = write_rules(EDIT_RULE.format(decision="allow") + 'kind = "edit"\n')
    code, out, err = ask(tmp_path, "needs permission")
    assert (code, out) == (0, "outcome: reject\n")
    assert f"acp-tui: {path}, line 5: not valid TOML" in err
    assert "None of its rules apply" in err


def test_the_demo_agent_s_command_is_allowed_by_its_glob(tmp_path: Path) -> None:
    write_rules(
        '[[rule]]\ndecision = "allow"\nkind = "execute"\ncommand = "echo rules*"\n'
        f"project = {json.dumps(str(tmp_path))}\n"
    )
    code, out, err = ask(tmp_path, "/run echo rules work", agent=DEMO_AGENT)
    assert code == 0, err
    assert "rules work" in out
    assert "allowed (Allow once) by rule: execute `echo rules*` in" in err
    # Not the same command, not allowed.
    code, out, err = ask(tmp_path, "/run echo other; echo rules", agent=DEMO_AGENT)
    assert "did not run it" in out
