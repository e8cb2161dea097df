"""The Training panel's choice of tie rule reaches the trainer, for the models that merge pairs."""
from __future__ import annotations

import pytest

from tokviz.gui.panels.train_panel import TrainPanel


@pytest.fixture
def panel(qtbot):
    p = TrainPanel()
    qtbot.addWidget(p)
    p.show()
    yield p
    p.shutdown()


def test_tie_rule_choice_is_in_the_options(panel):
    assert panel.options().tie_break == "hf"
    panel.tie_break.setCurrentIndex(panel.tie_break.findData("minbpe"))
    assert panel.options().tie_break == "minbpe"
    for model, shown in (("bpe", True), ("bytelevel-bpe", True), ("wordpiece", True), ("unigram", False)):
        panel.set_model(model)
        assert panel.tie_break.isVisible() == shown, model
