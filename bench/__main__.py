"""``python -m bench [NAME ...] [--runs N] [--smoke] [--json FILE]``: run the benchmarks.

Each run of each benchmark happens in a fresh interpreter (``python -m bench.child NAME``), so
start-up costs and peak RSS belong to that benchmark alone. The table shows the median over
the runs, the spread (min-max), the target and ✓/✗. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import subprocess
import sys
import time
from typing import Any

from bench.common import ROOT, Metric, format_number, machine_info, median

#: Benchmark modules in the order the table shows them.
BENCHMARKS: dict[str, str] = {
    "stream": "bench.bench_stream",
    "bursts": "bench.bench_bursts",
    "input": "bench.bench_input",
    "replay": "bench.bench_replay",
    "sessions": "bench.bench_sessions",
    "startup": "bench.bench_startup",
    "memory": "bench.bench_memory",
    "store": "bench.bench_store",
    "permission": "bench.bench_permission",
}
DEFAULT_RUNS = 3
RUN_LIMIT = 600.0


def load(name: str) -> Any:
    return importlib.import_module(BENCHMARKS[name])


def run_once(name: str, smoke: bool) -> dict[str, float] | str:
    """One run in a fresh interpreter: its numbers, or why it failed."""
    argv = [sys.executable, "-m", "bench.child", name] + (["--smoke"] if smoke else [])
    try:
        done = subprocess.run(
            argv, cwd=ROOT, capture_output=True, text=True, timeout=RUN_LIMIT, check=False
        )
    except subprocess.TimeoutExpired:
        return f"no result within {RUN_LIMIT:.0f} s"
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("BENCH-RESULT "):
            return {k: float(v) for k, v in json.loads(line[len("BENCH-RESULT ") :]).items()}
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"exit {done.returncode}: {tail[:200]}"


def summarise(metric: Metric, runs: list[dict[str, float]]) -> tuple[str, str, str]:
    values = [r[metric.key] for r in runs if metric.key in r]
    if not values:
        return "n/a", "", ""
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < len(values) and metric.target is not None and metric.target[0] == "<":
        # A run that did not finish within its own limit: the median is "worse than inf".
        values = [v if math.isfinite(v) else math.inf for v in values]
    mid = median(values)
    spread = ""
    if len(finite) > 1:
        spread = f"{format_number(min(finite), metric.digits)}–{format_number(max(finite), metric.digits)}"
    value = "timeout" if math.isinf(mid) else format_number(mid, metric.digits)
    return value, spread, metric.verdict(mid) if not math.isnan(mid) else "?"


def print_table(rows: list[tuple[str, str, str, str, str, str, str]]) -> None:
    headers = ("benchmark", "metric", "median", "unit", "min–max", "target", "")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("-" * len(line))
    previous = None
    for row in rows:
        cells = list(row)
        if cells[0] == previous:
            cells[0] = ""
        else:
            previous = cells[0]
        print(
            "  ".join(
                c.ljust(w) if i != 2 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=DEFAULT_RUNS,
        help=f"runs per benchmark; the table shows medians (default {DEFAULT_RUNS})",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny inputs: checks that everything runs, numbers mean nothing",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every run's numbers here")
    options = parser.parse_args(argv)
    names = options.names or list(BENCHMARKS)
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        parser.error(
            f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}"
        )

    info = machine_info()
    print(
        f"acp-tui benchmarks · {info['cpu']} · {info['cores']} cores · Python {info['python']}"
        f" · Textual {info['textual']} · {info['os']}"
    )
    print(
        f"{options.runs} run(s) each, medians{' · SMOKE (tiny inputs)' if options.smoke else ''}\n"
    )
    rows: list[tuple[str, str, str, str, str, str, str]] = []
    everything: dict[str, Any] = {"machine": info, "runs": options.runs, "results": {}}
    for name in names:
        module = load(name)
        runs: list[dict[str, float]] = []
        failures: list[str] = []
        started = time.perf_counter()
        for _ in range(max(1, options.runs)):
            outcome = run_once(name, options.smoke)
            if isinstance(outcome, str):
                failures.append(outcome)
            else:
                runs.append(outcome)
        took = time.perf_counter() - started
        print(
            f"  {name}: {len(runs)} run(s) in {took:.1f} s"
            + (f"; failed: {failures[0]}" if failures else ""),
            file=sys.stderr,
        )
        everything["results"][name] = {"runs": runs, "failures": failures}
        for metric in module.METRICS:
            value, spread, verdict = summarise(metric, runs)
            rows.append(
                (
                    module.TITLE,
                    metric.label,
                    value,
                    metric.unit,
                    spread,
                    metric.target_text(),
                    verdict,
                )
            )
    print_table(rows)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump(everything, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
