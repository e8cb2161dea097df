"""Collecting long-lived garbage once the app is quiet, and giving freed memory back meanwhile.

Tokenizers are frozen out of the collector's way when they arrive (core.gcpause), and a frozen
object in a reference cycle is never collected (tokenizers hold none: tests/test_lifetime.py;
other objects frozen with them may).  So when tokenizers may have been dropped, once nothing has
happened for QUIET_MS, everything is collected once, frozen again, the resting tokenizers' caches
freed and the heaps trimmed.  A full collection of a big heap takes 100+ ms: it waits for quiet,
never right after an encode or a file job, when the user is looking at the result.  Between such
collections the heaps are trimmed every few seconds while their free memory grows."""
from __future__ import annotations

import gc
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer

from ..platform import heap_free_mb, trim_memory

QUIET_MS = 3000
# While the app is in use, the heaps are trimmed (a few ms) every TRIM_EVERY_MS when what they hold
# free grew by more than TRIM_FREE_MB since the last trim: the app runs on glibc's allocator
# (tokviz/launch.py), whose heaps keep what is freed in their middle until trimmed.
TRIM_EVERY_MS = 4000
TRIM_FREE_MB = 32


class IdleCleanup(QObject):
    """`resting()`: the tokenizers open but not in the explorer (Compare panes, the last trained
    one), whose encoders' caches are freed too; they fill again on their next encode.
    `unseen()`: those of them no view shows now, which give up their native encoders and per-id
    tables as well (`Tokenizer.rest`: some 35 MB for a 150k vocabulary; the next encode builds them
    again)."""

    def __init__(self, is_busy: Callable[[], bool], parent: QObject | None = None, *,
                 resting: Callable[[], Iterable] = tuple, unseen: Callable[[], Iterable] = tuple):
        super().__init__(parent)
        self._is_busy = is_busy
        self._resting = resting
        self._unseen = unseen
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(QUIET_MS)
        self.timer.timeout.connect(self._collect)
        self.trim_timer = QTimer(self)
        self.trim_timer.setInterval(TRIM_EVERY_MS)
        self.trim_timer.timeout.connect(self._trim)
        self.trim_timer.start()
        self._free_after_trim = 0.0

    def needed(self, *_args) -> None:
        """Tokenizers may have been dropped: collect once the app is quiet."""
        self.timer.start()

    def activity(self, *_args) -> None:
        """Something happened: a pending collection waits for quiet again."""
        if self.timer.isActive():
            self.timer.start()

    def pending(self) -> bool:
        return self.timer.isActive()

    def stop(self) -> None:
        self.timer.stop()
        self.trim_timer.stop()

    def _trim(self) -> None:
        free = heap_free_mb()
        if free is None:
            return
        if free - self._free_after_trim > TRIM_FREE_MB:
            trim_memory()
            self._free_after_trim = free
        else:
            self._free_after_trim = min(self._free_after_trim, free)  # (reused since: the next growth counts from here)

    def _collect(self) -> None:
        if self._is_busy():
            self.timer.start()
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        unseen = {id(t) for t in self._unseen()}
        for tokenizer in self._resting():
            if id(tokenizer) in unseen:
                tokenizer.rest()
            else:
                tokenizer.release_caches()
        trim_memory()
