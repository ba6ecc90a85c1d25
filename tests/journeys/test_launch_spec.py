"""One launch spec (issue 37), as a person starts agents: an agent picked in the launcher is
started with all of its settings (its ``protocol`` and ``client_files`` were lost there), and
two configured agents of one command line (two accounts) both run (they were one agent, and
the second never started). The agents write down what they were sent
(tests/agents/recording_agent.py)."""

from __future__ import annotations

from collections.abc import Callable

from tests.journeys.terminal import Terminal
from tests.launch_helpers import Recorder


def recorder(term: Terminal) -> Recorder:
    return Recorder(term.home / "work", term.home / "config" / "acp-tui" / "config.toml")


def test_an_agent_picked_in_the_launcher_has_all_its_settings(
    terminal: Callable[..., Terminal],
) -> None:
    term = terminal()
    agents = recorder(term)
    term.start([], cwd=agents.root)
    term.wait_for("Recorder one")
    term.press("Enter")
    term.wait_for("Message the agent")
    term.send("hi")
    term.wait_for("You said: hi")
    (run,) = agents.runs()
    initialize = run[0]["params"]
    assert initialize["protocolVersion"] == 2
    assert initialize["clientCapabilities"]["fs"] == {"readTextFile": False, "writeTextFile": False}
    new = next(record["params"] for record in run if record["method"] == "session/new")
    assert new["cwd"] == str(agents.project)
    assert new["additionalDirectories"] == [str(agents.extra)]
    term.press("C-q")
    term.wait_exit()


def test_two_accounts_of_one_program_both_run(terminal: Callable[..., Terminal]) -> None:
    term = terminal(80, 24)
    agents = recorder(term)
    term.start(["--agent", "one", "--agent", "two"], cwd=agents.root)
    term.wait_for("Message the agent")
    term.wait_until(
        lambda _screen: (
            {record["account"] for record in agents.records() if record["method"] == "initialize"}
            == {"one", "two"}
        ),
        "both agents to start",
    )
    term.press("C-q")
    term.wait_exit()
