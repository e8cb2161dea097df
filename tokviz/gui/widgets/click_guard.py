"""Buttons that ignore clicks for a moment after they appear or change role.

Where one button takes another's place (Cancel where Train was, Train again when the run ends), a
click meant for the old button can land on the new one: a Cancel clicked as a run ends would start a
new run.  A guarded button ignores mouse presses, Space/Enter and its shortcut for QUIET_MS after it
is shown, enabled, or `arm()`-ed (call it when a button's text or action changes in place).  Nothing
blocks: the guard only compares the time of each press with the time of the last change.

>>> guard_clicks(self.train_button, self.cancel_button)
"""
from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractButton

QUIET_MS = 400

_PRESSES = {QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick, QEvent.Type.Shortcut}
_ACTIVATING_KEYS = {Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Select}


class ClickGuard(QObject):
    """Makes `button` ignore activations for `quiet_ms` after it changes (see the module docstring).
    `clock()`: seconds on a monotonic clock (a test may give its own)."""

    def __init__(self, button: QAbstractButton, quiet_ms: int = QUIET_MS,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__(button)
        self.button = button
        self.quiet_s = quiet_ms / 1000
        self.clock = clock
        self._changed_at = float("-inf")
        self.ignored = 0  # activations ignored so far
        button.installEventFilter(self)

    def arm(self) -> None:
        """The button changed: ignore activations for the quiet time from now."""
        self._changed_at = self.clock()

    def is_quiet(self) -> bool:
        """True while activations are ignored."""
        return self.clock() - self._changed_at < self.quiet_s

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show and not event.spontaneous():
            self.arm()  # (a spontaneous show is the window coming back, not the button appearing)
        elif kind == QEvent.Type.EnabledChange and watched.isEnabled():
            self.arm()
        elif kind in _PRESSES or (kind == QEvent.Type.KeyPress and event.key() in _ACTIVATING_KEYS):
            # (only presses: a release of a press that was ignored finds the button up and does nothing)
            if self.is_quiet():
                self.ignored += 1
                event.accept()
                return True
        return False


def guard_clicks(*buttons: QAbstractButton, quiet_ms: int = QUIET_MS) -> list[ClickGuard]:
    """Guard each of `buttons` (once: a button already guarded keeps its guard)."""
    return [click_guard(b) or ClickGuard(b, quiet_ms) for b in buttons]


def click_guard(button: QAbstractButton) -> ClickGuard | None:
    """The guard of `button`, if it has one."""
    return button.findChild(ClickGuard, options=Qt.FindChildOption.FindDirectChildrenOnly)
