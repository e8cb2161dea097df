"""The Learn tab: stepping through training on the textbook's words, as the tables of tokviz.train.learn say."""
from __future__ import annotations

import pytest

from tokviz.gui.i18n import audit
from tokviz.gui.views.learn_view import SAMPLE, LearnView
from tokviz.train.learn import MAX_WORDS, learn, parse_word_counts
from tokviz.train.learn.markdown import change_sentence
from tokviz.train.options import TrainOptions

from .helpers import speaking

TEXTBOOK = "low:5 lowest:2 new:6 widest:3"


def textbook_run(model: str = "bpe", vocab_size: int = 100_000, **model_options):
    """The run `tokviz learn` makes of the textbook's words (independently of the view)."""
    if model == "bpe":
        model_options = {"end_of_word": "separate", "marker": "</w>", **model_options}
    return learn(model, *parse_word_counts(TEXTBOOK), TrainOptions(vocab_size=vocab_size, min_frequency=2),
                 **model_options)


def settle(qtbot, view: LearnView) -> None:
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=30_000)


def relearn(qtbot, view: LearnView, model: str | None = None, vocab_size: int | None = None) -> None:
    """Change the form, learn again and wait for the new run."""
    before = view.run
    if model is not None:
        view.input.set_model(model)
    if vocab_size is not None:
        view.input.vocab_size.setValue(vocab_size)
    assert view.learn()
    qtbot.waitUntil(lambda: view.run is not before and not view.is_busy(), timeout=30_000)


@pytest.fixture
def view(qtbot):
    view = LearnView()
    qtbot.addWidget(view)
    view.resize(1280, 760)
    view.show()  # (the textbook's words are learned when the view is first shown)
    qtbot.waitUntil(lambda: view.run is not None and not view.is_busy(), timeout=30_000)
    yield view
    view.shutdown()


def test_one_step_shows_the_textbook_tables_and_back_returns(qtbot, view):
    assert view.position == 0 and view.steps() == len(textbook_run().steps)
    view.step_button.click()
    settle(qtbot, view)
    page = view.merge_page
    assert page.pairs.texts(0)[:2] == ["w </w>", "11"]
    assert page.pairs.current_row() == 0 and tuple(page.pairs.cell(0, 0)) == ("w", "</w>")
    assert page.words.texts(0) == ["5", "l o w </w>"]
    assert page.words.cell(0, 1).marked == {2, 3}  # the pair about to be merged, filled in the word
    assert "(+1)" in view.notes.text() and "w</w>" in view.notes.text()
    assert page.vocabulary()[-1] == "w</w>" and page.vocab_box.title().endswith("12 tokens")
    assert view.position_label.text() == f"step 1 of {view.steps()}"
    view.back_button.click()
    settle(qtbot, view)
    assert view.position == 0 and page.pairs.current_row() is None and page.merges.rowCount() == 0
    assert page.words.texts(0) == ["5", "l o w </w>"] and not view.back_button.isEnabled()


def test_step_two_removes_two_symbols_and_says_why(qtbot, view):
    view.set_position(2)
    assert view.merge_page.pairs.texts(0)[:2] == ["l o", "7"]
    assert "11 → 10 (-1)" in view.notes.text()


def test_run_to_end_shows_every_merge_learn_makes_and_why_it_stopped(qtbot, view):
    expected = textbook_run()
    view.end_button.click()
    settle(qtbot, view)
    merges = view.merge_page.merges
    assert [tuple(merges.cell(i, 1)) for i in range(merges.rowCount())] == expected.merges
    assert merges.current_row() == len(expected.merges) - 1
    assert str(expected.stop) in view.notes.text()
    assert not view.step_button.isEnabled() and not view.end_button.isEnabled()
    view.reset_button.click()
    assert view.position == 0


def test_the_sample_is_cut_by_the_tokenizer_as_it_stands_at_each_step(qtbot, view):
    expected = textbook_run()
    for k in (0, 1, 3, len(expected.steps)):
        view.set_position(k)
        settle(qtbot, view)
        assert list(view.token_view.encoding().pieces) == list(expected.tokenizer_at(k).encode(SAMPLE).pieces), k
    view.sample.setText("lowest")
    settle(qtbot, view)
    assert list(view.token_view.encoding().pieces) == list(expected.tokenizer.encode("lowest").pieces)


