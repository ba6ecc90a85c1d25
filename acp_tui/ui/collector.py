"""Full garbage collections while nobody types.

Python collects its oldest generation when enough objects survived the younger ones: during a
long reply that is every few seconds, and each such pass walks every object the session made
(every drawn line of every reply: a 1 MB paragraph is some 150,000 objects), 20-50 ms here
during which no key is echoed. The start-up objects are frozen out of its reach already
(:func:`acp_tui.cli.tui.settle_long_lived_objects`); this takes the oldest generation off the
automatic schedule and collects it on the app's own: once a second it looks, and collects when
no key has been pressed for :data:`TYPING_PAUSE` seconds and the last full pass is
:data:`QUIET_EVERY` seconds old, or in any case when it is :data:`AT_LEAST_EVERY` seconds old (a
flood typed through for minutes still frees its cycles). A pause means seconds without a key,
not an empty prompt or a gap between two words: a person who sends a message and types the
next one at once, or stops to think for half a second, would otherwise meet a pass of 100 ms
and more (measured with a 5 MB reply on screen) on the next key. The young generations are
collected as usual (cheap: they hold only what was made since).

Only the running command line installs it (the tests' many apps share one process and keep
Python's own schedule).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: A full collection when the person is not typing, at most this often (seconds).
QUIET_EVERY = 5.0
#: Seconds without a key that count as a pause in the typing.
TYPING_PAUSE = 2.0
#: A full collection at least this often, typing or not (seconds).
AT_LEAST_EVERY = 30.0
#: The oldest generation's threshold while installed: never reached in practice.
MANUAL = 1_000_000


class IdleCollector:
    """The oldest generation collected on the app's schedule (see the module docstring)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        collect: Callable[[], object] = gc.collect,
    ) -> None:
        self.clock = clock
        self._collect = collect
        self._last = clock()
        self._saved: tuple[int, int, int] | None = None
        #: Full collections made (for tests and the log).
        self.collections = 0

    @property
    def installed(self) -> bool:
        return self._saved is not None

    def install(self) -> None:
        if self._saved is None:
            young, middle, _oldest = self._saved = gc.get_threshold()
            gc.set_threshold(young, middle, MANUAL)
            self._last = self.clock()

    def uninstall(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def tick(self, since_key: float) -> bool:
        """Called about once a second with the seconds since the person last pressed a key:
        collect if it is time (True when it did)."""
        waited = self.clock() - self._last
        typing = since_key < TYPING_PAUSE
        if waited < AT_LEAST_EVERY and (typing or waited < QUIET_EVERY):
            return False
        self._collect()
        self._last = self.clock()
        self.collections += 1
        return True
