"""The benchmarks run and their checks can fail (no timing assertions: targets live in
``python -m bench --check``, not in the test suite).

- every in-process benchmark and the wire benchmark produce their numbers on tiny inputs;
- the black-box harness drives the installed acp-tui in a pty on a tiny workload and reads the
  reply, first and last words, off the emulated screen;
- a client that folds the reply fails the "nothing folded" check;
- ``--check`` exits 1 on a missed target and names it.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import bench.__main__ as runner
from bench.__main__ import BENCHMARKS, load, main
from bench.blackbox import drive
from bench.blackbox.terminal import PtyTerminal
from bench.common import Metric

FOLDING_CLIENT = Path(__file__).parent / "fake_clients" / "folding_client.py"
#: The black-box ones (bench.screen, bench.screen_agents) launch the app: not here.
PROFILING_AND_WIRE = [
    name for name in BENCHMARKS if not BENCHMARKS[name].startswith("bench.screen")
]


@pytest.mark.parametrize("name", PROFILING_AND_WIRE)
def test_benchmark_produces_numbers(name: str) -> None:
    module = load(name)
    result = module.measure(smoke=True)
    for metric in module.METRICS:
        assert metric.key in result, f"{name}: no {metric.key}"
        value = result[metric.key]
        assert isinstance(value, float), f"{name}: {metric.key} is {value!r}"
        assert not math.isnan(value), f"{name}: {metric.key} is NaN"


def test_runner_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "--runs", "1", "--smoke"]) == 0
    out = capsys.readouterr().out
    assert "updates/s" in out and "Python" in out and "Textual" in out and "Toad" in out


def test_the_harness_reads_what_a_program_draws() -> None:
    with PtyTerminal(["sh", "-c", "stty raw -echo; exec cat"], cols=40, rows=5) as term:
        term.start()
        watch = term.expect(lambda rows: any("hello" in row for row in rows))
        sent = term.type("hello")
        shown = term.settle(watch, 10, "the echo")
        assert shown >= sent
        assert "hello" in term.text()


def test_the_app_is_launched_with_the_benchmarks_environment_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the harness takes out of its own environment stays out of the app's: bytecode is
    written to the benchmarks' cache (a sandbox's ``PYTHONDONTWRITEBYTECODE=1`` came back and
    had a fresh install compile every module at each launch: 2.3-3.5 s against 1.1-1.2 s), and
    a ``COLUMNS`` of the run does not size the app."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("COLUMNS", "80")
    script = (
        'echo "[${PYTHONDONTWRITEBYTECODE-unset}] [${COLUMNS-unset}]'
        ' [${PYTHONPYCACHEPREFIX-unset}]"; exec cat'
    )
    with drive.launch([], program=["sh", "-c", script]) as run:
        run.term.wait_for(f"[unset] [unset] [{drive.PYCACHE}]", 10)


def test_a_tiny_reply_is_timed_on_the_screen_of_the_installed_app() -> None:
    result = drive.reply("tiny", paced=False, limit=60, top_limit=30)
    assert math.isfinite(result["enter_s"]) and result["enter_s"] > 0
    assert math.isfinite(result["after_end_s"])
    assert result["reached"] == 1.0, "the first words were not reached by scrolling"
    assert result["unfolded"] == 1.0, "a fold row was on the screen"
    assert result["rss_mb"] > 10


def test_a_folded_reply_misses_the_target() -> None:
    client = [sys.executable, str(FOLDING_CLIENT)]
    result = drive.reply("tiny", paced=False, limit=30, top_limit=2, program=client)
    assert math.isfinite(result["enter_s"])  # the last word did show ...
    assert result["reached"] == 0.0  # ... but never the first ones
    assert result["unfolded"] == 0.0
    metric = Metric("tiny_s", "tiny", "s", ("<", 1.5), requires=("tiny_unfolded", "tiny_reached"))
    run = {"tiny_s": 0.1, "tiny_unfolded": result["unfolded"], "tiny_reached": result["reached"]}
    value, _, verdict, outcome = runner.summarise(metric, [run], 1.0)
    assert (verdict, outcome) == ("✗", "missed")
    assert "folded" in value and "start not reached" in value


def test_check_exits_1_on_a_missed_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run_once(name: str, smoke: bool, quick: bool) -> dict[str, float]:
        return {"launch_s": 5.0, "resume_s": 0.5}

    monkeypatch.setattr(runner, "run_once", run_once)
    assert main(["launch", "--runs", "1", "--check"]) == 1
    missed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("missed:")]
    assert len(missed) == 1 and "spawn -> agent ready" in missed[0]

    monkeypatch.setattr(runner, "run_once", lambda *a: {"launch_s": 0.5, "resume_s": 0.5})
    assert main(["launch", "--runs", "1", "--check"]) == 0


def test_both_harnesses_run_the_app_isolated_and_told_the_truth_about_its_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The benchmarks and the journeys share one home and environment (bench.blackbox.home):
    nothing of the real user's, and no inherited size or Textual setting that would lie."""
    from bench.blackbox.home import isolated_env
    from tests.journeys.terminal import Terminal, server_environment

    for name, value in {"COLUMNS": "80", "LINES": "24", "TEXTUAL_DRIVER": "x", "TMUX": "t"}.items():
        monkeypatch.setenv(name, value)
    journey = Terminal(tmp_path / "journey")
    bench_env = {**drive.base_env(), **drive.app_env(tmp_path / "bench")}
    # The benchmarks' runs share one cache directory, as a person's launches do (the parsed
    # stylesheets); still not the real user's.
    bench_home = {**isolated_env(tmp_path / "bench"), "XDG_CACHE_HOME": str(drive.APP_CACHE)}
    assert {name: bench_env[name] for name in bench_home} == bench_home
    journey_home = isolated_env(tmp_path / "journey")
    assert {name: journey.env[name] for name in journey_home} == journey_home
    for environment in (bench_env, journey.env, server_environment()):
        assert not {"COLUMNS", "LINES", "TEXTUAL_DRIVER", "TMUX"} & set(environment)
    assert (tmp_path / "journey" / "config" / "acp-tui").is_dir()


def test_the_options_benchmark_waits_for_what_the_bar_draws() -> None:
    """The bar's "N more" glyph changed once (⚙ drawn two cells wide by some terminals) and the
    benchmark waited for the old one until CI's check timed out."""
    from acp_tui.ui.widgets.chat_bar import ChatBar

    assert drive.MORE_OPTIONS.fullmatch(ChatBar._more_label(7))
