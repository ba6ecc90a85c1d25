"""``python -m bench.patches [NAME ...] [--runs N] [--quick] [--patch P ...]``: what each Textual
patch still buys.

Runs the named benchmarks (default: ``launch keys chunk5mb``) with every patch on, with each
patch off in turn (``ACP_TUI_PATCHES=-name``) and with every patch off (``none``), round after
round, each run in a fresh interpreter as ``python -m bench`` does, and prints one Markdown table: a row per
metric, a column per configuration, the median of the runs, or for a CPU time (``*_cpu_s``) the
least of them: other work on the machine only adds to it (bench/README.md keeps the results).
Patches that change no timing (a bug worked around) are still run: their column shows that.
``--patch`` limits the configurations to those patches (besides all on and all off).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from bench.__main__ import BENCHMARKS, load, run_once
from bench.common import format_number, machine_info, median

DEFAULT_NAMES = ("launch", "keys", "chunk5mb")
ENV = "ACP_TUI_PATCHES"


def configurations(only: list[str]) -> list[tuple[str, str]]:
    """(column title, ``ACP_TUI_PATCHES`` value): all on, each patch off, all off."""
    from acp_tui.ui.textual_patches import PATCHES

    names = only or list(PATCHES)
    return [("all on", "all"), *((f"-{name}", f"-{name}") for name in names), ("all off", "none")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.patches", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks (python -m bench)")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration (3)")
    parser.add_argument("--quick", action="store_true", help="the benchmarks' cheap workloads")
    parser.add_argument("--patch", action="append", default=[], help="only this patch off")
    options = parser.parse_args(argv)
    names = options.names or list(DEFAULT_NAMES)
    unknown = [name for name in [*names] if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    from acp_tui.ui.textual_patches import PATCHES

    wrong = [name for name in options.patch if name not in PATCHES]
    if wrong:
        parser.error(f"no such patch: {', '.join(wrong)} (the patches: {', '.join(PATCHES)})")
    info = machine_info()
    print(
        f"acp-tui benchmarks, each Textual patch off in turn · {info['cpu']} · "
        f"{info['cores']} cores · Python {info['python']} · Textual {info['textual']} · "
        f"{options.runs} run(s) each, medians"
    )
    columns = configurations(options.patch)
    results: dict[tuple[str, str], list[dict[str, float]]] = {
        (title, name): [] for title, _ in columns for name in names
    }
    saved = os.environ.get(ENV)
    try:
        # Round after round of every configuration, not all runs of one after the other: the
        # machine's speed drifts (other work comes and goes), and so each column sees it alike.
        for round_number in range(1, options.runs + 1):
            started = time.perf_counter()
            for title, spec in columns:
                os.environ[ENV] = spec
                for name in names:
                    outcome = run_once(name, smoke=False, quick=options.quick)
                    if isinstance(outcome, str):
                        print(f"  {title} {name}: failed: {outcome}", file=sys.stderr)
                        continue
                    results[(title, name)].append(outcome)
            print(
                f"  round {round_number} of {options.runs}: {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved
    header = ["metric", *(title for title, _ in columns)]
    print("\n| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for name in names:
        for metric in load(name).METRICS:
            cells = []
            for title, _ in columns:
                values = [run[metric.key] for run in results[(title, name)] if metric.key in run]
                summary = min if metric.key.endswith("_cpu_s") else median
                cells.append(format_number(summary(values), metric.digits) if values else "—")
            least = ", least of the runs" if metric.key.endswith("_cpu_s") else ""
            label = f"{load(name).TITLE}: {metric.label} ({metric.unit}{least})"
            print("| " + " | ".join([label, *cells]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
