"""A stand-in for acp-tui that folds: on Enter it shows the reply's last words under a fold row
and never its first words, whatever keys come next. The black-box benchmarks must call that a
miss (tests/test_bench_smoke.py). Plain ANSI on a raw tty; the agent's marks are written here.

``python folding_client.py -- AGENT... --marks FILE`` (the arguments acp-tui would get).
"""

from __future__ import annotations

import json
import os
import sys
import time
import tty

HEADER = " bench-agent 1.0  New session"
PLACEHOLDER = " Message the agent"


def draw(*rows: tuple[int, str]) -> None:
    sys.stdout.write("\x1b[2J")
    for row, text in rows:
        sys.stdout.write(f"\x1b[{row};1H{text}")
    sys.stdout.flush()


def main() -> int:
    marks = sys.argv[sys.argv.index("--marks") + 1]
    tty.setraw(0)
    draw((1, HEADER), (38, PLACEHOLDER))
    typed = ""
    while True:
        data = os.read(0, 1024)
        if not data:
            return 0
        if data.startswith(b"\x1b"):
            continue  # a key sequence (shift+tab, home): scrolling never reaches the start
        for byte in data.decode("utf-8", "replace"):
            if byte == "\r":
                draw(
                    (1, " bench-agent 1.0  " + typed),
                    (3, " ⋯ 40 earlier lines of this reply are folded: Enter to show more"),
                    (4, " the tail of the reply ENDMARK001"),
                    (38, PLACEHOLDER),
                )
                with open(marks, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"event": "end", "t": time.time(), "turn": 1}) + "\n")
                typed = ""
            elif byte.isprintable():
                typed += byte
                draw((1, HEADER), (38, " " + typed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
