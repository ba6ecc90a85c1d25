"""``python -m bench.child NAME [--smoke] [--quick]``: one run of one benchmark in this
interpreter; prints ``BENCH-RESULT {json}`` as its last line for the runner."""

from __future__ import annotations

import inspect
import json
import sys

from bench.__main__ import load
from bench.common import isolate_dirs


def main() -> int:
    name = sys.argv[1]
    smoke = "--smoke" in sys.argv[2:]
    quick = "--quick" in sys.argv[2:]
    isolate_dirs()
    measure = load(name).measure
    if "quick" in inspect.signature(measure).parameters:
        result = measure(smoke=smoke, quick=quick)
    else:  # the in-process benchmarks have no quick variant
        result = measure(smoke=smoke)
    print("BENCH-RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
