"""The built-in demo agent: a real ACP agent over stdio that exercises every client feature.

No network and no model: replies are composed from the prompt and streamed in small chunks.
Run it with ``python -m acp_tui.demo_agent [--state-dir DIR] [--chunk-delay S] [--v2-updates]
[--require-auth] [--no-auth-status] [--no-close]``; :func:`demo_agent_argv` builds that command line
for the client and the tests. ``--login`` runs its terminal sign-in step instead of speaking ACP.

It speaks protocol v1 and, to a client that asks for version 2, the v2 draft; every optional
feature is used only when the client advertised it in ``initialize``.

This package must stay light to import (no Textual, no Rich, no pydantic): the agent answers
``initialize`` in well under 300 ms.
"""

from __future__ import annotations

import sys

__all__ = ["DEFAULT_CHUNK_DELAY", "demo_agent_argv"]

DEFAULT_CHUNK_DELAY = 0.015


def demo_agent_argv(
    state_dir: str | None = None,
    chunk_delay: float | None = None,
    v2_updates: bool = False,
    require_auth: bool = False,
    whole_forks_only: bool = False,
    no_auth_status: bool = False,
    cut_replays: bool = False,
    no_close: bool = False,
) -> list[str]:
    """The command line that starts the demo agent with this interpreter."""
    argv = [sys.executable, "-m", "acp_tui.demo_agent"]
    if state_dir is not None:
        argv += ["--state-dir", str(state_dir)]
    if chunk_delay is not None:
        argv += ["--chunk-delay", repr(float(chunk_delay))]
    if v2_updates:
        argv.append("--v2-updates")
    if require_auth:
        argv.append("--require-auth")
    if whole_forks_only:
        argv.append("--whole-forks-only")
    if no_auth_status:
        argv.append("--no-auth-status")
    if cut_replays:
        argv.append("--cut-replays")
    if no_close:
        argv.append("--no-close")
    return argv
