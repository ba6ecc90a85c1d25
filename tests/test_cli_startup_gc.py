"""The command line loads the UI with the garbage collector off (the objects made then live as
long as the app) and the app turns it on as it starts, with those objects frozen; whatever
happens in between, the collector is on again when ``main`` returns."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from acp_tui.cli import main as cli_main
from acp_tui.cli import tui


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def test_the_ui_loads_with_collection_off_and_main_turns_it_back_on(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []

    def fake_run_tui(invocation: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(tui, "run_tui", fake_run_tui)
    assert cli_main.main(["--", "some-agent"]) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_collection_is_back_on_when_loading_the_ui_fails(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_run_tui(invocation: object) -> int:
        raise RuntimeError("no terminal")

    monkeypatch.setattr(tui, "run_tui", failing_run_tui)
    with pytest.raises(RuntimeError):
        cli_main.main(["--", "some-agent"])
    assert gc.isenabled()


def test_an_early_exit_of_the_ui_path_leaves_collection_on(
    collector_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main.main(["--agent", "no-such-agent-here"]) == 2
    assert gc.isenabled()


def test_the_app_start_turns_collection_on_with_the_start_up_objects_frozen(
    collector_on: None,
) -> None:
    frozen_before = gc.get_freeze_count()
    gc.disable()
    kept = [[index] for index in range(10)]  # tracked containers, alive through the freeze
    tui.settle_long_lived_objects()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(kept)


def test_the_command_line_prepares_the_app_it_runs(collector_on: None) -> None:
    """The TUI and a replay both run their app so: collection on with the start-up objects
    frozen, full collections kept for the person's pauses, the first reply's modules warmed
    up in the background."""
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.ui.app import make_app
    from acp_tui.ui.collector import IdleCollector

    app = make_app(AppSettings())
    assert app.collector is None and not app.warm_up
    gc.disable()
    tui.prepare_to_run(app)
    assert gc.isenabled()
    assert isinstance(app.collector, IdleCollector)
    assert app.warm_up
