"""The catalogue of well-known ACP agents and their detection on PATH."""

from __future__ import annotations

from acp_tui.config.known_agents import KNOWN_AGENTS, detect_agents


def test_catalogue_has_the_command_lines_agents_need() -> None:
    lines = {agent.command_line for agent in KNOWN_AGENTS}
    for expected in (
        "gemini --experimental-acp",
        "claude-agent-acp",
        "codex-acp",
        "goose acp",
        "kimi acp",
        "vibe-acp",
        "fast-agent acp",
        "opencode acp",
    ):
        assert expected in lines
    ids = [agent.id for agent in KNOWN_AGENTS]
    assert len(ids) == len(set(ids))


def test_detect_finds_only_what_is_on_path() -> None:
    on_path = {"goose": "/usr/bin/goose", "codex-acp": "/opt/bin/codex-acp"}
    found = detect_agents(path_lookup=on_path.get)
    assert [agent.argv for agent in found] == [["codex-acp"], ["goose", "acp"]]


def test_detect_with_nothing_on_path() -> None:
    assert detect_agents(path_lookup=lambda name: None) == []


def test_detect_survives_a_failing_lookup() -> None:
    def lookup(name: str) -> str | None:
        if name == "gemini":
            raise PermissionError(name)
        return "/bin/" + name if name == "kimi" else None

    assert [agent.id for agent in detect_agents(path_lookup=lookup)] == ["kimi"]
