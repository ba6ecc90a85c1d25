"""Wire throughput (issue 20): 50,000 ``agent_message_chunk`` lines parsed and applied to the
store, against bare ``json.loads`` of the same lines.

In-process and without a UI by nature: this is the ceiling every black-box number sits under.
The lines are the demo agent's ``/flood`` bytes (20 characters of Markdown each), served from
memory in pipe-sized reads through the real :class:`Connection` (traffic recording on, as in
the app) into a :class:`SessionStore`. Best of 5 each.
"""

from __future__ import annotations

import asyncio
import json
import time

from bench.bench_stream import CHUNK_BYTES, flood_lines, wire_seconds
from bench.common import Metric
from bench.screen import SECTION  # noqa: F401  (the runner reads it)

NAME = "wire"
TITLE = "Wire: 50,000 chunks (in-process, no UI)"
CHUNKS = 50_000
SMOKE_CHUNKS = 500
ROUNDS = 5
CHECKED = True

METRICS = [
    Metric(
        "wire_chunks_per_s",
        "parsed (Connection) and applied to the store",
        "chunks/s",
        (">", 150_000),
    ),
    Metric("loads_chunks_per_s", "bare json.loads of the same lines", "chunks/s"),
    Metric("wire_over_loads", "ratio: wire time / json.loads time", "x", ("<", 3.0), digits=1),
]


def loads_seconds(data: bytes) -> float:
    lines = data.splitlines()
    loads = json.loads
    started = time.perf_counter()
    for line in lines:
        loads(line)
    return time.perf_counter() - started


#: Bare ``json.loads`` of the wire lines on the machine issue 20 was written on (lines/s).
REFERENCE_LOADS_PER_S = 466_000


def machine_speed(lines: int = 50_000, rounds: int = 5) -> float:
    """This machine's speed, as lines of the wire parsed by bare ``json.loads`` a second
    (best of ``rounds``): the time targets were set on a machine doing
    :data:`REFERENCE_LOADS_PER_S`, so a slower one reads them in that light."""
    data, _text = flood_lines(lines, CHUNK_BYTES)
    return lines / min(loads_seconds(data) for _ in range(rounds))


def measure(smoke: bool = False, quick: bool = False) -> dict[str, float]:
    chunks = SMOKE_CHUNKS if smoke else CHUNKS
    data, text = flood_lines(chunks, CHUNK_BYTES)
    rounds = 1 if smoke else ROUNDS
    wire = min(asyncio.run(wire_seconds(data, text)) for _ in range(rounds))
    loads = min(loads_seconds(data) for _ in range(rounds))
    return {
        "wire_chunks_per_s": chunks / wire,
        "loads_chunks_per_s": chunks / loads,
        "wire_over_loads": wire / loads,
    }