def test_step_and_back_have_keyboard_shortcuts(view):
    from PySide6.QtGui import QKeySequence

    keys = {b.objectName(): b.shortcut() for b in (view.step_button, view.back_button, view.end_button,
                                                    view.reset_button)}
    assert keys == {"LearnStep": QKeySequence("Ctrl+Right"), "LearnBack": QKeySequence("Ctrl+Left"),
                    "LearnEnd": QKeySequence("Ctrl+End"), "LearnReset": QKeySequence("Ctrl+Home")}
    assert "Ctrl+Right" in view.step_button.toolTip()


def test_wordpiece_shows_scores_and_what_bpe_would_have_merged(qtbot, view):
    relearn(qtbot, view, "wordpiece")
    view.step()
    settle(qtbot, view)
    expected = textbook_run("wordpiece").steps[0]
    pairs = view.merge_page.pairs
    assert pairs.columnCount() == 6
    a, b, ab, ca, cb = expected.scores[0]
    assert [tuple(pairs.cell(0, 0)), *(pairs.cell(0, c) for c in range(1, 5))] == [(a, b), ab, ca, cb, ab / (ca * cb)]
    assert pairs.current_row() == 0 and tuple(pairs.cell(0, 0)) == expected.merge
    assert expected.bpe_pick is not None
    assert f"BPE would merge {expected.bpe_pick[0]} + {expected.bpe_pick[1]}" in view.notes.text()
    tied = [tuple(pairs.cell(i, 0)) for i in sorted(pairs.marked_rows())]
    assert tied == expected.tied and "Tied with" in view.notes.text()


def test_unigram_shows_a_pruning_round_and_the_pieces_it_pruned(qtbot, view):
    relearn(qtbot, view, "unigram", vocab_size=12)
    expected = textbook_run("unigram", vocab_size=12)
    prune = next(s for s in expected.steps if s.kind == "prune")
    view.set_position(prune.number)
    settle(qtbot, view)
    page = view.unigram_page
    assert view.pages.currentWidget() is page
    assert prune.removed and sorted(page.pruned()) == sorted(prune.removed)
    assert [page.pieces.cell(i, 0)[0] for i in range(page.pieces.rowCount())] == [p for p, _ in prune.pieces]
    assert [list(page.segmentations.cell(i, 2)) for i in range(page.segmentations.rowCount())] == [
        ps for _, _, ps in prune.segmentations]
    assert list(view.token_view.encoding().pieces) == list(expected.tokenizer_at(prune.number).encode(SAMPLE).pieces)
    view.set_position(1)
    assert view.headline.text() == "Step 1: seed pieces"


def test_a_bad_word_list_is_said_and_the_view_stays_usable(qtbot, view):
    failures = []
    view.failed.connect(failures.append)
    shown = view.run
    view.input.corpus.setPlainText("low:5 lowest:two")
    view.learn()
    qtbot.waitUntil(lambda: bool(failures), timeout=30_000)
    settle(qtbot, view)
    assert "'lowest:two' is not word:count" in view.status.text()
    assert view.run is shown
    view.step()
    assert view.position == 1
    view.input.corpus.setPlainText(" ".join(f"w{i}:1" for i in range(MAX_WORDS + 1)))
    view.learn()
    qtbot.waitUntil(lambda: len(failures) == 2, timeout=30_000)
    assert f"up to {MAX_WORDS}" in view.status.text()
    view.input.corpus.setPlainText("长长潮潮:3 喜欢吃鱼:2")
    relearn(qtbot, view)
    assert view.run.words == ["长长潮潮", "喜欢吃鱼"] and view.status.styleSheet() == ""


def test_a_text_is_counted_as_the_trainer_counts_its_corpus(qtbot, view):
    from tokviz.train.learn import count_text

    text = "Low, lower; lowest! newer wider 喜欢吃鱼"
    view.input.set_corpus(text, "text")
    relearn(qtbot, view, "wordpiece")
    words, counts = count_text("wordpiece", text, TrainOptions(vocab_size=1))
    assert (view.run.words, view.run.counts) == (words, counts) and "low" in words  # (lower-cased, as BERT's)


def test_byte_level_bpe_counts_with_the_split_pattern_chosen(qtbot, view):
    from tokviz.train.learn import count_text

    text = "lowest 12345 newer"
    view.input.set_corpus(text, "text")
    view.input.pattern.setCurrentIndex(view.input.pattern.findData("cl100k"))
    relearn(qtbot, view, "bytelevel-bpe")
    assert view.run.model_options == {"pattern": "cl100k"}
    assert view.run.words == count_text("bytelevel-bpe", text, TrainOptions(vocab_size=1), pattern="cl100k")[0]
    assert "Ġnewer" in view.run.words and "45" in view.run.words  # (cl100k cuts digits in threes; gpt2 would not)


