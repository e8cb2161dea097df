"""`clipped_widgets` without Qt's own editors inside spin boxes and editable combo boxes: Qt lays
them out a few px under a free line edit's size hint by design (the boxes themselves are checked)."""
from __future__ import annotations

from .helpers import clipped_widgets

INNER = ("QLineEdit qt_spinbox_lineedit ", "QLineEdit qt_combo_lineedit ")


def clipped_controls(root) -> list[str]:
    """clipped_widgets(root), less the inner editors of spin boxes and editable combo boxes."""
    from PySide6.QtWidgets import QComboBox

    for box in root.findChildren(QComboBox):
        if box.lineEdit() is not None and not box.lineEdit().objectName():
            box.lineEdit().setObjectName("qt_combo_lineedit")
    return [line for line in clipped_widgets(root) if not line.startswith(INNER)]
