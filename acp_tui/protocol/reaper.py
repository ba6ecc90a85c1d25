"""No process started for an agent outlives acp-tui.

Agents and the terminals they ask for run in their own process groups, and shutdown signals
those groups; but a process that calls ``setsid`` (a daemon, ``setsid sleep &``, ``nohup``
with a double fork) leaves the group, and an agent's children outlive a crashed agent. Three
mechanisms, on Linux:

- **Marking.** Every agent and terminal process gets :data:`OWNER_VAR` in its environment:
  this acp-tui's pid, a random token, and a tag naming the agent or terminal. Descendants
  inherit it, and ``/proc/<pid>/environ`` keeps a process's environment as it was at exec, so
  a process cannot take the mark off itself (only a new program started with a cleared
  environment can, see below).
- **Subreaper.** acp-tui makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``):
  an orphan anywhere below it is re-parented to it rather than to init. Orphans that exit are
  reaped here (:func:`reap`), so a busy agent cannot fill the process table with zombies.
- **Sweeping.** :func:`sweep` kills every process that carries the mark of one agent or
  terminal (when it is released, stopped or crashed) or any of ours (:func:`sweep` with no tag,
  at exit). An orphan re-parented to us that carries no mark (it cleared its environment) is
  killed too, unless it carries :data:`SPARE_VAR` with this process's token: that is set in
  acp-tui's own environment and removed from every agent's, so what acp-tui itself starts for
  the person (a browser opening a link) is never taken for an agent's leftover.

Elsewhere (macOS, the BSDs, Windows) there is no ``/proc`` and no subreaper: process groups
are what the platform gives, and shutdown signals them even after the leader has exited.

Direct children that asyncio waits for are registered (:func:`register`) and never reaped
here, and no zombie is reaped while one is being spawned (:func:`spawning`), so an exit
status asyncio is about to collect is never taken from it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from itertools import count

log = logging.getLogger(__name__)

OWNER_VAR = "ACP_TUI_OWNER"
SPARE_VAR = "ACP_TUI_SPARE"
_PR_SET_CHILD_SUBREAPER = 36
#: Passes of a sweep: each can find processes forked while the previous pass was killing.
_SWEEP_PASSES = 5
#: How long a sweep waits, at most, for processes caught in the middle of an exec to show
#: their environment (an exec takes well under a millisecond; a busy machine can pause one).
_SETTLE_SECONDS = 0.2
#: The states in ``/proc/<pid>/stat`` of a process that has ended: a zombie, or dead.
_ENDED = (b"Z", b"X", b"x")

_token = os.urandom(8).hex()  # not `secrets`: its import costs start-up time
_tags = count(1)
_enabled = False
_registered: set[int] = set()
_spawning = 0


def supported() -> bool:
    """Whether marking, the subreaper and sweeping work here (Linux, with ``/proc``)."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


def enable() -> bool:
    """Make this process a child subreaper and sweep at exit; safe to call again. Returns
    whether it is in force (False where the platform has no such thing)."""
    global _enabled
    if _enabled:
        return True
    if not supported():
        return False
    import ctypes  # here: only a process that starts an agent pays for it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            log.warning("cannot become a child subreaper (errno %d)", ctypes.get_errno())
            return False
    except (OSError, AttributeError):
        return False
    os.environ[SPARE_VAR] = _spare_value()
    _enabled = True
    atexit.register(sweep)
    return True


def new_tag(kind: str) -> str:
    """A tag for one agent or terminal process and its descendants."""
    return f"{kind}-{next(_tags)}"


