"""`acp-tui ask --review-writes` never blocks on a review (issue 40): nobody can review there,
so --allow writes the file as sent and anything else rejects the write; stderr says which.
Against the demo agent and the official SDK's agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_headless_rules import DEMO_AGENT, SDK_AGENT, ask

LINES = "".join(f"line {number}\n" for number in range(1, 31))
AGENTS = {
    "demo": (DEMO_AGENT, "/rewrite review.txt", "review.txt"),
    "sdk": (SDK_AGENT, "please rewritefile", "sdk-review.txt"),
}


@pytest.mark.parametrize("agent", AGENTS)
def test_allow_writes_and_says_so(tmp_path: Path, agent: str) -> None:
    argv, prompt, name = AGENTS[agent]
    (tmp_path / name).write_text(LINES)
    code, _out, err = ask(tmp_path, prompt, "--review-writes", "--allow", agent=argv)
    assert code == 0, err
    assert (tmp_path / name).read_text() != LINES
    assert f"Wrote {name} unreviewed (--allow)" in err


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("flag", [(), ("--deny",)], ids=["no flag", "deny"])
def test_otherwise_the_write_is_rejected_and_said(
    tmp_path: Path, agent: str, flag: tuple[str, ...]
) -> None:
    argv, prompt, name = AGENTS[agent]
    (tmp_path / name).write_text(LINES)
    code, out, err = ask(tmp_path, prompt, "--review-writes", *flag, agent=argv)
    assert code == 0, err
    assert (tmp_path / name).read_text() == LINES
    assert f"Rejected the write of {name}: writes are reviewed" in err
    assert "The user rejected this write" in out  # what the agent was told, as it says it


def test_without_the_flag_nothing_is_reviewed(tmp_path: Path) -> None:
    (tmp_path / "review.txt").write_text(LINES)
    code, out, err = ask(tmp_path, "/rewrite review.txt", agent=DEMO_AGENT)
    assert code == 0, err
    assert "revised by the demo agent" in (tmp_path / "review.txt").read_text()
    assert "as I sent it" in out
