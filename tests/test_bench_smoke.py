"""Each benchmark runs on a tiny input and produces its numbers (no timing assertions)."""

from __future__ import annotations

import math

import pytest

from bench.__main__ import BENCHMARKS, load, main


@pytest.mark.parametrize("name", list(BENCHMARKS))
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
    assert "updates/s" in out and "Python" in out and "Textual" in out
