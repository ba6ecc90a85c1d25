"""How a request that needs the person's yes is put to them: the TUI's dialog and headless
stderr say the same thing.

Every value that came from the agent (a path, a command, its arguments, an environment
variable) goes through :func:`acp_tui.text.safety.escaped_line`: one line, unprintable
characters visible, cut with an ellipsis. Labels and the explanation are ours.
"""

from __future__ import annotations

import shlex

from acp_tui.services.paths import OutsideRequest
from acp_tui.text.safety import escaped_line

PATH_LIMIT = 240
COMMAND_LIMIT = 400
ENV_LIMIT = 160
#: Variables listed one per row; the rest are counted (the risky ones are listed first).
MAX_ENV_ROWS = 24

_VERBS = {"read": "read a file", "write": "write a file", "terminal": "run a command"}


def title(request: OutsideRequest) -> str:
    if request.operation == "terminal":
        return "Run this command?"
    return "Outside the project"


def summary(request: OutsideRequest) -> str:
    """What is asked and why it needs a yes, in our words only."""
    reasons = []
    if request.outside:
        where = "its working directory is" if request.operation == "terminal" else "it is"
        reasons.append(f"{where} outside the session's directory")
    if request.risky_env:
        names = ", ".join(escaped_line(name, 40) for name in request.risky_env[:6])
        more = f" and {len(request.risky_env) - 6} more" if len(request.risky_env) > 6 else ""
        verb = "decides" if len(request.risky_env) == 1 else "decide"
        reasons.append(f"it changes {names}{more}, which {verb} what code runs")
    return (
        f"The agent wants to {_VERBS.get(request.operation, request.operation)}; "
        + " and ".join(reasons or ["it needs your permission"])
        + "."
    )


def details(request: OutsideRequest) -> list[tuple[str, str]]:
    """(label, value) rows; every value is the agent's, escaped and cut."""
    rows: list[tuple[str, str]] = []
    if request.operation == "terminal":
        rows.append(("Command", escaped_line(request.command, COMMAND_LIMIT)))
        if request.args:
            rows.append(("Arguments", escaped_line(shlex.join(request.args), COMMAND_LIMIT)))
        rows.append(("Directory", escaped_line(str(request.path), PATH_LIMIT)))
    else:
        rows.append(("File", escaped_line(str(request.path), PATH_LIMIT)))
    if request.requested and request.requested != str(request.path):
        rows.append(("Asked as", escaped_line(request.requested, PATH_LIMIT)))
    if request.roots:
        rows.append(("Project", escaped_line(str(request.roots[0]), PATH_LIMIT)))
    risky = set(request.risky_env)
    ordered = sorted(request.env, key=lambda item: item[0] not in risky)
    for name, value in ordered[:MAX_ENV_ROWS]:
        label = "Env (runs)" if name in risky else "Env"
        rows.append((label, escaped_line(f"{name}={value}", ENV_LIMIT)))
    if len(ordered) > MAX_ENV_ROWS:
        rows.append(("Env", f"… and {len(ordered) - MAX_ENV_ROWS} more variables"))
    return rows


def one_line(request: OutsideRequest) -> str:
    """The whole request on one line, for headless stderr."""
    return (
        summary(request) + " " + "; ".join(f"{label}: {value}" for label, value in details(request))
    )