def test_a_file_opened_goes_in_the_box_as_words_or_text(qtbot, view, tmp_path):
    listed = tmp_path / "counts.txt"
    listed.write_text("low 5\nlowest 2\n", encoding="utf-8")
    before = view.run
    view.open_file(str(listed))
    qtbot.waitUntil(lambda: view.run is not before and not view.is_busy(), timeout=30_000)
    assert view.input.kind.currentData() == "words" and view.run.words == ["low", "lowest"]
    prose = tmp_path / "prose.txt"
    prose.write_text("the lowest of the low", encoding="utf-8")
    before = view.run
    view.open_file(str(prose))
    qtbot.waitUntil(lambda: view.run is not before and not view.is_busy(), timeout=30_000)
    assert view.input.kind.currentData() == "text" and "lowest" in view.run.words
    failures = []
    view.failed.connect(failures.append)
    view.open_file(str(tmp_path / "missing.txt"))
    qtbot.waitUntil(lambda: bool(failures), timeout=30_000)
    assert "missing.txt" in view.status.text()


def test_an_edit_is_learned_by_itself_a_moment_later(qtbot, view):
    before = view.run
    view.input.corpus.setPlainText("low:5 lower:2")
    qtbot.waitUntil(lambda: view.run is not before and not view.is_busy(), timeout=30_000)
    assert view.run.words == ["low", "lower"]


def test_every_step_shows_the_change_sentence_of_the_markdown(qtbot, view):
    for k, step in enumerate(view.run.steps, 1):
        view.set_position(k)
        assert str(change_sentence(step)) in view.notes.text()


def test_runs_replaced_are_let_go(qtbot, view):
    import gc
    import weakref

    first = weakref.ref(view.run)
    for _ in range(3):
        view.input.corpus.setPlainText(f"low:{_ + 2} lowest:2")
        relearn(qtbot, view)
        view.run_to_end()
        settle(qtbot, view)
    gc.collect()
    assert first() is None


def test_the_view_in_chinese_shows_no_english(qtbot):
    with speaking("zh_CN"):
        view = LearnView()
        qtbot.addWidget(view)
        view.resize(1280, 760)
        view.show()
        qtbot.waitUntil(lambda: view.run is not None and not view.is_busy(), timeout=30_000)
        try:
            for model, position in (("bpe", 1), ("bpe", 13), ("wordpiece", 1), ("unigram", 4)):
                relearn(qtbot, view, model, vocab_size=12 if model == "unigram" else 0)
                view.set_position(position)
                settle(qtbot, view)
                left = audit.english_left(view)
                assert not left, (model, [str(x) for x in left])
                assert view.notes.text() and not audit.untranslated(view.notes.text())
        finally:
            view.shutdown()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_tab_of_a_1280x800_window_shows_everything_without_scrolling(qtbot, language):
    from PySide6.QtWidgets import QScrollArea

    from .helpers import clipped_widgets

    with speaking(language):
        view = LearnView()
        qtbot.addWidget(view)
        view.resize(1280, 680)  # (the tab's room in a 1280x800 window with its docks closed)
        view.show()
        qtbot.waitUntil(lambda: view.run is not None and not view.is_busy(), timeout=30_000)
        try:
            for model in ("wordpiece", "unigram"):
                relearn(qtbot, view, model)
                view.set_position(1)
                settle(qtbot, view)
                page = view.findChild(QScrollArea)
                assert not page.horizontalScrollBar().isVisible() and not page.verticalScrollBar().isVisible()
                assert clipped_widgets(view.splitter) == []
        finally:
            view.shutdown()


def test_open_as_tokenizer_puts_it_in_the_explorer(qtbot, make_window, default_tokenizer_path):
    window = make_window(default_tokenizer_path, "lowest newer wider")
    window.tabs.setCurrentWidget(window.learn_view)
    qtbot.waitUntil(lambda: window.learn_view.run is not None and not window.learn_view.is_busy(), timeout=30_000)
    learned = window.learn_view.run.tokenizer
    assert window.learn_view.open_button.isEnabled()
    window.learn_view.open_button.click()
    assert window.controller.tokenizer is learned
    assert window.tabs.currentWidget() is window.splitter
    qtbot.waitUntil(lambda: window.controller.is_up_to_date(), timeout=30_000)
    assert list(window.token_view.encoding().pieces) == list(learned.encode("lowest newer wider").pieces)
