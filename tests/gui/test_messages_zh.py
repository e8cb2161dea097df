"""Text made by the layers without Qt (tokviz.messages) is shown in the app's language: the
Overlap verdict, the Fairness notes, the Health notes and reasons, the Edit vocabulary errors and
the trainers' progress, in Chinese when the app speaks Chinese, the same English as before otherwise."""
from __future__ import annotations

import re

import pytest

from tokviz.analysis import fairness, health, overlap
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.gui import i18n
from tokviz.gui.analyses.fairness_view import FairnessView
from tokviz.gui.analyses.overlap_view import OverlapView
from tokviz.gui.panels.edit_panel import EditPanel
from tokviz.gui.panels.merges_health import health_summary
from tokviz.gui.widgets.messages import show
from tokviz.train.options import merge_message

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):
    before = i18n.current_language()
    i18n.install("zh_CN")
    yield
    i18n.install(before)


def _bpe(chars: str, merges) -> Tokenizer:
    vocab = {c: i for i, c in enumerate(chars)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return Tokenizer(BPE(vocab, merges))


def _overlap_report():
    small = _bpe("abcdefgh", [("a", "b"), ("c", "d")])
    big = _bpe("abcdefgh", [("a", "b"), ("c", "d"), ("e", "f"), ("ab", "cd")])
    return overlap.overlap({"small": small, "big": big})


def test_the_overlap_verdict_is_chinese(qtbot, chinese):
    report = _overlap_report()
    english = report.pairs[0].verdict
    assert english.startswith("big extends small: ")
    view = OverlapView()
    qtbot.addWidget(view)
    view._show(report)
    view.select_pair(0)
    shown = view.verdict.text()
    assert "big 扩展自 small：" in shown and "extends" not in shown, shown
    assert CJK.search(view.shown_rows()[0][-1])  # (the table's verdict cell too)


def test_a_fairness_note_and_warning_are_chinese(qtbot, chinese):
    tok = _bpe("abcdefghijklmnopqrstuvwxyz ", [])
    texts = {"en": "the cat sat on the mat\n" * 20, "de": "die katze\n" * 3}
    result = fairness.fairness({"t": tok}, texts, "en")
    result.notes.append(fairness._notes({"ja": fairness.TextFacts(chars=10, bytes=30, lines=1, words=0,
                                                                   unspaced_chars=9, word_chars=10)}, ["ja"])[0])
    assert result.warnings and result.warnings[0].startswith("de: ")
    view = FairnessView()
    qtbot.addWidget(view)
    view._show(result)
    text = view.notes.text()
    assert "内容是否相同（平行）？" in text and "STRR 不适用" in text, text
    assert "non-blank" not in text and "scripts written without" not in text
    view.shutdown()


def test_a_health_note_and_reason_are_chinese(chinese):
    tiktoken_like = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], ignore_merges=True)
    report = health.vocab_health(Tokenizer(tiktoken_like))
    summary = health_summary(report)
    assert "ignore_merges / tiktoken" in summary and "无法生成" in summary and "takes a pre-token" not in summary
    missing = BPE({"乌": 0, "鲁": 1, "乌鲁": 2}, [("乌", "鲁"), ("齐", "乌")])
    [(_, _, _, why)] = health.bad_merges(missing)
    assert show(why) == "组成部分 '齐' 不是词元"
    assert show(merge_message(3, "a", "b", 7)) == "合并 3：'a' + 'b'（7）"


def test_an_edit_error_is_chinese(qtbot, chinese):
    panel = EditPanel()
    qtbot.addWidget(panel)
    panel.set_tokenizer(_bpe("token", [("t", "o"), ("k", "e")]))
    assert not panel.propose("merges", ("t o; k e; k e", None))
    text = panel.summary.text()
    assert "'t o' 已是此模型的合并 0" in text and "'k e' 已是此模型的合并 1" in text and "；" in text, text
    assert "already merge" not in text
    panel.shutdown()


def test_in_english_the_gui_shows_the_english_of_before(qtbot, qapp):
    before = i18n.current_language()
    i18n.install("en")
    try:
        report = _overlap_report()
        view = OverlapView()
        qtbot.addWidget(view)
        view._show(report)
        view.select_pair(0)
        assert view.verdict.text() == f"small vs big: {report.pairs[0].verdict}"
    finally:
        i18n.install(before)
