"""Editing a vocabulary in the app: what an edit breaks is reported before it is applied (the
乌鲁木齐 case), and edits can be undone."""
from __future__ import annotations

import pytest

import tokviz
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.defaults import default_tokenizer_path
from tokviz.gui.panels.edit_panel import EDITS, PAD_MULTIPLES, EditPanel, parse_merges

from ._inner_editors import clipped_controls
from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, docked, speaking


def _wulumuqi():
    chars = ["乌", "鲁", "木", "齐"]
    merges = [("乌", "鲁"), ("木", "齐"), ("乌鲁", "木齐")]
    vocab = {c: i for i, c in enumerate(chars)}
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return Tokenizer(BPE(vocab, merges))


@pytest.fixture
def panel(qtbot):
    p = EditPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown()


def test_an_edit_that_makes_a_token_unreachable_is_reported_before_it_is_applied(qtbot, panel):
    tok = _wulumuqi()
    assert tok.encode("乌鲁木齐").tokens == ["乌鲁木齐"]
    panel.set_tokenizer(tok)
    panel.set_text("去乌鲁木齐")
    applied = []
    panel.applied.connect(applied.append)
    with qtbot.waitSignal(panel.checked, timeout=30_000) as blocker:
        assert panel.propose("merges", ("鲁 木", 0))
    report = blocker.args[0]
    assert [t for _, t in report.newly_unreachable] == ["乌鲁木齐"]
    assert ("乌鲁木齐", ["乌鲁木齐"], ["乌", "鲁木", "齐"]) in report.changed_words
    assert "unreachable" in panel.summary.text() and panel.summary.text().startswith("⚠")
    assert any("乌鲁木齐" in panel.details.item(k).text() for k in range(panel.details.count()))
    assert not applied and panel.tokenizer() is tok  # nothing applied yet
    panel.apply()
    assert applied and applied[-1].encode("乌鲁木齐").tokens == ["乌", "鲁木", "齐"]
    assert tok.encode("乌鲁木齐").tokens == ["乌鲁木齐"]  # the original is untouched
    panel.undo()
    assert applied[-1] is tok and not panel.undo_button.isEnabled()


def test_other_edits(qtbot, panel):
    tok = tokviz.load(default_tokenizer_path())
    panel.set_tokenizer(tok)
    padded = panel.make_edit("pad", 128)
    assert padded.vocab_size % 128 == 0 and padded.vocab_size >= tok.vocab_size
    special = panel.make_edit("special", "<|im_start|>, <|im_end|>")
    assert special.encode("<|im_start|>hi", allow_special=True).tokens[0] == "<|im_start|>"
    with pytest.raises(tokviz.TokvizError, match="already in the vocabulary"):
        panel.make_edit("special", "<|endoftext|>")
    with pytest.raises(tokviz.TokvizError, match="two tokens"):
        parse_merges("a b c")
    assert not panel.propose("merges", ("nosuchtoken another", None))
    assert "not tokens of this model" in panel.summary.text()


# ---- the inputs each edit takes --------------------------------------------------------------------

INPUTS = {"special": {"argument"}, "tokens": {"argument"}, "remove": {"argument"}, "reserved": {"count"},
          "pad": {"pad_box"}, "merges": {"argument", "rank"}}


def choose(panel, kind: str) -> None:
    panel.kind_box.setCurrentIndex(panel.kind_box.findData(kind))


def test_only_the_inputs_an_edit_uses_are_shown(panel):
    assert set(INPUTS) == set(EDITS)
    fields = {name: getattr(panel, name) for name in ("argument", "count", "pad_box", "rank")}
    for kind, used in INPUTS.items():
        choose(panel, kind)
        shown = {name for name, w in fields.items() if w.isVisibleTo(panel)}
        assert shown == used, kind
        for row in range(panel.form.rowCount()):  # no label without its field, no field without its label
            label = panel.form.itemAt(row, panel.form.ItemRole.LabelRole)
            field = panel.form.itemAt(row, panel.form.ItemRole.FieldRole)
            if label is not None and field is not None:
                assert label.widget().isVisibleTo(panel) == field.widget().isVisibleTo(panel), kind
        rank_label = panel.form.labelForField(panel.rank)
        assert rank_label.isVisibleTo(panel) == (kind == "merges")


def test_pad_offers_the_usual_multiples_and_says_what_each_adds(qtbot, panel):
    tok = _wulumuqi()  # 7 tokens: every multiple offered adds some
    panel.set_tokenizer(tok)
    choose(panel, "pad")
    offered = [int(panel.pad_box.itemText(k)) for k in range(panel.pad_box.count())]
    assert offered == list(PAD_MULTIPLES) and {64, 128} <= set(offered)
    assert int(panel.pad_box.currentText()) in offered
    for m in offered:
        panel.pad_box.setCurrentText(str(m))
        add = -tok.vocab_size % m
        assert f"→ {tok.vocab_size + add:,} tokens: adds {add:,} reserved" in panel.pad_note.text()
    choose(panel, "reserved")
    panel.count.setValue(5)
    choose(panel, "pad")
    assert panel.pad_box.currentText() == str(offered[-1])  # its own value, not the reserved count
    panel.pad_box.setCurrentText("10")  # a multiple of one's own
    assert "→ 10 tokens: adds 3 reserved tokens" in panel.pad_note.text()
    with qtbot.waitSignal(panel.checked, timeout=30_000) as blocker:
        panel.check_button.click()
    assert blocker.args[0].size_after == 10 and len(blocker.args[0].added_tokens) == 3
    panel.pad_box.setCurrentText("")
    assert "whole number" in panel.pad_note.text()


