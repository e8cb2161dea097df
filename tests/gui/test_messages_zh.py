"""Text made by the layers without Qt (tokviz.messages) is shown in the app's language: the
Overlap verdict, the Fairness notes, the Health notes and reasons, the Edit vocabulary errors and
the trainers' progress, in Chinese when the app speaks Chinese, the same English as before otherwise."""
from __future__ import annotations

import os
import re

import pytest

import tokviz
from tokviz.analysis import fairness, health, overlap
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.gui import i18n
from tokviz.gui.analyses.fairness_view import FairnessView
from tokviz.gui.analyses.overlap_view import OverlapView
from tokviz.gui.panels.edit_panel import EditPanel
from tokviz.gui.panels.merges_health import health_summary
from tokviz.errors import TokvizError
from tokviz.gui.panels.train_panel import TrainPanel
from tokviz.gui.views.chat_view import ChatView
from tokviz.gui.widgets.messages import show
from tokviz.gui.work.workers import describe_error, error_text
from tokviz.train import TrainOptions
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


def test_a_missing_file_opened_in_the_app_is_reported_in_chinese(make_window, qtbot, chinese, tmp_path,
                                                                  default_tokenizer_path):
    window = make_window(str(default_tokenizer_path), "hello")
    reports = []
    window.errorReported.connect(lambda title, path, reason: reports.append((title, path, reason)))
    missing = tmp_path / "missing.json"
    window.open_tokenizer(missing)
    qtbot.waitUntil(lambda: bool(reports), timeout=20_000)
    title, path, reason = reports[-1]
    assert (path, reason) == (os.fspath(missing), "没有这个文件或文件夹"), reports
    assert window.errors[-1][1] == f"{missing}\n\n没有这个文件或文件夹" and CJK.search(window.errors[-1][0])
    (tmp_path / "folder").mkdir()
    assert window.open_text_file(tmp_path / "folder") is False
    assert reports[-1][2] == "是文件夹，应为文本文件", reports[-1]
    gz = tmp_path / "tokenizer.json.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00" + bytes(60))
    window.open_tokenizer(gz)
    qtbot.waitUntil(lambda: reports[-1][1] == os.fspath(gz), timeout=20_000)
    assert reports[-1][2] == "该文件是gzip 压缩文件；tokviz 不解压文件：请先解压（gunzip）", reports[-1]


def test_a_chat_template_error_is_chinese(qtbot, chinese, default_tokenizer_path):
    view = ChatView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.set_tokenizer(tokviz.load(default_tokenizer_path))
    shown = blocker.args[0]
    assert shown.startswith("此分词器没有对话模板（tokenizer_config.json、") and "has no chat template" not in shown, shown
    assert shown == view.view.message()
    view.shutdown()


def test_a_training_option_error_is_chinese(qtbot, chinese):
    panel = TrainPanel()
    qtbot.addWidget(panel)
    panel.special_tokens.setText("<a>, <a>")
    assert not panel.start()
    assert panel.status.text() == "在特殊词元和用户定义符号中重复列出：<a>"
    panel.special_tokens.setText("")
    panel.set_files([])
    assert not panel.start() and "listed twice" not in panel.status.text()
    panel.shutdown()


def test_error_text_keeps_the_path_and_translates_the_reason(chinese, tmp_path):
    with pytest.raises(TokvizError) as caught:
        tokviz.load(tmp_path / "nowhere.json")
    assert error_text(caught.value) == f"{tmp_path / 'nowhere.json'}：没有这个文件或文件夹"
    assert describe_error(caught.value) == "没有这个文件或文件夹"
    with pytest.raises(TokvizError) as caught:
        TrainOptions(0)
    assert describe_error(caught.value) == "vocab_size 至少为 1，当前为 0"


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
        with pytest.raises(TokvizError) as caught:
            tokviz.load("/no/such/tokenizer.json")
        assert error_text(caught.value) == str(caught.value) == "/no/such/tokenizer.json: no such file or folder"
        with pytest.raises(TokvizError) as caught:
            TrainOptions(0)
        assert describe_error(caught.value) == "vocab_size must be at least 1, got 0"
    finally:
        i18n.install(before)
