"""``python -m bench [NAME ...] [--runs N] [--quick] [--check] [--smoke] [--json FILE]``.

Runs the benchmarks and prints one table: median over the runs, spread (min-max), target,
✓/✗ and the closest peer's figure (Toad) where there is one. Two sections:

- **black-box** (issue 20): the installed ``acp-tui`` in a pseudo-terminal, timed by what its
  emulated screen shows (``bench/screen.py``), and the wire layer's throughput;
- **in-process (profiling)**: the app driven headless from inside (``App.run_test``), for
  finding where time goes; their targets (issue 11) are shown, not checked.

Each run of each benchmark happens in a fresh interpreter (``python -m bench.child NAME``); a
black-box run that hit its time limit is not repeated.
``--check`` exits 1 when a black-box target is missed (or a benchmark failed); ``--quick`` runs
the black-box set once on its cheap workloads with targets loosened by ``--margin`` (default 3):
the CI variant, under two minutes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from bench.common import ROOT, Metric, flag_word, format_number, machine_info, median

#: Benchmarks in the order the table shows them: ``module`` or ``module:attribute``.
BENCHMARKS: dict[str, str] = {
    "replies": "bench.screen:REPLIES",
    "chunk5mb": "bench.screen:CHUNK5MB",
    "chunk50mb": "bench.screen:CHUNK50MB",
    "word5mb": "bench.screen:WORD5MB",
    "word50mb": "bench.screen:WORD50MB",
    "chunks200k": "bench.screen:CHUNKS200K",
    "keys": "bench.screen:KEYS",
    "launch": "bench.screen:LAUNCH",
    "permission": "bench.screen:PERMISSION",
    "forms": "bench.screen:FORMS",
    "options": "bench.screen:OPTIONS1000",
    "replay190": "bench.screen:REPLAY190",
    "agents3": "bench.screen_agents:AGENTS3",
    "checkpoints": "bench.screen:CHECKPOINTS",
    "wire": "bench.bench_wire",
    "stream": "bench.bench_stream",
    "bursts": "bench.bench_bursts",
    "input": "bench.bench_input",
    "replay": "bench.bench_replay",
    "sessions": "bench.bench_sessions",
    "browser": "bench.bench_browser",
    "startup": "bench.bench_startup",
    "startcpu": "bench.bench_start_cpu",
    "memory": "bench.bench_memory",
    "store": "bench.bench_store",
    "search": "bench.bench_search",
}
PROFILING = (
    "in-process (profiling): the app headless via App.run_test; issue 11 targets, not checked"
)
DEFAULT_RUNS = 3
QUICK_MARGIN = 3.0
RUN_LIMIT = 900.0


def load(name: str) -> Any:
    module_name, _, attribute = BENCHMARKS[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


def section(benchmark: Any) -> str:
    return getattr(benchmark, "SECTION", PROFILING)


def checked(benchmark: Any) -> bool:
    """Whether ``--check`` judges its targets (issue 20's) or only shows them (profiling)."""
    return bool(getattr(benchmark, "CHECKED", False))


def run_once(name: str, smoke: bool, quick: bool) -> dict[str, float] | str:
    """One run in a fresh interpreter: its numbers, or why it failed."""
    argv = [sys.executable, "-m", "bench.child", name]
    argv += ["--smoke"] if smoke else []
    argv += ["--quick"] if quick else []
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
    return f"exit {done.returncode}: {tail[:300]}"


@dataclass
class Row:
    title: str
    label: str
    value: str
    unit: str
    spread: str
    target: str
    verdict: str
    toad: str
    #: "missed" (judged and missed), "met", "" (no target / not judged), "skipped".
    outcome: str


def summarise(
    metric: Metric, runs: list[dict[str, float]], margin: float
) -> tuple[str, str, str, str]:
    """Median text, spread text, verdict mark and outcome of one metric over the runs."""
    values = [r[metric.key] for r in runs if metric.key in r]
    if not values:
        return "—", "", "", "skipped"
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < len(values) and metric.target is not None and metric.target[0] == "<":
        # A run that did not finish within its own limit: the median is "worse than inf".
        values = [v if math.isfinite(v) else math.inf for v in values]
    mid = median(values)
    spread = ""
    if len(finite) > 1:
        low, high = min(finite), max(finite)
        spread = f"{format_number(low, metric.digits)}–{format_number(high, metric.digits)}"
    failed_flags = sorted(
        {flag_word(key) for key in metric.requires for r in runs if r.get(key, 1.0) < 1.0}
    )
    # Infinite: never happened, within the run's time limit or at all (a start not reached).
    never = "never" if failed_flags else "timeout"
    value = never if math.isinf(mid) else format_number(mid, metric.digits)
    if failed_flags:
        value += f" ({', '.join(failed_flags)})"
    if metric.target is None:
        return value, spread, "", ""
    if math.isnan(mid):
        return value, spread, "?", "missed"
    ok = metric.met(mid, margin) and not failed_flags
    return value, spread, "✓" if ok else "✗", "met" if ok else "missed"


def print_table(rows: list[Row], sections: list[tuple[str, int]]) -> None:
    headers = ("benchmark", "metric", "median", "unit", "min–max", "target", "", "Toad")
    cells = [
        (r.title, r.label, r.value, r.unit, r.spread, r.target, r.verdict, r.toad) for r in rows
    ]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    header = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()
    starts = {start: title for title, start in sections}
    previous = None
    for index, row in enumerate(cells):
        if index in starts:
            print(f"\n== {starts[index]}\n{header}\n{'-' * len(header)}")
            previous = None
        shown = list(row)
        if shown[0] == previous:
            shown[0] = ""
        else:
            previous = shown[0]
        print(
            "  ".join(
                c.rjust(w) if i == 2 else c.ljust(w)
                for i, (c, w) in enumerate(zip(shown, widths, strict=True))
            ).rstrip()
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"benchmarks to run (default: all; with --quick the black-box set): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--runs", type=int, help=f"runs per benchmark (default {DEFAULT_RUNS}, 1 with --quick)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the black-box set once, cheap workloads only, targets loosened by --margin",
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a black-box target is missed"
    )
    parser.add_argument(
        "--margin",
        type=float,
        help=f"loosen targets by this factor (default 1, {QUICK_MARGIN:g} with --quick)",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="tiny inputs: checks that everything runs"
    )
    parser.add_argument("--json", metavar="FILE", help="also write every run's numbers here")
    parser.add_argument(
        "--patches",
        metavar="SPEC",
        help="the Textual patches the app runs with, as ACP_TUI_PATCHES spells them "
        "(none, -compositor, ...); python -m bench.patches turns each off in turn",
    )
    options = parser.parse_args(argv)
    unknown = [name for name in options.names if name not in BENCHMARKS]
    if unknown:
        parser.error(
            f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}"
        )
    return options


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    if options.patches is not None:
        # Every run's interpreter, and the acp-tui it starts, inherit it.
        os.environ["ACP_TUI_PATCHES"] = options.patches
    names = options.names or [
        name
        for name in BENCHMARKS
        if not options.quick or (checked(load(name)) and getattr(load(name), "IN_QUICK", True))
    ]
    runs_wanted = options.runs or (1 if options.quick else DEFAULT_RUNS)
    margin = options.margin or (QUICK_MARGIN if options.quick else 1.0)

    info = machine_info()
    print(
        f"acp-tui benchmarks · {info['cpu']} · {info['cores']} cores · Python {info['python']}"
        f" · Textual {info['textual']} · {info['os']}"
    )
    mode = " · QUICK (cheap workloads)" if options.quick else ""
    mode += " · SMOKE (tiny inputs)" if options.smoke else ""
    mode += f" · targets loosened {margin:g}x" if margin != 1.0 else ""
    print(f"{runs_wanted} run(s) each, medians{mode}; a shared machine: numbers are noisy")
    from acp_tui.ui.textual_patches import from_environment

    patches = from_environment()
    print(
        "Textual patches on: "
        + (", ".join(sorted(patches.on)) or "none")
        + (f" ({patches.gated})" if patches.gated else "")
    )
    from bench.bench_wire import REFERENCE_LOADS_PER_S, machine_speed

    speed = machine_speed()
    info["json_loads_per_s"] = f"{speed:.0f}"
    print(
        f"this machine parses {speed:,.0f} wire lines/s with bare json.loads; issue 20's targets"
        f" were set on one doing {REFERENCE_LOADS_PER_S:,}/s"
        f" ({REFERENCE_LOADS_PER_S / speed:.1f}x this one's speed)"
    )

    rows: list[Row] = []
    sections: list[tuple[str, int]] = []
    failed: list[str] = []
    everything: dict[str, Any] = {"machine": info, "runs": runs_wanted, "results": {}}
    for name in sorted(
        names, key=lambda n: (section(load(n)) == PROFILING, list(BENCHMARKS).index(n))
    ):
        benchmark = load(name)
        if not sections or sections[-1][0] != section(benchmark):
            sections.append((section(benchmark), len(rows)))
        runs: list[dict[str, float]] = []
        failures: list[str] = []
        started = time.perf_counter()
        for _ in range(max(1, runs_wanted)):
            outcome = run_once(name, options.smoke, options.quick)
            if isinstance(outcome, str):
                failures.append(outcome)
                continue
            runs.append(outcome)
            if outcome.get("timed_out") and not getattr(benchmark, "REPEAT_AFTER_TIMEOUT", True):
                break  # the next run would time out too
        took = time.perf_counter() - started
        print(
            f"  {name}: {len(runs)} run(s) in {took:.1f} s"
            + (f"; failed: {failures[0]}" if failures else ""),
            file=sys.stderr,
            flush=True,
        )
        everything["results"][name] = {"runs": runs, "failures": failures}
        judged = checked(benchmark)
        if failures and judged:
            failed.append(f"{name}: {failures[0]}")
        for metric in benchmark.METRICS:
            value, spread, verdict, outcome_word = summarise(
                metric, runs, margin if judged else 1.0
            )
            rows.append(
                Row(
                    benchmark.TITLE,
                    metric.label,
                    value,
                    metric.unit,
                    spread,
                    metric.target_text(margin if judged else 1.0),
                    verdict,
                    metric.toad,
                    outcome_word if judged else "",
                )
            )
    print_table(rows, sections)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump(everything, handle, indent=2)
    if not options.check:
        return 0
    missed = [row for row in rows if row.outcome == "missed"]
    print()
    for row in missed:
        print(f"missed: {row.title}: {row.label}: {row.value} {row.unit} (target {row.target})")
    for failure in failed:
        print(f"failed: {failure}")
    if missed or failed:
        print(f"--check: {len(missed)} target(s) missed, {len(failed)} benchmark(s) failed")
        return 1
    print("--check: every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
