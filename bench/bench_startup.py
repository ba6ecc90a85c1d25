"""Start-up: process start to the first frame with the prompt focused, ``acp-tui --demo`` in a
pseudo-terminal (the real driver, the real demo agent); and the import time of
``acp_tui.protocol`` alone in a fresh interpreter. A bare ``python -c pass`` is shown for scale.

The launch is timed twice. As installed: Python's bytecode caches are used and written, into a
private ``PYTHONPYCACHEPREFIX`` (after one untimed warm-up launch), as for a pip-installed
acp-tui. And as the environment is: with ``PYTHONDONTWRITEBYTECODE=1`` (set in some sandboxes
and containers) and no ``.pyc`` in the checkout, every acp_tui module is compiled from source
at each launch, which costs some 60-90 ms on 2 cores.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import ROOT, Metric, median

NAME = "startup"
TITLE = "Start-up (acp-tui --demo in a pty)"
LAUNCHES = 3
IMPORTS = 5

METRICS = [
    Metric(
        "first_frame_ms",
        "process start -> first frame, prompt focused",
        "ms",
        ("<", 600.0),
        digits=0,
    ),
    Metric(
        "first_frame_env_ms",
        "the same, bytecode caches as in this environment",
        "ms",
        digits=0,
    ),
    Metric(
        "import_protocol_ms",
        "import acp_tui.protocol (client, jsonrpc, process, stdio)",
        "ms",
        ("<", 150.0),
        digits=1,
    ),
    Metric(
        "import_schema_ms",
        "import acp_tui.wire.schema (the wire declaration, TypedDicts)",
        "ms",
        digits=1,
    ),
    Metric("import_app_ms", "import acp_tui.ui.app", "ms", digits=0),
    Metric("python_ms", "bare interpreter start (python -c pass)", "ms", digits=0),
]


def _drain(fd: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


#: Bytecode caches of the "as installed" launches: kept between runs (a ``.pyc`` is checked
#: against its source, so a stale one is never used).
PYCACHE = Path(tempfile.gettempdir()) / "acp-tui-bench-pycache"


def first_frame_ms(installed: bool = True) -> float:
    """One launch. ``installed``: with bytecode caches (see the module docstring); else with
    the environment as it is."""
    mark = Path(tempfile.mkdtemp(prefix="acp-tui-bench-start-")) / "mark"
    env = dict(
        os.environ, ACP_TUI_BENCH_MARK=str(mark), TERM="xterm-256color", COLUMNS="120", LINES="40"
    )
    if installed:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    master, slave = pty.openpty()
    stop = threading.Event()
    reader = threading.Thread(target=_drain, args=(master, stop), daemon=True)
    reader.start()
    cwd = mark.parent
    t0 = time.time()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "startup_probe.py"), "--demo"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    finally:
        os.close(slave)
        stop.set()
        os.close(master)
    if not mark.exists():
        raise RuntimeError(
            f"acp-tui --demo never showed a focused prompt (exit {process.returncode})"
        )
    return (float(mark.read_text()) - t0) * 1000


def timed_python(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return (time.perf_counter() - t0) * 1000


#: The package's ``__init__`` is empty, so "acp_tui.protocol alone" means its modules too.
#: ``schema`` (the wire declaration) is timed apart as well.
PROTOCOL_MODULES = (
    "acp_tui.protocol.client, acp_tui.protocol.jsonrpc, acp_tui.protocol.process, "
    "acp_tui.protocol.stdio"
)


def import_ms(modules: str = PROTOCOL_MODULES) -> float:
    code = (
        "import time; t = time.perf_counter(); import acp_tui.protocol; "
        f"import {modules}; print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip())


def measure(smoke: bool = False) -> dict[str, float]:
    launches = 1 if smoke else LAUNCHES
    imports = 1 if smoke else IMPORTS
    if not smoke:
        first_frame_ms()  # warm-up: fills the bytecode caches
    return {
        "first_frame_ms": median([first_frame_ms() for _ in range(launches)]),
        "first_frame_env_ms": median([first_frame_ms(installed=False) for _ in range(launches)]),
        "import_protocol_ms": median([import_ms() for _ in range(imports)]),
        "import_schema_ms": median([import_ms("acp_tui.wire.schema") for _ in range(imports)]),
        "import_app_ms": median([import_ms("acp_tui.ui.app") for _ in range(imports)]),
        "python_ms": median([timed_python("pass") for _ in range(imports)]),
    }