def child_env(tag: str, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a process started for an agent: ours, then ``overrides``, then
    the mark (which the overrides cannot replace), without the spare mark."""
    env = dict(os.environ)
    if overrides:
        env.update(overrides)
    env.pop(SPARE_VAR, None)
    env[OWNER_VAR] = _owner_value(tag)
    return env


def register(pid: int) -> None:
    """A direct child asyncio waits for: never reaped here."""
    _registered.add(pid)


def unregister(pid: int) -> None:
    _registered.discard(pid)


@contextlib.contextmanager
def spawning() -> Iterator[None]:
    """Around a spawn: its child exists before it can be registered."""
    global _spawning
    _spawning += 1
    try:
        yield
    finally:
        _spawning -= 1


def sweep(tag: str | None = None) -> int:
    """Kill (SIGKILL) every process marked with ``tag`` (or any of ours when None), and every
    unmarked orphan re-parented to us; then reap what is dead. Returns how many were
    signalled. Quick and synchronous: one pass over ``/proc`` per round."""
    if not supported():
        return 0
    wanted = _owner_value(tag) if tag is not None else _owner_value("")
    killed = 0
    passes = 0
    settle_by = time.monotonic() + _SETTLE_SECONDS
    while passes < _SWEEP_PASSES:
        victims: list[int] = []
        unsettled = False
        for pid in _processes():
            verdict = _is_victim(pid, wanted, exact=tag is not None)
            unsettled = unsettled or verdict is None
            if verdict:
                victims.append(pid)
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        if victims:
            passes += 1
        elif not unsettled or time.monotonic() > settle_by:
            break
        else:
            time.sleep(0.001)  # a process in the middle of an exec: look again once it is done
    reap()
    if killed:
        log.info("killed %d leftover process(es) of %s", killed, tag or "acp-tui's agents")
    return killed


def reap() -> int:
    """Collect the exit status of orphans re-parented to us that have exited (never one
    that asyncio waits for). Returns how many were reaped."""
    if not _enabled or _spawning:
        return 0
    reaped = 0
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return reaped
        if info is None or info.si_pid in _registered:
            return reaped  # nothing dead, or asyncio's own (collected by its watcher)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(info.si_pid, os.WNOHANG)
            reaped += 1


def is_marked(pid: int, tag: str | None = None) -> bool:
    """Whether a process carries our mark (``tag``'s, or any of ours). For tests."""
    wanted = _owner_value(tag) if tag is not None else _owner_value("")
    marker = _marker(_environ(pid))
    return marker is not None and (
        marker == wanted if tag is not None else marker.startswith(wanted)
    )


# -- internals -------------------------------------------------------------------------------


def _owner_value(tag: str) -> str:
    return f"{os.getpid()}:{_token}:{tag}"


def _spare_value() -> str:
    return f"{os.getpid()}:{_token}"


def _processes() -> list[int]:
    me = os.getpid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit() and int(name) != me]


def _environ(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return file.read()
    except OSError:
        return None  # gone, or not ours to read (another user): not ours to kill either


def _marker(environ: bytes | None) -> str | None:
    if not environ:
        return None
    prefix = OWNER_VAR.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode("utf-8", "replace")
    return None


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (the state first)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :].split()


def _parent(pid: int) -> int | None:
    fields = _stat_fields(pid)
    if fields is None:
        return None
    try:
        # A zombie (or a dead process) needs reaping only.
        return int(fields[1]) if fields[0] not in _ENDED else None
    except (IndexError, ValueError):
        return None


def _is_victim(pid: int, wanted: str, *, exact: bool) -> bool | None:
    """Whether to kill ``pid``; None when it cannot be told yet (in the middle of an exec)."""
    environ = _environ(pid)
    if environ == b"":
        environ = _empty_environ_confirmed(pid)
        if environ is _UNSETTLED:
            return None
    marker = _marker(environ)
    if marker is not None and (marker == wanted if exact else marker.startswith(wanted)):
        return True
    if not _enabled or pid in _registered or _parent(pid) != os.getpid():
        return False
    # An orphan re-parented to us: an agent's, unless acp-tui itself started it.
    spare = (SPARE_VAR + "=" + _spare_value()).encode()
    return environ is not None and spare not in environ.split(b"\0") and not _is_ours(marker)


#: What :func:`_empty_environ_confirmed` says of a process in the middle of an exec.
_UNSETTLED = b"unsettled"


def _empty_environ_confirmed(pid: int) -> bytes | None:
    """Read again an environment that read empty. During an exec, ``/proc`` shows the new
    program's environment empty until it is laid out; taken at its word, a browser acp-tui
    opened would look like an orphan that cleared its own. It is empty only if it stays so
    while the environment's place in memory (ASLR puts it elsewhere on every exec, and it is 0
    while one is under way) stays the same; else :data:`_UNSETTLED`."""
    before = _environment_span(pid)
    environ = _environ(pid)
    if environ != b"":
        return environ
    after = _environment_span(pid)
    if before is None or after is None:
        return None  # gone, a zombie or a kernel thread: nothing of an agent's to kill
    if before != after or before[1] == b"0":
        return _UNSETTLED
    return environ


#: ``PF_KTHREAD`` in the flags of ``/proc/<pid>/stat``: a kernel thread (no memory of its own,
#: so no environment, ever; listed where acp-tui runs as root outside a container).
_KERNEL_THREAD = 0x00200000


def _environment_span(pid: int) -> tuple[bytes, bytes] | None:
    """Where the process's environment lies in its memory: the start and end addresses, the
    third and second last fields of ``/proc/<pid>/stat``. None for a process that has none to
    wait for: gone, a zombie (or dead) or a kernel thread."""
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 10 or fields[0] in _ENDED:
        return None
    try:
        if int(fields[6]) & _KERNEL_THREAD:
            return None
    except ValueError:
        return None
    return (fields[-3], fields[-2])


def _is_ours(marker: str | None) -> bool:
    """A live mark of ours with another tag: that process belongs to another agent or
    terminal still running, and is swept with it."""
    return marker is not None and marker.startswith(_owner_value(""))
