"""``python -m bench.blackbox.floor [KEYS]``: the floor of each way of reading a real terminal,
measured the same way: a key sent to ``cat`` in a raw tty -> the character on the screen.

- **pty + pyte** (what the benchmarks use): the key written to the pty master, the echo read
  back, parsed by pyte, the screen condition checked on arrival;
- **tmux** (what the journey tests use): ``send-keys`` then ``capture-pane -p`` polled as fast
  as it answers (a process per look).

Prints p50 / p95 / max in ms for each, so the choice stays a measurement, not a belief.
"""

from __future__ import annotations

import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
import uuid

from bench.blackbox.drive import harness_floor
from bench.common import percentile

CAT = "stty raw -echo; exec cat"


def tmux_floor(keys: int) -> list[float]:
    socket = f"acp-bench-floor-{uuid.uuid4().hex[:8]}"
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as conf:
        conf.write("set -g status off\nset -g escape-time 0\n")

    def tmux(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", socket, "-f", conf.name, *args],
            capture_output=True,
            text=True,
            check=False,
        )

    latencies: list[float] = []
    tmux("new-session", "-d", "-s", "floor", "-x", "120", "-y", "40", "sh", "-c", CAT)
    try:
        time.sleep(0.3)
        rng = random.Random(7)
        typed = ""
        for _ in range(keys):
            char = rng.choice(string.ascii_lowercase)
            typed += char
            sent = time.perf_counter()
            tmux("send-keys", "-t", "floor", "-l", char)
            while typed[-8:] not in tmux("capture-pane", "-p", "-t", "floor").stdout:
                if time.perf_counter() - sent > 5:
                    raise RuntimeError("tmux never showed the key")
            latencies.append((time.perf_counter() - sent) * 1000)
    finally:
        tmux("kill-server")
    return latencies


def report(name: str, latencies: list[float]) -> None:
    print(
        f"{name:12s} p50 {statistics.median(latencies):7.2f} ms   "
        f"p95 {percentile(latencies, 95):7.2f} ms   max {max(latencies):7.2f} ms"
    )


def main() -> int:
    keys = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    report("pty + pyte", harness_floor(keys))
    if shutil.which("tmux"):
        report("tmux", tmux_floor(keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
