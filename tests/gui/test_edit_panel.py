"""Editing a vocabulary in the app: what an edit breaks is reported before it is applied (the
乌鲁木齐 case), and edits can be undone."""
from __future__ import annotations

import pytest

import tokviz
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.gui.edit_panel import EditPanel, parse_merges


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
    from tokviz.defaults import default_tokenizer_path

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