def test_merges_of_one_edit_build_on_each_other_and_the_check_shows_the_new_tokens(qtbot, panel):
    tok = tokviz.load(default_tokenizer_path())
    panel.set_tokenizer(tok)
    panel.set_text("An Apple a day")
    choose(panel, "merges")
    panel.argument.setText("ĠA pple; pp le")  # in the wrong order: 'pple' is made by the second
    panel.check_button.click()
    assert "list it first" in panel.summary.text() and not panel.apply_button.isEnabled()

    panel.argument.setText("pp le; ĠA pple")
    with qtbot.waitSignal(panel.checked, timeout=30_000) as blocker:
        panel.check_button.click()
    report = blocker.args[0]
    ids = [tok.vocab_size, tok.vocab_size + 1]
    assert report.added_tokens == [(ids[0], "pple"), (ids[1], "ĠApple")]
    lines = [panel.details.item(k).text() for k in range(panel.details.count())]
    assert f"{ids[0]:,}  pple" in lines and f"{ids[1]:,}  ·Apple   (ĠApple)" in lines
    before = " | ".join(t.replace(" ", "·") for t in tok.encode(" Apple").tokens)
    assert any(line.startswith("·Apple:") and f"{before}  →  ·Apple" in line for line in lines)
    assert "2 token(s) added" in panel.summary.text()

    panel.argument.setText("pp le; ĠA pple; ")  # another edit than the one checked: Check it again
    assert not panel.apply_button.isEnabled() and panel.details.count() == 0
    with qtbot.waitSignal(panel.checked, timeout=30_000):
        panel.check_button.click()
    with qtbot.waitSignal(panel.applied) as applied:
        panel.apply()
    assert applied.args[0].encode(" Apple").ids == [ids[1]]
    panel.argument.setText("pp le")  # now a merge of the model
    panel.check_button.click()
    assert "already merge" in panel.summary.text()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("dock_width", [340, 420])
def test_docked_panel_fits_a_narrow_dock(qtbot, dock_width, language):
    """In English and in Chinese (whose labels are shorter, and whose sentences wrap anywhere)."""
    with speaking(language):
        _fits_a_narrow_dock(qtbot, dock_width)


def _fits_a_narrow_dock(qtbot, dock_width):
    panel = EditPanel()
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH and hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT
    window, dock = docked(qtbot, panel, dock_width=dock_width)
    try:
        panel.set_tokenizer(tokviz.load(default_tokenizer_path()))
        for kind in EDITS:
            choose(panel, kind)
            qtbot.wait(10)
            assert clipped_controls(panel) == [], kind
            for w in (panel.kind_box, panel.argument, panel.hint, panel.count, panel.pad_box, panel.pad_note,
                      panel.rank, panel.summary, panel.undo_button):
                if w.isVisibleTo(panel):
                    assert w.geometry().right() < panel.width(), (kind, w)
            if kind == "pad":
                note = panel.pad_note
                assert note.text() and note.height() >= note.heightForWidth(note.width())
        assert panel.details.height() >= 300
    finally:
        panel.shutdown()


def test_the_highest_merge_rank_is_the_merge_count_of_a_real_bpe(qtbot, panel, qwen_path):
    tok = tokviz.load(qwen_path)
    panel.set_tokenizer(tok)
    assert panel.rank.maximum() == tok.model.merge_count == len(tok.model.merges) > 100_000


def test_undoing_every_edit_leaves_the_original_as_it_was(qtbot, make_window):
    """Undo back to the tokenizer the edits started from puts it in the explorer again; it is not
    kept as an unsaved copy, and its source still names its own file (other views share it by
    file: the shipped tokenizer named an unsaved file in the next window that opened it)."""
    window = make_window(default_tokenizer_path(), "A text to edit.")
    original = window.tokenizer()
    panel = window.edit_panel
    with qtbot.waitSignal(panel.checked, timeout=30_000):
        assert panel.propose("special", "<|im_start|>")
    panel.apply()
    qtbot.waitUntil(lambda: window.tokenizer() is not original and len(window.unsaved.entries()) == 1, timeout=30_000)
    panel.undo()
    assert window.tokenizer() is original
    qtbot.wait(300)  # (a keep, had one been started, finishes on a worker)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=30_000)
    assert str(original.source.path) == str(default_tokenizer_path())
    assert len(window.unsaved.entries()) == 1  # (the edit, kept until exported or discarded)
