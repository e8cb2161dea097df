"""Pane headers that leave out their last parts instead of clipping (widgets/layout.HeaderLabel)."""
from __future__ import annotations

from PySide6.QtGui import QTextDocumentFragment

from tokviz.gui.widgets.layout import HeaderLabel

TEXT = "<b>Qwen2.5-7B-Instruct</b>&nbsp;&nbsp;<span>HF tokenizers · BPE · byte-level · vocabulary 151,665 · normalizer NFC</span>"


def plain(rich: str) -> str:
    return QTextDocumentFragment.fromHtml(rich).toPlainText()


def test_a_wide_header_shows_everything_and_needs_no_tooltip(qtbot):
    label = HeaderLabel()
    qtbot.addWidget(label)
    label.show()
    label.resize(1200, 30)
    label.setText(TEXT)
    assert label.shown_text() == TEXT and label.toolTip() == ""


def test_a_narrow_header_leaves_out_whole_parts_and_keeps_them_in_its_tooltip(qtbot):
    label = HeaderLabel()
    qtbot.addWidget(label)
    label.show()
    label.setText(TEXT)
    label.resize(260, 30)
    shown = plain(label.shown_text())
    assert shown.endswith(" · …") and shown.startswith("Qwen2.5-7B-Instruct")
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    assert "normalizer NFC" not in shown and "normalizer NFC" in label.toolTip()
    label.resize(1200, 30)
    assert label.shown_text() == TEXT and label.toolTip() == ""


def test_a_tooltip_set_by_its_owner_stays(qtbot):
    label = HeaderLabel()
    qtbot.addWidget(label)
    label.show()
    label.setToolTip("path: /models/qwen")
    label.setText(TEXT)
    label.resize(200, 30)
    assert label.toolTip() == "path: /models/qwen"
